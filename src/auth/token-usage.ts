// When each API token was last used (`last_used_at`), without a database write per request: the
// request gate notes each use in memory, and a timer writes the uses noted since the last write in
// one UPDATE, every TOKEN_LAST_USED_FLUSH_SECONDS (default 60): a token's `lastUsedAt` is written at
// most once per interval and lags its real last use by up to that long. Closing the app writes the
// rest. Each instance of a fleet writes its own uses; a value only ever moves forward.
import type { Prisma } from '../db/database.js';

export interface TokenUsage {
  /** Notes a use of the token (memory only). */
  touch(tokenId: string, at?: Date): void;
  /** Writes the uses noted so far in one statement (none when there are none). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (graceful shutdown). */
  close(): Promise<void>;
}

export function createTokenUsage(
  prisma: Prisma,
  /** `onError`: `final` when no later flush will come (the last, at close): the uses are lost. */
  opts: { intervalMs: number; onError?: (err: unknown, final: boolean) => void },
): TokenUsage {
  let pending = new Map<string, Date>();
  // Flushes run one after another, so two never race over the same rows.
  let chain: Promise<void> = Promise.resolve();

  let closing = false;
  const write = async (): Promise<void> => {
    if (pending.size === 0) return;
    const uses = pending;
    pending = new Map();
    const ids = [...uses.keys()];
    const ats = ids.map((id) => uses.get(id)?.toISOString() ?? null);
    try {
      await prisma.$executeRaw`UPDATE "ApiToken" AS t SET "lastUsedAt" = v."at"
        FROM (SELECT unnest(${ids}::text[]) AS "id", unnest(${ats}::timestamptz[]) AS "at") AS v
        WHERE t."id" = v."id" AND (t."lastUsedAt" IS NULL OR t."lastUsedAt" < v."at")`;
    } catch (err) {
      // Kept for the next flush (a later use of the same token wins).
      for (const [id, at] of uses) {
        const later = pending.get(id);
        if (!later || later < at) pending.set(id, at);
      }
      opts.onError?.(err, closing);
    }
  };

  const flush = (): Promise<void> => {
    chain = chain.then(write);
    return chain;
  };

  const timer = setInterval(() => void flush(), opts.intervalMs);
  // The timer alone never keeps the process alive.
  timer.unref();

  return {
    touch(tokenId, at = new Date()) {
      const seen = pending.get(tokenId);
      if (!seen || seen < at) pending.set(tokenId, at);
    },
    flush,
    async close() {
      clearInterval(timer);
      closing = true;
      await flush();
    },
  };
}

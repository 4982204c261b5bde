// Every API request passes here once, whichever language it speaks: it is authenticated once,
// spends the token's rate-limit budget once, and waits for its tenant's turn at the database.
// Unauthenticated requests spend a per-address budget, so guessing tokens is throttled too.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, bearerToken, type Principal } from '../auth/principal.js';
import type { TokenUsage } from '../auth/token-usage.js';
import type { Prisma } from '../db/database.js';
import { AppError, serviceUnavailable } from '../errors.js';
import type { RateLimitDecision, RateLimiter } from '../rate-limit/rate-limiter.js';
import { clientBudgetKey } from './client-address.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Gives the tenant's turn back (idempotent); called once the answer is on its way. */
    releaseTurn: (() => void) | null;
    /**
     * Waits for another turn of the caller's tenant, given back by calling what it resolves to: a
     * streamed export reads each batch in a turn of its own, after its first answer gave the request's back.
     */
    acquireTurn: ((signal: AbortSignal) => Promise<() => void>) | null;
  }
}

/**
 * At most `limit` requests of one tenant are served at once, so one tenant cannot hold every
 * database connection; the next ones queue in order and give up after `waitMs` with a 503. A turn
 * ends with `release()` or when `signal` aborts (the client went away), whichever comes first.
 */
export function tenantTurns(limit: number, waitMs: number) {
  const lanes = new Map<string, { running: number; queue: (() => void)[] }>();
  const acquire = (key: string, signal: AbortSignal): Promise<() => void> => {
    let lane = lanes.get(key);
    if (!lane) {
      lane = { running: 0, queue: [] };
      lanes.set(key, lane);
    }
    const own = lane;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      signal.removeEventListener('abort', release);
      const next = own.queue.shift();
      if (next) next();
      else if (--own.running === 0) lanes.delete(key);
    };
    const granted = (): (() => void) => {
      if (signal.aborted) release();
      else signal.addEventListener('abort', release, { once: true });
      return release;
    };
    if (own.running < limit) {
      own.running++;
      return Promise.resolve(granted());
    }
    return new Promise((resolve, reject) => {
      const give = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(granted());
      };
      const giveUp = (why: string): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const at = own.queue.indexOf(give);
        if (at >= 0) own.queue.splice(at, 1);
        // The 503's log line says why (probe F: it had no reason).
        reject(serviceUnavailable(new Error(why)));
      };
      const onAbort = () => giveUp('the client went away while waiting for its tenant’s turn');
      const timer = setTimeout(
        () =>
          giveUp(
            `all ${limit} database turns of the tenant stayed taken for DB_CONNECT_TIMEOUT_MS (${waitMs} ms)`,
          ),
        waitMs,
      );
      signal.addEventListener('abort', onAbort, { once: true });
      own.queue.push(give);
    });
  };
  return {
    acquire,
    /** Requests of `key` running and waiting (tests, diagnostics). */
    load: (key: string) => ({
      running: lanes.get(key)?.running ?? 0,
      waiting: lanes.get(key)?.queue.length ?? 0,
    }),
  };
}

export type TenantTurns = ReturnType<typeof tenantTurns>;

function rateHeaders(reply: FastifyReply, d: RateLimitDecision): void {
  reply.header('X-RateLimit-Limit', String(d.limit));
  reply.header('X-RateLimit-Remaining', String(d.remaining));
}

/** Spends one of `key`'s budget: the X-RateLimit headers, and 429 (RATE_LIMITED) once it is spent. */
export async function spendBudget(limiter: RateLimiter, key: string, reply: FastifyReply): Promise<void> {
  const decision = await limiter.consume(key);
  rateHeaders(reply, decision);
  if (!decision.allowed) {
    throw new AppError('RATE_LIMITED', {
      headers: {
        'Retry-After': String(decision.resetSeconds),
        'X-RateLimit-Reset': String(decision.resetAt),
      },
    });
  }
}

/** `usage` notes each authenticated request's token (its `lastUsedAt`, written later in a batch). */
export function requestGate(prisma: Prisma, limiter: RateLimiter, turns: TenantTurns, usage?: TokenUsage) {
  /** `requireAuth: false` (unknown routes): spend the budget and set the headers, but let the caller through. */
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    opts: { requireAuth?: boolean } = {},
  ): Promise<void> => {
    let principal: Principal | null = null;
    let authError: AppError | null = null;
    try {
      principal = await authenticate(prisma, bearerToken(request.headers.authorization));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      authError = err;
    }
    await spendBudget(
      limiter,
      principal ? `token:${principal.tokenId}` : clientBudgetKey(request.ip, request.socket?.remoteAddress),
      reply,
    );
    if (authError && opts.requireAuth !== false) throw authError;
    request.principal = principal;
    if (principal) {
      usage?.touch(principal.tokenId);
      // The turn ends when the answer is sent (see app.ts) or the connection closes, on every path.
      // A connection closing after the answer aborts nothing (an abort builds a DOMException).
      const gone = new AbortController();
      let answered = false;
      reply.raw.once('close', () => {
        if (!answered) gone.abort();
      });
      if (reply.raw.destroyed) gone.abort();
      const release = await turns.acquire(principal.tenantId, gone.signal);
      const tenantId = principal.tenantId;
      request.acquireTurn = (signal) => turns.acquire(tenantId, signal);
      request.releaseTurn = () => {
        answered = true;
        release();
      };
    }
  };
}

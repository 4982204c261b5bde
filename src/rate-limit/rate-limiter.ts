import { Redis, type RedisOptions } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  /** The budget per window. */
  limit: number;
  /** Never negative. */
  remaining: number;
  /** Whole seconds until the window resets (>= 1 when blocked; >= 0 otherwise). */
  resetSeconds: number;
  /** Unix epoch seconds when the window resets. */
  resetAt: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
  /** Read without spending (for diagnostics/tests). */
  peek(key: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export interface CreateRateLimiterOptions {
  /** Budget per token per 60 s fixed window; must be a positive integer. */
  perMinute: number;
  /** When set (and `redis` is not), a Redis client is created and owned by the limiter. */
  redisUrl?: string;
  /** Defaults to `rl`; Redis keys are `<keyPrefix>:<token id>`. */
  keyPrefix?: string;
  /** Caller-owned client; takes precedence over `redisUrl` and is never closed by the limiter. */
  redis?: Redis;
}

const WINDOW_SECONDS = 60;

// Fail fast instead of hanging a request: the gateway maps a thrown error to a 500.
const REDIS_TIMEOUT_MS = 2_000;

/**
 * The offline queue stays on (the default) so a consume issued right after creation simply waits for the
 * connection instead of failing with "Stream isn't writeable" — no startup race, no async factory.
 * The wait is bounded: commandTimeout starts when the command is issued (queued or not), and
 * maxRetriesPerRequest: 1 flushes queued commands after two failed connection attempts (ECONNREFUSED
 * fails in ~100 ms). The client keeps reconnecting in the background, so the limiter recovers by itself.
 */
const OWNED_CLIENT_OPTIONS: RedisOptions = {
  enableOfflineQueue: true,
  connectTimeout: REDIS_TIMEOUT_MS,
  commandTimeout: REDIS_TIMEOUT_MS,
  maxRetriesPerRequest: 1,
  // Default backoff grows to 2 s; keep reconnects snappy so recovery after an outage is quick.
  retryStrategy: (times) => Math.min(times * 100, 1_000),
};

export function createRateLimiter(opts: CreateRateLimiterOptions): RateLimiter {
  const { perMinute, redisUrl, keyPrefix = 'rl' } = opts;
  if (!Number.isInteger(perMinute) || perMinute <= 0) {
    throw new Error(`Rate limiter: perMinute must be a positive integer, got ${String(perMinute)}`);
  }

  let client: Redis | undefined = opts.redis;
  let ownsClient = false;
  let lastConnectionError: Error | undefined;
  if (!client && redisUrl) {
    client = new Redis(redisUrl, OWNED_CLIENT_OPTIONS);
    ownsClient = true;
    // Without a listener ioredis logs every failed reconnect; keep the cause for the error we throw instead.
    client.on('error', (err: Error) => {
      lastConnectionError = err;
    });
    client.on('ready', () => {
      lastConnectionError = undefined;
    });
  }

  const limiter: RateLimiterAbstract = client
    ? new RateLimiterRedis({ storeClient: client, keyPrefix, points: perMinute, duration: WINDOW_SECONDS })
    : new RateLimiterMemory({ keyPrefix, points: perMinute, duration: WINDOW_SECONDS });

  const storeError = (op: string, err: unknown): Error => {
    const cause = err instanceof Error ? err : new Error(String(err));
    // host:port only: the URL may carry a password.
    const where = client ? ` (Redis ${client.options.host ?? '?'}:${client.options.port ?? '?'})` : '';
    const connection = lastConnectionError ? `; last connection error: ${lastConnectionError.message}` : '';
    return new Error(`Rate limiter ${op} failed${where}: ${cause.message}${connection}`, { cause });
  };

  const decision = (allowed: boolean, remaining: number, msBeforeNext: number): RateLimitDecision => {
    // Clamp the library's -1 (no expiry); a blocked caller is always told to wait at least 1 s.
    const ms = allowed ? Math.max(0, msBeforeNext) : Math.max(1, msBeforeNext);
    return {
      allowed,
      limit: perMinute,
      remaining: Math.max(0, remaining),
      resetSeconds: Math.ceil(ms / 1000),
      resetAt: Math.ceil((Date.now() + ms) / 1000),
    };
  };

  let closed = false;

  return {
    async consume(key) {
      try {
        const res = await limiter.consume(key);
        return decision(true, res.remainingPoints, res.msBeforeNext);
      } catch (err) {
        // The library rejects with a RateLimiterRes when the budget is spent, with an Error on store failure.
        if (err instanceof RateLimiterRes) return decision(false, 0, err.msBeforeNext);
        throw storeError('consume', err);
      }
    },

    async peek(key) {
      let res: RateLimiterRes | null;
      try {
        res = await limiter.get(key);
      } catch (err) {
        throw storeError('peek', err);
      }
      // No record: no window open yet, the whole budget is available.
      if (!res) return decision(true, perMinute, 0);
      // "allowed" answers whether the next consume would pass.
      return decision(res.consumedPoints < perMinute, res.remainingPoints, res.msBeforeNext);
    },

    async close() {
      if (closed) return;
      closed = true;
      if (!client || !ownsClient) return;
      if (client.status === 'ready') {
        try {
          await client.quit();
          return;
        } catch {
          // Fall through: force the socket closed.
        }
      }
      // quit() on a reconnecting client would wait for the connection; just drop it.
      client.disconnect();
    },
  };
}

import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { connectRedis, type RedisLink, type RedisLog } from '../redis/redis.js';

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
  /** When set (and `redis` is not), a Redis connection is opened and owned by the limiter. */
  redisUrl?: string;
  /** Defaults to `rl`; Redis keys are `<keyPrefix>:<token id>`. */
  keyPrefix?: string;
  /** Caller-owned connection; takes precedence over `redisUrl` and is never closed by the limiter. */
  redis?: RedisLink;
  /** Where an owned connection reports its outages. */
  log?: RedisLog;
}

const WINDOW_SECONDS = 60;

export function createRateLimiter(opts: CreateRateLimiterOptions): RateLimiter {
  const { perMinute, redisUrl, keyPrefix = 'rl' } = opts;
  if (!Number.isInteger(perMinute) || perMinute <= 0) {
    throw new Error(`Rate limiter: perMinute must be a positive integer, got ${String(perMinute)}`);
  }

  const owned = !opts.redis && redisUrl ? connectRedis(redisUrl, opts.log) : undefined;
  const redis = opts.redis ?? owned;

  // Per-instance counters: the whole store without Redis, the stand-in while Redis is away (the
  // shared budget resumes when it returns; counts spent meanwhile are not carried over).
  const memory = new RateLimiterMemory({ keyPrefix, points: perMinute, duration: WINDOW_SECONDS });
  const shared = redis
    ? new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix,
        points: perMinute,
        duration: WINDOW_SECONDS,
        // A command that fails (Redis lost mid-request, timeout) is answered from memory.
        insuranceLimiter: memory,
      })
    : undefined;
  // During a known outage, memory at once: no request waits for a command bound to fail.
  const store = (): RateLimiterAbstract => (shared && !redis?.down ? shared : memory);

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
        const res = await store().consume(key);
        return decision(true, res.remainingPoints, res.msBeforeNext);
      } catch (err) {
        // The library rejects with a RateLimiterRes when the budget is spent (store failures reach memory).
        if (err instanceof RateLimiterRes) return decision(false, 0, err.msBeforeNext);
        throw err;
      }
    },

    async peek(key) {
      const res: RateLimiterRes | null = await store().get(key);
      // No record: no window open yet, the whole budget is available.
      if (!res) return decision(true, perMinute, 0);
      // "allowed" answers whether the next consume would pass.
      return decision(res.consumedPoints < perMinute, res.remainingPoints, res.msBeforeNext);
    },

    async close() {
      if (closed) return;
      closed = true;
      await owned?.close();
    },
  };
}

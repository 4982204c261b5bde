import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimiter } from '../../src/rate-limit/rate-limiter.js';
import { REDIS_URL, redisAnswers } from '../helpers/redis.js';

const hasRedis = await redisAnswers();

const open: RateLimiter[] = [];
function track(limiter: RateLimiter): RateLimiter {
  open.push(limiter);
  return limiter;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

describe('createRateLimiter', () => {
  it('rejects a non-positive budget', () => {
    expect(() => createRateLimiter({ perMinute: 0 })).toThrow(/perMinute/);
    expect(() => createRateLimiter({ perMinute: -5 })).toThrow(/perMinute/);
  });
});

describe('memory rate limiter', () => {
  it('allows the budget, then blocks', async () => {
    const limiter = track(createRateLimiter({ perMinute: 3 }));
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.consume('tok_a'));
    expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).toEqual([
      [true, 2, 3],
      [true, 1, 3],
      [true, 0, 3],
    ]);

    const blocked = await limiter.consume('tok_a');
    expect(blocked.allowed).toBe(false);
    expect(blocked.remaining).toBe(0);
    expect(blocked.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(blocked.resetSeconds).toBeLessThanOrEqual(60);
    const nowSec = Date.now() / 1000;
    expect(blocked.resetAt).toBeGreaterThan(nowSec);
    expect(blocked.resetAt).toBeLessThanOrEqual(Math.ceil(nowSec) + 60);
  });

  it('keeps separate budgets per key', async () => {
    const limiter = track(createRateLimiter({ perMinute: 1 }));
    expect((await limiter.consume('tok_a')).allowed).toBe(true);
    expect((await limiter.consume('tok_a')).allowed).toBe(false);
    expect((await limiter.consume('tok_b')).allowed).toBe(true);
  });

  it('peek does not spend', async () => {
    const limiter = track(createRateLimiter({ perMinute: 2 }));
    expect(await limiter.peek('tok_a')).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 0 });
    await limiter.consume('tok_a');
    expect(await limiter.peek('tok_a')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.peek('tok_a')).toMatchObject({ allowed: true, remaining: 1 });
    await limiter.consume('tok_a');
    expect(await limiter.peek('tok_a')).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe.skipIf(!hasRedis)('redis rate limiter', () => {
  it('shares one budget across instances on the same Redis', async () => {
    const keyPrefix = `rl-test-${randomUUID()}`;
    const a = track(createRateLimiter({ perMinute: 3, redisUrl: REDIS_URL, keyPrefix }));
    const b = track(createRateLimiter({ perMinute: 3, redisUrl: REDIS_URL, keyPrefix }));

    // Issued right after creation: must not race the connection.
    expect(await a.consume('tok_shared')).toMatchObject({ allowed: true, remaining: 2 });
    expect(await a.consume('tok_shared')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await b.consume('tok_shared')).toMatchObject({ allowed: true, remaining: 0 });

    const blocked = await b.consume('tok_shared');
    expect(blocked.allowed).toBe(false);
    expect(blocked.remaining).toBe(0);
    expect(blocked.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(blocked.resetSeconds).toBeLessThanOrEqual(60);
    expect(await a.peek('tok_shared')).toMatchObject({ allowed: false, remaining: 0 });

    expect((await a.consume('tok_other')).allowed).toBe(true);
  });

  it('uses a caller-provided client without closing it', async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const limiter = createRateLimiter({ perMinute: 1, redis, keyPrefix: `rl-test-${randomUUID()}` });
      expect((await limiter.consume('tok')).allowed).toBe(true);
      expect((await limiter.consume('tok')).allowed).toBe(false);
      await limiter.close();
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });
});

describe('unreachable redis', () => {
  it('consume rejects with an Error instead of hanging or allowing', async () => {
    const limiter = track(createRateLimiter({ perMinute: 3, redisUrl: 'redis://127.0.0.1:1' }));
    const started = Date.now();
    const err = await limiter.consume('tok').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/Rate limiter consume failed \(Redis 127\.0\.0\.1:1\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 10_000);

  it('peek rejects too', async () => {
    const limiter = track(createRateLimiter({ perMinute: 3, redisUrl: 'redis://127.0.0.1:1' }));
    await expect(limiter.peek('tok')).rejects.toThrow(/Rate limiter peek failed/);
  }, 10_000);
});

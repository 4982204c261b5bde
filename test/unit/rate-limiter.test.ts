import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimiter } from '../../src/rate-limit/rate-limiter.js';
import { connectRedis, REDIS_TIMEOUT_MS, type RedisLog } from '../../src/redis/redis.js';
import { REDIS_URL, redisAnswers } from '../helpers/redis.js';
import { hasRedisServer, type OwnRedis, ownRedis } from '../helpers/redis-server.js';

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

  it('uses a caller-provided connection without closing it', async () => {
    const redis = connectRedis(REDIS_URL);
    try {
      const limiter = createRateLimiter({ perMinute: 1, redis, keyPrefix: `rl-test-${randomUUID()}` });
      expect((await limiter.consume('tok')).allowed).toBe(true);
      expect((await limiter.consume('tok')).allowed).toBe(false);
      await limiter.close();
      expect(await redis.client.ping()).toBe('PONG');
    } finally {
      await redis.close();
    }
  });
});

describe('unreachable redis', () => {
  it('counts in memory, promptly, and logs the outage once', async () => {
    const log = recordingLog();
    const limiter = track(createRateLimiter({ perMinute: 2, redisUrl: 'redis://127.0.0.1:1', log: log.log }));
    const started = Date.now();
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.consume('tok'));
    expect(decisions.map((d) => [d.allowed, d.remaining, d.limit])).toEqual([
      [true, 1, 2],
      [true, 0, 2],
      [false, 0, 2],
    ]);
    expect(await limiter.peek('tok')).toMatchObject({ allowed: false, remaining: 0 });
    expect(Date.now() - started).toBeLessThan(5_000);
    // Several reconnect attempts later, still one line.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(log.warn).toHaveLength(1);
    expect(log.warn[0]).toMatchObject({
      redis: '127.0.0.1:1',
      reason: expect.stringMatching(/ECONNREFUSED/),
    });
  }, 10_000);
});

describe.skipIf(!hasRedisServer)('redis outage (own redis-server)', () => {
  let server: OwnRedis;
  beforeAll(async () => {
    server = await ownRedis();
    await server.start();
  });
  afterAll(async () => {
    await server?.kill();
  });

  it('falls back to per-instance counters while Redis is away, shares the budget again after', async () => {
    const logA = recordingLog();
    const a = connectRedis(server.url, logA.log);
    const b = connectRedis(server.url);
    try {
      const la = track(createRateLimiter({ perMinute: 3, redis: a }));
      const lb = track(createRateLimiter({ perMinute: 3, redis: b }));
      expect(await la.consume('tok')).toMatchObject({ allowed: true, remaining: 2 });
      expect(await lb.consume('tok')).toMatchObject({ allowed: true, remaining: 1 });

      await server.kill();
      await until(() => a.down && b.down);
      expect(await a.health()).toBe('degraded');
      // Each instance counts on its own now: a full budget each.
      const during = [];
      for (let i = 0; i < 4; i++) during.push((await la.consume('tok')).allowed);
      expect(during).toEqual([true, true, true, false]);
      expect((await lb.consume('tok')).remaining).toBe(2);
      // A command nobody awaits fails without ending the process (vitest fails on unhandled rejections).
      void a.client.publish('nobody', 'x');

      await server.start();
      await until(() => !a.down && !b.down);
      expect(await a.health()).toBe('ok');
      // Redis restarted empty: one fresh budget for both again.
      expect(await la.consume('tok')).toMatchObject({ allowed: true, remaining: 2 });
      expect(await lb.consume('tok')).toMatchObject({ allowed: true, remaining: 1 });
      expect(await la.consume('tok')).toMatchObject({ allowed: true, remaining: 0 });
      expect((await lb.consume('tok')).allowed).toBe(false);

      expect(logA.warn).toHaveLength(1);
      expect(logA.info).toHaveLength(1);
      expect(logA.warn[0]).toMatchObject({ redis: `127.0.0.1:${server.port}`, outages: 1 });
      expect(a.stats()).toMatchObject({ outages: 1 });
    } finally {
      await a.close();
      await b.close();
    }
  }, 30_000);

  it('treats a Redis that hangs as away: one request waits out the timeout, the next ones do not', async () => {
    const log = recordingLog();
    const link = connectRedis(server.url, log.log);
    try {
      const limiter = track(createRateLimiter({ perMinute: 3, redis: link }));
      expect(await limiter.consume('hang')).toMatchObject({ allowed: true, remaining: 2 });
      server.pause();
      let started = Date.now();
      // The command times out (REDIS_TIMEOUT_MS) and is answered from memory.
      expect((await limiter.consume('hang')).allowed).toBe(true);
      expect(Date.now() - started).toBeLessThan(REDIS_TIMEOUT_MS + 1_000);
      expect(link.down).toBe(true);
      started = Date.now();
      expect((await limiter.consume('hang')).allowed).toBe(true);
      expect(Date.now() - started).toBeLessThan(200);
      expect(await link.health(500)).toBe('degraded');
      server.resume();
      await until(() => !link.down);
      expect(await link.health()).toBe('ok');
      // Back on the shared counter: 1 spent before the hang, this one, and perhaps the timed-out one
      // (it sat in the stopped server's socket buffer and runs when it resumes).
      const after = await limiter.consume('hang');
      expect(after.allowed).toBe(true);
      expect([0, 1]).toContain(after.remaining);
      expect(log.warn).toEqual([expect.objectContaining({ reason: 'command timed out', outages: 1 })]);
      expect(log.info).toHaveLength(1);
    } finally {
      server.resume();
      await link.close();
    }
  }, 30_000);

  it('closes a link to a Redis that hangs within the command timeout, its subscriber too (probe F)', async () => {
    // The subscriber has no command timeout: its QUIT waited for good, and a stop ran into
    // SHUTDOWN_TIMEOUT_SECONDS, exit 1.
    const link = connectRedis(server.url);
    await link.subscriber().subscribe('a-channel');
    expect(await link.client.ping()).toBe('PONG');
    server.pause();
    try {
      const started = Date.now();
      const closed = await Promise.race([
        link.close().then(() => 'closed'),
        new Promise((resolve) => setTimeout(resolve, REDIS_TIMEOUT_MS + 3_000, 'still waiting').unref()),
      ]);
      expect(closed).toBe('closed');
      expect(Date.now() - started).toBeLessThan(REDIS_TIMEOUT_MS + 1_000);
    } finally {
      server.resume();
    }
  }, 30_000);
});

/** A logger that keeps what it is given. */
function recordingLog(): { log: RedisLog; warn: object[]; info: object[] } {
  const warn: object[] = [];
  const info: object[] = [];
  return { log: { warn: (o) => void warn.push(o), info: (o) => void info.push(o) }, warn, info };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

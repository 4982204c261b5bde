// The database number of REDIS_URL (`redis://host:6379/2`): a Redis that answers and refuses it
// (`ERR DB index is out of range`) stops the start; met later (Redis away at start, or back with
// fewer databases), its connections are dropped and tried again, /health says degraded, and no
// command reaches database 0, shared with whoever else uses that Redis.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisLog, redisDatabaseRefusal, redisWhere } from '../src/redis/redis.js';
import { startApp } from './helpers/app.js';
import { migratedMemoryDatabase } from './helpers/pglite-template.js';
import { killAll, startServer } from './helpers/processes.js';
import { freePort, hasRedisServer, ownRedisForSuite } from './helpers/redis-server.js';

if (!hasRedisServer) console.warn('redis-database.test.ts skipped: redis-server is not installed');

/** Keys in database `db` of the suite's Redis, read on a connection of the test's own. */
async function keysIn(url: string, db: number): Promise<string[]> {
  const reader = new Redis(`${url}/${db}`, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await reader.connect();
    return await reader.keys('*');
  } finally {
    reader.disconnect();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The link's log lines, as pino would get them. */
function recordingLog(): RedisLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    warn: (obj, msg) => lines.push(`warn ${msg} ${JSON.stringify(obj)}`),
    info: (obj, msg) => lines.push(`info ${msg} ${JSON.stringify(obj)}`),
  };
}

it('REDIS_URL is named without its password', () => {
  expect(redisWhere('redis://user:secret@redis.internal:6380/2')).toBe('redis://redis.internal:6380/2');
});

describe.skipIf(!hasRedisServer)('REDIS_URL database number', { timeout: 60_000 }, () => {
  const redis = ownRedisForSuite();
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gateway-redis-db-'));
  });
  afterAll(async () => {
    killAll();
    await rm(dir, { recursive: true, force: true });
  });

  it('a database Redis refuses: the connection is dropped before any command, health degraded, nothing in database 0', async () => {
    const log = recordingLog();
    const link = connectRedis(`${redis.url}/99`, log);
    try {
      // Issued at once, so queued until the connection is ready: the moment it would go to database 0.
      const queued = link.client.set('refused-db-key', 'x').then(
        () => 'stored',
        (err: Error) => err.message,
      );
      expect(await queued).not.toBe('stored');
      await sleep(1_500);
      expect(await keysIn(redis.url, 0)).toEqual([]);
      expect(await link.health()).toBe('degraded');
      expect(link.down).toBe(true);
      // One line for the outage, saying why; never "reachable again" while it lasts.
      const lines = log.lines.join('\n');
      expect(lines).toContain(
        'warn Redis (REDIS_URL) refused database 99: rate limit on per-instance counters',
      );
      expect(lines).toContain('"reason":"ERR DB index is out of range"');
      expect(lines).not.toContain('reachable again');
      expect(link.stats().outages).toBe(1);
    } finally {
      await link.close();
    }
    // A database it has: the keys go there, and nowhere else.
    const ok = connectRedis(`${redis.url}/3`);
    try {
      expect(await ok.client.set('accepted-db-key', 'x')).toBe('OK');
      expect(await ok.health()).toBe('ok');
      expect(ok.down).toBe(false);
      expect(await keysIn(redis.url, 3)).toEqual(['accepted-db-key']);
      expect(await keysIn(redis.url, 0)).toEqual([]);
    } finally {
      await ok.close();
    }
  });

  it('a password this Redis does not ask for: one warn line in the log, no plain-text console warning (probe Z4)', async () => {
    const log = recordingLog();
    const printed: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      printed.push(args);
    };
    const link = connectRedis(`${redis.url.replace('redis://', 'redis://:needless@')}/4`, log);
    try {
      link.subscriber();
      expect(await link.client.set('needless-password-key', 'x')).toBe('OK');
      expect(await link.health()).toBe('ok');
      expect(link.down).toBe(false);
      expect(printed).toEqual([]);
      expect(log.lines).toEqual([
        `warn REDIS_URL gives a password this Redis does not ask for: it is not used {"redis":"${redis.url}/4"}`,
      ]);
    } finally {
      console.warn = warn;
      await link.close();
    }
  });

  it('a Redis that hangs, then answers again, is one outage: one warn line, one info line (the timed-out command, sent again on the new connection, dropped it: a second outage; probe O)', async () => {
    const log = recordingLog();
    const link = connectRedis(redis.url, log);
    try {
      // The subscriber too, as the service holds one.
      link.subscriber();
      expect(await link.client.set('hang-key', 'x')).toBe('OK');
      await expect.poll(() => link.health()).toBe('ok');
      redis.pause();
      try {
        await expect(link.client.get('hang-key')).rejects.toThrow('Command timed out');
        await sleep(2_000);
      } finally {
        redis.resume();
      }
      await expect.poll(() => link.health(), { timeout: 10_000 }).toBe('ok');
      await sleep(1_000);
      expect(log.lines.map((l) => l.split(':')[0])).toEqual([
        'warn Redis (REDIS_URL) unreachable',
        'info Redis reachable again',
      ]);
      expect(link.stats().outages).toBe(1);
      expect(await link.client.get('hang-key')).toBe('x');
    } finally {
      await link.close();
    }
  });

  it('Redis away at start and back refusing the database: /health stays degraded', async () => {
    await redis.kill();
    const own = await startApp({ REDIS_URL: `${redis.url}/99` }, { db: await migratedMemoryDatabase() });
    try {
      expect((await own.request('GET', '/health')).json.redis).toBe('degraded');
      await redis.start();
      // The client retries at least every second: a few tries with Redis up.
      await sleep(3_000);
      const health = await own.request('GET', '/health');
      expect(health.status).toBe(200);
      expect(health.text).toBe('{"status":"ok","database":"ok","redis":"degraded"}');
      await own.request('GET', '/api/v1/locations');
      expect(await keysIn(redis.url, 0)).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('the start stops, naming REDIS_URL and Redis’s reason, exit 1', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dir,
      PORT: String(await freePort()),
      REDIS_URL: `${redis.url}/99`,
    };
    delete env.DATABASE_URL;
    const run = await startServer(env).exited(20_000);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `Cannot start: REDIS_URL redis://127.0.0.1:${redis.port}/99: ERR DB index is out of range`,
    );
  });
});

describe.skipIf(!hasRedisServer)('REDIS_URL credentials Redis refuses', { timeout: 60_000 }, () => {
  const redis = ownRedisForSuite();

  it('are a refusal at the start, as a refused database number is (probe F: the service started degraded for good)', async () => {
    const admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await admin.connect();
    try {
      await admin.config('SET', 'requirepass', 'right-secret');
      const port = new URL(redis.url).port;
      const wrong = await redisDatabaseRefusal(`redis://:wrong-secret@127.0.0.1:${port}/1`);
      expect(wrong).toMatch(/^WRONGPASS /);
      expect(await redisDatabaseRefusal(`redis://:right-secret@127.0.0.1:${port}/1`)).toBeUndefined();
      // Nothing listening: an outage, not a refusal (the service starts degraded).
      expect(await redisDatabaseRefusal(`redis://127.0.0.1:${await freePort()}/1`, 500)).toBeUndefined();
    } finally {
      await admin.config('SET', 'requirepass', '');
      admin.disconnect();
    }
  });
});

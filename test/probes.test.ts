// /health/live and /health/ready, for an orchestrator: exact statuses and bodies while the database
// (and Redis, with REDIS_URL) answers, when it does not, and once shutdown has begun. /health keeps
// its own contract (test/http-edge.test.ts, test/redis-outage.test.ts).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { sample } from './helpers/metrics.js';
import { migratedMemoryDatabase } from './helpers/pglite-template.js';
import { hasRedisServer, ownRedisForSuite } from './helpers/redis-server.js';

if (!hasRedisServer)
  console.warn('probes.test.ts: the Redis cases are skipped: redis-server is not installed');

async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('probes while everything answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '1' });
  });
  afterAll(() => t.close());

  it('live: 200 {"status":"ok"}', async () => {
    const res = await t.request('GET', '/health/live');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBe('{"status":"ok"}');
  });

  it('ready: 200 with the database named', async () => {
    const res = await t.request('GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"status":"ok","database":"ok"}');
  });

  it('/health answers as before', async () => {
    const res = await t.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"status":"ok","database":"ok"}');
  });

  it('are not counted by the rate limit (1 a minute here)', async () => {
    for (let i = 0; i < 4; i++) {
      for (const url of ['/health/live', '/health/ready', '/health']) {
        const res = await t.request('GET', url);
        expect(res.status, url).toBe(200);
        expect(res.headers['x-ratelimit-limit'], url).toBeUndefined();
      }
    }
  });

  it('take GET (and HEAD) only', async () => {
    expect((await t.request('HEAD', '/health/ready')).status).toBe(200);
    const post = await t.request('POST', '/health/live');
    expect(post.status).toBe(404);
    expect(post.text).toBe('{"message":"Not Found."}');
  });
});

describe('ready when the database does not answer', () => {
  it('answers 503 naming it, while live stays 200', async () => {
    const own = await startApp({}, { db: await migratedMemoryDatabase() });
    try {
      expect((await own.request('GET', '/health/ready')).status).toBe(200);
      await own.db.close();
      const ready = await own.request('GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.text).toBe('{"status":"unavailable","database":"unreachable"}');
      const live = await own.request('GET', '/health/live');
      expect(live.status).toBe(200);
      expect(live.text).toBe('{"status":"ok"}');
    } finally {
      await own.close(); // the database was passed in, so it is not closed twice
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'answers 503 when the PostgreSQL server is unreachable (PostgreSQL only)',
    async () => {
      const unreachable = await openDatabase({ url: 'postgresql://nobody@127.0.0.1:1/none', migrate: false });
      const own = await startApp({}, { db: unreachable });
      try {
        const ready = await own.request('GET', '/health/ready');
        expect(ready.status).toBe(503);
        expect(ready.text).toBe('{"status":"unavailable","database":"unreachable"}');
        expect((await own.request('GET', '/health/live')).status).toBe(200);
      } finally {
        await own.close();
        await unreachable.close();
      }
    },
  );
});

describe.skipIf(!hasRedisServer)('ready with REDIS_URL', () => {
  const redis = ownRedisForSuite();

  it('is 503 while Redis is away (/health stays 200), 200 again when it returns', async () => {
    const own = await startApp({ REDIS_URL: redis.url, METRICS_TOKEN: 'metrics-token-0123456789abcdef' });
    const ready = () => own.request('GET', '/health/ready');
    const metrics = async () =>
      (await own.request('GET', '/metrics', { token: 'metrics-token-0123456789abcdef' })).text;
    try {
      await until('ready', async () => (await ready()).status === 200);
      expect((await ready()).text).toBe('{"status":"ok","database":"ok","redis":"ok"}');
      expect(sample(await metrics(), 'redis_connected')).toBe(1);

      await redis.kill();
      await until('not ready', async () => (await ready()).status === 503);
      expect((await ready()).text).toBe('{"status":"unavailable","database":"ok","redis":"degraded"}');
      const health = await own.request('GET', '/health');
      expect(health.status).toBe(200);
      expect(health.text).toBe('{"status":"ok","database":"ok","redis":"degraded"}');
      expect((await own.request('GET', '/health/live')).text).toBe('{"status":"ok"}');
      // The gauge follows the clients' own connection events, which may trail the probe's ping.
      await until('redis_connected 0', async () => sample(await metrics(), 'redis_connected') === 0);
      expect(sample(await metrics(), 'redis_outages_total')).toBe(1);

      await redis.start();
      await until('ready again', async () => (await ready()).status === 200, 20_000);
      expect((await ready()).text).toBe('{"status":"ok","database":"ok","redis":"ok"}');
      await until('redis_connected 1', async () => sample(await metrics(), 'redis_connected') === 1);
    } finally {
      await own.close();
    }
  }, 60_000);
});

/** Sends raw HTTP/1.1 on one connection and collects whatever comes back. */
function rawConnection(
  port: number,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => {
      received += d.toString();
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
  });
}

describe('ready during shutdown', () => {
  it('answers 503 from the moment draining begins; new connections are refused', async () => {
    const t = await startApp();
    let closing: Promise<void> | undefined;
    try {
      const { token } = await newTenant(t.db.prisma);
      const address = await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
      const port = Number(new URL(address).port);
      expect((await fetch(`${address}/health/ready`)).status).toBe(200);

      // A request in flight (its body half sent) keeps the drain going; the probe is pipelined
      // behind it on the same connection, as a probe on a kept-alive connection arrives.
      const conn = await rawConnection(port);
      const body = '{"name":"Drain probe"}';
      conn.socket.write(
        `POST /api/v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((r) => setTimeout(r, 300));
      const warn = vi.spyOn(t.app.fastify.log, 'warn');
      closing = t.app.close();
      await new Promise((r) => setTimeout(r, 100));
      await expect(fetch(`${address}/health/live`)).rejects.toThrow();

      conn.socket.write(`${body.slice(5)}GET /health/ready HTTP/1.1\r\nHost: x\r\n\r\n`);
      await conn.closed;
      const [first, second] = conn.received().split(/(?=HTTP\/1\.1 )/);
      expect(first).toMatch(/^HTTP\/1\.1 201 /); // the request in flight was served in full
      expect(second).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(second).toMatch(/\r\nConnection: close\r\n/i);
      expect(second).toMatch(/\r\nRetry-After: 5\r\n/i);
      // It names its request, as every answer does.
      expect(second).toMatch(/\r\nX-Request-Id: \S+\r\n/i);
      // The contract's 503 (decisions.md), not fastify's own body.
      expect(second?.endsWith('\r\n\r\n{"message":"Service Unavailable"}')).toBe(true);
      // Its log line says why, as every 503's does.
      expect(warn.mock.calls.map((c) => c[0])).toContain(
        'request answered 503 Service Unavailable: the server is stopping',
      );
      warn.mockRestore();
      await closing;
    } finally {
      await (closing ?? t.app.close());
      await t.db.close();
    }
  });
});

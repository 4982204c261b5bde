// One caller must not be able to starve the database, and a database that is down or slow answers
// 503 with Retry-After (REST) / SERVICE_UNAVAILABLE (GraphQL), never 500. The length limits run on
// both databases; the outage, timeout and fairness tests need PostgreSQL (a TCP proxy of our own
// sits between the app and the shared server, which is never stopped).
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, hearConnectionErrors, openDatabase } from '../src/db/database.js';
import { toAppError } from '../src/errors.js';
import { routeTable } from '../src/rest/route-table.js';
import type { Rule } from '../src/validation/validator.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { onMaintenanceDb, scratchDatabase } from './helpers/scratch-database.js';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js';

const PG_URL = process.env.TEST_DATABASE_URL;

/** The bound of a filter that takes free text (a `string` rule, no list of choices), or undefined. */
function textBound(rules: readonly Rule[]): number | undefined {
  const names = rules.map((r) => r.name);
  if (!names.includes('string') || names.includes('in')) return undefined;
  return rules.find((r) => r.name === 'max')?.doc?.max ?? Number.POSITIVE_INFINITY;
}

const textFilters = routeTable.flatMap((r) =>
  r.method === 'GET' && r.endpoint.filters
    ? Object.entries(r.endpoint.filters).flatMap(([field, rules]) => {
        const max = textBound(rules);
        return max === undefined ? [] : [{ path: r.path, field, max }];
      })
    : [],
);

describe('free-text filters are bounded (422, REST and GraphQL)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    // The legacy analytics paths take filters too, until their sunset.
    t = await startApp({ LEGACY_ANALYTICS_SUNSET: '2999-01-01' });
    token = (await newTenant(t.db.prisma)).token;
  });
  afterAll(() => t.close());

  it('every free-text filter of every list and count declares a maximum length', () => {
    expect(textFilters.length).toBeGreaterThan(40);
    const unbounded = textFilters.filter((f) => !Number.isFinite(f.max));
    expect(unbounded).toEqual([]);
  });

  it('every one answers 422 one character past its bound, and not at it', async () => {
    for (const { path, field, max } of textFilters) {
      const url = `/api/v1${path.replace(/:[^/]+/g, 'x')}`;
      const attribute = field.replaceAll('_', ' ');
      const message = `The ${attribute} field must not be greater than ${max} characters.`;
      const over = await t.request('GET', `${url}?${field}=${'a'.repeat(max + 1)}`, { token });
      expect(over.status, `${path} ${field}`).toBe(422);
      expect(over.json.errors[field], `${path} ${field}`).toContain(message);
      // At the bound the length passes (other rules, a MAC's shape, may still refuse it).
      const at = await t.request('GET', `${url}?${field}=${'a'.repeat(max)}`, { token });
      expect(at.json?.errors?.[field] ?? [], `${path} ${field} at the bound`).not.toContain(message);
    }
  }, 120_000);

  it('REST: a 256-character guest name filter is refused with Laravel body', async () => {
    const res = await t.request('GET', `/api/v1/guests?name=${'n'.repeat(256)}`, { token });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: 'The name field must not be greater than 255 characters.',
      errors: { name: ['The name field must not be greater than 255 characters.'] },
    });
  });

  it('GraphQL: a 500 kB guests(name:) filter is refused before any query', async () => {
    const res = await t.graphql(
      token,
      'query($n: String) { guests(first: 5, name: $n) { totalCount edges { node { id } } } }',
      { n: 'x'.repeat(500_000) },
    );
    expect(res.status).toBe(200);
    expect(res.json.data).toBeNull();
    expect(res.json.errors).toHaveLength(1);
    expect(res.json.errors[0].message).toBe('The name field must not be greater than 255 characters.');
    expect(res.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { name: ['The name field must not be greater than 255 characters.'] },
    });
  });

  it('GraphQL: other list filters too (users email, advertisements url)', async () => {
    const users = await t.graphql(token, 'query($e: String) { users(email: $e) { totalCount } }', {
      e: 'e'.repeat(256),
    });
    expect(users.json.errors[0].extensions.fields).toEqual({
      email: ['The email field must not be greater than 255 characters.'],
    });
    const ads = await t.graphql(token, 'query($u: String) { advertisements(url: $u) { totalCount } }', {
      u: 'u'.repeat(2049),
    });
    expect(ads.json.errors[0].extensions.fields).toEqual({
      url: ['The url field must not be greater than 2048 characters.'],
    });
  });

  it('the OpenAPI document shows the bound', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json;
    const name = doc.paths['/guests'].get.parameters.find((p: { name: string }) => p.name === 'name');
    expect(name.schema).toMatchObject({ type: 'string', maxLength: 255 });
  });
});

describe('tenant turns release on every path (both databases)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // One request of a tenant at a time and a short wait: a turn never given back shows as a 503.
    t = await startApp({ TENANT_DB_CONCURRENCY: '1', DB_CONNECT_TIMEOUT_MS: '2000' });
  });
  afterAll(() => t.close());

  it('errors, 404s and successes of one tenant, many at once, are all served in turn', async () => {
    const { token } = await newTenant(t.db.prisma);
    const requests = Array.from({ length: 24 }, (_, i) => {
      if (i % 4 === 0) return t.request('GET', `/api/v1/guests?name=${'n'.repeat(300)}`, { token });
      if (i % 4 === 1) return t.request('GET', '/api/v1/guests/missing', { token });
      if (i % 4 === 2) return t.graphql(token, '{ locations(first: 1) { totalCount } }');
      return t.request('GET', '/api/v1/locations', { token });
    });
    const statuses = (await Promise.all(requests)).map((r) => r.status);
    expect(statuses.filter((s) => s === 422)).toHaveLength(6);
    expect(statuses.filter((s) => s === 404)).toHaveLength(6);
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    // Every turn was given back: the next request does not wait.
    const started = Date.now();
    expect((await t.request('GET', '/api/v1/locations', { token })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('a request of a client that went away gives its turn back', async () => {
    const { token } = await newTenant(t.db.prisma);
    const address = await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
    for (let i = 0; i < 5; i++) {
      const abort = new AbortController();
      const pending = fetch(`${address}/api/v1/locations`, {
        headers: { authorization: `Bearer ${token}` },
        signal: abort.signal,
      }).catch(() => null);
      abort.abort();
      await pending;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await fetch(`${address}/api/v1/locations`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });

  it('so does one that went away while sending its body (probe I: its turn was held for good)', async () => {
    const { token } = await newTenant(t.db.prisma);
    // Listening since the test before, or now when run alone.
    if (!t.app.fastify.server.listening) await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.fastify.server.address() as { port: number }).port;
    const address = `http://127.0.0.1:${port}`;
    const parts: [string, string][] = [
      ['application/json', '{"name":"half'],
      [
        'multipart/form-data; boundary=b',
        '--b\r\nContent-Disposition: form-data; name="file"; filename="g.csv"\r\n\r\nname\r\n',
      ],
    ];
    for (const [type, part] of parts) {
      const path = type.startsWith('multipart') ? '/api/v1/guests/import' : '/api/v1/locations';
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
              `Content-Type: ${type}\r\nContent-Length: 100000\r\n\r\n${part}`,
          );
          setTimeout(() => socket.destroy(), 300);
        });
        socket.on('error', reject);
        socket.on('close', () => resolve());
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const res = await fetch(`${address}/api/v1/locations/count`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(t.app.running()).toEqual([]);
  });
});

const UNAVAILABLE_GRAPHQL = {
  errors: [{ message: 'Service Unavailable', extensions: { code: 'SERVICE_UNAVAILABLE' } }],
};

describe.skipIf(!PG_URL)('PostgreSQL down, hung or slow: 503 (skipped without TEST_DATABASE_URL)', () => {
  let proxy: TcpProxy;
  let db: Database;
  let t: TestApp;
  let token: string;
  let other: string;
  beforeAll(async () => {
    const target = new URL(PG_URL ?? '');
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    db = await openDatabase({
      url: proxy.url(PG_URL ?? ''),
      migrate: false,
      poolSize: 4,
      statementTimeoutMs: 1000,
      connectTimeoutMs: 1000,
    });
    t = await startApp({ DB_CONNECT_TIMEOUT_MS: '1000', TENANT_DB_CONCURRENCY: '2' }, { db });
    token = (await newTenant(db.prisma)).token;
    other = (await newTenant(db.prisma)).token;
  });
  afterAll(async () => {
    await proxy?.set('pass');
    await t?.close();
    await db?.close();
    await proxy?.close();
  });

  async function expectUnavailable(): Promise<void> {
    const rest = await t.request('GET', '/api/v1/locations', { token });
    expect(rest.status).toBe(503);
    expect(rest.text).toBe('{"message":"Service Unavailable"}');
    expect(rest.headers['retry-after']).toBe('5');
    const gql = await t.graphql(token, '{ locations(first: 1) { totalCount } }');
    expect(gql.status).toBe(503);
    expect(gql.json).toEqual(UNAVAILABLE_GRAPHQL);
    expect(gql.headers['retry-after']).toBe('5');
  }

  /** The service answers again within a few seconds of the database coming back. */
  async function expectRecovered(): Promise<void> {
    const until = Date.now() + 8000;
    let status = 0;
    while (Date.now() < until) {
      status = (await t.request('GET', '/api/v1/locations', { token })).status;
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    expect((await t.request('GET', '/health')).status).toBe(200);
    const gql = await t.graphql(token, '{ locations(first: 1) { totalCount } }');
    expect(gql.json.errors).toBeUndefined();
  }

  it('refused connections: 503 with Retry-After, SERVICE_UNAVAILABLE, /health 503; then recovery', async () => {
    expect((await t.request('GET', '/api/v1/locations', { token })).status).toBe(200);
    await proxy.set('refuse');
    try {
      await expectUnavailable();
      expect((await t.request('GET', '/health')).status).toBe(503);
    } finally {
      await proxy.set('pass');
    }
    await expectRecovered();
  });

  it('a database that stops answering: 503 within the timeouts, not minutes; then recovery', async () => {
    expect((await t.request('GET', '/api/v1/locations', { token })).status).toBe(200);
    await proxy.set('hang');
    try {
      const started = Date.now();
      await expectUnavailable();
      // Pool wait 1 s, statement 1 s + 2 s client margin, for two requests in a row; generous.
      expect(Date.now() - started).toBeLessThan(12_000);
    } finally {
      await proxy.set('pass');
    }
    await expectRecovered();
  }, 40_000);

  it('a statement past statement_timeout answers 503 (SQLSTATE 57014)', async () => {
    const err = await db.prisma.$queryRaw`SELECT pg_sleep(3)`.then(
      () => null,
      (e: unknown) => e,
    );
    const app = toAppError(err);
    expect(app?.code).toBe('SERVICE_UNAVAILABLE');
    expect(app?.headers).toEqual({ 'Retry-After': '5' });

    // A real request stuck behind a row lock held by another session.
    const a = await newTenant(db.prisma);
    const location = await db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Locked venue' },
    });
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('UPDATE "Location" SET "name" = "name" WHERE "id" = $1', [location.id]);
      // An app of its own whose log lines are read: each names its request (reqId).
      const log: Record<string, unknown>[] = [];
      const logged = await startApp(
        { DB_CONNECT_TIMEOUT_MS: '1000', TENANT_DB_CONCURRENCY: '2' },
        { db, log },
      );
      const warnings = () =>
        log.filter((l) => Number(l.level) >= 40).map((l) => ({ level: l.level, reqId: l.reqId, msg: l.msg }));
      const started = Date.now();
      try {
        const res = await logged.request('PUT', `/api/v1/locations/${location.id}`, {
          token: a.token,
          body: { name: 'Renamed venue' },
        });
        expect(res.status).toBe(503);
        expect(res.text).toBe('{"message":"Service Unavailable"}');
        expect(res.headers['retry-after']).toBe('5');
        expect(Date.now() - started).toBeLessThan(5000);
        // An expected answer under overload: one warn line with the reason and the request's id, no
        // error with its stack.
        const msg = 'request answered 503 Service Unavailable: canceling statement due to statement timeout';
        expect(warnings()).toEqual([{ level: 40, reqId: res.headers['x-request-id'], msg }]);
        // The same through GraphQL (probe F2: its line had no request id).
        const gql = await logged.graphql(
          a.token,
          'mutation($id: ID!) { updateLocation(id: $id, input: { name: "Renamed venue" }) { id } }',
          { id: location.id },
        );
        expect(gql.status).toBe(503);
        expect(gql.headers['x-request-id']).not.toBe(res.headers['x-request-id']);
        expect(warnings().slice(1)).toEqual([{ level: 40, reqId: gql.headers['x-request-id'], msg }]);
      } finally {
        await logged.close();
      }
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  });

  it("one tenant's stuck requests cannot hold every connection: another tenant is served at once", async () => {
    const a = await newTenant(db.prisma);
    const location = await db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Busy venue' } });
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('UPDATE "Location" SET "name" = "name" WHERE "id" = $1', [location.id]);
      const warn = vi.spyOn(t.app.fastify.log, 'warn');
      // Ten requests of tenant A, each blocked in the database (the pool has four connections).
      const heavy = Array.from({ length: 10 }, () =>
        t.request('PUT', `/api/v1/locations/${location.id}`, {
          token: a.token,
          body: { name: 'Busy venue 2' },
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      const light: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        const res = await t.request('GET', '/api/v1/locations', { token: other });
        expect(res.status).toBe(200);
        light.push(Date.now() - started);
      }
      expect(Math.max(...light)).toBeLessThan(800);
      const answers = await Promise.all(heavy);
      // Blocked ones hit the statement timeout, queued ones the bounded wait: both a 503 with Retry-After.
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
      }
      // Each 503 logs its reason, the queued ones theirs too (probe F: they had none).
      const reasons = warn.mock.calls.map((c) => String(c[0]));
      expect(reasons).toHaveLength(10);
      expect(reasons.filter((r) => r === 'request answered 503 Service Unavailable')).toEqual([]);
      expect(reasons).toContain(
        'request answered 503 Service Unavailable: all 2 database turns of the tenant stayed taken for DB_CONNECT_TIMEOUT_MS (1000 ms)',
      );
      warn.mockRestore();
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  }, 30_000);

  it('/health answers while one tenant floods the pool', async () => {
    const a = await newTenant(db.prisma);
    const location = await db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Flooded venue' },
    });
    const locker = new pg.Client({ connectionString: PG_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('UPDATE "Location" SET "name" = "name" WHERE "id" = $1', [location.id]);
      const heavy = Array.from({ length: 10 }, () =>
        t.request('PUT', `/api/v1/locations/${location.id}`, { token: a.token, body: { name: 'Flooded 2' } }),
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      const started = Date.now();
      const health = await t.request('GET', '/health');
      expect(health.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(800);
      await Promise.all(heavy);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
  }, 30_000);
});

describe.skipIf(!PG_URL)(
  'the database dropped under the service: 503 (skipped without TEST_DATABASE_URL)',
  () => {
    it('REST and GraphQL answer 503 with Retry-After, as /health does (SQLSTATE 57P04 / 3D000), not 500', async () => {
      const scratch = await scratchDatabase('dropped');
      const t = await startApp({ DB_CONNECT_TIMEOUT_MS: '1000' }, { db: scratch.db });
      try {
        const { token } = await newTenant(scratch.db.prisma);
        expect((await t.request('GET', '/api/v1/locations', { token })).status).toBe(200);
        const name = new URL(scratch.url ?? '').pathname.slice(1);
        await onMaintenanceDb((c) => c.query(`DROP DATABASE "${name}" WITH (FORCE)`));
        for (let i = 0; i < 2; i++) {
          // The first request meets the dropped connection (57P04 or class 08), the next a new one (3D000).
          const rest = await t.request('GET', '/api/v1/locations', { token });
          expect(rest.status, rest.text).toBe(503);
          expect(rest.headers['retry-after']).toBe('5');
        }
        const gql = await t.graphql(token, '{ locations(first: 1) { totalCount } }');
        expect(gql.status).toBe(503);
        expect(gql.json).toEqual(UNAVAILABLE_GRAPHQL);
        expect((await t.request('GET', '/health')).status).toBe(503);
      } finally {
        await t.close();
        await scratch.drop();
      }
    }, 30_000);
  },
);

describe.skipIf(!PG_URL)('the health check near max_connections (skipped without TEST_DATABASE_URL)', () => {
  it("keeps answering while the request pool's idle connections hold every slot of the role (probe F)", async () => {
    const role = `health_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 3`);
    const url = new URL(PG_URL as string);
    url.username = role;
    const limited = await openDatabase({ url: url.toString(), migrate: false, poolSize: 10 });
    try {
      // The health check's connection is made at the start (not at the first check): one of the three.
      await new Promise((r) => setTimeout(r, 300));
      // A flood takes the other two (the rest are refused by the server); they stay idle in the pool.
      const flood = await Promise.allSettled(
        Array.from({ length: 6 }, () => limited.rows('SELECT pg_sleep(0.2)', [])),
      );
      expect(flood.filter((r) => r.status === 'fulfilled').length).toBeGreaterThan(0);
      expect(flood.some((r) => r.status === 'rejected')).toBe(true);
      expect(limited.poolStats()?.idle).toBe(2);
      // The first check, with every other slot taken.
      await expect(limited.ping()).resolves.toBeUndefined();
    } finally {
      await limited.close();
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    }
  });
});

describe.skipIf(!PG_URL)('a session the server ends (skipped without TEST_DATABASE_URL)', () => {
  const terminate = (pid: number) =>
    onMaintenanceDb((c) => c.query('SELECT pg_terminate_backend($1)', [pid]));

  it('ended while its client is handed out, before its taker listens, it does not end the process (probe F)', async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
    hearConnectionErrors(pool);
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ended = new Promise((resolve) => client.once('end', resolve));
      // Unheard, its FATAL message was thrown from the socket's read and ended the server.
      await terminate(rows[0]?.pid as number);
      await ended;
      client.release(new Error('lost'));
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('a transaction whose session ends answers 503, at its next statement as at once (probe F: 500)', async () => {
    const db = await openDatabase({ url: PG_URL as string, migrate: false, poolSize: 2 });
    try {
      for (const waitMs of [0, 300]) {
        const failure = await db.prisma
          .$transaction(async (tx) => {
            const [own] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
            await terminate(own?.pid as number);
            await new Promise((resolve) => setTimeout(resolve, waitMs));
            await tx.$queryRaw`SELECT 1`;
          })
          .then(
            () => null,
            (err: unknown) => err,
          );
        expect(toAppError(failure)?.code, `${waitMs} ms: ${String(failure)}`).toBe('SERVICE_UNAVAILABLE');
      }
    } finally {
      await db.close();
    }
  });
});

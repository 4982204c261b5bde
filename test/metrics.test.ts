// GET /metrics: off unless configured, the token it asks for on PORT, the METRICS_PORT listener of
// the real server, and series whose counts match the requests a test sends, label set by label set.
// On PGlite, or on TEST_DATABASE_URL (the pool's series then too).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { FIELD_LIMITS } from '../src/graphql/field-rate-limit.js';
import { MAX_NAME_LENGTH, MAX_OPERATION_NAMES } from '../src/metrics/graphql.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { sample, samplesOf } from './helpers/metrics.js';
import { freePort, killAll, startServer, waitUntilUp } from './helpers/processes.js';

const PG = process.env.TEST_DATABASE_URL;
const TOKEN = 'metrics-token-0123456789abcdef';
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

async function scrape(t: TestApp): Promise<string> {
  const res = await t.request('GET', '/metrics', { token: TOKEN });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(PROMETHEUS_TEXT);
  return res.text;
}

describe('METRICS_TOKEN and METRICS_PORT settings', () => {
  it('are off by default and read when set', () => {
    const off = loadConfig({});
    expect(off.metricsToken).toBeUndefined();
    expect(off.metricsPort).toBeUndefined();
    const on = loadConfig({ METRICS_TOKEN: TOKEN, METRICS_PORT: '9464' });
    expect(on.metricsToken).toBe(TOKEN);
    expect(on.metricsPort).toBe(9464);
    expect(loadConfig({ METRICS_TOKEN: '', METRICS_PORT: '' }).metricsPort).toBeUndefined();
  });

  it.each(['short', 'has a space in it, 0123456789', 'non-ascii-ééééééééééééé', 'tab\there-0123456789'])(
    'refuses METRICS_TOKEN %j naming the variable',
    (raw) => {
      expect(() => loadConfig({ METRICS_TOKEN: raw })).toThrow(ConfigError);
      expect(() => loadConfig({ METRICS_TOKEN: raw })).toThrow(
        'METRICS_TOKEN must be at least 16 characters, without spaces or non-ASCII characters.',
      );
    },
  );

  it.each(['0', '65536', 'abc', '-1', '80.5'])('refuses METRICS_PORT %j naming the variable', (raw) => {
    expect(() => loadConfig({ METRICS_PORT: raw })).toThrow(
      `METRICS_PORT must be an integer from 1 to 65535; got "${raw}".`,
    );
  });

  it('refuses a METRICS_PORT equal to PORT', () => {
    expect(() => loadConfig({ PORT: '4000', METRICS_PORT: '4000' })).toThrow(
      'METRICS_PORT must differ from PORT (4000).',
    );
  });
});

describe('GET /metrics on PORT', () => {
  it('is 404 when METRICS_TOKEN is not set', async () => {
    const t = await startApp();
    try {
      for (const token of [undefined, TOKEN]) {
        const res = await t.request('GET', '/metrics', { token });
        expect(res.status).toBe(404);
        expect(res.text).toBe('{"message":"Not Found."}');
      }
    } finally {
      await t.close();
    }
  });

  describe('with METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '2' });
    });
    afterAll(() => t.close());

    it.each([
      ['no Authorization header', undefined, '10.0.0.1'],
      ['another token', 'Bearer metrics-token-0123456789abcdeX', '10.0.0.2'],
      ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`, '10.0.0.3'],
      ['the token without Bearer', TOKEN, '10.0.0.4'],
      ['Basic credentials', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`, '10.0.0.5'],
    ])('answers 401 to %s', async (_what, authorization, remoteAddress) => {
      // Each from an address of its own: a refusal spends its address's budget (2 a minute here).
      const res = await t.app.fastify.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization === undefined ? {} : { authorization },
        remoteAddress,
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toBe('{"message":"Unauthenticated."}');
    });

    it('answers the Prometheus text with the token, process series included', async () => {
      const text = await scrape(t);
      expect(text).toContain('# TYPE http_requests_total counter');
      expect(text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(text).toContain('# TYPE graphql_operations_total counter');
      expect(text).toContain('# TYPE db_statement_duration_seconds histogram');
      expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      // Refusals start at 0 for every reason, so rate() works from the first scrape.
      expect(samplesOf(text, 'rate_limit_refusals_total')).toEqual({
        'reason=graphql_field_limit': 0,
        'reason=rate_limit': 0,
        'reason=tenant_busy': 0,
      });
      if (PG) {
        expect(sample(text, 'db_pool_max_connections')).toBe(4); // the test pool (test/helpers/app.ts)
        expect(sample(text, 'db_pool_waiting_queries')).toBe(0);
      } else {
        expect(text).not.toContain('db_pool_');
      }
      expect(text).not.toContain('redis_');
    });

    it('is not counted by the rate limit (2 a minute here) with the token; a wrong one spends the address budget', async () => {
      for (let i = 0; i < 5; i++) {
        const res = await t.request('GET', '/metrics', { token: TOKEN });
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      // Guessing the token is throttled as guessing an API token is (probe M: never).
      const guesses = [];
      for (let i = 0; i < 3; i++) {
        const wrong = await t.request('GET', '/metrics', { token: `wrong-token-0123456789-${i}` });
        guesses.push([wrong.status, wrong.headers['x-ratelimit-remaining'], wrong.json.message]);
      }
      expect(guesses).toEqual([
        [401, '1', 'Unauthenticated.'],
        [401, '0', 'Unauthenticated.'],
        [429, '0', 'Too Many Attempts.'],
      ]);
      // The API's requests without a token share that budget.
      expect((await t.request('GET', '/api/v1/locations')).status).toBe(429);
      expect((await t.request('GET', '/metrics', { token: TOKEN })).status).toBe(200);
    });
  });
});

describe('series match the requests sent', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp({ METRICS_TOKEN: TOKEN });
    token = (await newTenant(t.db.prisma)).token;
  });
  afterAll(() => t.close());

  it('counts HTTP requests by method, route template and status, and times them', async () => {
    // A scrape counts once it is answered: the first one shows no request yet.
    expect(samplesOf(await scrape(t), 'http_requests_total')).toEqual({});
    const sent: [string, string, string | undefined, number][] = [
      ['GET', '/api/v1/locations', token, 200],
      ['GET', '/api/v1/locations', token, 200],
      ['GET', '/api/v1/locations?per_page=1', token, 200],
      ['GET', '/api/v1/locations', undefined, 401],
      ['GET', '/api/v1/locations', 'not-a-token', 401],
      ['PUT', '/api/v1/locations/no-such-id', token, 404],
      ['GET', '/api/v1/no-such-thing', token, 404],
      ['GET', '/not/a/route/at/all', undefined, 404],
      ['DELETE', '/api/v1/locations', token, 405],
      // A path without a POST route takes a POST for Laravel's method override: unmatched all the same.
      ['POST', '/api/v1/locations/no-such-id', token, 405],
      ['POST', '/api/v1/locations/no-such-id', undefined, 405],
      ['POST', '/api/v1/locations/no-such-id?_method=pu%20t', undefined, 404],
      ['POST', '/api/v1/locations', token, 422],
      ['GET', '/health/live', undefined, 200],
      ['GET', '/health/ready', undefined, 200],
    ];
    for (const [method, url, tok, status] of sent) {
      const res = await t.request(method, url, { token: tok, ...(method === 'POST' ? { body: {} } : {}) });
      expect(res.status, `${method} ${url}`).toBe(status);
    }
    // Routed by its method override (no route of the OpenAPI document): counted under the route it reached.
    const routed = await t.app.fastify.inject({
      method: 'POST',
      url: '/api/v1/locations/no-such-id?_method=PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"name":"Renamed"}',
    });
    expect(routed.statusCode).toBe(404);
    const text = await scrape(t);
    expect(samplesOf(text, 'http_requests_total')).toEqual({
      'method=GET,route=/api/v1/locations,status_code=200': 3,
      'method=GET,route=/api/v1/locations,status_code=401': 2,
      'method=PUT,route=/api/v1/locations/:id,status_code=404': 1,
      // No route matched: one label whatever the path (no raw URL, no unbounded label).
      'method=GET,route=unmatched,status_code=404': 2,
      'method=DELETE,route=unmatched,status_code=405': 1,
      'method=POST,route=unmatched,status_code=405': 2,
      'method=POST,route=unmatched,status_code=404': 1,
      'method=POST,route=/api/v1/locations/:id,status_code=404': 1,
      'method=POST,route=/api/v1/locations,status_code=422': 1,
      'method=GET,route=/health/live,status_code=200': 1,
      'method=GET,route=/health/ready,status_code=200': 1,
      'method=GET,route=/metrics,status_code=200': 1,
    });
    const durations = samplesOf(text, 'http_request_duration_seconds_count');
    expect(durations['method=GET,route=/api/v1/locations']).toBe(5);
    expect(durations['method=GET,route=unmatched']).toBe(2);
    expect(
      sample(text, 'http_request_duration_seconds_bucket', {
        method: 'GET',
        route: '/api/v1/locations',
        le: '+Inf',
      }),
    ).toBe(5);
    expect(text).not.toContain('no-such');
    expect(text).not.toContain('/not/a/route');
  });

  it('counts GraphQL operations by name and type, and errors by phase', async () => {
    const queries: [string, number][] = [
      ['query Places { locations(first: 1) { totalCount } }', 200],
      ['query Places { locations(first: 2) { totalCount } }', 200],
      ['{ locations(first: 1) { totalCount } }', 200],
      ['mutation AddPlace { createLocation(input: { name: "" }) { id } }', 200],
      // Request errors answer 200 under application/json (GraphQL over HTTP), 400 under graphql-response+json.
      ['query Broken { locations(first: 1) { nope } }', 200],
      ['query Cut { locations(first: 1) {', 200],
      // Stopped by the cost limit before any field runs: an execution error all the same.
      [
        'query Costly { guests(first: 100) { edges { node { sessions(first: 100) { edges { node { id device { mac } } } } } } } }',
        200,
      ],
    ];
    for (const [query, status] of queries) {
      const res = await t.graphql(token, query);
      expect(res.status, query).toBe(status);
      expect(res.json.errors === undefined, query).toBe(!/AddPlace|Broken|Cut|Costly/.test(query));
    }
    const text = await scrape(t);
    expect(samplesOf(text, 'graphql_operations_total')).toEqual({
      'operation_name=Places,operation_type=query': 2,
      'operation_name=anonymous,operation_type=query': 1,
      'operation_name=AddPlace,operation_type=mutation': 1,
      'operation_name=Costly,operation_type=query': 1,
    });
    expect(samplesOf(text, 'graphql_errors_total')).toEqual({
      'operation_name=AddPlace,operation_type=mutation,phase=execute': 1,
      'operation_name=Costly,operation_type=query,phase=execute': 1,
      'operation_name=Broken,operation_type=query,phase=validate': 1,
      'operation_name=unknown,operation_type=unknown,phase=parse': 1,
    });
    expect(
      sample(text, 'http_requests_total', { method: 'POST', route: '/graphql', status_code: '200' }),
    ).toBe(7);
  });

  it('times every SQL statement that answered', async () => {
    const count = (text: string) => sample(text, 'db_statement_duration_seconds_count') as number;
    const before = count(await scrape(t));
    let statements = 0;
    const off = t.db.onQuery(() => {
      statements++;
    });
    try {
      expect((await t.request('GET', '/api/v1/locations', { token })).status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      off();
    }
    expect(statements).toBeGreaterThan(0);
    // The scrape itself sends no statement (PGlite) or none through this pool.
    expect(count(await scrape(t)) - before).toBe(statements);
  });
});

describe('refusals', () => {
  const budgets: [string, Record<string, string>][] = [['in memory', {}]];
  if (process.env.REDIS_URL) budgets.push(['in Redis (REDIS_URL)', { REDIS_URL: process.env.REDIS_URL }]);
  it.each(budgets)('counts 429s of the request budget %s', async (_where, env) => {
    const t = await startApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '2', ...env });
    try {
      const { token } = await newTenant(t.db.prisma);
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await t.request('GET', '/api/v1/locations', { token })).status);
      expect(statuses).toEqual([200, 200, 429, 429, 429]);
      const text = await scrape(t);
      expect(sample(text, 'rate_limit_refusals_total', { reason: 'rate_limit' })).toBe(3);
      expect(sample(text, 'rate_limit_refusals_total', { reason: 'tenant_busy' })).toBe(0);
      expect(
        sample(text, 'http_requests_total', {
          method: 'GET',
          route: '/api/v1/locations',
          status_code: '429',
        }),
      ).toBe(3);
    } finally {
      await t.close();
    }
  });

  it("counts 503s of a tenant whose turn did not come, not a client's that left", async () => {
    const t = await startApp({
      METRICS_TOKEN: TOKEN,
      TENANT_DB_CONCURRENCY: '1',
      DB_CONNECT_TIMEOUT_MS: '200',
    });
    try {
      const { token } = await newTenant(t.db.prisma);
      // Holds the tenant's one turn: authenticated, its body never ends.
      const body = new PassThrough();
      const holding = t.app.fastify.inject({
        method: 'POST',
        url: '/api/v1/locations',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: body,
      });
      body.write('{');
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < 2; i++) {
        const busy = await t.request('GET', '/api/v1/locations', { token });
        expect(busy.status).toBe(503);
        expect(busy.json).toEqual({ message: 'Service Unavailable' });
      }
      body.end('"name":"Held"}');
      expect((await holding).statusCode).toBe(201);
      const text = await scrape(t);
      expect(sample(text, 'rate_limit_refusals_total', { reason: 'tenant_busy' })).toBe(2);
      expect(sample(text, 'rate_limit_refusals_total', { reason: 'rate_limit' })).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('counts refusals of a GraphQL field limit', async () => {
    const t = await startApp({ METRICS_TOKEN: TOKEN });
    try {
      const { token } = await newTenant(t.db.prisma);
      const max = FIELD_LIMITS.createLocation.max;
      const mutation = (i: number) =>
        `mutation { createLocation(input: { name: "Field limit ${i}" }) { id } }`;
      for (let i = 0; i < max; i++) expect((await t.graphql(token, mutation(i))).json.errors).toBeUndefined();
      const refused = await t.graphql(token, mutation(max));
      expect(refused.json.errors[0].extensions.code).toBe('RATE_LIMITED');
      const text = await scrape(t);
      expect(sample(text, 'rate_limit_refusals_total', { reason: 'graphql_field_limit' })).toBe(1);
      expect(samplesOf(text, 'graphql_errors_total')).toEqual({
        'operation_name=anonymous,operation_type=mutation,phase=execute': 1,
      });
      expect(
        sample(text, 'graphql_operations_total', { operation_name: 'anonymous', operation_type: 'mutation' }),
      ).toBe(max + 1);
    } finally {
      await t.close();
    }
  });
});

describe('operation names', () => {
  it(`takes the first ${MAX_OPERATION_NAMES} distinct names as labels, then "other"`, async () => {
    const t = await startApp({ METRICS_TOKEN: TOKEN });
    try {
      const { token } = await newTenant(t.db.prisma);
      // Invalid operations (an unknown field) are cheap and name themselves all the same.
      for (let i = 0; i < MAX_OPERATION_NAMES + 3; i++) {
        expect((await t.graphql(token, `query Op${i} { nope }`)).json.errors).toHaveLength(1);
      }
      expect((await t.graphql(token, 'query Op0 { nope }')).json.errors).toHaveLength(1);
      const text = await scrape(t);
      const errors = samplesOf(text, 'graphql_errors_total');
      expect(Object.keys(errors)).toHaveLength(MAX_OPERATION_NAMES + 1);
      expect(errors['operation_name=Op0,operation_type=query,phase=validate']).toBe(2);
      expect(errors[`operation_name=Op${MAX_OPERATION_NAMES - 1},operation_type=query,phase=validate`]).toBe(
        1,
      );
      expect(
        errors[`operation_name=Op${MAX_OPERATION_NAMES},operation_type=query,phase=validate`],
      ).toBeUndefined();
      expect(errors['operation_name=other,operation_type=query,phase=validate']).toBe(3);
    } finally {
      await t.close();
    }
  });

  it('counts a valid document without the operation asked for (400 OPERATION_RESOLUTION_FAILURE) as type "unknown" (probe F)', async () => {
    const t = await startApp({ METRICS_TOKEN: TOKEN });
    try {
      const { token } = await newTenant(t.db.prisma);
      const two = 'query A { __typename } query B { __typename }';
      for (const body of [{ query: two, operationName: 'C' }, { query: two }]) {
        const res = await t.request('POST', '/graphql', { token, body });
        expect(res.status).toBe(400);
        expect(res.json.errors[0].extensions.code).toBe('OPERATION_RESOLUTION_FAILURE');
      }
      const text = await scrape(t);
      expect(samplesOf(text, 'graphql_operations_total')).toEqual({
        'operation_name=unknown,operation_type=unknown': 2,
      });
      expect(samplesOf(text, 'graphql_errors_total')).toEqual({
        'operation_name=unknown,operation_type=unknown,phase=validate': 2,
      });
    } finally {
      await t.close();
    }
  });

  it(`counts a name longer than ${MAX_NAME_LENGTH} characters as "other", and keeps it out of the ${MAX_OPERATION_NAMES} (probe F: 1 MB names made every scrape 21 MB)`, async () => {
    const t = await startApp({ METRICS_TOKEN: TOKEN });
    try {
      const { token } = await newTenant(t.db.prisma);
      const exact = `L${'x'.repeat(MAX_NAME_LENGTH - 1)}`;
      for (const name of [exact, `${exact}y`, `L${'z'.repeat(100_000)}`]) {
        expect((await t.graphql(token, `query ${name} { __typename }`)).json.errors).toBeUndefined();
      }
      const text = await scrape(t);
      expect(text.length).toBeLessThan(50_000);
      expect(samplesOf(text, 'graphql_operations_total')).toEqual({
        [`operation_name=${exact},operation_type=query`]: 1,
        'operation_name=other,operation_type=query': 2,
      });
    } finally {
      await t.close();
    }
  });
});

describe('METRICS_PORT (the real server)', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-metrics-'));
  });
  afterAll(async () => {
    killAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1' };
    delete e.DATABASE_URL;
    delete e.METRICS_TOKEN;
    delete e.REDIS_URL;
    if (PG) e.DATABASE_URL = PG;
    return { ...e, ...extra };
  };

  it('serves /metrics without a token on its own port, and only that; probes log quietly', async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const server = startServer(env({ PORT: String(port), METRICS_PORT: String(metricsPort) }));
    const base = `http://127.0.0.1:${port}`;
    const metricsBase = `http://127.0.0.1:${metricsPort}`;
    await waitUntilUp(server, base);
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${base}/health/ready`)).status).toBe(200);
      expect((await fetch(`${base}/health/live`)).status).toBe(200);
    }
    expect((await fetch(`${base}/api/v1/locations`)).status).toBe(401);

    const res = await fetch(`${metricsBase}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(PROMETHEUS_TEXT);
    const text = await res.text();
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route: '/health/ready', status_code: '200' }),
    ).toBe(3);
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/locations', status_code: '401' }),
    ).toBe(1);
    expect((await fetch(`${metricsBase}/metrics?x=1`)).status).toBe(200);

    for (const url of ['/', '/health', '/api/v1/locations', '/metricsx']) {
      const other = await fetch(`${metricsBase}${url}`);
      expect(other.status, url).toBe(404);
      expect(await other.text()).toBe('{"message":"Not Found."}');
    }
    expect((await fetch(`${metricsBase}/metrics`, { method: 'POST' })).status).toBe(404);
    // Not on PORT without METRICS_TOKEN.
    const main = await fetch(`${base}/metrics`);
    expect(main.status).toBe(404);
    expect(await main.text()).toBe('{"message":"Not Found."}');

    process.kill(server.process.pid as number, 'SIGTERM');
    const run = await server.exited(30_000);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // Requests are logged (the 401 above), probes and scrapes are not.
    expect(run.stdout).toContain('"url":"/api/v1/locations"');
    expect(run.stdout).not.toContain('/health/ready');
    expect(run.stdout).not.toContain('/health/live');
    expect(run.stdout).not.toContain('"url":"/metrics?x=1"');
    await expect(fetch(`${metricsBase}/metrics`)).rejects.toThrow();
  });

  it('stops at start with a plain message when METRICS_PORT is in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const metricsPort = typeof address === 'object' && address ? address.port : 0;
    try {
      const port = await freePort();
      const run = await startServer(env({ PORT: String(port), METRICS_PORT: String(metricsPort) })).exited(
        60_000,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`Cannot start: METRICS_PORT ${metricsPort} is already in use on 127.0.0.1.\n`);
      // Nothing was served on PORT either.
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    } finally {
      taken.close();
    }
  });

  it('stops at start with a plain message for a bad METRICS_TOKEN', async () => {
    const run = await startServer(env({ PORT: String(await freePort()), METRICS_TOKEN: 'short' })).exited(
      60_000,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'Cannot start: METRICS_TOKEN must be at least 16 characters, without spaces or non-ASCII characters.\n',
    );
  });
});

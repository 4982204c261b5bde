// The edges every request can hit: authentication, unknown routes, bodies, request ids, rate-limit
// headers on every API answer, the 500 body, and PHP-style JSON.

import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT, requestLogFields } from '../src/app.js';
import { openDatabase, pgliteDatabase } from '../src/db/database.js';
import { redactSecretQuery } from '../src/http/query-string.js';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';
import { initdbPglite, migratedMemoryDatabase } from './helpers/pglite-template.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNAUTHENTICATED = '{"message":"Unauthenticated."}';

let t: TestApp;
let token: string;
let tenantId: string;

beforeAll(async () => {
  t = await startApp();
  const tenant = await newTenant(t.db.prisma);
  token = tenant.token;
  tenantId = tenant.tenant_id;
});
afterAll(async () => {
  await t?.close();
});

const listLocations = (tok?: string, headers?: Record<string, string>) =>
  t.request('GET', '/api/v1/locations', { token: tok, headers });

function expectUnauthenticated(res: TestResponse): void {
  expect(res.status).toBe(401);
  expect(res.text).toBe(UNAUTHENTICATED);
}

describe('401 Unauthenticated', () => {
  it('answers a valid token 200 (control)', async () => {
    expect((await listLocations(token)).status).toBe(200);
  });

  it('without an Authorization header', async () => {
    expectUnauthenticated(await listLocations());
  });

  it('with a malformed Authorization header', async () => {
    expectUnauthenticated(await listLocations(undefined, { authorization: `Token ${token}` }));
    expectUnauthenticated(await listLocations(undefined, { authorization: 'Bearer' }));
    expectUnauthenticated(await listLocations(undefined, { authorization: `Bearer ${token} extra` }));
  });

  it('with an unknown token', async () => {
    expectUnauthenticated(await listLocations('not-a-real-token'));
  });

  it('with a revoked token', async () => {
    const user = await addUser(t.db.prisma, tenantId, 'tenant');
    expect((await listLocations(user.token)).status).toBe(200);
    await t.db.prisma.apiToken.updateMany({
      where: { userId: user.userId },
      data: { revokedAt: new Date() },
    });
    expectUnauthenticated(await listLocations(user.token));
  });

  it('for a Passive (0) and a Banned (2) user', async () => {
    const passive = await addUser(t.db.prisma, tenantId, 'tenant', { status: 0 });
    const banned = await addUser(t.db.prisma, tenantId, 'tenant', { status: 2 });
    expectUnauthenticated(await listLocations(passive.token));
    expectUnauthenticated(await listLocations(banned.token));
    // The same user becomes usable once active: the status is what is refused.
    await t.db.prisma.user.update({ where: { id: passive.userId }, data: { status: 1 } });
    expect((await listLocations(passive.token)).status).toBe(200);
  });

  it('for a user of a trashed tenant, but not for a support user of it', async () => {
    const tenant = await newTenant(t.db.prisma);
    const support = await addUser(t.db.prisma, tenant.tenant_id, 'support');
    expect((await listLocations(tenant.token)).status).toBe(200);
    await t.db.prisma.tenant.update({ where: { id: tenant.tenant_id }, data: { isTrashed: true } });
    expectUnauthenticated(await listLocations(tenant.token));
    const res = await listLocations(support.token);
    expect(res.status).toBe(200);
    expect(res.json.data.map((l: { id: string }) => l.id)).toEqual([tenant.location_id]);
  });

  it('is answered before the body is read (an unauthenticated malformed body is 401, not 400)', async () => {
    const res = await t.request('POST', '/api/v1/locations', { rawBody: '{"name":' });
    expectUnauthenticated(res);
  });
});

describe('unknown routes and methods', () => {
  it('answers an unknown route 404 Not Found., with or without a token', async () => {
    for (const tok of [token, undefined, 'bogus']) {
      const res = await t.request('GET', '/api/v1/nope', { token: tok });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"message":"Not Found."}');
    }
  });

  it('reads a path that does not decode (%FF) or a very long id as written: 404 after authentication, with the API headers', async () => {
    const cases: [string, string | undefined, number, string][] = [
      ['/api/v1/guests/%FF', token, 404, '{"error":"Record not found."}'],
      ['/api/v1/guests/%FF?per_page=5', token, 404, '{"error":"Record not found."}'],
      ['/api/v1/guests/%E2%82', undefined, 401, UNAUTHENTICATED],
      [`/api/v1/guests/${'x'.repeat(9000)}`, token, 404, '{"error":"Record not found."}'],
      ['/api/v1/nope/%FF', token, 404, '{"message":"Not Found."}'],
    ];
    for (const [url, tok, status, body] of cases) {
      const res = await t.request('GET', url, { token: tok });
      expect(res.status, url.slice(0, 40)).toBe(status);
      expect(res.text).toBe(body);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    // A path that decodes is matched decoded, an encoded slash a slash, as Laravel's router matches
    // rawurldecode()'s path: `locations%2Fcount` is the count (probe P).
    const count = await t.app.fastify.inject({
      method: 'GET',
      url: '/api/v1/locations%2Fcount',
      headers: { authorization: `Bearer ${token}` },
    });
    expect([count.statusCode, Object.keys(count.json())]).toEqual([200, ['count']]);
  });

  it("answers a known path with the wrong method 405 with Laravel's message", async () => {
    const res = await t.request('DELETE', '/api/v1/locations', { token });
    expect(res.status).toBe(405);
    expect(res.json).toEqual({
      message:
        'The DELETE method is not supported for route api/v1/locations. Supported methods: GET, HEAD, POST.',
    });
    expect(res.text).toContain('route api\\/v1\\/locations.');
  });
});

describe('bodies', () => {
  it('answers malformed JSON 400', async () => {
    const res = await t.request('POST', '/api/v1/locations', { token, rawBody: '{"name":' });
    expect(res.status).toBe(400);
    expect(res.text).toBe('{"message":"Malformed JSON body."}');
  });

  it('answers JSON with an unpaired surrogate 400, as PHP’s json_decode refuses it; a paired one is read', async () => {
    for (const rawBody of [
      '{"name":"Hall \\ud800"}',
      '{"name":"x","\\udc00":1}',
      '{"name":["\\udbff\\u0041"]}',
    ]) {
      const res = await t.request('POST', '/api/v1/locations', { token, rawBody });
      expect(res.status, rawBody).toBe(400);
      expect(res.text).toBe('{"message":"Malformed JSON body."}');
    }
    const paired = await t.request('POST', '/api/v1/locations', {
      token,
      rawBody: `{"name":"Smile \\ud83d\\ude00 ${Date.now()}"}`,
    });
    expect(paired.status, paired.text).toBe(201);
    expect(paired.json.data.name).toMatch(/^Smile 😀 /);
  });

  it('answers JSON nested deeper than 512 arrays and objects 400, as PHP’s json_decode refuses it; 512 levels are read', async () => {
    const nested = (levels: number) => `{"name":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;
    for (const levels of [513, 5000]) {
      const res = await t.request('POST', '/api/v1/locations', { token, rawBody: nested(levels) });
      expect(res.status, String(levels)).toBe(400);
      expect(res.text).toBe('{"message":"Malformed JSON body."}');
    }
    const deepObjects = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
    const res = await t.request('POST', '/api/v1/locations', { token, rawBody: deepObjects });
    expect(res.status).toBe(400);
    const read = await t.request('POST', '/api/v1/locations', { token, rawBody: nested(512) });
    expect(read.status).toBe(422);
    expect(read.json.errors.name).toEqual(['The name field must be a string.']);
  });

  it('reads a URL-encoded form body as Laravel does: trimmed, nested keys, the same rules and messages', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const created = await t.request('POST', '/api/v1/locations', {
      token,
      headers: form,
      rawBody: 'name=%20Form%20Hall%20&country_code=AE&lat=25.2',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toMatchObject({ name: 'Form Hall', country_code: 'AE', lat: 25.2 });
    const bad = await t.request('POST', '/api/v1/locations', {
      token,
      headers: form,
      rawBody: 'name[a]=x&lat=north',
    });
    expect(bad.status).toBe(422);
    expect(bad.json.errors.name).toEqual(['The name field must be a string.']);
    expect(bad.json.errors.lat).toEqual(['The lat field must be a number.']);
    // Unauthenticated: refused before the body is read, as for JSON.
    expectUnauthenticated(await t.request('POST', '/api/v1/locations', { headers: form, rawBody: 'name=x' }));
  });

  it("reads as JSON the types Laravel's isJson() does (…/json, …+json); others carry no input", async () => {
    const types = ['application/vnd.api+json', 'text/json; charset=utf-8', 'application/json-patch+json'];
    for (const [i, type] of types.entries()) {
      const created = await t.request('POST', '/api/v1/locations', {
        token,
        headers: { 'content-type': type },
        rawBody: `{"name":" Typed Hall ${i} "}`,
      });
      expect(created.status, `${type}: ${created.text}`).toBe(201);
      expect(created.json.data.name).toBe(`Typed Hall ${i}`);
      const malformed = await t.request('POST', '/api/v1/locations', {
        token,
        headers: { 'content-type': type },
        rawBody: '{"name":',
      });
      expect(malformed.status, type).toBe(400);
    }
    // A type a browser sends cross-site without a preflight is no JSON, whatever its parameters say.
    for (const type of ['text/plain', 'text/plain; a=/json', 'application/x-ndjson']) {
      const plain = await t.request('POST', '/api/v1/locations', {
        token,
        headers: { 'content-type': type },
        rawBody: '{"name":"Plain Hall"}',
      });
      expect(plain.status, type).toBe(422);
      expect(plain.json.errors).toEqual({ name: ['The name field is required.'] });
    }
  });

  it('reads an empty JSON body as no input', async () => {
    for (const rawBody of ['', '  \n']) {
      const res = await t.request('POST', '/api/v1/locations', { token, rawBody });
      expect(res.status).toBe(422);
      expect(res.json).toEqual({
        message: 'The name field is required.',
        errors: { name: ['The name field is required.'] },
      });
    }
  });

  it('answers a JSON body over 1 MiB 413', async () => {
    const rawBody = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) });
    expect(BODY_LIMIT).toBe(1024 * 1024);
    const res = await t.request('POST', '/api/v1/locations', { token, rawBody });
    expect(res.status).toBe(413);
    expect(res.text).toBe('{"message":"Payload Too Large."}');
    // Just under the limit is read (and validated: a name this long is a 422, not a 413).
    const under = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT - 100) });
    expect((await t.request('POST', '/api/v1/locations', { token, rawBody: under })).status).toBe(422);
  });
});

describe('X-Request-Id', () => {
  it('is a UUID when none is sent, on every kind of answer', async () => {
    const answers = await Promise.all([
      listLocations(token),
      listLocations(),
      t.request('GET', '/api/v1/nope'),
      t.request('GET', '/health'),
    ]);
    for (const res of answers) expect(res.headers['x-request-id']).toMatch(UUID);
    expect(new Set(answers.map((r) => r.headers['x-request-id'])).size).toBe(answers.length);
  });

  it('echoes a sane incoming id', async () => {
    const res = await listLocations(token, { 'x-request-id': 'abc-123' });
    expect(res.headers['x-request-id']).toBe('abc-123');
    const denied = await listLocations(undefined, { 'x-request-id': 'abc-123' });
    expect(denied.headers['x-request-id']).toBe('abc-123');
  });

  it('replaces an insane incoming id', async () => {
    for (const id of ['a'.repeat(300), 'abc 123', 'abc<script>']) {
      const res = await listLocations(token, { 'x-request-id': id });
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
    }
  });
});

describe('X-RateLimit-* on every API answer', () => {
  const cases: [string, () => Promise<TestResponse>, number][] = [
    ['200', () => listLocations(token), 200],
    ['401', () => listLocations(), 401],
    ['400', () => t.request('POST', '/api/v1/locations', { token, rawBody: '{' }), 400],
    [
      '413',
      () => t.request('POST', '/api/v1/locations', { token, rawBody: 'x'.repeat(BODY_LIMIT + 1) }),
      413,
    ],
    ['422', () => t.request('POST', '/api/v1/locations', { token, body: {} }), 422],
    ['404 unknown route', () => t.request('GET', '/api/v1/nope', { token }), 404],
    ['404 unknown route, no token', () => t.request('GET', '/api/v1/nope'), 404],
    ['405', () => t.request('DELETE', '/api/v1/locations', { token }), 405],
    ['GraphQL', () => t.graphql(token, '{ __typename }'), 200],
  ];
  it.each(cases)('%s', async (_name, send, status) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers['x-ratelimit-limit']).toBe(String(t.config.rateLimitPerMinute));
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(t.config.rateLimitPerMinute);
  });

  it('spends the budget of the token on an unknown route', async () => {
    const tenant = await newTenant(t.db.prisma);
    const first = await t.request('GET', '/api/v1/nope', { token: tenant.token });
    const second = await listLocations(tenant.token);
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(
      Number(first.headers['x-ratelimit-remaining']) - 1,
    );
    expect(first.headers['x-ratelimit-remaining']).toBe(String(t.config.rateLimitPerMinute - 1));
  });

  it('leaves routes outside the API alone', async () => {
    const res = await t.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('/health', () => {
  it('answers 200 while the database answers, 503 once it does not', async () => {
    const own = await startApp({}, { db: await migratedMemoryDatabase() });
    try {
      const up = await own.request('GET', '/health');
      expect(up.status).toBe(200);
      expect(up.json).toEqual({ status: 'ok', database: 'ok' });
      await own.db.close();
      const down = await own.request('GET', '/health');
      expect(down.status).toBe(503);
      expect(down.json).toEqual({ status: 'unavailable', database: 'unreachable' });
    } finally {
      await own.close(); // the database was passed in, so it is not closed twice
    }
  });
});

describe('500', () => {
  it('answers Server Error without a stack trace, with a request id', async () => {
    // A database without the schema (never migrated): the token lookup fails on a missing table, an
    // unexpected failure whichever driver the other tests use.
    const unmigrated = pgliteDatabase(await initdbPglite());
    const broken = await startApp({}, { db: unmigrated });
    try {
      const res = await broken.request('GET', '/api/v1/locations', {
        token,
        headers: { 'x-request-id': 'trace-500' },
      });
      expect(res.status).toBe(500);
      expect(res.text).toBe('{"message":"Server Error"}');
      expect(res.headers['x-request-id']).toBe('trace-500');
      expect(res.headers['content-type']).toMatch(/^application\/json\b/);
      const gql = await broken.graphql(token, '{ __typename }');
      expect(gql.text).not.toMatch(/does not exist|\bat .+:\d+:\d+/);
      expect(gql.headers['x-request-id']).toMatch(UUID);
    } finally {
      await broken.close();
      await unmigrated.close();
    }
  });
});

describe('503', () => {
  it('an unreachable database answers Service Unavailable with Retry-After, never 500', async () => {
    // Nothing listens on port 1: every connection is refused.
    const unreachable = await openDatabase({ url: 'postgresql://nobody@127.0.0.1:1/none', migrate: false });
    const broken = await startApp({}, { db: unreachable });
    try {
      const res = await broken.request('GET', '/api/v1/locations', {
        token,
        headers: { 'x-request-id': 'trace-503' },
      });
      expect(res.status).toBe(503);
      expect(res.text).toBe('{"message":"Service Unavailable"}');
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['x-request-id']).toBe('trace-503');
      const gql = await broken.graphql(token, '{ __typename }');
      expect(gql.status).toBe(503);
      expect(gql.json).toEqual({
        errors: [{ message: 'Service Unavailable', extensions: { code: 'SERVICE_UNAVAILABLE' } }],
      });
      expect(gql.text).not.toMatch(/ECONNREFUSED|\bat .+:\d+:\d+/);
    } finally {
      await broken.close();
      await unreachable.close();
    }
  });
});

describe('JSON writing', () => {
  it('answers application/json with PHP escaping', async () => {
    const res = await listLocations(token);
    expect(res.headers['content-type']).toMatch(/^application\/json\b/);
    expect(res.text).toContain('"first":"http:\\/\\/localhost\\/api\\/v1\\/locations?page=1"');
    expect(res.text).not.toContain('http://');
    const created = await t.request('POST', '/api/v1/locations', {
      token,
      body: { name: 'Café / Bar 🍺' },
    });
    expect(created.status).toBeLessThan(300);
    expect(created.text).toContain('"name":"Caf\\u00e9 \\/ Bar \\ud83c\\udf7a"');
    for (const res of [await listLocations(), await t.request('GET', '/api/v1/nope')]) {
      expect(res.headers['content-type']).toMatch(/^application\/json\b/);
    }
  });
});

describe('cross-origin requests (Laravel default config/cors.php for api/*)', () => {
  const options = (url: string, headers: Record<string, string> = {}) =>
    t.app.fastify.inject({ method: 'OPTIONS', url, headers });

  it('answers a preflight before authentication: 204 with the requested method and headers allowed', async () => {
    for (const url of ['/api/v1/guests', '/api/v1/guests/abc', '/api/v1/nope']) {
      const res = await options(url, {
        origin: 'https://partner.example',
        'access-control-request-method': 'post',
        'access-control-request-headers': 'authorization, content-type',
      });
      expect(res.statusCode, url).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '0',
        vary: 'Access-Control-Request-Method, Access-Control-Request-Headers',
      });
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('allows any origin on every API answer, errors included, and nowhere else', async () => {
    const origin = { origin: 'https://partner.example' };
    const answers = await Promise.all([
      t.request('GET', '/api/v1/locations', { token, headers: origin }),
      t.request('GET', '/api/v1/locations', { headers: origin }),
      t.request('GET', '/api/v1/locations?per_page=0', { token }),
      t.request('GET', '/api/v1/nope', { token }),
      t.request('DELETE', '/api/v1/locations', { token }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 401, 422, 404, 405]);
    for (const res of answers) expect(res.headers['access-control-allow-origin']).toBe('*');
    const health = await t.request('GET', '/health', { headers: origin });
    expect(health.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("answers a plain OPTIONS on a known path as Laravel's router does: 200, empty, Allow", async () => {
    const res = await options('/api/v1/guests');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers.allow).toBe('GET,HEAD,POST');
    expect(res.headers.vary).toBe('Access-Control-Request-Method');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect((await options('/api/v1/guests/abc')).headers.allow).toBe('GET,HEAD,PUT,DELETE');
    const unknown = await options('/api/v1/nope');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: 'Not Found.' });
  });
});

describe('query strings read as PHP reads them', () => {
  it('keeps the last of a repeated key, and reads [] as a list and [k] as a map (judged by the rules)', async () => {
    const last = await t.request('GET', '/api/v1/locations?per_page=1&per_page=2', { token });
    expect(last.status).toBe(200);
    expect(last.json.meta.per_page).toBe(2);
    const list = await t.request('GET', '/api/v1/locations?name[]=Lobby&name[]=Bar', { token });
    expect(list.status).toBe(422);
    expect(list.json.errors).toEqual({ name: ['The name field must be a string.'] });
    const map = await t.request('GET', '/api/v1/locations?per_page[a]=1', { token });
    expect(map.status).toBe(422);
    expect(map.json.errors.per_page[0]).toBe('The per page field must be an integer.');
    const plus = await t.request('GET', '/api/v1/locations?name=no+such+place', { token });
    expect(plus.status).toBe(200);
    expect(plus.json.data).toEqual([]);
  });
});

describe('request log lines', () => {
  it('mask a token sent in the query string (Laravel clients may send api_token there)', () => {
    const fields = requestLogFields({
      method: 'GET',
      url: '/api/v1/locations?page=2&api_token=SECRET123&TOKEN=abc&x=1',
      host: 'localhost',
      ip: '127.0.0.1',
      socket: { remotePort: 5000 },
    } as unknown as FastifyRequest);
    expect(fields).toEqual({
      method: 'GET',
      url: '/api/v1/locations?page=2&api_token=[redacted]&TOKEN=[redacted]&x=1',
      host: 'localhost',
      remoteAddress: '127.0.0.1',
      remotePort: 5000,
    });
  });

  it('mask it however its name is spelled, as PHP reads the name (probe F): percent-encoded, with brackets, dots or spaces', () => {
    const spellings = [
      '%61pi_token',
      'api%5Ftoken',
      'tok%65n',
      'access%5Ftoken',
      'api_token[]',
      'api_token%5B%5D',
      'api_token[x]',
      'api.token',
      'api+token',
      '+api_token',
      'Access_Token',
      // A bracket that never closes, and a NUL ending the name (probe V).
      'api[token',
      'api_token%00x',
    ];
    for (const name of spellings) {
      const url = `/api/v1/guests/import?a=1&${name}=SECRET123&b=%2F`;
      expect(redactSecretQuery(url), name).toBe(`/api/v1/guests/import?a=1&${name}=[redacted]&b=%2F`);
    }
    // Other names keep their values; a name alone (no value) and a URL without a query are as they are.
    for (const url of ['/a?tokens=1&my_token=2&token', '/a', '/a?', '/a?&&=x']) {
      expect(redactSecretQuery(url)).toBe(url);
    }
  });
});

// Laravel's method override: a POST with `_method` (multipart, form or JSON body, else the query
// string) or `X-HTTP-Method-Override` is routed as that method, as Laravel clients send an update
// carrying a file (PHP reads no multipart PUT). Without one, a POST of a path without a POST route
// stays a 405, token or not; with one, the asked route's rules apply (401, scopes, 405, 404).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addGuest, newTenant } from './helpers/fixtures.js';
import { form } from './helpers/multipart.js';

let t: TestApp;
const dataDir = mkdtempSync(path.join(tmpdir(), 'method-override-'));
beforeAll(async () => {
  t = await startApp({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 7),
]);

async function post(
  url: string,
  opts: { token?: string; json?: unknown; headers?: Record<string, string>; payload?: Buffer | string } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  const res = await t.app.fastify.inject({
    method: 'POST',
    url,
    headers,
    ...(opts.json !== undefined ? { payload: JSON.stringify(opts.json) } : {}),
    ...(opts.payload !== undefined ? { payload: opts.payload } : {}),
  });
  return {
    status: res.statusCode,
    text: res.body,
    json:
      res.body && String(res.headers['content-type']).startsWith('application/json')
        ? JSON.parse(res.body)
        : undefined,
    headers: res.headers,
  };
}

describe.concurrent('POST with _method (Laravel method override)', () => {
  it('updates a guest with an avatar as POST + _method=PUT, multipart (the Laravel client idiom)', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const { body, contentType } = form([
      { name: '_method', value: 'PUT' },
      { name: 'location_id', value: a.location_id },
      { name: 'name', value: 'Override Guest' },
      { name: 'avatar', file: PNG, type: 'image/png', filename: 'me.png' },
    ]);
    const res = await post(`/api/v1/guests/${g.id}`, {
      token: a.token,
      headers: { 'content-type': contentType },
      payload: body,
    });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.json.data.name).toBe('Override Guest');
    expect(res.json.data.image_url).toMatch(/\/media\/avatars\/avatar-[0-9a-f]{24}\.png$/);
    const stored = await t.db.prisma.guest.findUniqueOrThrow({ where: { id: g.id } });
    expect(stored.name).toBe('Override Guest');
  });

  it('reads it from a JSON body, the query string (any case) or X-HTTP-Method-Override, the header first', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const json = await post(`/api/v1/guests/${g.id}`, {
      token: a.token,
      json: { _method: 'put', location_id: a.location_id, name: 'Json Override' },
    });
    expect(json.status, json.text).toBe(200);
    expect(json.json.data.name).toBe('Json Override');
    const read = await post(`/api/v1/guests/${g.id}?_method=get`, { token: a.token });
    expect(read.status).toBe(200);
    expect(read.json.data.id).toBe(g.id);
    // The header wins over the body's field.
    const erased = await post(`/api/v1/guests/${g.id}`, {
      token: a.token,
      headers: { 'x-http-method-override': 'DELETE' },
      json: { _method: 'PUT', location_id: a.location_id, name: 'Never' },
    });
    expect(erased.status, erased.text).toBe(204);
    expect(erased.text).toBe('');
    const gone = await t.request('GET', `/api/v1/guests/${g.id}`, { token: a.token });
    expect(gone.status).toBe(404);
  });

  it('asking none, or a method the path lacks, answers 405 as Laravel’s router does, token or not', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const url = `/api/v1/guests/${g.id}`;
    const route = `api/v1/guests/${g.id}`;
    for (const token of [a.token, undefined]) {
      const plain = await post(url, { ...(token ? { token } : {}), json: { name: 'x' } });
      expect(plain.status).toBe(405);
      expect(plain.json).toEqual({
        message: `The POST method is not supported for route ${route}. Supported methods: GET, HEAD, PUT, DELETE.`,
      });
      expect(plain.headers.allow).toBe('GET, HEAD, PUT, DELETE');
    }
    const patch = await post(url, { token: a.token, json: { _method: 'PATCH' } });
    expect(patch.status).toBe(405);
    expect(patch.json.message).toBe(
      `The PATCH method is not supported for route ${route}. Supported methods: GET, HEAD, PUT, DELETE.`,
    );
    // A name of letters only is a method (none of this path's); a non-text value asks none.
    const custom = await post(url, { token: a.token, json: { _method: 'purge' } });
    expect(custom.json.message).toMatch(/^The PURGE method is not supported/);
    // A list or an object Symfony's InputBag refuses to read: Laravel's 400.
    for (const listed of [['PUT'], { m: 'PUT' }]) {
      const res = await post(url, { token: a.token, json: { _method: listed } });
      expect([res.status, res.json]).toEqual([400, { message: 'Bad request.' }]);
    }
    const inQuery = await post(`${url}?_method[]=DELETE`);
    expect([inQuery.status, inQuery.json]).toEqual([400, { message: 'Bad request.' }]);
    // A header "0" asks nothing, as PHP's `!$method` reads it: the query string's then.
    const zero = await post(`${url}?_method=get`, {
      token: a.token,
      headers: { 'x-http-method-override': '0' },
    });
    expect(zero.status).toBe(200);
    // On a path with a POST route too.
    const locations = await post('/api/v1/locations', { token: a.token, json: { _method: 'DELETE' } });
    expect(locations.status).toBe(405);
    expect(locations.json.message).toBe(
      'The DELETE method is not supported for route api/v1/locations. Supported methods: GET, HEAD, POST.',
    );
    const options = await post(url, { token: a.token, json: { _method: 'OPTIONS' } });
    expect([options.status, options.headers.allow, options.text]).toEqual([200, 'GET,HEAD,PUT,DELETE', '']);
  });

  it('a name Symfony refuses answers Laravel’s 404 for it', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    for (const name of ['PU T', 'pu\u00df', '']) {
      const res = await post(`/api/v1/guests/${g.id}`, { token: a.token, json: { _method: name } });
      expect([res.status, res.json], name).toEqual([404, { message: 'Bad hostname provided.' }]);
    }
  });

  it('the asked route’s rules apply: no token 401, a read token 403, another tenant 404', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const url = `/api/v1/guests/${g.id}`;
    const asking = { 'x-http-method-override': 'DELETE' };
    const anonymous = await post(url, { headers: asking });
    expect([anonymous.status, anonymous.json]).toEqual([401, { message: 'Unauthenticated.' }]);
    const bad = await post(url, { token: 'not-a-token', headers: asking });
    expect([bad.status, bad.json]).toEqual([401, { message: 'Unauthenticated.' }]);
    // In the body, unread without a token: a POST's 405 (Laravel, routing first, would say 401).
    const unread = await post(url, { json: { _method: 'DELETE' } });
    expect(unread.status).toBe(405);
    const read = (await issueToken(t.db.prisma, a.user_id, ['read'])).token;
    const refused = await post(url, { token: read, json: { _method: 'DELETE' } });
    expect([refused.status, refused.json]).toEqual([403, { message: 'This action is unauthorized.' }]);
    const other = await post(url, { token: b.token, json: { _method: 'DELETE' } });
    expect([other.status, other.json]).toEqual([404, { error: 'Record not found.' }]);
    const still = await t.request('GET', url, { token: a.token });
    expect(still.status).toBe(200);
  });

  it('without a token, never reads the body: a broken or oversized one meets no parser', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const url = `/api/v1/guests/${g.id}`;
    const broken = '{"_method":"PUT",';
    const huge = `{"name":"${'x'.repeat(5 * 1024 * 1024)}"}`;
    // Read, these would answer 400 Malformed JSON body. and 413: a POST's 405, the body unread.
    for (const payload of [broken, huge]) {
      const res = await post(url, { headers: { 'content-type': 'application/json' }, payload });
      expect([res.status, res.json.message]).toEqual([
        405,
        `The POST method is not supported for route api/v1/guests/${g.id}. Supported methods: GET, HEAD, PUT, DELETE.`,
      ]);
    }
    // Asked in the header or the query string, a route's 401, the body still unread.
    const asked = await post(url, {
      headers: { 'content-type': 'application/json', 'x-http-method-override': 'PUT' },
      payload: broken,
    });
    expect([asked.status, asked.json]).toEqual([401, { message: 'Unauthenticated.' }]);
    const query = await post(`${url}?_method=patch`, {
      headers: { 'content-type': 'application/json' },
      payload: broken,
    });
    expect(query.status).toBe(405);
    expect(query.json.message).toMatch(/^The PATCH method is not supported/);
    const refused = await post(`${url}?_method=pu%20t`, {
      headers: { 'content-type': 'application/json' },
      payload: broken,
    });
    expect([refused.status, refused.json]).toEqual([404, { message: 'Bad hostname provided.' }]);
    // With a token the body is read, and a broken one is said so.
    const withToken = await post(url, {
      token: a.token,
      headers: { 'content-type': 'application/json' },
      payload: broken,
    });
    expect([withToken.status, withToken.json]).toEqual([400, { message: 'Malformed JSON body.' }]);
  });

  it('routes by the URL decoded segment by segment, as the router does', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const read = await post(`/api/v1/guest%73/${g.id}`, {
      token: a.token,
      headers: { 'x-http-method-override': 'GET' },
    });
    expect([read.status, read.json.data?.id]).toEqual([200, g.id]);
    const exported = await post('/api/v1/guests/%65xport?_method=GET', { token: a.token });
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toMatch(/^text\/csv/);
  });

  it('routes the asked method by the URL, as Laravel matches it again: a static path beside /:id', async () => {
    const a = await newTenant(t.db.prisma);
    // `/guests/export` has GET only; DELETE of that URL is DELETE /guests/:id with id "export".
    const res = await post('/api/v1/guests/export', {
      token: a.token,
      headers: { 'x-http-method-override': 'DELETE' },
    });
    expect([res.status, res.json]).toEqual([404, { error: 'Record not found.' }]);
    const count = await post('/api/v1/locations/count?_method=PUT', {
      token: a.token,
      json: { name: 'Renamed' },
    });
    expect([count.status, count.json]).toEqual([404, { error: 'Record not found.' }]);
  });

  it('HEAD asked answers the GET’s status and headers without a body', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await post('/api/v1/locations?_method=HEAD', { token: a.token });
    expect([res.status, res.text]).toEqual([200, '']);
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
  });
});

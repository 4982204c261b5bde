// The OpenAPI document and the docs page: every route of the route table is documented and nothing
// else; the document reads the rules the code runs; the recorded examples match their schemas; both
// are public and the page loads nothing from another host. (Every other test file checks each REST
// answer it receives against the document: test/helpers/contract.ts.)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi, loadExamples, openApiPath } from '../src/rest/openapi.js';
import { routeTable } from '../src/rest/route-table.js';
import { startApp, type TestApp } from './helpers/app.js';
import { checkContract } from './helpers/contract.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked freely and asserted against literals.
type AnyJson = any;

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const doc: AnyJson = buildOpenApi(routeTable);
// The legacy contract, checked in (a copy of ../shared/spec/api-v1.md) so a clean clone can test against it.
const SPEC = new URL('../docs/api-v1-spec.md', import.meta.url);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe.concurrent('OpenAPI document', () => {
  it('documents every route of the route table, and nothing else', () => {
    const documented = Object.entries(doc.paths as Record<string, AnyJson>)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      )
      .sort();
    const routes = routeTable.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    expect(documented).toEqual(routes);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('README’s REST table lists every route of the route table, and nothing else', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('serves the same operation. Today:')).split('\n\n')[1] ?? '';
    const listed = table
      .split('\n')
      .slice(2)
      .map((row) => {
        const [, method, path] = row.split('|').map((cell) => cell.trim().replaceAll('`', ''));
        return `${method} ${path}`;
      })
      .sort();
    expect(listed).toEqual(routeTable.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('gives every operation a success schema, its errors and its GraphQL field', () => {
    for (const r of routeTable) {
      const op = doc.paths[openApiPath(r.path)][r.method.toLowerCase()];
      const ok = String(r.endpoint.status ?? 200);
      const name = `${r.method} ${r.path}`;
      if (r.endpoint.status === 204) expect(op.responses['204'], name).toEqual(expect.any(Object));
      else if (r.endpoint.exportItem)
        expect(Object.keys(op.responses['200'].content), name).toEqual(['text/csv', 'application/x-ndjson']);
      else expect(op.responses[ok].content['application/json'].schema, name).toEqual(expect.any(Object));
      expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(['401', '429', '500']));
      if (r.path.includes(':')) expect(op.responses['404'], name).toBeDefined();
      if (r.endpoint.action) expect(op.responses['403'], name).toBeDefined();
      if (r.endpoint.deprecated) {
        expect(op.deprecated, name).toBe(true);
        expect(op.responses['410'], name).toBeDefined();
        // The 410 carries the headers of the 200 before the sunset (src/rest/adapter.ts sets them first).
        const gone = op.responses['410'].$ref
          ? doc.components.responses[op.responses['410'].$ref.split('/').pop()]
          : op.responses['410'];
        for (const header of ['Deprecation', 'Sunset', 'Link']) {
          expect(gone.headers[header], `${name} 410 ${header}`).toEqual({
            $ref: `#/components/headers/${header}`,
          });
          expect(gone.headers[header], `${name} 410 ${header}`).toEqual(op.responses[ok].headers[header]);
        }
      }
      expect(op.description, name).toContain(
        r.graphql.startsWith('(') ? `GraphQL: none ${r.graphql}.` : `GraphQL: \`${r.graphql.split(' ')[0]}\``,
      );
    }
    // Without recorded examples the 410 is the shared `Gone` answer: it lists them too.
    const bare: AnyJson = buildOpenApi(routeTable, {});
    expect(bare.components.responses.Gone.headers).toMatchObject({
      Deprecation: { $ref: '#/components/headers/Deprecation' },
      Sunset: { $ref: '#/components/headers/Sunset' },
      Link: { $ref: '#/components/headers/Link' },
    });
  });

  it('reads parameters and bodies from the rules the code runs', () => {
    const params = (path: string, method = 'get') =>
      Object.fromEntries(doc.paths[path][method].parameters.map((p: AnyJson) => [p.name, p.schema]));
    // Paging (pageRules) with each list's default.
    expect(params('/locations').per_page).toEqual({ default: 10, minimum: 1, maximum: 100, type: 'integer' });
    expect(params('/advertisements').per_page.default).toBe(25);
    // A resource's filters (advertisementFilterRules, guestListRules).
    expect(params('/advertisements').order_direction).toEqual({ enum: ['asc', 'desc'], type: 'string' });
    expect(params('/guests').birth_date).toEqual({ format: 'date', type: 'string' });
    expect(Object.keys(params('/guests'))).toContain('withBeacon');
    expect(Object.keys(params('/guests/count'))).not.toContain('withBeacon');
    // A list filter as PHP reads a query (`types[]=a&types[]=b`), so a generated client sends that.
    const types = doc.paths['/events'].get.parameters.find((p: AnyJson) => p.name.startsWith('types'));
    expect(types).toMatchObject({ name: 'types[]', style: 'form', explode: true });
    expect(types.schema).toEqual({ type: 'array', items: { type: 'string' } });
    // Exports: the list's filters and options, then format and bom; no paging.
    expect(Object.keys(params('/guests/export'))).toEqual([
      ...Object.keys(params('/guests')).filter((k) => k !== 'page' && k !== 'per_page'),
      'format',
      'bom',
    ]);
    expect(params('/sessions/export').format).toEqual({ enum: ['csv', 'ndjson'], type: 'string' });
    expect(params('/sessions/export').bom).toMatchObject({ type: 'boolean' });
    // Bodies (locationWriteRules, userWriteRules, the ingest's per-event rules).
    const body = (path: string, method: string) =>
      doc.paths[path][method].requestBody.content['application/json'].schema;
    const location = body('/locations', 'post');
    expect(location.required).toEqual(['name']);
    expect(location.properties.name).toMatchObject({ type: 'string', maxLength: 50 });
    expect(location.properties.lat).toMatchObject({ type: ['number', 'null'], minimum: -90, maximum: 90 });
    expect(location.properties.smart_login_frequency.description).toContain(
      'Required when smart_login is 1.',
    );
    const user = body('/users', 'post');
    expect(user.properties.password).toMatchObject({ minLength: 8, maxLength: 30 });
    expect(user.properties.role.enum).toEqual(['tenant', 'venue', 'front-desk']);
    expect(body('/users/{id}', 'put').required).not.toContain('password');
    const presence = body('/ingest/presence', 'post');
    expect(presence.properties.events).toMatchObject({ type: 'array', maxItems: 1000 });
    expect(presence.properties.events.items.properties.data_type).toMatchObject({ enum: [1, 2] });
    // What the rules refuse and accept, no more: a required array is not empty, `distinct` has no
    // repeats, and a `date` is no strict date-time (`2027-01-01` is one too, as Laravel reads it).
    const token = body('/api-tokens', 'post');
    expect(token.properties.scopes).toMatchObject({ type: 'array', minItems: 1, uniqueItems: true });
    expect(token.properties.expires_at.format).toBeUndefined();
    expect(token.properties.expires_at.description).toContain('A date (`YYYY-MM-DD`) or a date-time');
    expect(body('/webhooks/{id}/replay', 'post').properties.since.format).toBeUndefined();
    expect(doc.components.responses.Unauthenticated.description).toContain('expired');
  });

  it('has an example recorded from a real run for every success, each matching its schema', () => {
    const examples = loadExamples();
    for (const r of routeTable) {
      const recorded = examples[`${r.method} ${r.path}`] ?? {};
      const ok = r.endpoint.status ?? (r.endpoint.response ? 200 : 204);
      if (ok !== 204) expect(recorded[ok], `${r.method} ${r.path}`).toBeDefined();
      const url = `/api/v1${r.path.replace(/:[a-z_]+/g, 'x')}`;
      for (const [status, body] of Object.entries(recorded)) {
        checkContract(r.method, url, Number(status), JSON.stringify(body));
        const content = doc.paths[openApiPath(r.path)][r.method.toLowerCase()].responses[status].content;
        expect(content['application/json'].example).toEqual(body);
      }
    }
    for (const status of ['400', '401', '403', '404', '413', '422', '429']) {
      expect(examples['*']?.[status], status).toBeDefined();
    }
  });

  it("lists each resource's keys in the order of the spec's field tables", () => {
    // Section 2 of the spec: `| key[, key…] | type |` rows under `### 2.N` and an optional caption.
    const tables = new Map<string, string[]>();
    let heading = '';
    let caption = '';
    for (const line of readFileSync(SPEC, 'utf8').split('\n')) {
      if (line.startsWith('## 3')) break;
      if (line.startsWith('### 2.')) [heading, caption] = [line.slice(4, 8).trim(), ''];
      else if (heading && !line.startsWith('|') && line.trim()) caption = line;
      else if (heading && line.startsWith('|') && !/^\|\s*(Field|Level|-{3})/.test(line)) {
        const key = `${heading} ${caption}`.trim();
        const keys = (line.split('|')[1] ?? '').split(',').map((k) => k.trim());
        tables.set(key, [...(tables.get(key) ?? []), ...keys]);
      }
    }
    const table = (prefix: string): string[] => {
      const found = [...tables.entries()].filter(([k]) => k.startsWith(prefix));
      expect(found.length, prefix).toBe(1);
      return found[0]?.[1] ?? [];
    };
    const keys = (schema: string, ...optional: string[]) =>
      Object.keys(doc.components.schemas[schema].properties).filter((k) => !optional.includes(k));
    expect(keys('LocationListItem')).toEqual(table('2.1 List item'));
    expect(keys('LocationDetail')).toEqual(table('2.1 Create/update'));
    expect(keys('GuestListItem', 'beacon')).toEqual(table('2.3 List item'));
    expect(keys('GuestDevice')).toEqual(table('2.4'));
    expect(keys('GuestSession')).toEqual(table('2.5'));
    expect(keys('SessionByIp')).toEqual(table('2.6'));
    expect(keys('LocationSession')).toEqual(table('2.7'));
    expect(keys('LocationLog')).toEqual(table('2.8'));
    expect(keys('ActiveSession')).toEqual(table('2.9'));
    expect(keys('TenantListItem')).toEqual(table('2.10'));
    expect(keys('UserDetail')).toEqual(table('2.11'));
    expect(keys('Advertisement')).toEqual(table('2.12'));
    // The spec's keys first; the vouchers' two follow (beyond the spec).
    expect(keys('AccessCode', 'max_uses', 'revoked_at')).toEqual(table('2.13'));
    expect(keys('AccessCode').slice(-2)).toEqual(['max_uses', 'revoked_at']);
  });

  it('rejects a body that does not match (the contract check can fail)', () => {
    expect(() => checkContract('GET', '/api/v1/locations/count', 200, '{"count":"3"}')).toThrow(
      /GET \/locations\/count answered 200: the body does not match/,
    );
    expect(() => checkContract('GET', '/api/v1/tenants/count', 201, '{"count":3}')).toThrow(/lists only/);
    expect(() => checkContract('PUT', '/api/v1/tenants/x/switch', 200, '{"success":true,"extra":1}')).toThrow(
      /additional properties/,
    );
    expect(() =>
      checkContract('GET', '/api/v1/tenants/count', 422, '{"errors":{"name":["x"]},"message":"x"}'),
    ).toThrow(/keys in the order errors, message/);
    expect(() => checkContract('GET', '/api/v1/guests/x', 404, '{"message":"Not Found."}')).toThrow();
  });
});

describe.concurrent('GET /api/v1/openapi.json and /api/v1/docs', () => {
  it('serves the document without a token, with the request id and rate-limit headers', async () => {
    const res = await t.request('GET', '/api/v1/openapi.json', { headers: { 'x-request-id': 'docs-1' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toBe('docs-1');
    expect(res.headers['x-ratelimit-limit']).toBe('100000');
    expect(res.json).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(res.json.openapi).toBe('3.1.0');
    // A bad token does not matter either.
    const bad = await t.request('GET', '/api/v1/openapi.json', { token: 'nope' });
    expect(bad.status).toBe(200);
  });

  it('serves the reference page from the package, linking GraphiQL, loading nothing from another host', async () => {
    const res = await t.request('GET', '/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('href="/graphql"');
    expect(res.text).toContain('"/api/v1/openapi.json"');
    expect(res.text).toContain('validatorUrl: null');
    const refs = [...res.text.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThan(2);
    for (const ref of refs) expect(ref, ref).toMatch(/^\/(?!\/)/);
    expect(res.text).not.toMatch(/https?:\/\//);
    for (const ref of refs.filter((r) => r.startsWith('/api/v1/docs/'))) {
      const asset = await t.request('GET', ref);
      expect(asset.status, ref).toBe(200);
      expect(asset.text.length, ref).toBeGreaterThan(10_000);
    }
    const unknown = await t.request('GET', '/api/v1/docs/package.json');
    expect(unknown.status).toBe(404);
  });

  it('under an APP_URL with a path, links the assets, the document, its server and GraphiQL under it (probe O)', async () => {
    const under = await startApp({ APP_URL: 'http://localhost/wifi/' }, { db: t.db });
    try {
      const page = await under.request('GET', '/api/v1/docs');
      const refs = [...page.text.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');
      expect(refs).toEqual([
        '/wifi/api/v1/docs/swagger-ui.css',
        '/wifi/api/v1/openapi.json',
        '/wifi/graphql',
        '/wifi/api/v1/docs/swagger-ui-bundle.js',
      ]);
      expect(page.text).toContain('url: "/wifi/api/v1/openapi.json"');
      const document = (await under.request('GET', '/api/v1/openapi.json')).json;
      expect(document.servers).toEqual([{ url: '/wifi/api/v1', description: 'This server' }]);
      expect(document.info.description).toContain('(/wifi/graphql)');
      // GraphiQL's page sends its queries there too.
      const graphiql = await under.request('GET', '/graphql', { headers: { accept: 'text/html' } });
      expect(graphiql.status).toBe(200);
      expect(graphiql.text).toContain('"endpoint":"/wifi/graphql"');
    } finally {
      await under.close();
    }
  });

  it('serves the document, the page and its assets compressed as asked, each coding with its ETag (304 when held)', async () => {
    const assetDir = createRequire(import.meta.url)
      .resolve('swagger-ui-dist/package.json')
      .replace(/package\.json$/, '');
    const cases = [
      { url: '/api/v1/openapi.json', cache: 'no-cache', bytes: Buffer.from(JSON.stringify(doc)) },
      { url: '/api/v1/docs', cache: 'no-cache', bytes: null },
      {
        url: '/api/v1/docs/swagger-ui-bundle.js',
        cache: 'public, max-age=86400',
        bytes: readFileSync(`${assetDir}swagger-ui-bundle.js`),
      },
      {
        url: '/api/v1/docs/swagger-ui.css',
        cache: 'public, max-age=86400',
        bytes: readFileSync(`${assetDir}swagger-ui.css`),
      },
    ];
    for (const { url, cache, bytes } of cases) {
      const plain = await t.app.fastify.inject({ method: 'GET', url });
      expect(plain.statusCode, url).toBe(200);
      expect(plain.headers['content-encoding'], url).toBeUndefined();
      if (bytes) expect(plain.rawPayload.equals(bytes), url).toBe(true);
      const tags = new Set([plain.headers.etag]);
      for (const [coding, decode] of [
        ['br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        const res = await t.app.fastify.inject({
          method: 'GET',
          url,
          headers: { 'accept-encoding': `${coding}` },
        });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-encoding'], url).toBe(coding);
        expect(res.headers.vary, url).toBe('Accept-Encoding');
        expect(res.headers['cache-control'], url).toBe(cache);
        expect(res.rawPayload.length, url).toBeLessThan(plain.rawPayload.length);
        expect(decode(res.rawPayload).equals(plain.rawPayload), `${url} ${coding}`).toBe(true);
        tags.add(res.headers.etag);
        const held = await t.app.fastify.inject({
          method: 'GET',
          url,
          headers: { 'accept-encoding': coding, 'if-none-match': String(res.headers.etag) },
        });
        expect(held.statusCode, `${url} ${coding}`).toBe(304);
        expect(held.rawPayload.length).toBe(0);
      }
      // Three representations, three tags.
      expect(tags.size, url).toBe(3);
      // HEAD: the headers of GET's answer, and a 304 without a Content-Length (it gave 0).
      const head = await t.app.fastify.inject({ method: 'HEAD', url });
      expect(head.statusCode, url).toBe(200);
      expect(head.headers['content-length'], url).toBe(String(plain.rawPayload.length));
      expect(head.rawPayload.length, url).toBe(0);
      const heldHead = await t.app.fastify.inject({
        method: 'HEAD',
        url,
        headers: { 'if-none-match': String(plain.headers.etag) },
      });
      expect(heldHead.statusCode, url).toBe(304);
      expect(heldHead.headers['content-length'], url).toBeUndefined();
    }
    // A name that is no asset, an Object property's included, is a 404 (it was read as a file).
    for (const file of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const res = await t.request('GET', `/api/v1/docs/${file}`);
      expect(res.status, file).toBe(404);
      expect(res.text, file).toBe('{"message":"Not Found."}');
    }
  });

  it('keeps every other route gated', async () => {
    const res = await t.request('GET', '/api/v1/locations');
    expect(res.status).toBe(401);
  });
});

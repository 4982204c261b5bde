// Whatever a client sends, the answer is a clear 4xx (or a success), never a 500: every route of
// the route table meets hostile values in every query filter, body field and path id it declares.

import {
  type GraphQLInputType,
  getNamedType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { routeTable } from '../src/rest/route-table.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, newTenant } from './helpers/fixtures.js';

let t: TestApp;
let token: string;
let userId: string;
let locationId: string;
beforeAll(async () => {
  t = await startApp();
  const a = await newTenant(t.db.prisma);
  token = a.token;
  userId = a.user_id;
  locationId = a.location_id;
  await addHierarchy(t.db.prisma, a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
});
afterAll(() => t.close());

const QUERY_VALUES = [
  '',
  ' ',
  'abc',
  '-1',
  '0',
  '1e309',
  '9'.repeat(40),
  '%00',
  '%F0%9F%92%A5',
  '%ZZ',
  'null',
  '\'; DROP TABLE "Guest"; --',
  '2026-13-45',
  '2026-02-30 25:61',
];

const BODY_VALUES: unknown[] = [
  null,
  true,
  -1,
  1e308,
  1.5,
  'x'.repeat(5000),
  '',
  [],
  {},
  [1, 'two', null],
  { nested: { deeper: [1] } },
  '😀\u0000\\"',
  '2026-02-30',
];

const PATH_IDS = ['x'.repeat(300), '%E2%82%AC', '1e5', '%20', '-1', 'null', 'a%00b'];

function fieldsOf(rules: unknown): string[] {
  if (!rules) return [];
  const r = typeof rules === 'function' ? (rules as () => Record<string, unknown>)() : rules;
  return Object.keys(r as Record<string, unknown>);
}

/** A deterministic pseudo-random sequence, so a failure reproduces. */
function lcg(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('hostile input never answers 500', () => {
  for (const r of routeTable) {
    it(`${r.method} ${r.path}`, async () => {
      const e = r.endpoint;
      const filters = [...new Set([...fieldsOf(e.filters), ...fieldsOf(e.query), 'page', 'per_page'])];
      const bodyFields = [...fieldsOf(e.body), ...Object.keys(e.bodyItems ?? {})];
      const paths = r.path.includes(':') ? PATH_IDS.map((id) => r.path.replace(/:[^/]+/g, id)) : [r.path];
      const rand = lcg(r.path.length * 31 + r.method.length);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
      const requests: { url: string; body?: unknown; raw?: string }[] = [];
      for (const path of paths) {
        const url = `/api/v1${path}`;
        // Every filter at once with one hostile value, then mixed values, arrays and nested keys.
        for (const v of QUERY_VALUES)
          requests.push({ url: `${url}?${filters.map((f) => `${f}=${v}`).join('&')}` });
        for (let i = 0; i < 4; i++) {
          requests.push({ url: `${url}?${filters.map((f) => `${f}=${pick(QUERY_VALUES)}`).join('&')}` });
        }
        requests.push({ url: `${url}?${filters.map((f) => `${f}[]=1&${f}[]=2`).join('&')}` });
        requests.push({ url: `${url}?${filters.map((f) => `${f}[a][b]=1`).join('&')}` });
        if (r.method !== 'GET') {
          for (const v of BODY_VALUES) {
            requests.push({ url, body: Object.fromEntries(bodyFields.map((f) => [f, v])) });
          }
          for (let i = 0; i < 6; i++) {
            requests.push({ url, body: Object.fromEntries(bodyFields.map((f) => [f, pick(BODY_VALUES)])) });
          }
          for (const raw of ['', '[]', '"text"', '{"a":', '{"events": [null, 1, "x", {"kind": {}}]}']) {
            requests.push({ url, raw });
          }
          // A list field of objects, each field hostile (the ingest's events).
          for (const list of Object.keys(e.bodyItems ?? {})) {
            const item = Object.fromEntries(fieldsOf(e.bodyItems?.[list]).map((f) => [f, pick(BODY_VALUES)]));
            requests.push({ url, body: { [list]: [item, item, {}] } });
          }
        }
        if (path !== r.path) break; // one path id carries the query and body variants
      }
      for (const path of paths.slice(1)) requests.push({ url: `/api/v1${path}` });

      for (const req of requests) {
        const res = await t.request(r.method, req.url, {
          token,
          ...(req.raw !== undefined ? { rawBody: req.raw } : {}),
          ...(req.body !== undefined ? { body: req.body } : {}),
        });
        const what = `${r.method} ${req.url} ${req.raw ?? JSON.stringify(req.body ?? '').slice(0, 200)}`;
        expect(res.status, `${what}\n→ ${res.text.slice(0, 300)}`).toBeLessThan(500);
        // A streamed export's 200 is CSV or NDJSON (test/exports.test.ts); every other answer is JSON.
        if (!(r.endpoint.exportItem && res.status === 200))
          expect(() => JSON.parse(res.text || 'null'), what).not.toThrow();
      }
    }, 60_000);
  }
});

describe('text PostgreSQL cannot store', () => {
  it('names a NUL character in a field as a 422; an id with one is absent (REST) or bad input (GraphQL)', async () => {
    const res = await t.request('POST', '/api/v1/locations', { token, body: { name: 'Lobby\u0000Bar' } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: 'The name field must not contain NUL characters.',
      errors: { name: ['The name field must not contain NUL characters.'] },
    });
    const filter = await t.request('GET', '/api/v1/guests?name=a%00b', { token });
    expect(filter.status).toBe(422);
    expect(filter.json.errors).toEqual({ name: ['The name field must not contain NUL characters.'] });
    const path = await t.request('GET', '/api/v1/guests/a%00b', { token });
    expect(path.status).toBe(404);
    expect(path.json).toEqual({ error: 'Record not found.' });
    const gql = await t.graphql(token, 'query($id: ID!) { guest(id: $id) { id } }', { id: 'a\u0000b' });
    expect(gql.json.errors[0].message).toBe('Text may not contain NUL characters.');
    expect(gql.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('names the element holding a NUL character in a list (a batch of a thousand events, a tag)', async () => {
    const ingest = (await issueToken(t.db.prisma, userId, ['ingest'])).token;
    const event = (i: number, mac: string) => ({
      event_id: `nul-${i}`,
      mac,
      data_type: 1,
      seen_at: new Date().toISOString(),
    });
    const events = Array.from({ length: 1000 }, (_, i) => event(i, 'aa:bb:cc:00:00:01'));
    events[737] = event(737, 'aa:bb:cc:00:00:0\u00002');
    const batch = await t.request('POST', '/api/v1/ingest/presence', { token: ingest, body: { events } });
    expect(batch.status).toBe(422);
    expect(batch.json).toEqual({
      message: 'The events.737.mac field must not contain NUL characters.',
      errors: { 'events.737.mac': ['The events.737.mac field must not contain NUL characters.'] },
    });
    const tags = await t.request('POST', '/api/v1/guests', {
      token,
      body: {
        name: 'Nul Tag',
        email: 'nul-tag@example.com',
        location_id: locationId,
        tags: ['vip', 'l\u0000ate'],
      },
    });
    expect(tags.status).toBe(422);
    expect(tags.json.errors).toEqual({ 'tags.1': ['The tags.1 field must not contain NUL characters.'] });
    // A key holding one cannot be named: its list is.
    const keyed = await t.request('POST', '/api/v1/ingest/presence', {
      token: ingest,
      body: { events: [{ ...event(1, 'aa:bb:cc:00:00:01'), 'x\u0000': 1 }] },
    });
    expect(keyed.json.errors).toEqual({
      'events.0': ['The events.0 field must not contain NUL characters.'],
    });
  });
});

describe('hostile GraphQL arguments never answer an internal error', () => {
  const STRINGS = [
    '',
    ' ',
    'a\u0000b',
    'x'.repeat(5000),
    '😀',
    '\'; DROP TABLE "Guest"; --',
    '2026-02-30',
    '-1',
  ];
  const root = schema.getQueryType();
  for (const field of Object.values(root?.getFields() ?? {})) {
    const args = field.args.filter((a) => {
      const type = getNamedType(a.type);
      return isScalarType(type) && (type.name === 'String' || type.name === 'ID');
    });
    if (args.length === 0) continue;
    it(`Query.${field.name}`, async () => {
      const selection = isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';
      const decl = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const call = args.map((a) => `${a.name}: $${a.name}`).join(', ');
      const query = `query(${decl}) { ${field.name}(${call}) ${selection} }`;
      for (const value of STRINGS) {
        const variables = Object.fromEntries(
          args.map((a) => [a.name, value === '' && isNonNullType(a.type) ? 'x' : value]),
        );
        const res = await t.graphql(token, query, variables);
        const codes = (res.json.errors ?? []).map(
          (e: { extensions?: { code?: string } }) => e.extensions?.code,
        );
        expect(
          codes,
          `${query} ${JSON.stringify(variables).slice(0, 200)} → ${res.text.slice(0, 300)}`,
        ).not.toContain('INTERNAL_SERVER_ERROR');
        expect(res.status).toBeLessThan(500);
      }
    });
  }
});

describe('hostile GraphQL mutation inputs never answer an internal error', () => {
  const STRINGS = ['a\u0000b', 'x'.repeat(5000), '😀', '2026-02-30', '-1', ' '];
  const INTS = [-1, 0, 2147483647];
  /** A value of `type` built from one hostile string or number (lists of one, objects of every field). */
  function value(type: GraphQLInputType, i: number): unknown {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) return [value(inner.ofType, i)];
    if (isInputObjectType(inner)) {
      return Object.fromEntries(Object.values(inner.getFields()).map((f) => [f.name, value(f.type, i)]));
    }
    const named = getNamedType(inner);
    if (named.name === 'Int') return INTS[i % INTS.length];
    if (named.name === 'Float') return -1.5;
    if (named.name === 'Boolean') return i % 2 === 0;
    if (isScalarType(named)) return STRINGS[i % STRINGS.length];
    return null; // enums: none in the inputs today; null is refused by GraphQL itself where required
  }
  const root = schema.getMutationType();
  for (const field of Object.values(root?.getFields() ?? {})) {
    it(`Mutation.${field.name}`, async () => {
      const selection = isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';
      const decl = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const call = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
      const query = `mutation${decl ? `(${decl})` : ''} { ${field.name}${call ? `(${call})` : ''} ${selection} }`;
      for (let i = 0; i < STRINGS.length; i++) {
        const variables = Object.fromEntries(field.args.map((a) => [a.name, value(a.type, i)]));
        const res = await t.graphql(token, query, variables);
        const codes = (res.json.errors ?? []).map(
          (e: { extensions?: { code?: string } }) => e.extensions?.code,
        );
        expect(
          codes,
          `${query} ${JSON.stringify(variables).slice(0, 300)} → ${res.text.slice(0, 300)}`,
        ).not.toContain('INTERNAL_SERVER_ERROR');
        expect(res.status).toBeLessThan(500);
      }
    });
  }
});

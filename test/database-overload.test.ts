// One caller must not be able to starve the database, and a database that is down or slow answers
// 503 with Retry-After (REST) / SERVICE_UNAVAILABLE (GraphQL), never 500. The length limits run on
// both databases; the outage, timeout and fairness tests need PostgreSQL (a TCP proxy of our own
// sits between the app and the shared server, which is never stopped).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../src/rest/route-table.js';
import type { Rule } from '../src/validation/validator.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';


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

// API keys (beyond the spec): GET/POST /api-tokens, DELETE /api-tokens/:id and GraphQL `apiTokens`,
// `createApiToken`, `revokeApiToken`. The secret is shown once and works; the scopes are enforced on
// both transports; expired and revoked tokens answer 401; `last_used_at` is written in batches, never
// per request; every bad field answers Laravel's message; another tenant's tokens are out of reach.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlRootFields } from '../scripts/print-permissions.js';
import { type Action, permissionTable, readActions } from '../src/auth/permissions.js';
import { createTokenUsage } from '../src/auth/token-usage.js';
import { hashToken } from '../src/auth/tokens.js';
import { routeTable } from '../src/rest/route-table.js';
import { isoMicros } from '../src/shared/format.js';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable as unprocessableBody } from './helpers/laravel.js';
import { migratedMemoryDatabase } from './helpers/pglite-template.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const URL = '/api/v1/api-tokens';
const LINK = String.raw`http:\/\/localhost\/api\/v1\/api-tokens`;
const UNAUTHENTICATED = '{"message":"Unauthenticated."}';
const FORBIDDEN = '{"message":"This action is unauthorized."}';
const NOT_FOUND = '{"error":"Record not found."}';
const SECRET = /^[A-Za-z0-9_-]{40}$/;

const tenant = () => newTenant(t.db.prisma);
const tokenRow = (id: string) => t.db.prisma.apiToken.findUniqueOrThrow({ where: { id } });
const unprocessable = (errors: Record<string, string[]>) => JSON.stringify(unprocessableBody(errors));
const ids = (res: TestResponse) => res.json.data.map((x: { id: string }) => x.id);
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** POST /api-tokens as `token`; the 201 body's item. */
async function create(token: string, body: Record<string, unknown>) {
  const res = await t.request('POST', URL, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; token: string; [key: string]: unknown };
}

/** The REST item of a token, keys in order, from its database row. */
async function item(id: string): Promise<Record<string, unknown>> {
  const row = await t.db.prisma.apiToken.findUniqueOrThrow({
    where: { id },
    include: { user: { select: { id: true, name: true, email: true } } },
  });
  return {
    id: row.id,
    name: row.name,
    user: { id: row.user.id, name: row.user.name, email: row.user.email },
    scopes: row.scopes.length ? row.scopes : ['full'],
    created_at: isoMicros(row.createdAt),
    last_used_at: isoMicros(row.lastUsedAt),
    expires_at: isoMicros(row.expiresAt),
    revoked_at: isoMicros(row.revokedAt),
  };
}

/** The token a user was made with: their oldest (an unordered findFirst is any row on PostgreSQL). */
const firstTokenId = async (userId: string) =>
  (
    await t.db.prisma.apiToken.findFirstOrThrow({
      where: { userId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    })
  ).id;

// biome-ignore lint/suspicious/noExplicitAny: GraphQL bodies are asserted against literals.
const data = (res: TestResponse): any => {
  expect(res.json?.errors, res.text).toBeUndefined();
  return res.json.data;
};
const errorCodes = (res: TestResponse): unknown[] =>
  ((res.json?.errors ?? []) as { extensions?: { code?: string } }[]).map((e) => e.extensions?.code);

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /api-tokens', () => {
  it('201 with the item and the secret once; the secret works, only its hash is stored, the list never shows it', async () => {
    const a = await tenant();
    const expires = new Date(Date.now() + 86_400_000);
    const res = await t.request('POST', URL, {
      token: a.token,
      body: { name: '  CI deploys  ', scopes: ['read', 'ingest'], expires_at: expires.toISOString() },
    });
    expect(res.status, res.text).toBe(201);
    const created = res.json.data;
    expect(created.token).toMatch(SECRET);
    const row = await tokenRow(created.id);
    expect(row.tokenHash).toBe(hashToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(row.expiresAt?.toISOString()).toBe(expires.toISOString());
    expect(res.text).toBe(JSON.stringify({ data: { ...(await item(created.id)), token: created.token } }));
    expect(created).toMatchObject({
      name: 'CI deploys',
      user: { id: a.user_id },
      scopes: ['read', 'ingest'],
      last_used_at: null,
      revoked_at: null,
    });

    // The secret authenticates, as the user it was made for.
    const viewer = data(await t.graphql(created.token, '{ viewer { id } }')).viewer;
    expect(viewer.id).toBe(a.user_id);
    const list = await t.request('GET', URL, { token: created.token });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.token);
    expect(list.text).not.toContain(row.tokenHash);
    expect(list.json.data[0]).toEqual(await item(created.id));
    expect(Object.keys(list.json.data[0])).not.toContain('token');
  });

  it('defaults: the caller’s own token, never expiring; a null expires_at is the same; scopes as asked', async () => {
    const a = await tenant();
    const full = await create(a.token, { name: 'Full', scopes: ['full'] });
    expect(full).toMatchObject({ user: { id: a.user_id }, scopes: ['full'], expires_at: null });
    const nulled = await create(a.token, { name: 'Read', scopes: ['read'], expires_at: null, user_id: null });
    expect(nulled).toMatchObject({ user: { id: a.user_id }, scopes: ['read'], expires_at: null });
    expect((await tokenRow(full.id)).scopes).toEqual(['full']);
  });

  it('for another user of the tenant (user_id); a zone in expires_at is honoured', async () => {
    const a = await tenant();
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const made = await create(a.token, {
      name: 'Kiosk',
      scopes: ['full'],
      user_id: venue.userId,
      expires_at: '2099-01-01T10:00:00+02:00',
    });
    expect(made.user).toMatchObject({ id: venue.userId });
    expect(made.expires_at).toBe('2099-01-01T08:00:00.000000Z');
    // The token has the venue user's rights: its own location only, no user management.
    const viewer = data(await t.graphql(made.token, '{ viewer { id location { id } } }')).viewer;
    expect(viewer).toEqual({ id: venue.userId, location: { id: a.location_id } });
    expect((await t.request('GET', URL, { token: made.token })).status).toBe(403);
  });

  it('every bad field answers Laravel’s message', async () => {
    const a = await tenant();
    const b = await tenant();
    const post = (body: unknown) => t.request('POST', URL, { token: a.token, body });
    const expect422 = async (body: unknown, errors: Record<string, string[]>) => {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.text, JSON.stringify(body)).toBe(unprocessable(errors));
    };
    await expect422({}, { name: ['The name field is required.'], scopes: ['The scopes field is required.'] });
    await expect422(
      { name: '   ', scopes: [] },
      { name: ['The name field is required.'], scopes: ['The scopes field is required.'] },
    );
    await expect422({ name: 123, scopes: ['read'] }, { name: ['The name field must be a string.'] });
    await expect422(
      { name: 'x'.repeat(256), scopes: ['read'] },
      { name: ['The name field must not be greater than 255 characters.'] },
    );
    await create(a.token, { name: 'x'.repeat(255), scopes: ['read'] });
    await expect422({ name: 'n', scopes: 'read' }, { scopes: ['The scopes field must be an array.'] });
    // A map is no list, as the README's list fields have it (it was `The selected scopes is invalid.`; probe V).
    await expect422({ name: 'n', scopes: { a: 'read' } }, { scopes: ['The scopes field must be an array.'] });
    await expect422(
      { name: 'n', scopes: { a: 'admin' } },
      { scopes: ['The scopes field must be an array.', 'The selected scopes is invalid.'] },
    );
    await expect422(
      { name: 'n', scopes: 'admin' },
      { scopes: ['The scopes field must be an array.', 'The selected scopes is invalid.'] },
    );
    await expect422(
      { name: 'n', scopes: ['read', 'admin'] },
      { scopes: ['The selected scopes is invalid.'] },
    );
    await expect422({ name: 'n', scopes: ['READ'] }, { scopes: ['The selected scopes is invalid.'] });
    await expect422({ name: 'n', scopes: [['read']] }, { scopes: ['The selected scopes is invalid.'] });
    await expect422(
      { name: 'n', scopes: ['ingest', 'read', 'ingest'] },
      {
        'scopes.0': ['The scopes.0 field has a duplicate value.'],
        'scopes.2': ['The scopes.2 field has a duplicate value.'],
      },
    );
    // Laravel's `in` on the list, and `distinct` on each element, both.
    await expect422(
      { name: 'n', scopes: ['read', 'bogus', 'read'] },
      {
        scopes: ['The selected scopes is invalid.'],
        'scopes.0': ['The scopes.0 field has a duplicate value.'],
        'scopes.2': ['The scopes.2 field has a duplicate value.'],
      },
    );
    await expect422(
      { name: 'n', scopes: ['read'], expires_at: 'tomorrow' },
      {
        expires_at: [
          'The expires at field must be a valid date.',
          'The expires at field must be a date after now.',
        ],
      },
    );
    await expect422(
      { name: 'n', scopes: ['read'], expires_at: 12 },
      {
        expires_at: [
          'The expires at field must be a valid date.',
          'The expires at field must be a date after now.',
        ],
      },
    );
    // Not a calendar day (PHP's checkdate), though later than now once rolled over.
    await expect422(
      { name: 'n', scopes: ['read'], expires_at: '2099-02-30' },
      { expires_at: ['The expires at field must be a valid date.'] },
    );
    await expect422(
      { name: 'n', scopes: ['read'], expires_at: '2020-01-01T00:00:00Z' },
      { expires_at: ['The expires at field must be a date after now.'] },
    );
    await expect422(
      { name: 'n', scopes: ['read'], expires_at: new Date(Date.now() - 1000).toISOString() },
      { expires_at: ['The expires at field must be a date after now.'] },
    );
    await create(a.token, {
      name: 'n',
      scopes: ['read'],
      expires_at: new Date(Date.now() + 5000).toISOString(),
    });
    await expect422(
      { name: 'n', scopes: ['read'], user_id: 42 },
      { user_id: ['The user id field must be a string.'] },
    );
    await expect422(
      { name: 'n', scopes: ['read'], user_id: 'nobody' },
      { user_id: ['The selected user id is invalid.'] },
    );
    // Another tenant's user is no user of this tenant.
    await expect422(
      { name: 'n', scopes: ['read'], user_id: b.user_id },
      { user_id: ['The selected user id is invalid.'] },
    );
    expect(await t.db.prisma.apiToken.count({ where: { userId: b.user_id } })).toBe(1);
  });

  it('a support user’s token is issued only by a support caller (403 for a tenant admin)', async () => {
    const a = await tenant();
    const support = await addUser(t.db.prisma, a.tenant_id, 'support');
    const refused = await t.request('POST', URL, {
      token: a.token,
      body: { name: 'Staff', scopes: ['full'], user_id: support.userId },
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toBe(FORBIDDEN);
    expect(await t.db.prisma.apiToken.count({ where: { userId: support.userId } })).toBe(1);
    const other = await addUser(t.db.prisma, a.tenant_id, 'support');
    const made = await create(support.token, { name: 'Staff', scopes: ['read'], user_id: other.userId });
    expect(made.user).toMatchObject({ id: other.userId });
    // A support user manages its tenant's tokens like a tenant admin.
    const admin = await addUser(t.db.prisma, a.tenant_id, 'tenant');
    await create(support.token, { name: 'For the admin', scopes: ['read'], user_id: admin.userId });
  });

  it('a token for a user holding a permission the caller lacks is 403 (it would act with that permission)', async () => {
    const a = await tenant();
    // The bootstrap API user holds guests.manage-global; a second tenant admin does not.
    const second = await addUser(t.db.prisma, a.tenant_id, 'tenant');
    const refused = await t.request('POST', URL, {
      token: second.token,
      body: { name: 'As the API user', scopes: ['full'], user_id: a.user_id },
    });
    expect(refused.status).toBe(403);
    expect(refused.text).toBe(FORBIDDEN);
    const gql = await t.graphql(
      second.token,
      `mutation { createApiToken(input: { name: "As the API user", scopes: ["full"], userId: "${a.user_id}" }) { token } }`,
    );
    expect(gql.json.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await t.db.prisma.apiToken.count({ where: { userId: a.user_id } })).toBe(1);
    // Its own tokens, and those of users holding no more than it does, it still issues; the API
    // user, holding the permission, issues one for the second admin.
    await create(second.token, { name: 'Own', scopes: ['read'] });
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    await create(second.token, { name: 'Venue', scopes: ['read'], user_id: venue.userId });
    await create(a.token, { name: 'For the second', scopes: ['read'], user_id: second.userId });
  });

  it('venue and front-desk users may not manage tokens', async () => {
    const a = await tenant();
    for (const role of ['venue', 'front-desk'] as const) {
      const u = await addUser(t.db.prisma, a.tenant_id, role, { locationId: a.location_id });
      for (const [method, url] of [
        ['GET', URL],
        ['GET', `${URL}/count`],
        ['POST', URL],
        ['DELETE', `${URL}/${await firstTokenId(u.userId)}`],
      ] as const) {
        const body = method === 'POST' ? { body: { name: 'n', scopes: ['read'] } } : {};
        const res = await t.request(method, url, { token: u.token, ...body });
        expect(res.status, `${role} ${method} ${url}`).toBe(403);
        expect(res.text).toBe(FORBIDDEN);
      }
      expect(errorCodes(await t.graphql(u.token, '{ apiTokens { totalCount } }'))).toEqual(['FORBIDDEN']);
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /api-tokens and /api-tokens/count', () => {
  it('lists the tokens of the tenant’s users, newest first, in the exact envelope; never another tenant’s', async () => {
    const a = await tenant();
    const b = await tenant();
    const desk = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const made = await create(a.token, { name: 'Newest', scopes: ['ingest'] });
    const bootstrap = await firstTokenId(a.user_id);
    const deskToken = await firstTokenId(desk.userId);
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    const expected = [await item(made.id), await item(deskToken), await item(bootstrap)];
    // The bootstrap token shows its name; a token stored without scopes shows ["full"].
    expect(expected[2]).toMatchObject({ name: 'bootstrap', scopes: ['full'] });
    expect(res.text).toBe(
      `{"data":${JSON.stringify(expected)},` +
        `"links":{"first":"${LINK}?page=1","last":null,"prev":null,"next":null},` +
        `"meta":{"current_page":1,"from":1,"to":3,"path":"${LINK}","per_page":10}}`,
    );
    expect(res.text).not.toContain(b.user_id);
    expect((await t.request('GET', `${URL}/count`, { token: a.token })).text).toBe('{"count":3}');
    const page = await t.request('GET', `${URL}?per_page=2&page=2`, { token: a.token });
    expect(ids(page)).toEqual([bootstrap]);
  });

  it('filters user_id, name (literal case-insensitive substring) and status; counts follow', async () => {
    const a = await tenant();
    const b = await tenant();
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const ci = await create(a.token, { name: 'CI 100% deploys', scopes: ['read'] });
    const kiosk = await create(a.token, { name: 'Lobby kiosk', scopes: ['read'], user_id: venue.userId });
    const old = await create(a.token, { name: 'Old kiosk', scopes: ['read'], expires_at: inAnHour() });
    await t.db.prisma.apiToken.update({
      where: { id: old.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    const gone = await create(a.token, { name: 'Gone', scopes: ['read'] });
    expect((await t.request('DELETE', `${URL}/${gone.id}`, { token: a.token })).status).toBe(204);
    const bootstrap = await firstTokenId(a.user_id);
    const venueFirst = await firstTokenId(venue.userId);
    const q = async (query: string) => ids(await t.request('GET', `${URL}?${query}`, { token: a.token }));
    const count = async (query: string) =>
      (await t.request('GET', `${URL}/count?${query}`, { token: a.token })).json.count;
    expect(await q(`user_id=${venue.userId}`)).toEqual([kiosk.id, venueFirst]);
    expect(await q(`user_id=${b.user_id}`)).toEqual([]);
    expect(await q('name=KIOSK')).toEqual([old.id, kiosk.id]);
    expect(await q('name=100%25')).toEqual([ci.id]);
    expect(await q('name=_')).toEqual([]);
    expect(await q('status=active')).toEqual([kiosk.id, ci.id, venueFirst, bootstrap]);
    expect(await q('status=revoked')).toEqual([gone.id]);
    expect(await q('status=expired')).toEqual([old.id]);
    expect(await q('status=')).toHaveLength(6);
    expect(await count('status=active&name=kiosk')).toBe(1);
    expect(await count('status=expired')).toBe(1);
    const bad = await t.request('GET', `${URL}?status=live&name[]=x`, { token: a.token });
    expect(bad.status).toBe(422);
    expect(bad.text).toBe(
      unprocessable({
        name: ['The name field must be a string.'],
        status: ['The selected status is invalid.'],
      }),
    );
    expect((await t.request('GET', `${URL}/count?status=live`, { token: a.token })).status).toBe(422);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('DELETE /api-tokens/:id', () => {
  it('204 and empty; the next request with the token is 401 on both transports; again: 204, revoked_at kept', async () => {
    const a = await tenant();
    const made = await create(a.token, { name: 'Short-lived', scopes: ['full'] });
    expect((await t.request('GET', '/api/v1/locations', { token: made.token })).status).toBe(200);
    const res = await t.request('DELETE', `${URL}/${made.id}`, { token: a.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const refused = await t.request('GET', '/api/v1/locations', { token: made.token });
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(UNAUTHENTICATED);
    expect((await t.graphql(made.token, '{ viewer { id } }')).status).toBe(401);
    const revokedAt = (await tokenRow(made.id)).revokedAt;
    expect(revokedAt).not.toBeNull();
    expect((await t.request('DELETE', `${URL}/${made.id}`, { token: a.token })).status).toBe(204);
    expect((await tokenRow(made.id)).revokedAt).toEqual(revokedAt);
    // Listed, with its revocation time.
    const listed = await t.request('GET', `${URL}?status=revoked`, { token: a.token });
    expect(listed.json.data).toEqual([await item(made.id)]);
    expect(listed.json.data[0].revoked_at).toBe(isoMicros(revokedAt));
  });

  it('a caller may revoke its own token: its next request is 401', async () => {
    const a = await tenant();
    const own = await firstTokenId(a.user_id);
    expect((await t.request('DELETE', `${URL}/${own}`, { token: a.token })).status).toBe(204);
    expect((await t.request('GET', URL, { token: a.token })).status).toBe(401);
  });

  it('another tenant’s token or an unknown id is 404 and stays usable; a support user’s token is 403 to a tenant admin', async () => {
    const a = await tenant();
    const b = await tenant();
    const foreign = await firstTokenId(b.user_id);
    for (const id of [foreign, 'unknown']) {
      const res = await t.request('DELETE', `${URL}/${id}`, { token: a.token });
      expect(res.status).toBe(404);
      expect(res.text).toBe(NOT_FOUND);
    }
    expect((await tokenRow(foreign)).revokedAt).toBeNull();
    expect((await t.request('GET', URL, { token: b.token })).status).toBe(200);
    const support = await addUser(t.db.prisma, a.tenant_id, 'support');
    const staff = await firstTokenId(support.userId);
    const refused = await t.request('DELETE', `${URL}/${staff}`, { token: a.token });
    expect(refused.status).toBe(403);
    expect(refused.text).toBe(FORBIDDEN);
    expect((await tokenRow(staff)).revokedAt).toBeNull();
    expect((await t.request('DELETE', `${URL}/${staff}`, { token: support.token })).status).toBe(204);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('expiry', () => {
  it('a token past its expires_at is 401 on both transports, as a revoked one', async () => {
    const a = await tenant();
    const made = await create(a.token, { name: 'Temp', scopes: ['read'], expires_at: inAnHour() });
    expect((await t.request('GET', '/api/v1/locations', { token: made.token })).status).toBe(200);
    // An hour later (moved back rather than waited for); the moment itself counts as expired.
    await t.db.prisma.apiToken.update({ where: { id: made.id }, data: { expiresAt: new Date() } });
    const refused = await t.request('GET', '/api/v1/locations', { token: made.token });
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(UNAUTHENTICATED);
    const gql = await t.graphql(made.token, '{ viewer { id } }');
    expect(gql.status).toBe(401);
    expect(errorCodes(gql)).toEqual(['UNAUTHENTICATED']);
  });

  it('a token that expires creates none that outlives it: expires_at required, at most its own (both transports)', async () => {
    const a = await tenant();
    const expiry = new Date(Date.now() + 3_600_000);
    const short = await create(a.token, {
      name: 'Short',
      scopes: ['full'],
      expires_at: expiry.toISOString(),
    });
    const own = isoMicros(expiry);
    for (const [body, message] of [
      [{}, 'The expires at field is required.'],
      [{ expires_at: null }, 'The expires at field is required.'],
      [
        { expires_at: new Date(expiry.getTime() + 1).toISOString() },
        `The expires at field must be a date before or equal to ${own}.`,
      ],
      [{ expires_at: new Date(expiry.getTime() + 1).toISOString(), user_id: a.user_id }, null],
    ] as const) {
      const res = await t.request('POST', URL, {
        token: short.token,
        body: { name: 'Forever', scopes: ['full'], ...body },
      });
      expect(res.status, res.text).toBe(422);
      expect(res.text).toBe(
        unprocessable({
          expires_at: [message ?? `The expires at field must be a date before or equal to ${own}.`],
        }),
      );
    }
    const gql = await t.graphql(
      short.token,
      'mutation { createApiToken(input: { name: "Forever", scopes: ["full"] }) { token } }',
    );
    expect(gql.json.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { expiresAt: ['The expires at field is required.'] },
    });
    // Up to its own expiry, included, it still creates; a token that never expires has no bound.
    const same = await create(short.token, {
      name: 'As long',
      scopes: ['read'],
      expires_at: expiry.toISOString(),
    });
    expect(same.expires_at).toBe(own);
    await create(a.token, { name: 'Forever', scopes: ['read'] });
    expect(await t.db.prisma.apiToken.count({ where: { userId: a.user_id, expiresAt: null } })).toBe(2);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('scopes', () => {
  const ingestBody = { events: [] };

  it('read: every GET and GraphQL query; every write is 403 (REST and GraphQL)', async () => {
    const a = await tenant();
    const read = await create(a.token, { name: 'Dashboards', scopes: ['read'] });
    for (const url of ['/api/v1/locations', '/api/v1/guests/count', URL, '/api/v1/locations/hierarchy']) {
      expect((await t.request('GET', url, { token: read.token })).status, url).toBe(200);
    }
    const writes: [string, string, unknown][] = [
      ['POST', '/api/v1/locations', { name: 'Nope' }],
      ['PUT', `/api/v1/locations/${a.location_id}`, { name: 'Nope' }],
      ['POST', URL, { name: 'Escalate', scopes: ['full'] }],
      ['DELETE', `${URL}/${read.id}`, undefined],
      ['POST', '/api/v1/ingest/presence', ingestBody],
    ];
    for (const [method, url, body] of writes) {
      const res = await t.request(method, url, { token: read.token, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.text).toBe(FORBIDDEN);
    }
    const q = data(
      await t.graphql(
        read.token,
        '{ viewer { id } apiTokens { totalCount } locations(first: 1) { totalCount } }',
      ),
    );
    expect(q.viewer.id).toBe(a.user_id);
    expect(q.apiTokens.totalCount).toBe(2);
    for (const m of [
      `createApiToken(input: { name: "x", scopes: ["full"] }) { token }`,
      `revokeApiToken(id: "${read.id}") { id }`,
      'createLocation(input: { name: "Nope" }) { id }',
    ]) {
      expect(errorCodes(await t.graphql(read.token, `mutation { ${m} }`)), m).toEqual(['FORBIDDEN']);
    }
    expect((await tokenRow(read.id)).revokedAt).toBeNull();
  });

  it('ingest: the ingest only, as before; read+ingest: both; full: everything the user may', async () => {
    const a = await tenant();
    const ingest = await create(a.token, { name: 'Controller', scopes: ['ingest'] });
    const both = await create(a.token, { name: 'Portal', scopes: ['read', 'ingest'] });
    const full = await create(a.token, { name: 'Admin', scopes: ['full'] });
    // An empty batch is a 422: past authorization.
    expect(
      (await t.request('POST', '/api/v1/ingest/presence', { token: ingest.token, body: ingestBody })).status,
    ).toBe(422);
    expect((await t.request('GET', '/api/v1/locations', { token: ingest.token })).status).toBe(403);
    expect(errorCodes(await t.graphql(ingest.token, '{ viewer { id } }'))).toEqual(['FORBIDDEN']);
    expect(
      (await t.request('POST', '/api/v1/ingest/sessions', { token: both.token, body: ingestBody })).status,
    ).toBe(422);
    expect((await t.request('GET', '/api/v1/locations', { token: both.token })).status).toBe(200);
    expect(
      (await t.request('POST', '/api/v1/locations', { token: both.token, body: { name: 'No' } })).status,
    ).toBe(403);
    const made = await t.request('POST', '/api/v1/locations', {
      token: full.token,
      body: { name: 'By a full token' },
    });
    expect(made.status).toBe(201);
    expect(
      data(
        await t.graphql(
          full.token,
          'mutation { createApiToken(input: { name: "x", scopes: ["read"] }) { token } }',
        ),
      ).createApiToken.token,
    ).toMatch(SECRET);
  });

  it('the read actions are exactly what GET routes and GraphQL queries and subscriptions declare', () => {
    const action = (a: unknown) => a as Action;
    for (const r of routeTable) {
      expect(readActions.has(action(r.endpoint.action)), `${r.method} ${r.path}`).toBe(r.method === 'GET');
    }
    for (const f of graphqlRootFields()) {
      expect(readActions.has(action(f.action)), f.name).toBe(!f.name.startsWith('Mutation.'));
    }
    for (const a of readActions) expect(Object.hasOwn(permissionTable, a)).toBe(true);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL apiTokens, createApiToken, revokeApiToken', () => {
  it('create: the payload carries the token and the secret once; the connection and its count follow REST', async () => {
    const a = await tenant();
    const b = await tenant();
    const res = data(
      await t.graphql(
        a.token,
        `mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) {
          token apiToken { id name scopes user { id email } createdAt lastUsedAt expiresAt revokedAt } } }`,
        { input: { name: 'GraphQL key', scopes: ['ingest', 'read'], expiresAt: '2099-05-01T00:00:00Z' } },
      ),
    ).createApiToken;
    expect(res.token).toMatch(SECRET);
    const row = await tokenRow(res.apiToken.id);
    expect(row.tokenHash).toBe(hashToken(res.token));
    expect(res.apiToken).toMatchObject({
      name: 'GraphQL key',
      scopes: ['ingest', 'read'],
      user: { id: a.user_id },
      lastUsedAt: null,
      expiresAt: '2099-05-01T00:00:00.000000Z',
      revokedAt: null,
    });
    const q = `query($status: String, $userId: String) { apiTokens(first: 10, status: $status, userId: $userId) {
      totalCount edges { node { id name scopes } } } }`;
    const list = data(await t.graphql(a.token, q)).apiTokens;
    expect(list.totalCount).toBe(2);
    const rest = await t.request('GET', URL, { token: a.token });
    expect(list.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(ids(rest));
    expect(list.edges[1].node).toMatchObject({ name: 'bootstrap', scopes: ['full'] });
    expect(JSON.stringify(list)).not.toContain(res.token);
    expect(data(await t.graphql(a.token, q, { userId: b.user_id })).apiTokens).toEqual({
      totalCount: 0,
      edges: [],
    });
    const bad = await t.graphql(a.token, q, { status: 'live' });
    expect(bad.json.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: { status: ['The selected status is invalid.'] },
    });
  });

  it('bad input: the REST messages keyed by the GraphQL field', async () => {
    const a = await tenant();
    const b = await tenant();
    const res = await t.graphql(
      a.token,
      `mutation($u: String) { createApiToken(input: { name: "", scopes: ["read", "read"], expiresAt: "2020-01-01", userId: $u }) { token } }`,
      { u: b.user_id },
    );
    const [error] = res.json.errors;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.fields).toEqual({
      name: ['The name field is required.'],
      'scopes.0': ['The scopes.0 field has a duplicate value.'],
      'scopes.1': ['The scopes.1 field has a duplicate value.'],
      expiresAt: ['The expires at field must be a date after now.'],
      userId: ['The selected user id is invalid.'],
    });
    expect(await t.db.prisma.apiToken.count({ where: { userId: a.user_id } })).toBe(1);
  });

  it('revokeApiToken: the token answers 401 next; another tenant’s is NOT_FOUND and stays usable', async () => {
    const a = await tenant();
    const b = await tenant();
    const made = await create(a.token, { name: 'Soon revoked', scopes: ['read'] });
    const revoked = data(
      await t.graphql(a.token, `mutation { revokeApiToken(id: "${made.id}") { id revokedAt } }`),
    ).revokeApiToken;
    expect(revoked.id).toBe(made.id);
    expect(revoked.revokedAt).toBe(isoMicros((await tokenRow(made.id)).revokedAt));
    expect((await t.graphql(made.token, '{ viewer { id } }')).status).toBe(401);
    const foreign = await firstTokenId(b.user_id);
    const res = await t.graphql(a.token, `mutation { revokeApiToken(id: "${foreign}") { id } }`);
    expect(errorCodes(res)).toEqual(['NOT_FOUND']);
    expect((await t.graphql(b.token, '{ viewer { id } }')).status).toBe(200);
  });
});

// -------------------------------------------------------------------------------------------------
// Not concurrent: these count every statement of the database client.
describe('last_used_at', () => {
  it('no write per request: the uses are written in one statement when flushed, and listed then', async () => {
    const a = await tenant();
    const made = await create(a.token, { name: 'Used', scopes: ['read'] });
    await t.app.tokenUsage.flush();
    const get = () => t.request('GET', '/api/v1/service-profiles', { token: made.token });
    const first = await recordStatements(t.db, get);
    const second = await recordStatements(t.db, get);
    expect(first.result.status).toBe(200);
    // The same statements each time (authentication's read, the page, its count), none written.
    expect(second.sql).toEqual(first.sql);
    expect(first.sql.filter((s) => /^\s*(UPDATE|INSERT)/i.test(s))).toEqual([]);
    expect((await tokenRow(made.id)).lastUsedAt).toBeNull();
    const before = Date.now();

    // Two tokens used, one statement for both.
    await t.request('GET', '/api/v1/locations', { token: a.token });
    const flushed = await recordStatements(t.db, () => t.app.tokenUsage.flush());
    expect(flushed.sql).toHaveLength(1);
    expect(flushed.sql[0]).toMatch(/^UPDATE "ApiToken"/);
    const used = (await tokenRow(made.id)).lastUsedAt;
    expect(used).not.toBeNull();
    expect(used?.getTime()).toBeLessThanOrEqual(before);
    expect((await tokenRow(await firstTokenId(a.user_id))).lastUsedAt?.getTime()).toBeGreaterThanOrEqual(
      before,
    );
    // Nothing noted since: nothing written.
    expect((await recordStatements(t.db, () => t.app.tokenUsage.flush())).sql).toEqual([]);
    const listed = await t.request('GET', `${URL}?name=Used`, { token: a.token });
    expect(listed.json.data[0].last_used_at).toBe(isoMicros(used));
  });

  it('a value never moves back (another instance may have written a later use)', async () => {
    const a = await tenant();
    const id = await firstTokenId(a.user_id);
    const later = new Date(Date.now() + 60_000);
    await t.db.prisma.apiToken.update({ where: { id }, data: { lastUsedAt: later } });
    t.app.tokenUsage.touch(id, new Date());
    await t.app.tokenUsage.flush();
    expect((await tokenRow(id)).lastUsedAt).toEqual(later);
  });

  it('written by the timer (TOKEN_LAST_USED_FLUSH_SECONDS) and when the app closes', async () => {
    const a = await tenant();
    const timed = await startApp({ TOKEN_LAST_USED_FLUSH_SECONDS: '1' }, { db: t.db });
    try {
      expect((await timed.request('GET', URL, { token: a.token })).status).toBe(200);
      const id = await firstTokenId(a.user_id);
      const deadline = Date.now() + 5000;
      while ((await tokenRow(id)).lastUsedAt === null && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect((await tokenRow(id)).lastUsedAt).not.toBeNull();
    } finally {
      await timed.close();
    }
    const b = await tenant();
    const closing = await startApp({}, { db: t.db });
    expect((await closing.request('GET', URL, { token: b.token })).status).toBe(200);
    const id = await firstTokenId(b.user_id);
    expect((await tokenRow(id)).lastUsedAt).toBeNull();
    await closing.close();
    expect((await tokenRow(id)).lastUsedAt).not.toBeNull();
  });

  it('a write that fails says the uses are kept for the next try, or, the last at close, lost (probe F)', async () => {
    const db = await migratedMemoryDatabase();
    const finals: boolean[] = [];
    const usage = createTokenUsage(db.prisma, {
      intervalMs: 3_600_000,
      onError: (_err, final) => finals.push(final),
    });
    await db.close();
    usage.touch('some-token');
    await usage.flush();
    await usage.close();
    expect(finals).toEqual([false, true]);
  });
});

// The access-code status lifecycle (vouchers, beyond the spec): 1 Available, 2 Used, 3 Expired (read
// from the expiry date when the code is read, before any sweeper), 4 Revoked; the list and count
// filter by the status shown; `PUT /access-codes/:id/revoke` and `POST /access-codes/revoke` (ids or
// the list's filters), GraphQL `revokeAccessCode` / `revokeAccessCodes`; pinned roles and tenants.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addGuest, addUser, newTenant, randomMac } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';
import { lockWaiters } from './helpers/lock-waits.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

const CODES = '/api/v1/access-codes';
const prisma = () => t.db.prisma;
const tenant = () => newTenant(prisma());
type Tenant = Awaited<ReturnType<typeof tenant>>;

const NOT_FOUND = '{"error":"Record not found."}';
const FORBIDDEN = '{"message":"This action is unauthorized."}';
const micros = (d: Date) => `${d.toISOString().slice(0, 23)}000Z`;

async function create(a: Tenant, body: Record<string, unknown> = {}): Promise<Json[]> {
  const res = await t.request('POST', CODES, {
    token: a.token,
    body: { location_id: a.location_id, service_profile_id: a.service_profile_id, type: 2, ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.json.access_codes;
}
const one = async (a: Tenant, body: Record<string, unknown> = {}): Promise<Json> =>
  (await create(a, body))[0];

/** Moves a code's expiry to `ms` from now (a past one shows 3 Expired at once). */
const expireIn = (id: string, ms: number) =>
  prisma().accessCode.update({ where: { id }, data: { expiryDate: new Date(Date.now() + ms) } });

const revoke = (token: string, id: string) => t.request('PUT', `${CODES}/${id}/revoke`, { token });
const revokeBatch = (token: string, body: unknown) => t.request('POST', `${CODES}/revoke`, { token, body });
const redeem = (a: Tenant, code: string) =>
  t.request('POST', `${CODES}/redeem`, {
    token: a.token,
    body: { code, location_id: a.location_id, mac: randomMac() },
  });

function expect422(res: TestResponse, errors: Record<string, string[]>): void {
  expect(res.status, res.text).toBe(422);
  expect(res.json).toEqual(unprocessable(errors));
}

const ids = (res: TestResponse): string[] => {
  expect(res.status, res.text).toBe(200);
  return res.json.data.map((c: Json) => c.id).sort();
};
const sorted = (...list: string[]) => [...list].sort();

/** One code in each status: available, used (redeemed), expired (expiry passed), revoked (and expired). */
async function fourStatuses(a: Tenant) {
  const [available, used, expired, revoked] = await create(a, { quantity: 4 });
  expect((await redeem(a, used.code)).status).toBe(200);
  await expireIn(expired.id, -1000);
  await expireIn(revoked.id, -1000);
  expect((await revoke(a.token, revoked.id)).status).toBe(200);
  return { available, used, expired, revoked } as Record<'available' | 'used' | 'expired' | 'revoked', Json>;
}

// -------------------------------------------------------------------------------------------------
describe.concurrent('status lifecycle', () => {
  it('shows 3 Expired from the expiry instant on, before any sweeper, on both transports', async () => {
    const a = await tenant();
    const code = await one(a);
    await expireIn(code.id, 60_000);
    const before = await t.request('GET', `${CODES}?code=${code.code}`, { token: a.token });
    expect(before.json.data[0]).toMatchObject({ status: 1, status_name: 'Available' });
    await expireIn(code.id, -1);
    const after = await t.request('GET', `${CODES}?code=${code.code}`, { token: a.token });
    expect(after.json.data[0]).toMatchObject({ status: 3, status_name: 'Expired' });
    // Stored status unchanged: the status is read, not swept.
    expect((await prisma().accessCode.findUniqueOrThrow({ where: { id: code.id } })).status).toBe(1);
    const gql = await t.graphql(a.token, '{ accessCodes { edges { node { id status statusName } } } }');
    expect(gql.json.data.accessCodes.edges).toEqual([
      { node: { id: code.id, status: 3, statusName: 'Expired' } },
    ]);
  });

  it('filters the list and count by each status shown, on both transports', async () => {
    const a = await tenant();
    const s = await fourStatuses(a);
    const list = (q: string) => t.request('GET', `${CODES}?per_page=100&${q}`, { token: a.token });
    const count = async (q: string) =>
      (await t.request('GET', `${CODES}/count?${q}`, { token: a.token })).json.count;
    const cases: [number, string, Json][] = [
      [1, 'Available', s.available],
      [2, 'Used', s.used],
      [3, 'Expired', s.expired],
      [4, 'Revoked', s.revoked],
    ];
    for (const [status, name, code] of cases) {
      const res = await list(`status=${status}`);
      expect(ids(res)).toEqual([code.id]);
      expect(res.json.data[0]).toMatchObject({ status, status_name: name });
      expect(await count(`status=${status}`)).toBe(1);
      const gql = await t.graphql(
        a.token,
        'query($s: Int) { accessCodes(status: $s) { totalCount edges { node { id status statusName } } } }',
        { s: status },
      );
      expect(gql.json.data.accessCodes).toEqual({
        totalCount: 1,
        edges: [{ node: { id: code.id, status, statusName: name } }],
      });
    }
    expect(await count('')).toBe(4);
    expect(await count('status=')).toBe(4);
    const five = await list('status=5');
    expect422(five, { status: ['The selected status is invalid.'] });
    expect422(await list('status=abc'), {
      status: ['The status field must be an integer.', 'The selected status is invalid.'],
    });
    const gqlBad = await t.graphql(a.token, '{ accessCodes(status: 0) { totalCount } }');
    expect(gqlBad.json.errors[0].extensions.fields).toEqual({ status: ['The selected status is invalid.'] });
  });

  it('takes max_uses on creation with its rules (both transports)', async () => {
    const a = await tenant();
    expect((await one(a, { type: 1, code: 'SHARED' })).max_uses).toBeNull();
    expect((await one(a)).max_uses).toBe(1);
    expect((await one(a, { max_uses: null })).max_uses).toBe(1);
    expect((await one(a, { type: 1, code: 'TEN', max_uses: 10 })).max_uses).toBe(10);
    const post = (body: Record<string, unknown>) =>
      t.request('POST', CODES, {
        token: a.token,
        body: { location_id: a.location_id, service_profile_id: a.service_profile_id, type: 2, ...body },
      });
    expect422(await post({ max_uses: 0 }), { max_uses: ['The max uses field must be at least 1.'] });
    expect422(await post({ max_uses: 1_000_001 }), {
      max_uses: ['The max uses field must not be greater than 1000000.'],
    });
    expect422(await post({ max_uses: 'many' }), { max_uses: ['The max uses field must be an integer.'] });
    const gql = await t.graphql(
      a.token,
      'mutation($i: GenerateAccessCodesInput!) { generateAccessCodes(input: $i) { accessCodes { maxUses } } }',
      {
        i: {
          locationId: a.location_id,
          serviceProfileId: a.service_profile_id,
          type: 2,
          quantity: 2,
          maxUses: 3,
        },
      },
    );
    expect(gql.json.data.generateAccessCodes.accessCodes).toEqual([{ maxUses: 3 }, { maxUses: 3 }]);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /access-codes/:id/revoke', () => {
  it('revokes: 200 with the item, idempotent, and the code can no longer be redeemed', async () => {
    const a = await tenant();
    const code = await one(a, { type: 1, code: 'WITHDRAWN' });
    const res = await revoke(a.token, code.id);
    expect(res.status, res.text).toBe(200);
    const row = await prisma().accessCode.findUniqueOrThrow({ where: { id: code.id } });
    expect(row.status).toBe(4);
    const revokedAt = micros(row.revokedAt as Date);
    expect(res.json).toEqual({
      data: { ...code, status: 4, status_name: 'Revoked', revoked_at: revokedAt },
    });
    // Again: answered unchanged, the first revoke's time kept.
    const again = await revoke(a.token, code.id);
    expect(again.status).toBe(200);
    expect(again.text).toBe(res.text);
    const refused = await redeem(a, 'WITHDRAWN');
    expect422(refused, { code: ['The code has been revoked.'] });
  });

  it('answers 404 for another tenant’s code and, for pinned users, another location’s; 403 for front desk', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Annex' } });
    const theirs = await one(b);
    const res = await revoke(a.token, theirs.id);
    expect(res.status).toBe(404);
    expect(res.text).toBe(NOT_FOUND);
    expect((await revoke(a.token, 'missing-id')).text).toBe(NOT_FOUND);
    const elsewhere = await one(a, { location_id: other.id });
    const mine = await one(a);
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    expect((await revoke(venue.token, elsewhere.id)).text).toBe(NOT_FOUND);
    expect((await revoke(venue.token, mine.id)).json.data.status).toBe(4);
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    const deskRes = await revoke(desk.token, elsewhere.id);
    expect(deskRes.status).toBe(403);
    expect(deskRes.text).toBe(FORBIDDEN);
    for (const c of [theirs, elsewhere]) {
      expect((await prisma().accessCode.findUniqueOrThrow({ where: { id: c.id } })).status).toBe(1);
    }
  });
});

// Two connections at once: on PGlite every transaction has the one connection to itself.
describe.skipIf(!process.env.TEST_DATABASE_URL)('POST /access-codes/revoke beside a redeem', () => {
  it('waits for a redeem under way: the revoke’s event shows the use it made', async () => {
    const a = await tenant();
    const [code] = await create(a, { quantity: 1, max_uses: 5 });
    // A second client stands for a redeem that counted a use and has not committed yet.
    const redeemer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await redeemer.connect();
    try {
      await redeemer.query('BEGIN');
      await redeemer.query('UPDATE "AccessCode" SET "useCount" = "useCount" + 1 WHERE "id" = $1', [code.id]);
      const revoked = revokeBatch(a.token, { ids: [code.id] });
      await expect.poll(() => lockWaiters(redeemer, '%"AccessCode"%')).toBeGreaterThan(0);
      await redeemer.query('COMMIT');
      const res = await revoked;
      expect(res.text).toBe('{"count":1}');
    } finally {
      await redeemer.end();
    }
    const event = await prisma().event.findFirstOrThrow({
      where: { tenantId: a.tenant_id, type: 'access_code.revoked', resourceId: code.id },
    });
    expect(event.payload).toMatchObject({ use_count: 1, status: 4 });
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /access-codes/revoke', () => {
  it('revokes the codes named by ids and counts those revoked now', async () => {
    const a = await tenant();
    const [c1, c2, c3] = await create(a, { quantity: 3 });
    expect((await revoke(a.token, c1.id)).status).toBe(200);
    const res = await revokeBatch(a.token, { ids: [c1.id, c2.id], type: 1 });
    expect(res.status, res.text).toBe(200);
    // ids win over filters; c1 was already revoked.
    expect(res.text).toBe('{"count":1}');
    const status = await prisma().accessCode.findMany({
      where: { id: { in: [c1.id, c2.id, c3.id] } },
      select: { id: true, status: true },
    });
    expect(new Map(status.map((r) => [r.id, r.status]))).toEqual(
      new Map([
        [c1.id, 4],
        [c2.id, 4],
        [c3.id, 1],
      ]),
    );
  });

  it('refuses ids out of scope, not strings or too many, and a body without ids or filters', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Terrace' } });
    const mine = await one(a);
    const theirs = await one(b);
    const elsewhere = await one(a, { location_id: other.id });
    expect422(await revokeBatch(a.token, { ids: [mine.id, theirs.id, 5, 'missing'] }), {
      'ids.1': ['The selected ids.1 is invalid.'],
      'ids.2': ['The ids.2 field must be a string.'],
      'ids.3': ['The selected ids.3 is invalid.'],
    });
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    expect422(await revokeBatch(venue.token, { ids: [elsewhere.id] }), {
      'ids.0': ['The selected ids.0 is invalid.'],
    });
    expect422(await revokeBatch(a.token, { ids: Array.from({ length: 1001 }, (_, i) => `id${i}`) }), {
      ids: ['The ids field must not have more than 1000 items.'],
    });
    expect422(await revokeBatch(a.token, { ids: 'all' }), { ids: ['The ids field must be an array.'] });
    // With a bad filter beside them, the ids' errors are named in the same 422 (they were hidden; probe G).
    expect422(await revokeBatch(a.token, { ids: ['nope', 5], status: 9 }), {
      'ids.0': ['The selected ids.0 is invalid.'],
      'ids.1': ['The ids.1 field must be a string.'],
      status: ['The selected status is invalid.'],
    });
    // A map is no list: its entries were checked as elements, `ids.a` (probe V).
    expect422(await revokeBatch(a.token, { ids: { a: mine.id } }), {
      ids: ['The ids field must be an array.'],
    });
    const required = {
      ids: [
        'The ids field is required when none of location id / type / status / code / guest id are present.',
      ],
    };
    expect422(await revokeBatch(a.token, {}), required);
    expect422(await revokeBatch(a.token, { ids: [], type: null, code: '' }), required);
    expect422(await revokeBatch(a.token, { status: 9 }), { status: ['The selected status is invalid.'] });
    for (const c of [mine, theirs, elsewhere]) {
      expect((await prisma().accessCode.findUniqueOrThrow({ where: { id: c.id } })).status).toBe(1);
    }
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    expect((await revokeBatch(desk.token, { ids: [mine.id] })).status).toBe(403);
  });

  it('revokes what the list filters find, in the caller’s scope', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Rooftop' } });
    const batch = await create(a, { quantity: 3, description: 'Mistake' });
    const shared = await one(a, { type: 1, code: 'KEEP-ME' });
    const elsewhere = await create(a, { quantity: 2, location_id: other.id });
    await create(b, { quantity: 2 });
    // A location or guest out of the caller's reach is a 422 (decisions.md: an id in a body), not a
    // filter that revokes nothing: another location for the venue user, another tenant's for anyone.
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const theirGuest = await addGuest(prisma(), b.tenant_id, b.location_id);
    for (const [token, body, key] of [
      [venue.token, { location_id: other.id }, 'location_id'],
      [a.token, { location_id: b.location_id }, 'location_id'],
      [a.token, { guest_id: theirGuest.id }, 'guest_id'],
    ] as const) {
      const res = await revokeBatch(token, body);
      const message = `The selected ${key.replace('_', ' ')} is invalid.`;
      expect([res.status, res.json]).toEqual([422, { message, errors: { [key]: [message] } }]);
    }
    expect((await revokeBatch(venue.token, { type: 2 })).json).toEqual({ count: 3 });
    const revoked = ids(await t.request('GET', `${CODES}?status=4&per_page=100`, { token: a.token }));
    expect(revoked).toEqual(sorted(...batch.map((c: Json) => c.id)));
    // By status: the expired ones.
    await expireIn(elsewhere[0].id, -1000);
    expect((await revokeBatch(a.token, { status: 3 })).json).toEqual({ count: 1 });
    expect((await revokeBatch(a.token, { code: 'keep' })).json).toEqual({ count: 1 });
    expect(ids(await t.request('GET', `${CODES}?status=1&per_page=100`, { token: a.token }))).toEqual([
      elsewhere[1].id,
    ]);
    expect(shared.id).toBeDefined();
    // Another tenant's codes are untouched.
    expect((await t.request('GET', `${CODES}/count?status=1`, { token: b.token })).json).toEqual({
      count: 2,
    });
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL revokeAccessCode / revokeAccessCodes', () => {
  it('revokes with the same rules and answers', async () => {
    const a = await tenant();
    const b = await tenant();
    const [c1, c2, c3] = await create(a, { quantity: 3 });
    const one1 = await t.graphql(
      a.token,
      'mutation($id: ID!) { revokeAccessCode(id: $id) { id status statusName revokedAt } }',
      { id: c1.id },
    );
    expect(one1.json.errors, one1.text).toBeUndefined();
    const row = await prisma().accessCode.findUniqueOrThrow({ where: { id: c1.id } });
    expect(one1.json.data.revokeAccessCode).toEqual({
      id: c1.id,
      status: 4,
      statusName: 'Revoked',
      revokedAt: micros(row.revokedAt as Date),
    });
    const foreign = await t.graphql(b.token, 'mutation($id: ID!) { revokeAccessCode(id: $id) { id } }', {
      id: c2.id,
    });
    expect(foreign.json.errors[0].extensions.code).toBe('NOT_FOUND');

    const BATCH = `mutation($ids: [String!], $type: Int, $status: Int) {
      revokeAccessCodes(ids: $ids, type: $type, status: $status) { count } }`;
    const byIds = await t.graphql(a.token, BATCH, { ids: [c1.id, c2.id] });
    expect(byIds.json.data.revokeAccessCodes).toEqual({ count: 1 });
    const theirs = await one(b);
    const bad = await t.graphql(a.token, BATCH, { ids: [c3.id, theirs.id] });
    expect(bad.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { 'ids.1': ['The selected ids.1 is invalid.'] },
    });
    const none = await t.graphql(a.token, BATCH, {});
    expect(none.json.errors[0].extensions.fields).toEqual({
      ids: [
        'The ids field is required when none of location id / type / status / code / guest id are present.',
      ],
    });
    const byFilter = await t.graphql(a.token, BATCH, { status: 1 });
    expect(byFilter.json.data.revokeAccessCodes).toEqual({ count: 1 });
    expect((await prisma().accessCode.findUniqueOrThrow({ where: { id: c3.id } })).status).toBe(4);
  });
});

describe.concurrent('GraphQL revoke isolation', () => {
  it('answers NOT_FOUND to a pinned user for another location’s code, FORBIDDEN to the front desk', async () => {
    const a = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Marina' } });
    const elsewhere = await one(a, { location_id: other.id });
    const mine = await one(a);
    const REVOKE = 'mutation($id: ID!) { revokeAccessCode(id: $id) { id status } }';
    const BATCH =
      'mutation($ids: [String!], $locationId: String) { revokeAccessCodes(ids: $ids, locationId: $locationId) { count } }';
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const res = await t.graphql(venue.token, REVOKE, { id: elsewhere.id });
    expect(res.json.errors[0].extensions.code).toBe('NOT_FOUND');
    const batch = await t.graphql(venue.token, BATCH, { ids: [elsewhere.id] });
    expect(batch.json.errors[0].extensions.fields).toEqual({ 'ids.0': ['The selected ids.0 is invalid.'] });
    const byFilter = await t.graphql(venue.token, BATCH, { locationId: other.id });
    expect(byFilter.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { locationId: ['The selected location id is invalid.'] },
    });
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    const forbidden = await t.graphql(desk.token, REVOKE, { id: mine.id });
    expect(forbidden.json.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await t.graphql(venue.token, REVOKE, { id: mine.id })).json.data.revokeAccessCode).toEqual({
      id: mine.id,
      status: 4,
    });
    expect((await prisma().accessCode.findUniqueOrThrow({ where: { id: elsewhere.id } })).status).toBe(1);
  });
});

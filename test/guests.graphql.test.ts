// GraphQL guests: the same records as REST for the same filters, the Guest fields, Location.guests,
// tags without N+1, mutations with REST's messages, manage-global and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addGuest, addUser, newTenant, uniqueName } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;
const prisma = () => t.db.prisma;

function data(res: TestResponse): Json {
  expect(res.json?.errors, res.text).toBeUndefined();
  expect(res.status).toBe(200);
  return res.json.data;
}

function onlyError(res: TestResponse): { message: string; extensions: Json } {
  expect(res.json?.errors, res.text).toHaveLength(1);
  return res.json.errors[0];
}

const ARGS = `$first: Int, $after: String, $username: String, $partnerId: String, $name: String,
  $email: String, $birthDate: String, $locationId: String, $gender: String, $phone: String,
  $passportNo: String, $nationality: String, $roomNo: String, $reservationNo: String,
  $customField1: String, $customField2: String, $customField3: String, $online: Boolean,
  $lastVisitDate: String, $receiveMarketing: Int, $createdAt: String, $updatedAt: String,
  $lastGuestFirst: Boolean, $type: Int, $tag: String`;
const PASS = `first: $first, after: $after, username: $username, partnerId: $partnerId, name: $name,
  email: $email, birthDate: $birthDate, locationId: $locationId, gender: $gender, phone: $phone,
  passportNo: $passportNo, nationality: $nationality, roomNo: $roomNo, reservationNo: $reservationNo,
  customField1: $customField1, customField2: $customField2, customField3: $customField3, online: $online,
  lastVisitDate: $lastVisitDate, receiveMarketing: $receiveMarketing, createdAt: $createdAt,
  updatedAt: $updatedAt, lastGuestFirst: $lastGuestFirst, type: $type, tag: $tag`;
const LIST = `query List(${ARGS}) { guests(${PASS}) {
  totalCount pageInfo { hasNextPage endCursor } edges { node { id tags } } } }`;

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/(\D)(\d)$/, '$1_$2');

/** Every id of GraphQL `guests` for the filters (pages of 2), and its totalCount. */
async function graphqlIds(token: string, filters: Record<string, unknown>) {
  const all: string[] = [];
  let after: string | null = null;
  let total = -1;
  for (let i = 0; i < 50; i++) {
    const conn: Json = data(await t.graphql(token, LIST, { ...filters, first: 2, after })).guests;
    total = conn.totalCount;
    all.push(...conn.edges.map((e: Json) => e.node.id));
    if (!conn.pageInfo.hasNextPage) break;
    after = conn.pageInfo.endCursor;
  }
  return { ids: all, total };
}

/** Every id of REST `GET /guests` for the same filters (pages of 2). */
async function restIds(token: string, filters: Record<string, unknown>) {
  const all: string[] = [];
  for (let page = 1; page <= 50; page++) {
    const q = new URLSearchParams({ per_page: '2', page: String(page) });
    for (const [k, v] of Object.entries(filters)) q.set(snake(k), String(v));
    const res = await t.request('GET', `/api/v1/guests?${q}`, { token });
    expect(res.status, res.text).toBe(200);
    all.push(...res.json.data.map((g: Json) => g.id));
    if (res.json.links.next === null) break;
  }
  return all;
}

describe.sequential('tags without N+1', () => {
  it('sends the same statements for 1 guest and for 25, tags included', async () => {
    const small = await newTenant(prisma());
    const large = await newTenant(prisma());
    for (const [tenant, n] of [
      [small, 1],
      [large, 25],
    ] as const) {
      const tag = await prisma().tag.create({ data: { tenantId: tenant.tenant_id, name: 'vip' } });
      for (let i = 0; i < n; i++) {
        const g = await addGuest(prisma(), tenant.tenant_id, tenant.location_id);
        await prisma().guestTag.create({
          data: { tenantId: tenant.tenant_id, guestId: g.id, tagId: tag.id },
        });
      }
    }
    const q = '{ guests(first: 100) { edges { node { id tags location { name } } } } }';
    const a = await recordStatements(t.db, () => t.graphql(small.token, q));
    const b = await recordStatements(t.db, () => t.graphql(large.token, q));
    expect(data(b.result).guests.edges).toHaveLength(25);
    expect(data(b.result).guests.edges[24].node.tags).toEqual(['vip']);
    // Relations load in parallel on a pool, so their order may vary; their number and shape do not.
    expect([...b.sql].sort()).toEqual([...a.sql].sort());
  });
});

describe.concurrent('guests connection', () => {
  it('filters by tag like REST: exact name, within the tenant', async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const create = async (token: string, locationId: string, tags: string[]) => {
      const res = await t.request('POST', '/api/v1/guests', {
        token,
        body: { location_id: locationId, tags },
      });
      expect(res.status, res.text).toBe(201);
      return res.json.data.id as string;
    };
    const vip = await create(a.token, a.location_id, ['vip', 'Gold']);
    const gold = await create(a.token, a.location_id, ['Gold']);
    await create(a.token, a.location_id, []);
    await create(b.token, b.location_id, ['vip']);
    for (const [tag, expected] of [
      ['vip', [vip]],
      ['Gold', [vip, gold]],
      ['VIP', []],
    ] as const) {
      const g = await graphqlIds(a.token, { tag });
      expect(g.ids, tag).toEqual(expected);
      expect(g.total, tag).toBe(expected.length);
      expect(await restIds(a.token, { tag }), tag).toEqual(expected);
    }
    const res = await t.graphql(a.token, LIST, { tag: 'x'.repeat(256) });
    expect(onlyError(res).extensions.fields).toEqual({
      tag: ['The tag field must not be greater than 255 characters.'],
    });
  });

  it('returns the same records as REST for the same filters, in the same order', async () => {
    const a = await newTenant(prisma());
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: uniqueName('V') } });
    const tie = new Date('2026-02-01T00:00:00Z');
    const rows = [
      { name: 'Anna Berg', gender: 2, online: true, type: 1, nationalityCode: 'SE', createdAt: tie },
      { name: 'anna cole', gender: 2, online: false, type: 2, nationalityCode: 'US', createdAt: tie },
      { name: 'Bob Dane', gender: 1, online: true, type: 1, nationalityCode: 'SE', locationId: other.id },
      { name: 'Cara Ek', gender: 0, online: false, type: 1, receiveMarketing: 1, partnerId: 'PX' },
      {
        name: 'Dan Fox',
        gender: 1,
        online: true,
        type: 2,
        lastVisitDate: new Date('2026-03-03T12:00:00Z'),
        roomNo: '7',
        customField2: 'blue',
      },
    ];
    for (const r of rows) await addGuest(prisma(), a.tenant_id, r.locationId ?? a.location_id, r);
    const cases: Record<string, unknown>[] = [
      {},
      { name: 'ANNA' },
      { gender: 'female' },
      { online: true },
      { online: false, lastGuestFirst: true },
      { type: 2 },
      { nationality: 'SE' },
      { locationId: other.id },
      { receiveMarketing: 1 },
      { partnerId: 'PX' },
      { lastVisitDate: '2026-03-01' },
      { lastVisitDate: '2026-02-01,2026-03-01' },
      { roomNo: '7', customField2: 'blue' },
      { lastGuestFirst: true },
      { createdAt: '2026-02-01' },
    ];
    for (const filters of cases) {
      const g = await graphqlIds(a.token, filters);
      const r = await restIds(a.token, filters);
      expect(g.ids, JSON.stringify(filters)).toEqual(r);
      expect(g.total).toBe(r.length);
    }
    expect((await restIds(a.token, { name: 'ANNA' })).length).toBe(2);
    expect((await restIds(a.token, { lastVisitDate: '2026-03-01' })).length).toBe(1);
  });

  it('exposes the guest fields, tags by name and the location', async () => {
    const a = await newTenant(prisma());
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, {
      name: 'Jane Doe',
      firstName: 'Jane',
      birthDate: new Date('1990-04-05T00:00:00Z'),
      gender: 2,
      nationalityCode: 'AE',
      residencyCode: 'GB',
      roomNo: '101',
      customField1: 'c1',
      totalDownloadedData: 1234n,
      lastVisitDate: new Date('2026-03-01T10:00:00.5Z'),
      createdAt: new Date('2026-01-02T03:04:05.678Z'),
    });
    for (const name of ['b-tag', 'a-tag']) {
      const tag = await prisma().tag.create({ data: { tenantId: a.tenant_id, name } });
      await prisma().guestTag.create({ data: { tenantId: a.tenant_id, guestId: g.id, tagId: tag.id } });
    }
    const res = await t.graphql(
      a.token,
      `query($id: ID!) { guest(id: $id) { id name firstName lastName birthDate gender genderName nationality
        nationalityCode residency residencyCode roomNo customField1 totalDownloadedData lastVisitDate createdAt
        type smartLogin imageUrl tags location { id } } }`,
      { id: g.id },
    );
    expect(data(res).guest).toEqual({
      id: g.id,
      name: 'Jane Doe',
      firstName: 'Jane',
      lastName: null,
      birthDate: '1990-04-05',
      gender: 2,
      genderName: 'Female',
      nationality: 'United Arab Emirates',
      nationalityCode: 'AE',
      residency: 'United Kingdom',
      residencyCode: 'GB',
      roomNo: '101',
      customField1: 'c1',
      totalDownloadedData: 1234,
      lastVisitDate: '2026-03-01T10:00:00.500000Z',
      createdAt: '2026-01-02T03:04:05.678000Z',
      type: 1,
      smartLogin: 'Inactive',
      imageUrl: null,
      tags: ['a-tag', 'b-tag'],
      location: { id: a.location_id },
    });
  });

  it('lists a location guests with a total count, oldest first', async () => {
    const a = await newTenant(prisma());
    const g1 = await addGuest(prisma(), a.tenant_id, a.location_id, { createdAt: new Date('2026-01-01') });
    const g2 = await addGuest(prisma(), a.tenant_id, a.location_id, { createdAt: new Date('2026-01-02') });
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: uniqueName('V') } });
    await addGuest(prisma(), a.tenant_id, other.id);
    const res = await t.graphql(
      a.token,
      `query($id: ID!) { location(id: $id) { guests(first: 5) { totalCount edges { node { id } } } } }`,
      { id: a.location_id },
    );
    const conn = data(res).location.guests;
    expect(conn.totalCount).toBe(2);
    expect(conn.edges.map((e: Json) => e.node.id)).toEqual([g1.id, g2.id]);
    const big = await t.graphql(
      a.token,
      `query($id: ID!) { location(id: $id) { guests(first: 101) { totalCount } } }`,
      {
        id: a.location_id,
      },
    );
    expect(onlyError(big).extensions.fields).toEqual({
      first: ['The first field must not be greater than 100.'],
    });
  });

  it('reads null and empty filters as no filter, as REST reads `?type=`', async () => {
    const a = await newTenant(prisma());
    await addGuest(prisma(), a.tenant_id, a.location_id, { type: 1 });
    await addGuest(prisma(), a.tenant_id, a.location_id, { type: 2 });
    const all = await graphqlIds(a.token, {});
    const empty = {
      type: null,
      gender: null,
      online: null,
      name: '',
      receiveMarketing: null,
      createdAt: ' ',
    };
    expect(await graphqlIds(a.token, empty)).toEqual(all);
    expect(all.total).toBe(2);
    expect((await restIds(a.token, { type: '', gender: '', name: '' })).length).toBe(2);
  });

  it('refuses bad filters with the REST messages', async () => {
    const a = await newTenant(prisma());
    const err = onlyError(await t.graphql(a.token, LIST, { lastVisitDate: '2026-01-01,2026-03-01' }));
    expect(err.extensions.code).toBe('BAD_USER_INPUT');
    expect(err.message).toBe('The last visit date field must not span more than one month.');
    expect(err.extensions.fields).toEqual({
      lastVisitDate: ['The last visit date field must not span more than one month.'],
    });
    const rest = await t.request('GET', '/api/v1/guests?last_visit_date=2026-01-01,2026-03-01', {
      token: a.token,
    });
    expect(rest.json.message).toBe(err.message);
    const big = onlyError(await t.graphql(a.token, LIST, { first: 101 }));
    expect(big.extensions.fields).toEqual({ first: ['The first field must not be greater than 100.'] });
  });

  it('never shows another tenant guests', async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const theirs = await addGuest(prisma(), b.tenant_id, b.location_id);
    const mine = await addGuest(prisma(), a.tenant_id, a.location_id);
    expect((await graphqlIds(a.token, {})).ids).toEqual([mine.id]);
    expect((await graphqlIds(a.token, { locationId: b.location_id })).ids).toEqual([]);
    const one = await t.graphql(a.token, 'query($id: ID!) { guest(id: $id) { id } }', { id: theirs.id });
    expect(data(one).guest).toBeNull();
    const loc = await t.graphql(a.token, 'query($id: ID!) { location(id: $id) { guests { totalCount } } }', {
      id: b.location_id,
    });
    expect(data(loc).location).toBeNull();
    const upd = await t.graphql(
      a.token,
      'mutation($id: ID!, $input: GuestUpdateInput!) { updateGuest(id: $id, input: $input) { id } }',
      { id: theirs.id, input: { locationId: a.location_id } },
    );
    expect(onlyError(upd).extensions.code).toBe('NOT_FOUND');
    const crt = await t.graphql(
      a.token,
      'mutation($input: GuestCreateInput!) { createGuest(input: $input) { id } }',
      {
        input: { locationId: b.location_id },
      },
    );
    expect(onlyError(crt).extensions.fields).toEqual({
      locationId: ['The selected location id is invalid.'],
    });
  });
});

const CREATE = `mutation($input: GuestCreateInput!) { createGuest(input: $input) {
  id username name firstName lastName email gender genderName roomNo receiveMarketing tags location { id } } }`;
const UPDATE = `mutation($id: ID!, $input: GuestUpdateInput!) { updateGuest(id: $id, input: $input) {
  id name gender roomNo customField1 hotelStatus tags locationId } }`;

describe.concurrent('guest mutations', () => {
  it('creates and updates a guest like REST', async () => {
    const a = await newTenant(prisma());
    const created = data(
      await t.graphql(a.token, CREATE, {
        input: {
          locationId: a.location_id,
          name: 'Rita Moreno',
          email: 'rita@example.com',
          gender: 'female',
          roomNo: '12',
          marketingConsent: 1,
          tags: ['vip', 'new'],
        },
      }),
    ).createGuest;
    expect(created).toEqual({
      id: created.id,
      username: 'rita@example.com',
      name: 'Rita Moreno',
      firstName: 'Rita',
      lastName: 'Moreno',
      email: 'rita@example.com',
      gender: 2,
      genderName: 'Female',
      roomNo: '12',
      receiveMarketing: 1,
      tags: ['new', 'vip'],
      location: { id: a.location_id },
    });
    const updated = data(
      await t.graphql(a.token, UPDATE, {
        id: created.id,
        input: {
          locationId: a.location_id,
          name: 'Rita M.',
          gender: 0,
          roomNo: 42,
          customField1: 'x',
          hotelStatus: 1,
          tags: [],
        },
      }),
    ).updateGuest;
    expect(updated).toEqual({
      id: created.id,
      name: 'Rita M.',
      gender: 0,
      roomNo: '42',
      customField1: 'x',
      hotelStatus: 1,
      tags: [],
      locationId: a.location_id,
    });
    const rest = await t.request('GET', `/api/v1/guests/${created.id}`, { token: a.token });
    expect(rest.json.data).toMatchObject({ name: 'Rita M.', custom_field_1: 'x', room_no: '42', tags: [] });
  });

  it('answers the same field messages as REST', async () => {
    const a = await newTenant(prisma());
    const g = await addGuest(prisma(), a.tenant_id, a.location_id);
    await addGuest(prisma(), a.tenant_id, a.location_id, { email: 'taken@example.com' });
    const gql = onlyError(
      await t.graphql(a.token, UPDATE, {
        id: g.id,
        input: {
          locationId: a.location_id,
          name: 'Abc',
          email: 'TAKEN@example.com',
          roomNo: 10000,
          nationality: 'XX',
          customData: '{',
        },
      }),
    );
    const rest = await t.request('PUT', `/api/v1/guests/${g.id}`, {
      token: a.token,
      body: {
        location_id: a.location_id,
        name: 'Abc',
        email: 'TAKEN@example.com',
        room_no: 10000,
        nationality: 'XX',
        custom_data: '{',
      },
    });
    expect(rest.status).toBe(422);
    expect(gql.extensions.code).toBe('BAD_USER_INPUT');
    expect(gql.message).toBe(rest.json.message);
    expect(gql.extensions.fields).toEqual({
      name: rest.json.errors.name,
      email: rest.json.errors.email,
      roomNo: rest.json.errors.room_no,
      nationality: rest.json.errors.nationality,
      customData: rest.json.errors.custom_data,
    });
    expect(rest.json.errors.email).toEqual(['The email has already been taken.']);
    const missing = onlyError(await t.graphql(a.token, CREATE, { input: {} }));
    expect(missing.extensions.fields).toEqual({ locationId: ['The location id field is required.'] });
  });

  it('gives an explicit null the outcome REST gives a JSON null', async () => {
    const a = await newTenant(prisma());
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, { roomNo: '7', hotelStatus: 1 });
    // Not nullable: the same 422 messages on both transports.
    const gql = onlyError(
      await t.graphql(a.token, UPDATE, {
        id: g.id,
        input: { locationId: a.location_id, name: null, directLogin: null },
      }),
    );
    const rest = await t.request('PUT', `/api/v1/guests/${g.id}`, {
      token: a.token,
      body: { location_id: a.location_id, name: null, direct_login: null },
    });
    expect(rest.status).toBe(422);
    expect(rest.json.errors).toEqual({
      name: ['The name field must be a string.', 'The name field must be at least 5 characters.'],
      direct_login: ['The direct login field must be an integer.', 'The selected direct login is invalid.'],
    });
    expect(gql.message).toBe(rest.json.message);
    expect(gql.extensions.fields).toEqual({
      name: rest.json.errors.name,
      directLogin: rest.json.errors.direct_login,
    });
    // Nullable: cleared, as REST clears it.
    const cleared = data(
      await t.graphql(a.token, UPDATE, {
        id: g.id,
        input: { locationId: a.location_id, roomNo: null, hotelStatus: null, customField1: '  ' },
      }),
    ).updateGuest;
    expect(cleared).toMatchObject({ roomNo: null, hotelStatus: null, customField1: null });
  });

  it('moves a guest to another location only with guests.manage-global', async () => {
    const a = await newTenant(prisma());
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: uniqueName('V') } });
    const g = await addGuest(prisma(), a.tenant_id, a.location_id);
    const without = await addUser(prisma(), a.tenant_id, 'tenant');
    const denied = onlyError(
      await t.graphql(without.token, UPDATE, { id: g.id, input: { locationId: other.id } }),
    );
    expect(denied.extensions.code).toBe('FORBIDDEN');
    // The bootstrap user holds guests.manage-global.
    const moved = data(
      await t.graphql(a.token, UPDATE, { id: g.id, input: { locationId: other.id } }),
    ).updateGuest;
    expect(moved.locationId).toBe(other.id);
  });
});

// REST /api/v1/guests (spec 2.3, 4.2 and the decisions): exact shapes, every filter, every rule at
// its edge, tenancy, withBeacon, guests.manage-global and avatars.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addGuest, addUser, newTenant, uniqueName } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';
import { besideWriter } from './helpers/lock-waits.js';

let t: TestApp;
// Avatars land in DATA_DIR/avatars: a folder of this file's own, removed afterwards.
const dataDir = mkdtempSync(path.join(tmpdir(), 'guests-rest-'));
beforeAll(async () => {
  t = await startApp({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const URL = '/api/v1/guests';
// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

const tenant = () => newTenant(t.db.prisma);
const prisma = () => t.db.prisma;

/** Ids of `GET /guests?query` (one page of 100), checked against `GET /guests/count` with the same query. */
async function ids(token: string, query: string): Promise<string[]> {
  const res = await t.request('GET', `${URL}?per_page=100&${query}`, { token });
  expect(res.status, res.text).toBe(200);
  const count = await t.request('GET', `${URL}/count?${query}`, { token });
  expect(count.status, count.text).toBe(200);
  const list = res.json.data.map((g: Json) => g.id);
  expect(count.json).toEqual({ count: list.length });
  return list;
}

async function addLocation(tenantId: string, name = uniqueName('Venue')) {
  return prisma().location.create({ data: { tenantId, name } });
}

const LIST_KEYS = [
  'id',
  'username',
  'name',
  'email',
  'birth_date',
  'gender',
  'phone',
  'passport_no',
  'nationality',
  'nationality_code',
  'residency',
  'residency_code',
  'room_number',
  'reservation_no',
  'hotel_status',
  'social_id',
  'partner_id',
  'custom_field_1',
  'custom_field_2',
  'custom_field_3',
  'online',
  'location_id',
  'location_name',
  'last_visit_date',
  'last_attempt_time',
  'visit_count',
  'receive_marketing',
  'last_login_type',
  'connection_status',
  'last_connection_time',
  'last_ssid_name',
  'created_at',
  'updated_at',
  'tags',
  'type',
  'checkin_date',
  'checkout_date',
];

const DETAIL_KEYS = [
  'id',
  'username',
  'name',
  'first_name',
  'last_name',
  'email',
  'birth_date',
  'gender',
  'gender_name',
  'phone',
  'passport_no',
  'nationality',
  'nationality_code',
  'residency',
  'residency_code',
  'room_no',
  'reservation_no',
  'hotel_status',
  'social_id',
  'partner_id',
  'custom_field_1',
  'custom_field_2',
  'custom_field_3',
  'online',
  'location_id',
  'location_name',
  'last_visit_date',
  'last_attempt_time',
  'visit_count',
  'receive_marketing',
  'connection_status',
  'last_connection_time',
  'last_ssid_name',
  'created_at',
  'updated_at',
  'tags',
  'type',
  'checkin_date',
  'checkout_date',
  'connection_method',
  'total_downloaded_data',
  'total_uploaded_data',
  'direct_login',
  'device_tags',
  'vendor',
  'phone_verified_at',
  'whatsapp_verified_at',
  'email_verified_at',
  'smart_login',
  'image_url',
];

/** A guest with every column set, tagged `vip` and `Gold`. */
async function fullGuest(tenantId: string, locationId: string) {
  const g = await addGuest(prisma(), tenantId, locationId, {
    username: 'jane@example.com',
    name: 'Jane Dö',
    firstName: 'Jane',
    lastName: 'Dö',
    email: 'jane@example.com',
    birthDate: new Date('1990-04-05T00:00:00Z'),
    gender: 2,
    phone: '+971500000001',
    passportNo: 'P123',
    nationalityCode: 'AE',
    residencyCode: 'GB',
    roomNo: '101',
    reservationNo: 'R-9',
    hotelStatus: 1,
    socialId: 'fb-1',
    partnerId: 'PX-1',
    customField1: 'c1',
    customField2: 'c2',
    customField3: 'c3',
    online: true,
    lastVisitDate: new Date('2026-03-01T10:00:00.5Z'),
    lastAttemptTime: new Date('2026-03-01T10:01:00Z'),
    visitCount: 7,
    receiveMarketing: 1,
    lastLoginType: 'Email',
    connectionStatus: 1,
    lastConnectionTime: new Date('2026-03-01T10:02:00Z'),
    lastSsidName: 'Lobby/Free',
    connectionMethod: 'Captive portal',
    totalDownloadedData: 5_000_000_000n,
    totalUploadedData: 1024n,
    directLogin: 1,
    vendor: 'Apple',
    emailVerifiedAt: new Date('2026-01-01T00:00:00Z'),
    checkinDate: new Date('2026-02-28T12:00:00Z'),
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    updatedAt: new Date('2026-01-03T03:04:05Z'),
    type: 2,
  });
  for (const name of ['vip', 'Gold']) {
    const tag = await prisma().tag.create({ data: { tenantId, name: `${name}` } });
    await prisma().guestTag.create({ data: { tenantId, guestId: g.id, tagId: tag.id } });
  }
  return g;
}

// -------------------------------------------------------------------------------------------------
describe.sequential('GET /guests statement count', () => {
  it('loads tags and locations for a page in the same statements for 1 guest and for 30', async () => {
    const small = await tenant();
    const large = await tenant();
    const tag = await prisma().tag.create({ data: { tenantId: large.tenant_id, name: 't' } });
    for (let i = 0; i < 30; i++) {
      const g = await addGuest(prisma(), large.tenant_id, large.location_id);
      await prisma().guestTag.create({ data: { tenantId: large.tenant_id, guestId: g.id, tagId: tag.id } });
    }
    const one = await addGuest(prisma(), small.tenant_id, small.location_id);
    const smallTag = await prisma().tag.create({ data: { tenantId: small.tenant_id, name: 't' } });
    await prisma().guestTag.create({
      data: { tenantId: small.tenant_id, guestId: one.id, tagId: smallTag.id },
    });
    const run = async (token: string) =>
      recordStatements(t.db, () => t.request('GET', `${URL}?per_page=100&withBeacon=true`, { token }));
    const a = await run(small.token);
    const b = await run(large.token);
    expect(a.result.json.data).toHaveLength(1);
    expect(b.result.json.data).toHaveLength(30);
    expect(b.result.json.data[29].tags).toEqual(['t']);
    // Relations load in parallel on a pool, so their order may vary; their number and shape do not.
    expect([...b.sql].sort()).toEqual([...a.sql].sort());
    // GraphQL's beacons of a page load in one statement too.
    const query = '{ guests(first: 100) { edges { node { id tags beacon { zone lastSeen } } } } }';
    const g = async (token: string) => recordStatements(t.db, () => t.graphql(token, query));
    const ga = await g(small.token);
    const gb = await g(large.token);
    expect(gb.result.json.data.guests.edges).toHaveLength(30);
    expect([...gb.sql].sort()).toEqual([...ga.sql].sort());
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('guest shapes', () => {
  it('writes the list item with the keys of 2.3 in order and PHP-style JSON', async () => {
    const a = await tenant();
    const g = await fullGuest(a.tenant_id, a.location_id);
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    const item = res.json.data[0];
    expect(Object.keys(item)).toEqual(LIST_KEYS);
    const location = await prisma().location.findUniqueOrThrow({ where: { id: a.location_id } });
    expect(item).toEqual({
      id: g.id,
      username: 'jane@example.com',
      name: 'Jane Dö',
      email: 'jane@example.com',
      birth_date: '1990-04-05',
      gender: 'female',
      phone: '+971500000001',
      passport_no: 'P123',
      nationality: 'United Arab Emirates',
      nationality_code: 'AE',
      residency: 'United Kingdom',
      residency_code: 'GB',
      room_number: '101',
      reservation_no: 'R-9',
      hotel_status: 1,
      social_id: 'fb-1',
      partner_id: 'PX-1',
      custom_field_1: 'c1',
      custom_field_2: 'c2',
      custom_field_3: 'c3',
      online: true,
      location_id: a.location_id,
      location_name: location.name,
      last_visit_date: '2026-03-01T10:00:00.500000Z',
      last_attempt_time: '2026-03-01T10:01:00.000000Z',
      visit_count: 7,
      receive_marketing: 1,
      last_login_type: 'Email',
      connection_status: 1,
      last_connection_time: '2026-03-01T10:02:00.000000Z',
      last_ssid_name: 'Lobby/Free',
      created_at: '2026-01-02T03:04:05.678000Z',
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      tags: ['Gold', 'vip'],
      type: 2,
      checkin_date: '2026-02-28T12:00:00.000000Z',
      checkout_date: null,
    });
    expect(res.text).toContain(String.raw`"name":"Jane D\u00f6"`);
    expect(res.text).toContain(String.raw`"last_ssid_name":"Lobby\/Free"`);
  });

  it('writes the detail with gender as an integer, room_no, the detail-only fields and settings', async () => {
    const a = await tenant();
    const g = await fullGuest(a.tenant_id, a.location_id);
    const res = await t.request('GET', `${URL}/${g.id}`, { token: a.token });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.json)).toEqual(['data', 'settings']);
    expect(res.json.settings).toEqual({ disconnect_enabled: false, name_registration_rule: 0 });
    expect(res.text.endsWith('"settings":{"disconnect_enabled":false,"name_registration_rule":0}}')).toBe(
      true,
    );
    const d = res.json.data;
    expect(Object.keys(d)).toEqual(DETAIL_KEYS);
    expect(d).toMatchObject({
      first_name: 'Jane',
      last_name: 'Dö',
      gender: 2,
      gender_name: 'Female',
      room_no: '101',
      connection_method: 'Captive portal',
      total_downloaded_data: 5_000_000_000,
      total_uploaded_data: 1024,
      direct_login: 1,
      device_tags: [],
      vendor: 'Apple',
      phone_verified_at: null,
      whatsapp_verified_at: null,
      email_verified_at: '2026-01-01T00:00:00.000000Z',
      smart_login: 'Inactive',
      image_url: null,
      tags: ['Gold', 'vip'],
    });
    expect(d).not.toHaveProperty('last_login_type');
    expect(d).not.toHaveProperty('room_number');
  });

  it('names an unknown gender Unknown in the detail and null in the list', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, { gender: 0 });
    const detail = await t.request('GET', `${URL}/${g.id}`, { token: a.token });
    expect([detail.json.data.gender, detail.json.data.gender_name]).toEqual([0, 'Unknown']);
    const male = await addGuest(prisma(), a.tenant_id, a.location_id, { gender: 1 });
    expect((await t.request('GET', `${URL}/${male.id}`, { token: a.token })).json.data.gender_name).toBe(
      'Male',
    );
    const list = await t.request('GET', URL, { token: a.token });
    expect(list.json.data.map((x: Json) => x.gender)).toEqual([null, 'male']);
  });

  it('answers 404 for an unknown or another tenant guest', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await addGuest(prisma(), b.tenant_id, b.location_id);
    for (const id of ['nope', other.id]) {
      const res = await t.request('GET', `${URL}/${id}`, { token: a.token });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /guests filters', () => {
  it('answers the envelope, oldest first, or newest first with last_guest_first', async () => {
    const a = await tenant();
    const tie = new Date('2026-01-01T00:00:00Z');
    const g1 = await addGuest(prisma(), a.tenant_id, a.location_id, { createdAt: new Date('2025-12-01') });
    const g2 = await addGuest(prisma(), a.tenant_id, a.location_id, { createdAt: tie });
    const g3 = await addGuest(prisma(), a.tenant_id, a.location_id, { createdAt: tie });
    const tied = [g2.id, g3.id].sort();
    expect(await ids(a.token, '')).toEqual([g1.id, ...tied]);
    for (const v of ['true', '1']) {
      expect(await ids(a.token, `last_guest_first=${v}`)).toEqual([...tied].reverse().concat(g1.id));
    }
    for (const v of ['false', '0'])
      expect(await ids(a.token, `last_guest_first=${v}`)).toEqual([g1.id, ...tied]);
    const res = await t.request('GET', `${URL}?per_page=2&last_guest_first=true`, { token: a.token });
    expect(res.json.links).toEqual({
      first: 'http://localhost/api/v1/guests?per_page=2&last_guest_first=true&page=1',
      last: null,
      prev: null,
      next: 'http://localhost/api/v1/guests?per_page=2&last_guest_first=true&page=2',
    });
    expect(res.json.meta).toEqual({
      current_page: 1,
      from: 1,
      to: 2,
      path: 'http://localhost/api/v1/guests',
      per_page: 2,
    });
    const bad = await t.request('GET', `${URL}?per_page=101`, { token: a.token });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual(
      unprocessable({ per_page: ['The per page field must not be greater than 100.'] }),
    );
  });

  it('searches username, name, email and phone as case-insensitive substrings, literally', async () => {
    const a = await tenant();
    const x = await addGuest(prisma(), a.tenant_id, a.location_id, {
      username: 'Alpha_1',
      name: 'Maria Lopez',
      email: 'Maria@Hotel.example',
      phone: '+44 7000 111',
    });
    const y = await addGuest(prisma(), a.tenant_id, a.location_id, {
      username: 'alphaX1',
      name: 'Mario Rossi',
      email: 'mario@inn.example',
      phone: '+39 7000 222',
    });
    expect(await ids(a.token, 'username=ALPHA')).toEqual([x.id, y.id]);
    expect(await ids(a.token, 'username=a_1')).toEqual([x.id]);
    expect(await ids(a.token, 'name=maria%20lo')).toEqual([x.id]);
    expect(await ids(a.token, 'name=MARI')).toEqual([x.id, y.id]);
    expect(await ids(a.token, 'email=hotel.EXAMPLE')).toEqual([x.id]);
    expect(await ids(a.token, 'email=%25')).toEqual([]);
    expect(await ids(a.token, 'phone=7000')).toEqual([x.id, y.id]);
    expect(await ids(a.token, 'phone=%2B39')).toEqual([y.id]);
  });

  it('matches ids and codes exactly', async () => {
    const a = await tenant();
    const x = await addGuest(prisma(), a.tenant_id, a.location_id, {
      partnerId: 'P-1',
      passportNo: 'AB123',
      nationalityCode: 'FR',
      roomNo: '12',
      reservationNo: 'RES-1',
      customField1: 'one',
      customField2: 'two',
      customField3: 'three',
    });
    const y = await addGuest(prisma(), a.tenant_id, a.location_id, {
      partnerId: 'P-10',
      passportNo: 'AB1234',
      nationalityCode: 'DE',
      roomNo: '120',
      reservationNo: 'RES-10',
      customField1: 'ONE',
      customField2: 'twos',
      customField3: 'thre',
    });
    expect(await ids(a.token, 'partner_id=P-1')).toEqual([x.id]);
    expect(await ids(a.token, 'partner_id=P-10')).toEqual([y.id]);
    expect(await ids(a.token, 'passport_no=AB123')).toEqual([x.id]);
    expect(await ids(a.token, 'nationality=FR')).toEqual([x.id]);
    expect(await ids(a.token, 'nationality=de')).toEqual([y.id]);
    expect(await ids(a.token, 'room_no=12')).toEqual([x.id]);
    expect(await ids(a.token, 'reservation_no=RES-1')).toEqual([x.id]);
    expect(await ids(a.token, 'custom_field_1=one')).toEqual([x.id]);
    expect(await ids(a.token, 'custom_field_2=twos')).toEqual([y.id]);
    expect(await ids(a.token, 'custom_field_3=three')).toEqual([x.id]);
  });

  it('filters by tag: the exact name, in the tenant and the caller’s location only', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await addLocation(a.tenant_id);
    const create = async (token: string, locationId: string, tags: string[]) => {
      const res = await t.request('POST', URL, { token, body: { location_id: locationId, tags } });
      expect(res.status, res.text).toBe(201);
      return res.json.data.id as string;
    };
    const vip = await create(a.token, a.location_id, ['vip', 'Gold']);
    const gold = await create(a.token, a.location_id, ['Gold']);
    const elsewhere = await create(a.token, other.id, ['vip']);
    const untagged = await create(a.token, a.location_id, []);
    await create(b.token, b.location_id, ['vip']);
    expect(await ids(a.token, 'tag=vip')).toEqual([vip, elsewhere]);
    expect(await ids(a.token, 'tag=Gold')).toEqual([vip, gold]);
    expect(await ids(a.token, 'tag=VIP')).toEqual([]);
    expect(await ids(a.token, 'tag=vi')).toEqual([]);
    expect(await ids(a.token, 'tag=')).toEqual([vip, gold, elsewhere, untagged]);
    expect(await ids(a.token, `tag=vip&location_id=${other.id}`)).toEqual([elsewhere]);
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    expect(await ids(venue.token, 'tag=vip')).toEqual([vip]);
    const long = await t.request('GET', `${URL}?tag=${'x'.repeat(256)}`, { token: a.token });
    expect(long.status).toBe(422);
    expect(long.json).toEqual(
      unprocessable({ tag: ['The tag field must not be greater than 255 characters.'] }),
    );
  });

  it('filters by location, birth date, gender, online, receive_marketing and type', async () => {
    const a = await tenant();
    const other = await addLocation(a.tenant_id);
    const x = await addGuest(prisma(), a.tenant_id, a.location_id, {
      birthDate: new Date('1990-01-02T00:00:00Z'),
      gender: 1,
      online: true,
      receiveMarketing: 1,
      type: 1,
    });
    const y = await addGuest(prisma(), a.tenant_id, other.id, {
      birthDate: new Date('1990-01-03T00:00:00Z'),
      gender: 2,
      online: false,
      receiveMarketing: 0,
      type: 2,
    });
    const z = await addGuest(prisma(), a.tenant_id, other.id, { gender: 0 });
    expect(await ids(a.token, `location_id=${other.id}`)).toEqual([y.id, z.id]);
    expect(await ids(a.token, 'birth_date=1990-01-02')).toEqual([x.id]);
    expect(await ids(a.token, 'gender=male')).toEqual([x.id]);
    expect(await ids(a.token, 'gender=female')).toEqual([y.id]);
    for (const v of ['true', '1']) expect(await ids(a.token, `online=${v}`)).toEqual([x.id]);
    for (const v of ['false', '0']) expect(await ids(a.token, `online=${v}`)).toEqual([y.id, z.id]);
    expect(await ids(a.token, 'receive_marketing=1')).toEqual([x.id]);
    expect(await ids(a.token, 'receive_marketing=0')).toEqual([y.id, z.id]);
    expect(await ids(a.token, 'type=1')).toEqual([x.id, z.id]);
    expect(await ids(a.token, 'type=2')).toEqual([y.id]);
    expect(await ids(a.token, 'type=')).toEqual([x.id, y.id, z.id]);
    // Any empty filter means no filter (Laravel reads it as null; every filter is nullable).
    const empty =
      'type=&gender=&online=&birth_date=&last_visit_date=&name=%20&location_id=&last_guest_first=';
    expect(await ids(a.token, empty)).toEqual([x.id, y.id, z.id]);
    const count = await t.request('GET', `${URL}/count?type=&receive_marketing=`, { token: a.token });
    expect(count.json).toEqual({ count: 3 });
  });

  it('filters created_at and updated_at from that day 00:00 UTC on', async () => {
    const a = await tenant();
    const before = await addGuest(prisma(), a.tenant_id, a.location_id, {
      createdAt: new Date('2026-02-09T23:59:59.999Z'),
    });
    const at = await addGuest(prisma(), a.tenant_id, a.location_id, {
      createdAt: new Date('2026-02-10T00:00:00Z'),
    });
    expect(await ids(a.token, 'created_at=2026-02-10')).toEqual([at.id]);
    expect(await ids(a.token, 'created_at=2026-02-09')).toEqual([before.id, at.id]);
    await prisma()
      .$executeRaw`UPDATE "Guest" SET "updatedAt" = '2026-03-01T00:00:00Z' WHERE id = ${before.id}`;
    await prisma().$executeRaw`UPDATE "Guest" SET "updatedAt" = '2026-02-28T23:59:59Z' WHERE id = ${at.id}`;
    expect(await ids(a.token, 'updated_at=2026-03-01')).toEqual([before.id]);
    expect(await ids(a.token, 'updated_at=2026-02-28')).toEqual([before.id, at.id]);
  });

  it('reads one last_visit_date as that day 00:00 UTC up to seven days later', async () => {
    const a = await tenant();
    const at = (iso: string) =>
      addGuest(prisma(), a.tenant_id, a.location_id, { lastVisitDate: new Date(iso) }).then((g) => g.id);
    await at('2026-03-09T23:59:59.999Z'); // the day before
    const first = await at('2026-03-10T00:00:00Z');
    const last = await at('2026-03-16T23:59:59.999Z');
    await at('2026-03-17T00:00:00Z'); // one week after: out
    expect(await ids(a.token, 'last_visit_date=2026-03-10')).toEqual([first, last]);
    // The week after the last day PHP's `Y-m-d` reads ends with that day, not past it.
    expect(await ids(a.token, 'last_visit_date=9999-12-28')).toEqual([]);
    expect(await ids(a.token, 'last_visit_date=9999-12-01,9999-12-31')).toEqual([]);
    // The years 0001–0099 as PHP's `Y` reads them (not 1900–1999); a month from 0050-01-31 ends in
    // February 0050. Year 0000 is no date.
    expect(await ids(a.token, 'last_visit_date=0050-01-01')).toEqual([]);
    expect(await ids(a.token, 'last_visit_date=0050-01-31,0050-02-28')).toEqual([]);
    const refused = await t.request('GET', `${URL}?last_visit_date=0050-01-31,0050-03-01`, {
      token: a.token,
    });
    expect(refused.json).toEqual(
      unprocessable({ last_visit_date: ['The last visit date field must not span more than one month.'] }),
    );
    const zero = await t.request('GET', `${URL}?last_visit_date=0000-01-01`, { token: a.token });
    expect(zero.json).toEqual(
      unprocessable({
        last_visit_date: ['The last visit date field must match the format Y-m-d or Y-m-d,Y-m-d.'],
      }),
    );
  });

  it('reads a last_visit_date range as an inclusive interval of at most one month', async () => {
    const a = await tenant();
    const at = (iso: string) =>
      addGuest(prisma(), a.tenant_id, a.location_id, { lastVisitDate: new Date(iso) }).then((g) => g.id);
    await at('2026-01-14T23:59:59Z');
    const start = await at('2026-01-15T00:00:00Z');
    const end = await at('2026-02-15T23:59:59.999Z');
    const after = await at('2026-02-16T00:00:00Z');
    expect(await ids(a.token, 'last_visit_date=2026-01-15,2026-02-15')).toEqual([start, end]);
    expect(await ids(a.token, 'last_visit_date=2026-01-15,2026-01-15')).toEqual([start]);
    // The month after January 31 ends on the last day of February.
    expect(await ids(a.token, 'last_visit_date=2026-01-31,2026-02-28')).toEqual([end, after]);
    const cases: [string, string][] = [
      ['2026-01-15,2026-02-16', 'The last visit date field must not span more than one month.'],
      ['2026-01-31,2026-03-01', 'The last visit date field must not span more than one month.'],
      ['2026-02-15,2026-02-14', 'The last visit date field must end on or after its start.'],
      ['2026-02-30', 'The last visit date field must match the format Y-m-d or Y-m-d,Y-m-d.'],
      ['2026-2-3', 'The last visit date field must match the format Y-m-d or Y-m-d,Y-m-d.'],
      [
        '2026-01-01,2026-01-02,2026-01-03',
        'The last visit date field must match the format Y-m-d or Y-m-d,Y-m-d.',
      ],
    ];
    for (const [value, message] of cases) {
      for (const path of [URL, `${URL}/count`]) {
        const res = await t.request('GET', `${path}?last_visit_date=${value}`, { token: a.token });
        expect(res.status, value).toBe(422);
        expect(res.json).toEqual(unprocessable({ last_visit_date: [message] }));
      }
    }
  });

  it('refuses malformed filters with 422', async () => {
    const a = await tenant();
    const cases: [string, Record<string, string[]>][] = [
      ['online=yes', { online: ['The online field must be true or false.'] }],
      ['last_guest_first=2', { last_guest_first: ['The last guest first field must be true or false.'] }],
      ['birth_date=1990-1-2', { birth_date: ['The birth date field must match the format Y-m-d.'] }],
      ['created_at=yesterday', { created_at: ['The created at field must match the format Y-m-d.'] }],
      ['updated_at=2026-13-01', { updated_at: ['The updated at field must match the format Y-m-d.'] }],
      ['gender=other', { gender: ['The selected gender is invalid.'] }],
      ['type=3', { type: ['The selected type is invalid.'] }],
      ['receive_marketing=2', { receive_marketing: ['The selected receive marketing is invalid.'] }],
      // Bad paging does not hide a bad filter: both in one 422, the filter first (decisions, Pagination).
      [
        'birth_date=1990-1-2&page=0',
        {
          birth_date: ['The birth date field must match the format Y-m-d.'],
          page: ['The page field must be at least 1.'],
        },
      ],
    ];
    for (const [query, errors] of cases) {
      const res = await t.request('GET', `${URL}?${query}`, { token: a.token });
      expect(res.status, query).toBe(422);
      expect(res.json).toEqual(unprocessable(errors));
    }
    const beacon = await t.request('GET', `${URL}?withBeacon=maybe`, { token: a.token });
    expect(beacon.json).toEqual(
      unprocessable({ withBeacon: ['The with beacon field must be true or false.'] }),
    );
    // The count takes no withBeacon: it is ignored there.
    const count = await t.request('GET', `${URL}/count?withBeacon=maybe`, { token: a.token });
    expect(count.status).toBe(200);
  });

  it('adds each guest latest BLE presence with withBeacon, or null', async () => {
    const a = await tenant();
    const g1 = await addGuest(prisma(), a.tenant_id, a.location_id);
    const g2 = await addGuest(prisma(), a.tenant_id, a.location_id);
    const building = await prisma().building.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, name: 'B' },
    });
    const floor = await prisma().floor.create({
      data: { tenantId: a.tenant_id, buildingId: building.id, name: 'F' },
    });
    const zone = await prisma().zone.create({
      data: { tenantId: a.tenant_id, floorId: floor.id, name: 'Café' },
    });
    const base = { tenantId: a.tenant_id, guestId: g1.id, mac: 'AA:BB:CC:DD:EE:01' };
    await prisma().presenceRecord.createMany({
      data: [
        { ...base, dataType: 2, x: 1.5, y: 2, seenAt: new Date('2026-03-01T10:00:00Z') },
        {
          ...base,
          dataType: 2,
          x: 3,
          y: 4.25,
          seenAt: new Date('2026-03-01T11:00:00Z'),
          locationId: a.location_id,
          buildingId: building.id,
          floorId: floor.id,
          zoneId: zone.id,
        },
        // WiFi records never count, even when newer.
        { ...base, dataType: 1, x: 9, y: 9, seenAt: new Date('2026-03-01T12:00:00Z') },
        { ...base, guestId: g2.id, dataType: 1, seenAt: new Date('2026-03-01T12:00:00Z') },
      ],
    });
    const res = await t.request('GET', `${URL}?withBeacon=true`, { token: a.token });
    expect(res.status).toBe(200);
    const [item1, item2] = res.json.data;
    expect(Object.keys(item1).at(-1)).toBe('beacon');
    expect(item1.beacon).toEqual({
      mac_address: 'AA:BB:CC:DD:EE:01',
      location_id: a.location_id,
      building_id: building.id,
      floor_id: floor.id,
      zone_id: zone.id,
      zone: 'Café',
      x: 3,
      y: 4.25,
      last_seen: '2026-03-01T11:00:00.000000Z',
    });
    expect(res.text).toContain('"zone":"Caf\\u00e9","x":3.0,"y":4.25,');
    expect(item2.beacon).toBeNull();
    for (const q of ['', '?withBeacon=false']) {
      const plain = await t.request('GET', `${URL}${q}`, { token: a.token });
      expect(plain.json.data[0]).not.toHaveProperty('beacon');
    }
    // GraphQL's Guest.beacon is the same record.
    const gql = await t.graphql(
      a.token,
      '{ guests(first: 10) { edges { node { id beacon { macAddress locationId buildingId floorId zoneId zone x y lastSeen } } } } }',
    );
    expect(gql.json.errors).toBeUndefined();
    expect(gql.json.data.guests.edges.map((e: { node: unknown }) => e.node)).toEqual([
      {
        id: g1.id,
        beacon: {
          macAddress: 'AA:BB:CC:DD:EE:01',
          locationId: a.location_id,
          buildingId: building.id,
          floorId: floor.id,
          zoneId: zone.id,
          zone: 'Café',
          x: 3,
          y: 4.25,
          lastSeen: '2026-03-01T11:00:00.000000Z',
        },
      },
      { id: g2.id, beacon: null },
    ]);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('tenancy and roles', () => {
  it('never shows another tenant guests, whatever the filter', async () => {
    const a = await tenant();
    const b = await tenant();
    const mine = await addGuest(prisma(), a.tenant_id, a.location_id, { partnerId: 'same' });
    await addGuest(prisma(), b.tenant_id, b.location_id, { partnerId: 'same' });
    expect(await ids(a.token, '')).toEqual([mine.id]);
    expect(await ids(a.token, 'partner_id=same')).toEqual([mine.id]);
    expect(await ids(a.token, `location_id=${b.location_id}`)).toEqual([]);
  });

  it('shows venue and front-desk users only their location guests', async () => {
    const a = await tenant();
    const other = await addLocation(a.tenant_id);
    const here = await addGuest(prisma(), a.tenant_id, a.location_id);
    const there = await addGuest(prisma(), a.tenant_id, other.id);
    for (const role of ['venue', 'front-desk'] as const) {
      const u = await addUser(prisma(), a.tenant_id, role, { locationId: a.location_id });
      expect(await ids(u.token, '')).toEqual([here.id]);
      expect(await ids(u.token, `location_id=${other.id}`)).toEqual([]);
      expect((await t.request('GET', `${URL}/${there.id}`, { token: u.token })).status).toBe(404);
      expect((await t.request('GET', `${URL}/${here.id}`, { token: u.token })).status).toBe(200);
      const put = await t.request('PUT', `${URL}/${there.id}`, {
        token: u.token,
        body: { location_id: other.id },
      });
      expect(put.status).toBe(404);
      const post = await t.request('POST', URL, { token: u.token, body: { location_id: other.id } });
      expect(post.status).toBe(403);
      expect(post.text).toBe('{"message":"This action is unauthorized."}');
    }
  });

  it('answers 401 without a token', async () => {
    for (const [method, path] of [
      ['GET', URL],
      ['GET', `${URL}/count`],
      ['GET', `${URL}/x`],
      ['POST', URL],
      ['PUT', `${URL}/x`],
    ] as const) {
      const res = await t.request(method, path);
      expect(res.status).toBe(401);
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /guests', () => {
  it('creates a guest with every create field and answers 201 with the detail', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, {
      token: a.token,
      body: {
        location_id: a.location_id,
        name: 'Omar Al Farsi',
        email: 'omar@example.com',
        birth_date: '1985-07-08',
        gender: 'male',
        phone: '+971 5',
        passport_no: 'X1',
        nationality: 'OM',
        room_no: '204B',
        reservation_no: 'R2',
        partner_id: 'PP',
        marketing_consent: 1,
        tags: ['vip', 'Late checkout', 'vip'],
        unknown_field: 'ignored',
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json)).toEqual(['data']);
    const d = res.json.data;
    expect(Object.keys(d)).toEqual(DETAIL_KEYS);
    expect(d).toMatchObject({
      username: 'omar@example.com',
      name: 'Omar Al Farsi',
      first_name: 'Omar',
      last_name: 'Al Farsi',
      email: 'omar@example.com',
      birth_date: '1985-07-08',
      gender: 1,
      gender_name: 'Male',
      nationality: 'Oman',
      nationality_code: 'OM',
      room_no: '204B',
      receive_marketing: 1,
      partner_id: 'PP',
      location_id: a.location_id,
      tags: ['Late checkout', 'vip'],
      type: 1,
      online: false,
    });
    const stored = await prisma().guest.findUniqueOrThrow({ where: { id: d.id } });
    expect(stored.tenantId).toBe(a.tenant_id);
  });

  it('generates a username without an email, and accepts birthday as birth_date', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, {
      token: a.token,
      body: { location_id: a.location_id, birthday: '2000-02-29' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.username).toMatch(/^guest-[0-9a-f]{10}$/);
    expect(res.json.data.birth_date).toBe('2000-02-29');
    expect(res.json.data.name).toBe('');
    expect(res.json.data.gender_name).toBe('Unknown');
  });

  it('trims every string and reads blank text as null, as Laravel middleware hand input over', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, {
      token: a.token,
      body: {
        location_id: ` ${a.location_id}\t`,
        name: '  Ann  Smith  ',
        email: ' ann@example.com ',
        phone: '   ',
        passport_no: null,
        gender: '',
        room_no: '',
        tags: [' vip ', 'late'],
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({
      location_id: a.location_id,
      name: 'Ann  Smith',
      first_name: 'Ann',
      last_name: 'Smith',
      email: 'ann@example.com',
      username: 'ann@example.com',
      phone: null,
      passport_no: null,
      gender: 0,
      room_no: null,
      tags: ['late', 'vip'],
    });
    const stored = await prisma().guest.findUniqueOrThrow({ where: { id: res.json.data.id } });
    expect(stored).toMatchObject({ name: 'Ann  Smith', email: 'ann@example.com', phone: null, roomNo: null });
  });

  it('checks every create rule with Laravel messages', async () => {
    const a = await tenant();
    const b = await tenant();
    await addGuest(prisma(), a.tenant_id, a.location_id, { email: 'Taken@Example.com' });
    // The same email in another tenant is no clash.
    await addGuest(prisma(), b.tenant_id, b.location_id, { email: 'free@example.com' });
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{}, { location_id: ['The location id field is required.'] }],
      [{ location_id: b.location_id }, { location_id: ['The selected location id is invalid.'] }],
      [{ location_id: 5 }, { location_id: ['The location id field must be a string.'] }],
      [
        { location_id: a.location_id, email: 'taken@example.com' },
        { email: ['The email has already been taken.'] },
      ],
      [
        { location_id: a.location_id, email: 'not-an-email' },
        { email: ['The email field must be a valid email address.'] },
      ],
      // Laravel goes on after a failed type rule: `in` judges the value too.
      [
        { location_id: a.location_id, gender: 1 },
        { gender: ['The gender field must be a string.', 'The selected gender is invalid.'] },
      ],
      [{ location_id: a.location_id, gender: 'other' }, { gender: ['The selected gender is invalid.'] }],
      [
        { location_id: a.location_id, nationality: 'XX' },
        { nationality: ['The selected nationality is invalid.'] },
      ],
      [
        { location_id: a.location_id, nationality: 'USA' },
        {
          nationality: [
            'The nationality field must be 2 characters.',
            'The selected nationality is invalid.',
          ],
        },
      ],
      [
        { location_id: a.location_id, birth_date: '1990-02-30' },
        { birth_date: ['The birth date field must match the format Y-m-d.'] },
      ],
      [
        { location_id: a.location_id, birthday: '01/02/1990' },
        { birthday: ['The birthday field must match the format Y-m-d.'] },
      ],
      [
        { location_id: a.location_id, marketing_consent: 2 },
        { marketing_consent: ['The selected marketing consent is invalid.'] },
      ],
      [{ location_id: a.location_id, tags: 'vip' }, { tags: ['The tags field must be an array.'] }],
      [{ location_id: a.location_id, tags: ['ok', 3] }, { 'tags.1': ['The tags.1 field must be a string.'] }],
      [
        { location_id: a.location_id, tags: [1, 'a', ['x'], 'b'.repeat(256)] },
        {
          'tags.0': ['The tags.0 field must be a string.'],
          'tags.2': ['The tags.2 field must be a string.'],
          'tags.3': ['The tags.3 field must not be greater than 255 characters.'],
        },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await t.request('POST', URL, { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json, JSON.stringify(body)).toEqual(unprocessable(errors));
    }
    const ok = await t.request('POST', URL, {
      token: a.token,
      body: { location_id: a.location_id, email: 'free@example.com' },
    });
    expect(ok.status).toBe(201);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /guests/:id', () => {
  it('updates the fields sent, with the update rules, and answers 200 with the detail', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, {
      name: 'Old Name',
      email: 'old@example.com',
    });
    const res = await t.request('PUT', `${URL}/${g.id}`, {
      token: a.token,
      body: {
        location_id: a.location_id,
        name: 'Abcde',
        first_name: 'Ab',
        last_name: 'Cde',
        email: 'old@example.com',
        birthday: '1999-12-31',
        gender: 2,
        residency: 'JP',
        room_no: 9999,
        hotel_status: 0,
        custom_data: '{"a":1}',
        custom_field_2: 'x',
        direct_login: 1,
        tags: ['New', 'vip'],
        tag_type: 3,
        marketing_consent: 1,
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({
      name: 'Abcde',
      first_name: 'Ab',
      last_name: 'Cde',
      email: 'old@example.com',
      birth_date: '1999-12-31',
      gender: 2,
      gender_name: 'Female',
      residency: 'Japan',
      residency_code: 'JP',
      room_no: '9999',
      hotel_status: 0,
      custom_field_2: 'x',
      direct_login: 1,
      tags: ['New', 'vip'],
      receive_marketing: 1,
    });
    const stored = await prisma().guest.findUniqueOrThrow({ where: { id: g.id } });
    expect(stored.customData).toBe('{"a":1}');
    const tag = await prisma().tag.findFirstOrThrow({ where: { tenantId: a.tenant_id, name: 'New' } });
    expect(tag.type).toBe(3);
    // Tags are replaced; null clears them.
    const cleared = await t.request('PUT', `${URL}/${g.id}`, {
      token: a.token,
      body: { location_id: a.location_id, tags: null, room_no: 1, hotel_status: null },
    });
    expect(cleared.json.data).toMatchObject({ tags: [], room_no: '1', hotel_status: null, name: 'Abcde' });
  });

  it('a name rebuilt from first_name and last_name sent without it meets the name rule, on REST and GraphQL (probe P)', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, { name: 'Old Name' });
    const put = (body: Record<string, unknown>) =>
      t.request('PUT', `${URL}/${g.id}`, { token: a.token, body: { location_id: a.location_id, ...body } });
    // Both parts null: the name "" is null to the rules, as a sent `"name": null` is.
    const empty = await put({ first_name: null, last_name: null });
    expect(empty.status).toBe(422);
    expect(empty.json.errors).toEqual({
      name: ['The name field must be a string.', 'The name field must be at least 5 characters.'],
    });
    const refused: [Record<string, unknown>, string][] = [
      [{ first_name: 'ab', last_name: 'c' }, 'The name field must be at least 5 characters.'],
      [
        { first_name: 'f'.repeat(200), last_name: 'l'.repeat(55) },
        'The name field must not be greater than 255 characters.',
      ],
      // One part with the stored other one ("Old"): "ab Old" passes, "a" alone with no last name does not.
      [{ first_name: 'a', last_name: null }, 'The name field must be at least 5 characters.'],
    ];
    for (const [body, message] of refused) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json).toEqual({ message, errors: { name: [message] } });
    }
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: g.id } })).name).toBe('Old Name');
    // At the edges: 5 and 255 characters.
    const five = await put({ first_name: 'ab', last_name: 'cd' });
    expect(five.status, five.text).toBe(200);
    expect(five.json.data).toMatchObject({ name: 'ab cd', first_name: 'ab', last_name: 'cd' });
    const longest = await put({ first_name: 'f'.repeat(200), last_name: 'l'.repeat(54) });
    expect(longest.status, longest.text).toBe(200);
    expect(longest.json.data.name).toHaveLength(255);
    const gql = await t.graphql(
      a.token,
      'mutation($id: ID!, $input: GuestUpdateInput!) { updateGuest(id: $id, input: $input) { name } }',
      { id: g.id, input: { locationId: a.location_id, firstName: 'ab', lastName: null } },
    );
    expect(gql.json.errors?.[0]?.message).toBe('The name field must be at least 5 characters.');
    expect(gql.json.errors?.[0]?.extensions?.fields).toEqual({
      name: ['The name field must be at least 5 characters.'],
    });
  });

  it('a PUT that changes nothing keeps updated_at (as Eloquent saves a clean model); one that changes a field moves it', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, { name: 'Same Name' });
    const body = { location_id: a.location_id, name: 'Same Name', room_no: 12, tags: ['vip', 'New'] };
    const first = await t.request('PUT', `${URL}/${g.id}`, { token: a.token, body });
    expect(first.status, first.text).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The same values, the tags in another order.
    const same = await t.request('PUT', `${URL}/${g.id}`, {
      token: a.token,
      body: { ...body, tags: ['New', 'vip'] },
    });
    expect(same.status, same.text).toBe(200);
    expect(same.json).toEqual(first.json);
    const stored = await prisma().guest.findUniqueOrThrow({ where: { id: g.id } });
    expect(stored.updatedAt.toISOString().slice(0, 23)).toBe(first.json.data.updated_at.slice(0, 23));
    const changed = await t.request('PUT', `${URL}/${g.id}`, {
      token: a.token,
      body: { ...body, room_no: 13 },
    });
    expect(changed.json.data.room_no).toBe('13');
    expect(changed.json.data.updated_at > first.json.data.updated_at).toBe(true);
  });

  it('checks every update rule at its edge', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id);
    await addGuest(prisma(), a.tenant_id, a.location_id, { email: 'someone@example.com' });
    const loc = a.location_id;
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{}, { location_id: ['The location id field is required.'] }],
      [{ location_id: loc, name: 'Abcd' }, { name: ['The name field must be at least 5 characters.'] }],
      [{ location_id: loc, email: 'SOMEONE@example.com' }, { email: ['The email has already been taken.'] }],
      [{ location_id: loc, gender: 3 }, { gender: ['The selected gender is invalid.'] }],
      [
        { location_id: loc, gender: 'male' },
        { gender: ['The gender field must be an integer.', 'The selected gender is invalid.'] },
      ],
      // Fields that are not nullable meet their rules with null (or an empty string) as Laravel's do.
      [
        { location_id: loc, name: null },
        { name: ['The name field must be a string.', 'The name field must be at least 5 characters.'] },
      ],
      [
        { location_id: loc, name: '   ' },
        { name: ['The name field must be a string.', 'The name field must be at least 5 characters.'] },
      ],
      [
        { location_id: loc, direct_login: null },
        {
          direct_login: [
            'The direct login field must be an integer.',
            'The selected direct login is invalid.',
          ],
        },
      ],
      [
        { location_id: loc, gender: '' },
        { gender: ['The gender field must be an integer.', 'The selected gender is invalid.'] },
      ],
      [{ location_id: null }, { location_id: ['The location id field is required.'] }],
      [{ location_id: loc, room_no: 0 }, { room_no: ['The room no field must be between 1 and 9999.'] }],
      [{ location_id: loc, room_no: 10000 }, { room_no: ['The room no field must be between 1 and 9999.'] }],
      [{ location_id: loc, room_no: '12A' }, { room_no: ['The room no field must be an integer.'] }],
      [{ location_id: loc, nationality: 'us' }, { nationality: ['The selected nationality is invalid.'] }],
      [
        { location_id: loc, residency: 'GBR' },
        { residency: ['The residency field must be 2 characters.', 'The selected residency is invalid.'] },
      ],
      [{ location_id: loc, hotel_status: 2 }, { hotel_status: ['The selected hotel status is invalid.'] }],
      [
        { location_id: loc, custom_data: '{nope' },
        { custom_data: ['The custom data field must be a valid JSON string.'] },
      ],
      [{ location_id: loc, direct_login: 2 }, { direct_login: ['The selected direct login is invalid.'] }],
      [
        { location_id: loc, marketing_consent: -1 },
        { marketing_consent: ['The selected marketing consent is invalid.'] },
      ],
      [{ location_id: loc, tag_type: 'a' }, { tag_type: ['The tag type field must be an integer.'] }],
      [
        { location_id: loc, name: 'abc', room_no: 0 },
        {
          name: ['The name field must be at least 5 characters.'],
          room_no: ['The room no field must be between 1 and 9999.'],
        },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await t.request('PUT', `${URL}/${g.id}`, { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json, JSON.stringify(body)).toEqual(unprocessable(errors));
    }
    // The guest's own email is not taken.
    const own = await t.request('PUT', `${URL}/${g.id}`, {
      token: a.token,
      body: { location_id: loc, email: g.email },
    });
    expect(own.status).toBe(200);
  });

  it('answers 404 for another tenant guest and 422 for another tenant location', async () => {
    const a = await tenant();
    const b = await tenant();
    const theirs = await addGuest(prisma(), b.tenant_id, b.location_id);
    const mine = await addGuest(prisma(), a.tenant_id, a.location_id);
    const res = await t.request('PUT', `${URL}/${theirs.id}`, {
      token: a.token,
      body: { location_id: a.location_id },
    });
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"error":"Record not found."}');
    const moved = await t.request('PUT', `${URL}/${mine.id}`, {
      token: a.token,
      body: { location_id: b.location_id },
    });
    expect(moved.status).toBe(422);
    expect(moved.json).toEqual(unprocessable({ location_id: ['The selected location id is invalid.'] }));
  });

  it('moves a guest to another location only with guests.manage-global', async () => {
    const a = await tenant();
    const other = await addLocation(a.tenant_id);
    const g = await addGuest(prisma(), a.tenant_id, a.location_id);
    const without = await addUser(prisma(), a.tenant_id, 'tenant');
    const denied = await t.request('PUT', `${URL}/${g.id}`, {
      token: without.token,
      body: { location_id: other.id },
    });
    expect(denied.status).toBe(403);
    expect(denied.text).toBe('{"message":"This action is unauthorized."}');
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: g.id } })).locationId).toBe(a.location_id);
    // Staying in place needs no permission.
    const stay = await t.request('PUT', `${URL}/${g.id}`, {
      token: without.token,
      body: { location_id: a.location_id },
    });
    expect(stay.status).toBe(200);
    const withIt = await addUser(prisma(), a.tenant_id, 'tenant', { permissions: ['guests.manage-global'] });
    const ok = await t.request('PUT', `${URL}/${g.id}`, {
      token: withIt.token,
      body: { location_id: other.id },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data.location_id).toBe(other.id);
    expect(ok.json.data.location_name).toBe(other.name);
    // A venue user holding the permission still never moves a guest out of its location.
    const back = await addGuest(prisma(), a.tenant_id, a.location_id);
    const venue = await addUser(prisma(), a.tenant_id, 'venue', {
      locationId: a.location_id,
      permissions: ['guests.manage-global'],
    });
    const pinned = await t.request('PUT', `${URL}/${back.id}`, {
      token: venue.token,
      body: { location_id: other.id },
    });
    expect(pinned.status).toBe(403);
  });
});

// -------------------------------------------------------------------------------------------------
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (size: number): Buffer => Buffer.concat([PNG_HEAD, Buffer.alloc(size - PNG_HEAD.length, 7)]);
const dataUrl = (type: string, bytes: Buffer) => `data:image/${type};base64,${bytes.toString('base64')}`;

describe.concurrent('avatars', () => {
  it('stores a data URL avatar of 2048 KB and serves it at image_url', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id);
    const bytes = png(2048 * 1024);
    const res = await t.request('PUT', `${URL}/${g.id}`, {
      token: a.token,
      body: { location_id: a.location_id, avatar: dataUrl('png', bytes) },
    });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const url: string = res.json.data.image_url;
    expect(url).toMatch(/^http:\/\/localhost\/media\/avatars\/avatar-[0-9a-f]{24}\.png$/);
    const file = await t.request('GET', url.replace('http://localhost', ''));
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(Number(file.headers['content-length'])).toBe(bytes.length);
    // The detail shows the same URL; null removes the avatar and its file.
    expect((await t.request('GET', `${URL}/${g.id}`, { token: a.token })).json.data.image_url).toBe(url);
    const removed = await t.request('PUT', `${URL}/${g.id}`, {
      token: a.token,
      body: { location_id: a.location_id, avatar: null },
    });
    expect(removed.json.data.image_url).toBeNull();
    expect((await t.request('GET', url.replace('http://localhost', ''))).status).toBe(404);
  });

  it('refuses avatars that are not images or over 2048 KB', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id);
    const notImage = 'The avatar field must be an image.';
    const cases: [unknown, string][] = [
      [dataUrl('png', png(2048 * 1024 + 1)), 'The avatar field must not be greater than 2048 kilobytes.'],
      [dataUrl('svg+xml', Buffer.from('<svg/>')), notImage],
      [dataUrl('jpeg', png(100)), notImage],
      ['data:image/png;base64,%%%', notImage],
      ['https://example.com/a.png', notImage],
      [12, notImage],
    ];
    for (const [avatar, message] of cases) {
      const res = await t.request('PUT', `${URL}/${g.id}`, {
        token: a.token,
        body: { location_id: a.location_id, avatar },
      });
      expect(res.status).toBe(422);
      expect(res.json).toEqual(unprocessable({ avatar: [message] }));
    }
    for (const [type, bytes] of [
      ['jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2])],
      ['gif', Buffer.from('GIF89a....')],
      ['webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 ')],
    ] as const) {
      const res = await t.request('POST', URL, {
        token: a.token,
        body: { location_id: a.location_id, avatar: dataUrl(type, bytes) },
      });
      expect(res.status, type).toBe(201);
      expect(res.json.data.image_url).toMatch(new RegExp(`\\.${type === 'jpeg' ? 'jpg' : type}$`));
    }
  });

  it('answers 404 for unknown media and never reads outside the avatar folder', async () => {
    for (const p of [
      '/media/avatars/nope.png',
      '/media/avatars/..%2F..%2Fetc%2Fpasswd',
      '/media/avatars/x.txt',
    ]) {
      expect((await t.request('GET', p)).status).toBe(404);
    }
  });
});

// A second client stands for another writer of the guest: it holds the guest's row and changes it;
// the PUT read the guest before, and is judged again on the row it then locks (probe L).
describe.skipIf(!process.env.TEST_DATABASE_URL)('PUT /guests/:id beside another writer of the guest', () => {
  /** The PUT beside a writer that holds the guest's row and has run `change` on it. */
  const besidePut = (guestId: string, change: string, values: unknown[], put: () => Promise<TestResponse>) =>
    besideWriter(process.env.TEST_DATABASE_URL as string, {
      before: [
        ['SELECT 1 FROM "Guest" WHERE "id" = $1 FOR UPDATE', [guestId]],
        [change, [guestId, ...values]],
      ],
      request: put,
      waiting: '%"Guest"%',
    });

  it('builds the name from the parts the other writer left, and keeps the part it did not send', async () => {
    const a = await tenant();
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, {
      firstName: 'Ada',
      lastName: 'Old',
      name: 'Ada Old',
    });
    const res = await besidePut(
      g.id,
      `UPDATE "Guest" SET "lastName" = $2, "name" = $3 WHERE "id" = $1`,
      ['Zed', 'Ada Zed'],
      () =>
        t.request('PUT', `${URL}/${g.id}`, {
          token: a.token,
          body: { location_id: a.location_id, first_name: 'Bea' },
        }),
    );
    expect(res.status, res.text).toBe(200);
    expect([res.json.data.first_name, res.json.data.last_name, res.json.data.name]).toEqual([
      'Bea',
      'Zed',
      'Bea Zed',
    ]);
  });

  it('finds the guest absent to a venue user when the other writer moved it away: 404, not moved back', async () => {
    const a = await tenant();
    const other = await prisma().location.create({
      data: { tenantId: a.tenant_id, name: uniqueName('Away') },
    });
    const g = await addGuest(prisma(), a.tenant_id, a.location_id);
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const res = await besidePut(
      g.id,
      `UPDATE "Guest" SET "locationId" = $2 WHERE "id" = $1`,
      [other.id],
      () =>
        t.request('PUT', `${URL}/${g.id}`, {
          token: venue.token,
          body: { location_id: a.location_id, name: 'Venue Edit' },
        }),
    );
    expect([res.status, res.json]).toEqual([404, { error: 'Record not found.' }]);
    const after = await prisma().guest.findUniqueOrThrow({ where: { id: g.id } });
    expect([after.locationId, after.name === 'Venue Edit']).toEqual([other.id, false]);
  });
});

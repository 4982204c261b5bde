// POST /api/v1/guests/import (guests.import.ts): rows from a JSON array or object, or a CSV, NDJSON or
// JSON file part; the create rules with Laravel's nested messages (`rows.N.field`), all_or_nothing and
// skip_invalid, upserts by email or partner_id, location scope, limits and bad files; GraphQL
// `importGuests`; tenant isolation on both transports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { checkContract } from './helpers/contract.js';
import { addGuest, addUser, newTenant } from './helpers/fixtures.js';
import { besideWriter } from './helpers/lock-waits.js';
import { form, type Part } from './helpers/multipart.js';

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
const URL = '/api/v1/guests/import';

const post = (token: string, body: unknown, query = '') =>
  t.request('POST', `${URL}${query}`, { token, body });

/** A multipart POST, checked against the OpenAPI document like every other answer. */
async function upload(token: string, parts: Part[], query = ''): Promise<TestResponse> {
  const { body, contentType } = form(parts);
  const res = await t.app.fastify.inject({
    method: 'POST',
    url: `${URL}${query}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    payload: body,
  });
  checkContract('POST', `${URL}${query}`, res.statusCode, res.body);
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {}
  return { status: res.statusCode, headers: res.headers, text: res.body, json };
}

const csvFile = (text: string, filename = 'guests.csv', type = 'text/csv'): Part => ({
  name: 'file',
  file: Buffer.from(text),
  type,
  filename,
});

/**
 * One tenant for the tests that store nothing, made before any test runs: fewer tenants bootstrap
 * while imports hold connections of the test's small pool.
 */
let refusing: Awaited<ReturnType<typeof newTenant>>;
beforeAll(async () => {
  refusing = await newTenant(prisma());
});
const refusingTenant = async () => refusing;

/** The tenant's guests, oldest first, as the list orders them. */
const guestsOf = (tenantId: string) =>
  prisma().guest.findMany({
    where: { tenantId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    include: { tags: { include: { tag: true } } },
  });

describe.concurrent('POST /guests/import: JSON rows', () => {
  it('creates every row of an array, as POST /guests would, and answers the counts', async () => {
    const a = await newTenant(prisma());
    const res = await post(a.token, [
      {
        location_id: a.location_id,
        name: 'Ann Lee',
        email: 'Ann@Example.com',
        gender: 'female',
        birth_date: '1990-04-01',
        room_no: '12',
        nationality: 'AE',
        marketing_consent: 1,
        tags: ['vip', 'late'],
        tag_type: 3,
      },
      { location_id: a.location_id, first_name: 'Omar', last_name: 'Haddad', phone: ' +971500000001 ' },
      { location_id: a.location_id },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('{"data":{"created":3,"updated":0,"skipped":0},"errors":{}}');
    const guests = await guestsOf(a.tenant_id);
    expect(guests.map((g) => g.name)).toEqual(['Ann Lee', 'Omar Haddad', '']);
    const [ann, omar, blank] = guests;
    expect(ann).toMatchObject({
      username: 'Ann@Example.com',
      email: 'Ann@Example.com',
      firstName: 'Ann',
      lastName: 'Lee',
      gender: 2,
      roomNo: '12',
      nationalityCode: 'AE',
      receiveMarketing: 1,
      directLogin: 0,
      locationId: a.location_id,
    });
    expect(ann?.birthDate?.toISOString()).toBe('1990-04-01T00:00:00.000Z');
    expect(ann?.tags.map((x) => [x.tag.name, x.tag.type]).sort()).toEqual([
      ['late', 3],
      ['vip', 3],
    ]);
    expect(omar).toMatchObject({ firstName: 'Omar', lastName: 'Haddad', phone: '+971500000001', gender: 0 });
    expect(blank?.username).toMatch(/^guest-[0-9a-f]{10}$/);
    // The detail reads an imported guest like any other.
    const detail = await t.request('GET', `/api/v1/guests/${ann?.id}`, { token: a.token });
    expect(detail.json.data.tags).toEqual(['late', 'vip']);
    expect(detail.json.data.gender_name).toBe('Female');
  });
});

describe.concurrent('POST /guests/import: the rows checked by the create rules', () => {
  it("names each bad row's fields as Laravel names nested attributes, and stores nothing", async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    await addGuest(prisma(), a.tenant_id, a.location_id, { email: 'taken@example.com' });
    const res = await post(a.token, [
      { location_id: a.location_id, name: 'Fine Row', email: 'fine@example.com' },
      { name: 'No Location', email: 'not-an-email', custom_field_1: 'x'.repeat(256) },
      { location_id: b.location_id, email: 'TAKEN@example.com', gender: 'other', nationality: 'XX' },
      'not an object',
      { location_id: a.location_id, tags: ['ok', 7], birth_date: '2026-02-30', direct_login: null },
      { location_id: a.location_id, name: 'Nul\u0000Name', avatar: 'data:image/png;base64,AAAA' },
    ]);
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      JSON.stringify({
        message: 'The rows.1.location_id field is required. (and 13 more errors)',
        errors: {
          'rows.1.location_id': ['The rows.1.location_id field is required.'],
          'rows.1.email': ['The rows.1.email field must be a valid email address.'],
          'rows.1.custom_field_1': [
            'The rows.1.custom_field_1 field must not be greater than 255 characters.',
          ],
          'rows.2.location_id': ['The selected rows.2.location_id is invalid.'],
          'rows.2.email': ['The rows.2.email has already been taken.'],
          'rows.2.gender': ['The selected rows.2.gender is invalid.'],
          'rows.2.nationality': ['The selected rows.2.nationality is invalid.'],
          'rows.3': ['The rows.3 field must be an object.'],
          'rows.4.birth_date': ['The rows.4.birth_date field must match the format Y-m-d.'],
          'rows.4.direct_login': [
            'The rows.4.direct_login field must be an integer.',
            'The selected rows.4.direct_login is invalid.',
          ],
          'rows.4.tags.1': ['The rows.4.tags.1 field must be a string.'],
          'rows.5.name': ['The rows.5.name field must not contain NUL characters.'],
          'rows.5.avatar': ['The rows.5.avatar field is prohibited.'],
        },
      }),
    );
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(1);
  });
});

describe.concurrent('POST /guests/import: the request', () => {
  it('takes {"rows": [...]} with the options beside them, which win over the query', async () => {
    const a = await newTenant(prisma());
    const rows = [{ location_id: a.location_id, name: 'Good' }, { location_id: 'nowhere' }];
    const skip = await post(a.token, { rows, mode: 'skip_invalid' }, '?mode=all_or_nothing');
    expect(skip.status, skip.text).toBe(200);
    expect(skip.text).toBe(
      '{"data":{"created":1,"updated":0,"skipped":1},"errors":{"rows.1.location_id":["The selected rows.1.location_id is invalid."]}}',
    );
    // The array form reads the options from the query.
    const fromQuery = await post(a.token, rows, '?mode=skip_invalid');
    expect(fromQuery.json.data).toEqual({ created: 1, updated: 0, skipped: 1 });
    const strict = await post(a.token, rows);
    expect(strict.status).toBe(422);
    expect(strict.json.errors).toEqual({
      'rows.1.location_id': ['The selected rows.1.location_id is invalid.'],
    });
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(2);
  });

  it('skip_invalid with no valid row stores nothing and answers 200', async () => {
    const a = await newTenant(prisma());
    const res = await post(a.token, [{}, { location_id: a.location_id, email: 'x' }], '?mode=skip_invalid');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: { created: 0, updated: 0, skipped: 2 },
      errors: {
        'rows.0.location_id': ['The rows.0.location_id field is required.'],
        'rows.1.email': ['The rows.1.email field must be a valid email address.'],
      },
    });
  });

  it.each([
    ['an empty array', [], { rows: ['The rows field is required.'] }],
    ['no body', undefined, { rows: ['The rows field is required.'] }],
    ['an object without rows', { mode: 'skip_invalid' }, { rows: ['The rows field is required.'] }],
    ['rows as text', { rows: 'a,b' }, { rows: ['The rows field must be a list.'] }],
    ['rows as an object', { rows: { a: { name: 'x' } } }, { rows: ['The rows field must be a list.'] }],
    [
      'bad options beside rows',
      { rows: 7, mode: 'sometimes', upsert_by: ['email'] },
      {
        rows: ['The rows field must be a list.'],
        mode: ['The selected mode is invalid.'],
        upsert_by: ['The upsert by field must be a string.', 'The selected upsert by is invalid.'],
      },
    ],
  ])('refuses %s with a 422', async (_name, body, errors) => {
    const a = await refusingTenant();
    const res = await t.request('POST', URL, { token: a.token, ...(body === undefined ? {} : { body }) });
    expect(res.status, res.text).toBe(422);
    expect(res.json.errors).toEqual(errors);
  });
});

// Large bodies one at a time: each holds a database connection for a while.
// An erasure beside the import, on two connections: PGlite's one connection serialises them.
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'POST /guests/import beside an erasure of the guest a row matches',
  () => {
    it('counts the row: it updates the guest (before the erasure) or creates one (after); never 0 of 1', async () => {
      const a = await newTenant(prisma());
      for (let round = 0; round < 4; round++) {
        const email = `race.${round}.${Date.now()}@import.test`;
        const guest = await addGuest(prisma(), a.tenant_id, a.location_id, { email, name: 'Before' });
        const [erased, imported] = await Promise.all([
          t.request('DELETE', `/api/v1/guests/${guest.id}`, { token: a.token }),
          post(a.token, [{ location_id: a.location_id, email, name: 'After' }], '?upsert_by=email'),
        ]);
        expect(erased.status, erased.text).toBe(204);
        expect(imported.status, imported.text).toBe(200);
        const { created, updated, skipped } = imported.json.data;
        expect(created + updated + skipped, imported.text).toBe(1);
        if (created === 1) {
          expect(
            await prisma().guest.count({ where: { tenantId: a.tenant_id, email, erasedAt: null } }),
          ).toBe(1);
        }
      }
    });
  },
);

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'POST /guests/import beside a writer of a matched guest',
  () => {
    it('waits for it rather than deadlocking with it: the writer holds the guest, then writes an event', async () => {
      const a = await newTenant(prisma());
      const email = `held.${Date.now()}@import.test`;
      const guest = await addGuest(prisma(), a.tenant_id, a.location_id, { email, name: 'Before' });
      // A second client stands for an erasure or a PUT of the guest: it holds the guest's row, then
      // takes the tenant's event sequence, as a guest write does.
      const res = await besideWriter(process.env.TEST_DATABASE_URL as string, {
        before: [['SELECT 1 FROM "Guest" WHERE "id" = $1 FOR UPDATE', [guest.id]]],
        request: () =>
          post(
            a.token,
            [
              { location_id: a.location_id, name: 'New One' },
              { location_id: a.location_id, email, name: 'After' },
            ],
            '?upsert_by=email',
          ),
        waiting: '%"Guest"%',
        after: [
          [
            `INSERT INTO "EventSequence" ("tenantId", "lastId") VALUES ($1, 0)
             ON CONFLICT ("tenantId") DO UPDATE SET "lastId" = "EventSequence"."lastId"`,
            [a.tenant_id],
          ],
        ],
      });
      expect([res.status, res.json.data]).toEqual([200, { created: 1, updated: 1, skipped: 0 }]);
      expect((await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } })).name).toBe('After');
    });
  },
);

describe('POST /guests/import: large bodies', () => {
  it('takes at most 50 000 rows, and answers malformed JSON with 400', async () => {
    const a = await newTenant(prisma());
    const many = await t.request('POST', URL, {
      token: a.token,
      rawBody: `[${Array.from({ length: 50_001 }, () => '{}').join(',')}]`,
    });
    expect(many.status).toBe(422);
    expect(many.text).toBe(
      '{"message":"The rows field must not have more than 50000 items.","errors":{"rows":["The rows field must not have more than 50000 items."]}}',
    );
    const broken = await t.request('POST', URL, { token: a.token, rawBody: '[{"location_id": "x",' });
    expect(broken.status).toBe(400);
    expect(broken.text).toBe('{"message":"Malformed JSON body."}');
  });

  it('reads a JSON body over the 1 MiB limit of other routes (up to GUEST_IMPORT_MAX_MB)', async () => {
    const a = await newTenant(prisma());
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      location_id: a.location_id,
      name: `Big Body ${i}`,
      custom_data: JSON.stringify({ note: 'x'.repeat(400) }),
    }));
    const body = JSON.stringify(rows);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await t.request('POST', URL, { token: a.token, rawBody: body });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.json.data.created).toBe(3000);
  });
});

describe.concurrent('POST /guests/import: duplicates and upserts', () => {
  it('without upsert_by, an e-mail taken in the tenant (any case) or repeated in the rows is refused', async () => {
    const a = await newTenant(prisma());
    await addGuest(prisma(), a.tenant_id, a.location_id, { email: 'held@example.com' });
    const res = await post(a.token, [
      { location_id: a.location_id, email: 'HELD@example.com' },
      { location_id: a.location_id, email: 'twice@example.com' },
      { location_id: a.location_id, email: 'Twice@Example.com' },
      { location_id: a.location_id, email: 'once@example.com' },
    ]);
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual({
      'rows.0.email': ['The rows.0.email has already been taken.'],
      'rows.1.email': ['The rows.1.email field has a duplicate value.'],
      'rows.2.email': ['The rows.2.email field has a duplicate value.'],
    });
    const skip = await post(
      a.token,
      [
        { location_id: a.location_id, email: 'held@example.com' },
        { location_id: a.location_id, email: 'once@example.com' },
      ],
      '?mode=skip_invalid',
    );
    expect(skip.json.data).toEqual({ created: 1, updated: 0, skipped: 1 });
  });

  it('upsert_by=email updates the tenant’s guest of that e-mail (any case): the fields sent, tags replaced', async () => {
    const a = await newTenant(prisma());
    const held = await addGuest(prisma(), a.tenant_id, a.location_id, {
      email: 'ann@example.com',
      username: 'ann-original',
      name: 'Ann Old',
      firstName: 'Ann',
      lastName: 'Old',
      phone: '+1000',
      roomNo: '7',
    });
    await t.request('PUT', `/api/v1/guests/${held.id}`, {
      token: a.token,
      body: { location_id: a.location_id, tags: ['old-tag'] },
    });
    const res = await post(
      a.token,
      [
        {
          location_id: a.location_id,
          email: 'ANN@example.com',
          last_name: 'New',
          phone: null,
          tags: ['vip'],
        },
        { location_id: a.location_id, email: 'new@example.com', name: 'New Guest' },
      ],
      '?upsert_by=email',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ data: { created: 1, updated: 1, skipped: 0 }, errors: {} });
    const after = await prisma().guest.findUniqueOrThrow({
      where: { id: held.id },
      include: { tags: { include: { tag: true } } },
    });
    expect(after).toMatchObject({
      email: 'ANN@example.com',
      username: 'ann-original',
      name: 'Ann New',
      firstName: 'Ann',
      lastName: 'New',
      phone: null,
      roomNo: '7',
    });
    expect(after.tags.map((x) => x.tag.name)).toEqual(['vip']);
    expect(after.updatedAt.getTime()).toBeGreaterThan(held.updatedAt.getTime());
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(2);
    // `tags: null` removes them, as on PUT.
    await post(
      a.token,
      [{ location_id: a.location_id, email: 'ann@example.com', tags: null }],
      '?upsert_by=email',
    );
    expect(await prisma().guestTag.count({ where: { guestId: held.id } })).toBe(0);
  });

  it('upsert_by=email refuses an e-mail repeated in the rows', async () => {
    const a = await newTenant(prisma());
    const res = await post(
      a.token,
      [
        { location_id: a.location_id, email: 'same@example.com' },
        { location_id: a.location_id, email: 'SAME@example.com' },
      ],
      '?upsert_by=email',
    );
    expect(res.json.errors).toEqual({
      'rows.0.email': ['The rows.0.email field has a duplicate value.'],
      'rows.1.email': ['The rows.1.email field has a duplicate value.'],
    });
  });

  it('upsert_by=partner_id updates the one guest carrying it; several carrying it, a repeat, or another’s e-mail is refused', async () => {
    const a = await newTenant(prisma());
    const one = await addGuest(prisma(), a.tenant_id, a.location_id, {
      partnerId: 'P-1',
      email: 'p1@example.com',
    });
    await addGuest(prisma(), a.tenant_id, a.location_id, { partnerId: 'P-2' });
    await addGuest(prisma(), a.tenant_id, a.location_id, { partnerId: 'P-2' });
    const other = await addGuest(prisma(), a.tenant_id, a.location_id, { email: 'other@example.com' });
    const res = await post(
      a.token,
      [
        { location_id: a.location_id, partner_id: 'P-1', email: 'p1@example.com', room_no: '101' },
        { location_id: a.location_id, partner_id: 'P-2' },
        { location_id: a.location_id, partner_id: 'P-3' },
        { location_id: a.location_id, partner_id: 'P-3' },
        { location_id: a.location_id, partner_id: 'P-4', email: 'other@example.com' },
        { location_id: a.location_id, partner_id: 'P-5', name: 'Fresh Partner' },
      ],
      '?upsert_by=partner_id&mode=skip_invalid',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({
      data: { created: 1, updated: 1, skipped: 4 },
      errors: {
        'rows.1.partner_id': ['The rows.1.partner_id field matches more than one guest.'],
        'rows.2.partner_id': ['The rows.2.partner_id field has a duplicate value.'],
        'rows.3.partner_id': ['The rows.3.partner_id field has a duplicate value.'],
        'rows.4.email': ['The rows.4.email has already been taken.'],
      },
    });
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: one.id } })).roomNo).toBe('101');
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: other.id } })).partnerId).toBeNull();
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id, partnerId: 'P-5' } })).toBe(1);
  });

  it('moving a matched guest to another location needs guests.manage-global, as PUT does', async () => {
    const a = await newTenant(prisma());
    const second = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Second Venue' } });
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, { email: 'mover@example.com' });
    const plain = await addUser(prisma(), a.tenant_id, 'tenant');
    const rows = [{ location_id: second.id, email: 'mover@example.com' }];
    const refused = await post(plain.token, rows, '?upsert_by=email');
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual({
      'rows.0.location_id': [
        'The rows.0.location_id field cannot move a guest to another location without the guests.manage-global permission.',
      ],
    });
    // The bootstrap user holds guests.manage-global.
    const moved = await post(a.token, rows, '?upsert_by=email');
    expect(moved.json.data).toEqual({ created: 0, updated: 1, skipped: 0 });
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: g.id } })).locationId).toBe(second.id);
  });
});

describe.concurrent('POST /guests/import: roles and tenants', () => {
  it('a venue user imports into its own location only; a guest elsewhere is not its to update', async () => {
    const a = await newTenant(prisma());
    const elsewhere = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Elsewhere' } });
    await addGuest(prisma(), a.tenant_id, elsewhere.id, { email: 'far@example.com', partnerId: 'FAR' });
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const res = await post(
      venue.token,
      [
        { location_id: a.location_id, name: 'Mine' },
        { location_id: elsewhere.id, name: 'Not Mine' },
        { location_id: a.location_id, email: 'FAR@example.com' },
      ],
      '?upsert_by=email&mode=skip_invalid',
    );
    expect(res.json).toEqual({
      data: { created: 1, updated: 0, skipped: 2 },
      errors: {
        'rows.1.location_id': ['The selected rows.1.location_id is invalid.'],
        'rows.2.email': ['The rows.2.email has already been taken.'],
      },
    });
    // A partner id carried only elsewhere matches nothing in its reach: a new guest.
    const partner = await post(
      venue.token,
      [{ location_id: a.location_id, partner_id: 'FAR' }],
      '?upsert_by=partner_id',
    );
    expect(partner.json.data).toEqual({ created: 1, updated: 0, skipped: 0 });
  });

  it('front-desk users and read tokens may not import (403)', async () => {
    const a = await newTenant(prisma());
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    const res = await post(desk.token, [{ location_id: a.location_id }]);
    expect(res.status).toBe(403);
    expect(res.text).toBe('{"message":"This action is unauthorized."}');
    const file = await upload(desk.token, [csvFile(`location_id\n${a.location_id}\n`)]);
    expect(file.status).toBe(403);
    const read = await t.request('POST', '/api/v1/api-tokens', {
      token: a.token,
      body: { name: 'ro', scopes: ['read'] },
    });
    const ro = await post(read.json.data.token, [{ location_id: a.location_id }]);
    expect(ro.status).toBe(403);
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(0);
  });

  it('never reaches another tenant: its locations are invalid, its e-mails and partner ids are not matched', async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const theirs = await addGuest(prisma(), b.tenant_id, b.location_id, {
      email: 'shared@example.com',
      partnerId: 'B-1',
    });
    const bad = await post(a.token, [{ location_id: b.location_id }]);
    expect(bad.json.errors).toEqual({
      'rows.0.location_id': ['The selected rows.0.location_id is invalid.'],
    });
    const byEmail = await post(
      a.token,
      [{ location_id: a.location_id, email: 'shared@example.com', name: 'Mine' }],
      '?upsert_by=email',
    );
    expect(byEmail.json.data).toEqual({ created: 1, updated: 0, skipped: 0 });
    const byPartner = await post(
      a.token,
      [{ location_id: a.location_id, partner_id: 'B-1' }],
      '?upsert_by=partner_id',
    );
    expect(byPartner.json.data).toEqual({ created: 1, updated: 0, skipped: 0 });
    const untouched = await prisma().guest.findUniqueOrThrow({ where: { id: theirs.id } });
    expect(untouched).toEqual(theirs);
    expect(await prisma().guest.count({ where: { tenantId: b.tenant_id } })).toBe(1);
  });
});

describe.concurrent('POST /guests/import: files', () => {
  it('reads a CSV part: header names in any case, quoted cells, empty cells not sent, tags, unknown columns ignored', async () => {
    const a = await newTenant(prisma());
    const csv =
      '\uFEFF Location_ID ,Name,EMAIL,phone,tags,Shoe Size,room_no\r\n' +
      `${a.location_id},"Lee, Ann",ann@example.com,,"vip,late checkout",44,\r\n` +
      '\r\n' +
      `${a.location_id},"Omar ""The Guest""
Haddad",,+971,"[""json"",""list""]",,12,,\r\n`;
    const res = await upload(a.token, [csvFile(csv)]);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ data: { created: 2, updated: 0, skipped: 0 }, errors: {} });
    const [ann, omar] = await guestsOf(a.tenant_id);
    expect(ann).toMatchObject({ name: 'Lee, Ann', email: 'ann@example.com', phone: null, roomNo: null });
    expect(ann?.tags.map((x) => x.tag.name).sort()).toEqual(['late checkout', 'vip']);
    expect(omar).toMatchObject({
      name: 'Omar "The Guest"\nHaddad',
      email: null,
      phone: '+971',
      roomNo: '12',
    });
    expect(omar?.tags.map((x) => x.tag.name).sort()).toEqual(['json', 'list']);
  });

  it('numbers CSV rows from 0 after the header (blank lines not counted); a row with extra cells is refused', async () => {
    const a = await newTenant(prisma());
    const csv = [
      'location_id,email',
      `${a.location_id},first@example.com`,
      '',
      `${a.location_id},bad-email`,
      `${a.location_id},third@example.com,surplus`,
      `${a.location_id},fourth@example.com,,`,
    ].join('\n');
    const res = await upload(a.token, [csvFile(csv), { name: 'mode', value: 'skip_invalid' }]);
    expect(res.json).toEqual({
      data: { created: 2, updated: 0, skipped: 2 },
      errors: {
        'rows.1.email': ['The rows.1.email field must be a valid email address.'],
        'rows.2': ['The rows.2 field must not have more than 2 columns.'],
      },
    });
  });

  it('reads NDJSON (by extension, content type, first character or `format`) and JSON-array files', async () => {
    const a = await newTenant(prisma());
    const ndjson = `{"location_id":"${a.location_id}","name":"Line One"}\r\n\n{"location_id":"${a.location_id}","tags":["a"]}\n`;
    const cases: [Part, string][] = [
      [csvFile(ndjson, 'guests.ndjson', 'application/octet-stream'), ''],
      [csvFile(ndjson, 'guests.txt', 'application/x-ndjson'), ''],
      [csvFile(ndjson, 'upload', 'application/octet-stream'), ''],
      [csvFile(ndjson, 'guests.csv', 'text/csv'), 'ndjson'],
      [csvFile(`[{"location_id":"${a.location_id}"},{"location_id":"${a.location_id}"}]`, 'guests.json'), ''],
    ];
    for (const [file, format] of cases) {
      const parts: Part[] = [file, ...(format ? [{ name: 'format', value: format }] : [])];
      const res = await upload(a.token, parts);
      expect(res.json, `${'filename' in file ? file.filename : ''} ${format}`).toEqual({
        data: { created: 2, updated: 0, skipped: 0 },
        errors: {},
      });
    }
  });

  it('reads back what an export wrote (round trip): the quote before a formula goes; codes, room, marketing consent and updated_at are kept', async () => {
    const a = await newTenant(prisma());
    const email = `round.${Date.now()}@import.test`;
    const created = await t.request('POST', '/api/v1/guests', {
      token: a.token,
      body: {
        location_id: a.location_id,
        name: '=Eve Formula',
        email,
        phone: '+34 600 000 000',
        partner_id: '-P0',
        nationality: 'ES',
        residency: 'AE',
        room_no: "'=5",
        reservation_no: "'Tis",
        marketing_consent: 1,
        tags: ['vip'],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.data.id;
    const detail = async () => (await t.request('GET', `/api/v1/guests/${id}`, { token: a.token })).json.data;
    const before = await detail();
    const csv = await t.request('GET', '/api/v1/guests/export?format=csv', { token: a.token });
    expect(csv.text).toContain("'=Eve Formula,");
    // The list item's columns: the countries' names beside their codes, the room as room_number.
    expect(csv.text.split('\r\n')[0]).toContain(
      ',nationality,nationality_code,residency,residency_code,room_number,',
    );
    expect(csv.text).toContain(",Spain,ES,United Arab Emirates,AE,''=5,'Tis,");
    const ndjson = await t.request('GET', '/api/v1/guests/export?format=ndjson', { token: a.token });
    expect(ndjson.text).toContain('"nationality":"Spain","nationality_code":"ES"');
    for (const file of [csvFile(csv.text), csvFile(ndjson.text, 'guests.ndjson', 'application/x-ndjson')]) {
      const res = await upload(a.token, [file], '?upsert_by=email');
      expect(res.status, res.text).toBe(200);
      expect(res.json, res.text).toEqual({ data: { created: 0, updated: 1, skipped: 0 }, errors: {} });
      // The row changed nothing: the guest is as it was, updated_at included.
      expect(await detail()).toEqual(before);
    }
    // No guest.updated.
    const updated = await prisma().event.count({ where: { tenantId: a.tenant_id, type: 'guest.updated' } });
    expect(updated).toBe(0);
    // Changed since: the export puts back its codes and room.
    const put = await t.request('PUT', `/api/v1/guests/${id}`, {
      token: a.token,
      body: {
        location_id: a.location_id,
        nationality: 'FR',
        residency: 'DE',
        room_no: 7,
        marketing_consent: 0,
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.data).toMatchObject({
      nationality_code: 'FR',
      residency_code: 'DE',
      room_no: '7',
      receive_marketing: 0,
    });
    const res = await upload(a.token, [csvFile(csv.text)], '?upsert_by=email');
    expect(res.json, res.text).toEqual({ data: { created: 0, updated: 1, skipped: 0 }, errors: {} });
    const after = await detail();
    expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    expect(after.updated_at > put.json.data.updated_at).toBe(true);
  });

  it('takes an export’s nationality_code, residency_code and room_number, alone or beside agreeing create fields', async () => {
    const a = await newTenant(prisma());
    const res = await post(a.token, [
      {
        location_id: a.location_id,
        name: 'Only Export',
        nationality_code: 'ES',
        residency_code: 'AE',
        room_number: '12',
      },
      {
        location_id: a.location_id,
        name: 'Both Forms',
        nationality: 'Spain',
        nationality_code: 'ES',
        residency: 'AE',
        residency_code: 'AE',
        room_no: '7',
        room_number: '7',
      },
      { location_id: a.location_id, name: 'Create Names', nationality: 'DE', residency: 'FR', room_no: '3' },
      { location_id: a.location_id, name: 'Both Null', nationality: null, nationality_code: null },
    ]);
    expect(res.text).toBe('{"data":{"created":4,"updated":0,"skipped":0},"errors":{}}');
    const stored = (await guestsOf(a.tenant_id)).map((g) => [
      g.name,
      g.nationalityCode,
      g.residencyCode,
      g.roomNo,
    ]);
    expect(stored).toEqual([
      ['Only Export', 'ES', 'AE', '12'],
      ['Both Forms', 'ES', 'AE', '7'],
      ['Create Names', 'DE', 'FR', '3'],
      ['Both Null', null, null, null],
    ]);
    // An export column is judged by its field's rules, under its own name.
    const bad = await post(a.token, [
      { location_id: a.location_id, nationality_code: 'es', room_number: ['x'] },
    ]);
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual({
      'rows.0.nationality_code': ['The selected rows.0.nationality_code is invalid.'],
      'rows.0.room_number': ['The rows.0.room_number field must be a string.'],
    });
  });

  it('refuses a row whose create field and export column differ (422, each row named), and stores nothing', async () => {
    const a = await refusingTenant();
    const res = await post(a.token, [
      { location_id: a.location_id, nationality: 'France', nationality_code: 'ES' },
      { location_id: a.location_id, residency: 'ES', residency_code: 'AE', room_no: '7', room_number: '8' },
      { location_id: a.location_id, nationality: null, nationality_code: 'ES' },
      // A country's name without the code column: the create field, which takes a code.
      { location_id: a.location_id, nationality: 'Spain' },
    ]);
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      JSON.stringify({
        message: 'The rows.0.nationality field must match rows.0.nationality_code. (and 5 more errors)',
        errors: {
          'rows.0.nationality': ['The rows.0.nationality field must match rows.0.nationality_code.'],
          'rows.1.residency': ['The rows.1.residency field must match rows.1.residency_code.'],
          'rows.1.room_no': ['The rows.1.room_no field must match rows.1.room_number.'],
          'rows.2.nationality': ['The rows.2.nationality field must match rows.2.nationality_code.'],
          'rows.3.nationality': [
            'The rows.3.nationality field must be 2 characters.',
            'The selected rows.3.nationality is invalid.',
          ],
        },
      }),
    );
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(0);
  });

  it('an upsert row that changes nothing is not written: updated_at, tags, audit log and events stay', async () => {
    const a = await newTenant(prisma());
    const ann = {
      location_id: a.location_id,
      name: 'Ann Lee',
      email: 'ann@example.com',
      nationality: 'ES',
      room_no: '12',
      tags: ['vip', 'late'],
    };
    const bo = { location_id: a.location_id, name: 'Bo Chen', email: 'bo@example.com', room_no: '3' };
    const first = await post(a.token, [ann, bo]);
    expect(first.text).toBe('{"data":{"created":2,"updated":0,"skipped":0},"errors":{}}');
    const state = async () => ({
      guests: await guestsOf(a.tenant_id),
      audit: await prisma().auditLog.findMany({
        where: { tenantId: a.tenant_id },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
      events: await prisma().event.findMany({ where: { tenantId: a.tenant_id }, orderBy: { id: 'asc' } }),
    });
    const before = await state();
    expect(before.events.map((e) => e.type)).toEqual(['guest.created', 'guest.created']);
    // The same values (tags in another order, the nationality as an export writes it): counted as
    // matched, nothing written.
    const same = await post(
      a.token,
      [{ ...ann, nationality: 'Spain', nationality_code: 'ES', tags: ['late', 'vip'] }],
      '?upsert_by=email',
    );
    expect(same.text).toBe('{"data":{"created":0,"updated":1,"skipped":0},"errors":{}}');
    expect(await state()).toEqual(before);
    // Beside a row that changes something, in the same statement group: only that one is written.
    const mixed = await post(a.token, [ann, { ...bo, room_no: '4' }], '?upsert_by=email');
    expect(mixed.text).toBe('{"data":{"created":0,"updated":2,"skipped":0},"errors":{}}');
    const after = await state();
    const [annBefore, boBefore] = before.guests;
    const [annAfter, boAfter] = after.guests;
    expect(annAfter).toEqual(annBefore);
    expect(boAfter).toEqual({ ...boBefore, roomNo: '4', updatedAt: expect.any(Date) });
    expect(boAfter?.updatedAt.getTime()).toBeGreaterThan(boBefore?.updatedAt.getTime() ?? Infinity);
    expect(after.events.slice(0, 2)).toEqual(before.events);
    expect(after.events.slice(2).map((e) => [e.type, e.resourceId])).toEqual([
      ['guest.updated', boAfter?.id],
    ]);
    expect(after.audit.slice(0, 2)).toEqual(before.audit);
    expect(after.audit.slice(2).map((e) => [e.action, e.resourceId, e.changes])).toEqual([
      ['guests.import', boAfter?.id, { room_no: { old: '3', new: '4' } }],
    ]);
  });

  it('skips a spreadsheet’s rows of empty cells; refuses a row with more than 200 fields', async () => {
    const a = await newTenant(prisma());
    const csv = `location_id,name,email\r\n${a.location_id},Ann Row,\r\n,,\r\n , ,\r\n${a.location_id},Bob Row,\r\n,,\r\n`;
    const res = await upload(a.token, [csvFile(csv)]);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ created: 2, updated: 0, skipped: 0 });
    const wide: Record<string, unknown> = { location_id: a.location_id, name: 'Wide Row' };
    for (let i = 0; i < 199; i++) wide[`extra_${i}`] = i;
    const refused = await t.request('POST', URL, { token: a.token, body: { rows: [wide] } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.json.errors).toEqual({
      'rows.0': ['The rows.0 field must not have more than 200 fields.'],
    });
    delete wide.extra_198;
    const fits = await t.request('POST', URL, { token: a.token, body: { rows: [wide] } });
    expect(fits.status, fits.text).toBe(200);
  });

  it('names an NDJSON line that is not JSON, or not an object, as its row', async () => {
    const a = await newTenant(prisma());
    const ndjson = `{"location_id":"${a.location_id}"}\n{"location_id": oops}\n\n[1,2]\n{"location_id":"${a.location_id}","gender":"x"}\n`;
    const res = await upload(a.token, [csvFile(ndjson, 'g.ndjson')]);
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual({
      'rows.1': ['The rows.1 field must be a valid JSON string.'],
      'rows.2': ['The rows.2 field must be an object.'],
      'rows.3.gender': ['The selected rows.3.gender is invalid.'],
    });
  });

  it.each([
    ['no file part', [{ name: 'mode', value: 'skip_invalid' }], { file: ['The file field is required.'] }],
    [
      'a text field for the file',
      [{ name: 'file', value: 'location_id\nx' }],
      { file: ['The file field must be a file.'] },
    ],
    [
      'an unknown format and mode, with no file',
      [
        { name: 'format', value: 'xlsx' },
        { name: 'mode', value: 'sometimes' },
      ],
      {
        mode: ['The selected mode is invalid.'],
        format: ['The selected format is invalid.'],
        file: ['The file field is required.'],
      },
    ],
    [
      'a file that is not UTF-8',
      [
        {
          name: 'file',
          file: Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xff, 0xfe]),
          type: 'text/csv',
          filename: 'a.csv',
        },
      ],
      { file: ['The file field must be a UTF-8 text file.'] },
    ],
    [
      'UTF-16 without a byte order mark (valid UTF-8 with NULs)',
      [
        {
          name: 'file',
          file: Buffer.from('location_id,name\nx,Ann\n', 'utf16le'),
          type: 'text/csv',
          filename: 'a.csv',
        },
      ],
      { file: ['The file field must be a UTF-8 text file.'] },
    ],
    [
      'more columns than a guest has fields (200)',
      [csvFile(`${Array.from({ length: 201 }, (_, i) => `c${i}`).join(',')}\nx\n`)],
      { file: ['The file field must not have more than 200 columns.'] },
    ],
    [
      'a quote never closed',
      [csvFile('location_id,name\nx,"open\ny,z\n')],
      { file: ['The file field must be a valid CSV file: a quoted field opened on line 2 is never closed.'] },
    ],
    [
      'text after a closing quote',
      [csvFile('location_id,name\nx,"a"b\n')],
      {
        file: ['The file field must be a valid CSV file: text after the closing quote of a field on line 2.'],
      },
    ],
    [
      'a repeated column',
      [csvFile('location_id,Email,email\nx,a,b\n')],
      { file: ['The file field must not repeat the column email.'] },
    ],
    [
      'a header and no row',
      [csvFile('location_id,name\r\n\r\n')],
      { file: ['The file field must contain at least one row.'] },
    ],
    ['an empty file', [csvFile('')], { file: ['The file field must contain at least one row.'] }],
    [
      'a JSON file that is not an array',
      [csvFile('{"rows": []', 'g.json', 'application/json')],
      { file: ['The file field must be a valid JSON array.'] },
    ],
    [
      'a JSON file nested deeper than PHP reads (512), as a JSON body is refused',
      [csvFile(`[${'['.repeat(100_000)}${']'.repeat(100_000)}]`, 'g.json', 'application/json')],
      { file: ['The file field must be a valid JSON array.'] },
    ],
    [
      'an empty JSON array',
      [csvFile('[]', 'g.json')],
      { file: ['The file field must contain at least one row.'] },
    ],
  ] as [string, Part[], Json][])('refuses %s with a 422', async (_name, parts, errors) => {
    const a = await refusingTenant();
    const res = await upload(a.token, parts);
    expect(res.status, res.text).toBe(422);
    expect(res.json.errors).toEqual(errors);
  });

  it('answers 400 to a form that cannot be read', async () => {
    const a = await newTenant(prisma());
    const res = await t.app.fastify.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'multipart/form-data; boundary=xyz' },
      payload: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nlocation_id',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toBe('{"message":"Malformed multipart body."}');
  });
});

describe('POST /guests/import: size limit (GUEST_IMPORT_MAX_MB=1)', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await startApp({ GUEST_IMPORT_MAX_MB: '1' }, { db: t.db });
  });
  afterAll(async () => {
    await small.app.close();
  });

  it('answers 413 to a file part or a JSON body over the limit, and reads one just under it', async () => {
    const a = await newTenant(prisma());
    const row = `${a.location_id},${'n'.repeat(100)}\n`;
    const under = `location_id,name\n${row.repeat(Math.floor((1024 * 1024 - 20) / row.length))}`;
    const over = `${under}${row.repeat(20)}`;
    const send = (text: string) => {
      const { body, contentType } = form([csvFile(text)]);
      return small.app.fastify.inject({
        method: 'POST',
        url: `${URL}?mode=skip_invalid`,
        headers: { authorization: `Bearer ${a.token}`, 'content-type': contentType },
        payload: body,
      });
    };
    const tooBig = await send(over);
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.body).toBe('{"message":"Payload Too Large."}');
    const json = await small.request('POST', URL, {
      token: a.token,
      rawBody: `[${'{},'.repeat(400_000)}{}]`,
    });
    expect(json.status).toBe(413);
    expect(json.text).toBe('{"message":"Payload Too Large."}');
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(0);
    const fits = await send(under);
    expect(fits.statusCode, fits.body.slice(0, 200)).toBe(200);
    expect(JSON.parse(fits.body).data.created).toBeGreaterThan(9000);
  });
});

const IMPORT = `mutation Import($rows: [GuestCreateInput!]!, $mode: String, $upsertBy: String) {
  importGuests(rows: $rows, mode: $mode, upsertBy: $upsertBy) {
    created updated skipped errors { key row field messages } } }`;

describe.concurrent('GraphQL importGuests', () => {
  it('creates the rows as createGuest would, and answers the counts', async () => {
    const a = await newTenant(prisma());
    const res = await t.graphql(a.token, IMPORT, {
      rows: [
        {
          locationId: a.location_id,
          name: 'Graph Ann',
          email: 'gann@example.com',
          customField1: 'c1',
          tags: ['vip'],
        },
        { locationId: a.location_id, firstName: 'Graph', lastName: 'Omar' },
      ],
    });
    expect(res.json).toEqual({ data: { importGuests: { created: 2, updated: 0, skipped: 0, errors: [] } } });
    const [ann, omar] = await guestsOf(a.tenant_id);
    expect(ann).toMatchObject({ name: 'Graph Ann', email: 'gann@example.com', customField1: 'c1' });
    expect(ann?.tags.map((x) => x.tag.name)).toEqual(['vip']);
    expect(omar?.name).toBe('Graph Omar');
  });

  it('all_or_nothing: a BAD_USER_INPUT error keyed rows.N.field (GraphQL names) with REST’s messages', async () => {
    const a = await newTenant(prisma());
    const res = await t.graphql(a.token, IMPORT, {
      rows: [
        { locationId: a.location_id },
        { email: 'nope', customField1: 'x'.repeat(256) },
        { avatar: 'x' },
      ],
    });
    expect(res.json.data).toBeNull();
    expect(res.json.errors).toHaveLength(1);
    expect(res.json.errors[0].message).toBe('The rows.1.location_id field is required. (and 4 more errors)');
    expect(res.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: {
        'rows.1.locationId': ['The rows.1.location_id field is required.'],
        'rows.1.email': ['The rows.1.email field must be a valid email address.'],
        'rows.1.customField1': ['The rows.1.custom_field_1 field must not be greater than 255 characters.'],
        'rows.2.locationId': ['The rows.2.location_id field is required.'],
        'rows.2.avatar': ['The rows.2.avatar field is prohibited.'],
      },
    });
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(0);
  });

  it('skip_invalid and upsertBy: the refused rows in `errors`, the match updated', async () => {
    const a = await newTenant(prisma());
    const g = await addGuest(prisma(), a.tenant_id, a.location_id, { partnerId: 'PMS-9' });
    const res = await t.graphql(a.token, IMPORT, {
      rows: [
        { locationId: a.location_id, partnerId: 'PMS-9', roomNo: '404' },
        { locationId: a.location_id, gender: 'x' },
      ],
      mode: 'skip_invalid',
      upsertBy: 'partner_id',
    });
    expect(res.json.data.importGuests).toEqual({
      created: 0,
      updated: 1,
      skipped: 1,
      errors: [
        {
          key: 'rows.1.gender',
          row: 1,
          field: 'gender',
          messages: ['The selected rows.1.gender is invalid.'],
        },
      ],
    });
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: g.id } })).roomNo).toBe('404');
  });

  it('refuses bad options and an empty list like REST, and front-desk users (FORBIDDEN)', async () => {
    const a = await newTenant(prisma());
    const bad = await t.graphql(a.token, IMPORT, { rows: [], mode: 'later', upsertBy: 'phone' });
    expect(bad.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: {
        rows: ['The rows field is required.'],
        mode: ['The selected mode is invalid.'],
        upsertBy: ['The selected upsert by is invalid.'],
      },
    });
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    const forbidden = await t.graphql(desk.token, IMPORT, { rows: [{ locationId: a.location_id }] });
    expect(forbidden.json.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('never reaches another tenant', async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    await addGuest(prisma(), b.tenant_id, b.location_id, { email: 'theirs@example.com' });
    const res = await t.graphql(a.token, IMPORT, {
      rows: [{ locationId: b.location_id }, { locationId: a.location_id, email: 'theirs@example.com' }],
      mode: 'skip_invalid',
      upsertBy: 'email',
    });
    expect(res.json.data.importGuests).toEqual({
      created: 1,
      updated: 0,
      skipped: 1,
      errors: [
        {
          key: 'rows.0.locationId',
          row: 0,
          field: 'locationId',
          messages: ['The selected rows.0.location_id is invalid.'],
        },
      ],
    });
    expect(await prisma().guest.count({ where: { tenantId: b.tenant_id } })).toBe(1);
  });
});

describe('POST /guests/import: database work', () => {
  it('does not grow with the rows: the same statements for 5 rows as for 500', async () => {
    const a = await newTenant(prisma());
    const rows = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        location_id: a.location_id,
        email: `${tag}${i}@example.com`,
        tags: ['one', `${tag}-${i % 3}`],
      }));
    await post(a.token, rows(3, 'warm'));
    const small = await recordStatements(t.db, () => post(a.token, rows(5, 'small')));
    const large = await recordStatements(t.db, () => post(a.token, rows(500, 'large')));
    expect(small.result.json.data.created).toBe(5);
    expect(large.result.json.data.created).toBe(500);
    expect(large.sql).toEqual(small.sql);
    // The token aside: one look-up of the locations, one of the e-mails, then in the transaction the
    // guests, the tags (created, then read) and their links, then the events: the stored guests read
    // back (REST's detail) and their guest.created events with audit entries appended.
    const work = small.sql.filter((q) => !q.includes('"ApiToken"') && !/COMMIT|BEGIN/.test(q));
    expect(work.map((q) => q.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'SELECT "id" FROM',
      'SELECT v.given, lower(v.given)',
      'INSERT INTO "Guest"',
      'INSERT INTO "Tag"',
      'SELECT "id", "name"',
      'INSERT INTO "GuestTag"',
      "SELECT json_build_object('guest', row_to_json(g),",
      'WITH seq AS',
    ]);
  });
});

/** 10 000 CSV rows of the tenant's location; rows 17, 4711 and 9998 are bad in three ways. */
function bigCsv(locationId: string, tag: string): string {
  const lines = ['location_id,name,email,phone,gender,tags'];
  for (let i = 0; i < 10_000; i++) {
    const email = i === 4711 ? 'not-an-email' : `guest${i}.${tag}@example.test`;
    const gender = i === 9998 ? 'other' : i % 2 ? 'male' : 'female';
    const location = i === 17 ? 'nowhere' : locationId;
    lines.push(`${location},Guest ${i},${email},+1555${String(i).padStart(6, '0')},${gender},"vip,batch"`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

const BIG_ERRORS = {
  'rows.17.location_id': ['The selected rows.17.location_id is invalid.'],
  'rows.4711.email': ['The rows.4711.email field must be a valid email address.'],
  'rows.9998.gender': ['The selected rows.9998.gender is invalid.'],
};

describe('POST /guests/import: 10 000 rows with 3 bad ones', { timeout: 120_000 }, () => {
  it('all_or_nothing answers exactly those 3 rows and stores nothing', async () => {
    const a = await newTenant(prisma());
    const res = await upload(a.token, [csvFile(bigCsv(a.location_id, 'aon'))]);
    expect(res.status, res.text.slice(0, 500)).toBe(422);
    expect(res.json).toEqual({
      message: 'The selected rows.17.location_id is invalid. (and 2 more errors)',
      errors: BIG_ERRORS,
    });
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(0);
    expect(await prisma().tag.count({ where: { tenantId: a.tenant_id } })).toBe(0);
  });

  it('skip_invalid stores the 9 997 others, in the file order, with their tags', async () => {
    const a = await newTenant(prisma());
    const res = await upload(a.token, [
      csvFile(bigCsv(a.location_id, 'skip')),
      { name: 'mode', value: 'skip_invalid' },
    ]);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.json).toEqual({ data: { created: 9997, updated: 0, skipped: 3 }, errors: BIG_ERRORS });
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(9997);
    expect(await prisma().guestTag.count({ where: { tenantId: a.tenant_id } })).toBe(2 * 9997);
    const first = await t.request('GET', '/api/v1/guests?per_page=3', { token: a.token });
    expect(first.json.data.map((g: Json) => g.name)).toEqual(['Guest 0', 'Guest 1', 'Guest 2']);
  });
});

// POST /api/v1/access-codes (spec 2.13, 4.9 and the decisions), the list and count beyond the spec, and
// GraphQL `accessCodes` / `generateAccessCodes`: every rule at its edge, the alphabet, uniqueness
// across requests, all-or-nothing creation, exact bodies, pinned roles and tenant isolation.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.js';
import { CODE_ALPHABET, generateAccessCodesWith } from '../src/modules/access-codes/access-codes.service.js';
import { execute } from '../src/operations/operation.js';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

const URL = '/api/v1/access-codes';
const CREATED = 'Access codes created successfully.';
const NOT_CREATED =
  '{"status":false,"message":"Access codes could not be created.","count":0,"access_codes":[]}';

const tenant = () => newTenant(t.db.prisma);
type Tenant = Awaited<ReturnType<typeof tenant>>;

const post = (token: string, body: unknown) => t.request('POST', URL, { token, body });

function created(res: TestResponse): Json {
  expect(res.status, res.text).toBe(201);
  return res.json;
}

function expect422(res: TestResponse, errors: Record<string, string[]>): void {
  expect(res.status, res.text).toBe(422);
  expect(res.json).toEqual(unprocessable(errors));
}

const codesIn = (tenantId: string) => t.db.prisma.accessCode.count({ where: { tenantId } });

function addGuest(tenantId: string, locationId: string, name = 'Jane Roe') {
  return t.db.prisma.guest.create({
    data: { tenantId, locationId, name, username: `g-${randomBytes(4).toString('hex')}` },
  });
}

const generated = (a: Tenant, extra: Record<string, unknown> = {}) => ({
  location_id: a.location_id,
  service_profile_id: a.service_profile_id,
  type: 2,
  ...extra,
});

const micros = (d: Date) => `${d.toISOString().slice(0, 23)}000Z`;
const NO_LOOK_ALIKES = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/;

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /access-codes', () => {
  it('creates one shared code and answers the exact 201 body', async () => {
    const a = await tenant();
    const guest = await addGuest(a.tenant_id, a.location_id, 'J\u00f6rg Gast');
    const res = await post(a.token, {
      location_id: a.location_id,
      service_profile_id: a.service_profile_id,
      guest_id: guest.id,
      type: 1,
      code: 'LOBBY/2026',
      start_date: '2026-12-01',
      expiry_date: '2026-12-31',
      description: 'Conference guests',
      quantity: 50,
      unknown_field: 'ignored',
    });
    expect(res.status).toBe(201);
    const row = await t.db.prisma.accessCode.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    const location = await t.db.prisma.location.findUniqueOrThrow({ where: { id: a.location_id } });
    expect(res.text).toBe(
      `{"status":true,"message":"${CREATED}","count":1,"access_codes":[{"id":"${row.id}",` +
        `"location_id":"${a.location_id}","location_name":"${location.name}","code":"LOBBY\\/2026","type":1,` +
        `"type_name":"Shared","description":"Conference guests","service_profile_id":"${a.service_profile_id}",` +
        `"service_profile_name":"Default","start_date":"2026-12-01T00:00:00.000000Z",` +
        `"expiry_date":"2026-12-31T00:00:00.000000Z","status":1,"status_name":"Available","use_count":0,` +
        `"used_at":null,"guest_id":"${guest.id}","guest_name":"J\\u00f6rg Gast","created_at":"${micros(row.createdAt)}",` +
        `"max_uses":null,"revoked_at":null}]}`,
    );
    // quantity is only for type 2.
    expect(await codesIn(a.tenant_id)).toBe(1);
  });

  it('generates one code by default: 8 characters without look-alikes, nulls where nothing was sent', async () => {
    const a = await tenant();
    const body = created(await post(a.token, generated(a)));
    expect(body.status).toBe(true);
    expect(body.message).toBe(CREATED);
    expect(body.count).toBe(1);
    const [code] = body.access_codes;
    expect(code.code).toMatch(NO_LOOK_ALIKES);
    expect(code).toMatchObject({
      type: 2,
      type_name: 'Access Code',
      description: null,
      start_date: null,
      expiry_date: null,
      status: 1,
      status_name: 'Available',
      use_count: 0,
      used_at: null,
      guest_id: null,
      guest_name: '',
    });
    expect(Object.keys(code)).toEqual([
      'id',
      'location_id',
      'location_name',
      'code',
      'type',
      'type_name',
      'description',
      'service_profile_id',
      'service_profile_name',
      'start_date',
      'expiry_date',
      'status',
      'status_name',
      'use_count',
      'used_at',
      'guest_id',
      'guest_name',
      'created_at',
      'max_uses',
      'revoked_at',
    ]);
  });

  it('generates exactly 1000 codes, distinct, from the alphabet, and lists every one', async () => {
    const a = await tenant();
    const body = created(await post(a.token, generated(a, { quantity: 1000, description: 'Batch' })));
    expect(body.count).toBe(1000);
    expect(body.access_codes).toHaveLength(1000);
    const codes: string[] = body.access_codes.map((c: Json) => c.code);
    expect(new Set(codes).size).toBe(1000);
    for (const c of codes) expect(c).toMatch(NO_LOOK_ALIKES);
    const stored = await t.db.prisma.accessCode.findMany({
      where: { tenantId: a.tenant_id },
      select: { id: true },
    });
    expect(new Set(stored.map((s) => s.id))).toEqual(new Set(body.access_codes.map((c: Json) => c.id)));
    // Over 8000 characters every letter of the alphabet shows up, and no other.
    const used = new Set(codes.join(''));
    expect([...used].sort().join('')).toBe([...CODE_ALPHABET].sort().join(''));
    for (const lookAlike of '0O1IL') expect(used.has(lookAlike)).toBe(false);
  });

  it('keeps codes unique across requests: 1000 twice gives 2000 distinct codes', async () => {
    const a = await tenant();
    const first = created(await post(a.token, generated(a, { quantity: 1000 })));
    const second = created(await post(a.token, generated(a, { quantity: '1000' })));
    const all = [...first.access_codes, ...second.access_codes].map((c: Json) => c.code);
    expect(new Set(all).size).toBe(2000);
    const stored = await t.db.prisma.accessCode.findMany({
      where: { tenantId: a.tenant_id },
      select: { code: true },
    });
    expect(new Set(stored.map((s) => s.code)).size).toBe(2000);
  });

  it('takes quantity 1 to 1000 and refuses 0, 1001 and non-integers, creating nothing', async () => {
    const a = await tenant();
    expect(created(await post(a.token, generated(a, { quantity: 1 }))).count).toBe(1);
    expect(created(await post(a.token, generated(a, { quantity: null }))).count).toBe(1);
    expect422(await post(a.token, generated(a, { quantity: 0 })), {
      quantity: ['The quantity field must be at least 1.'],
    });
    expect422(await post(a.token, generated(a, { quantity: 1001 })), {
      quantity: ['The quantity field must not be greater than 1000.'],
    });
    for (const q of [2.5, 'ten', [3]]) {
      expect422(await post(a.token, generated(a, { quantity: q })), {
        quantity: ['The quantity field must be an integer.'],
      });
    }
    // PHP reads false as "" (no integer, size 0), and true as "1": one code, as Laravel makes it.
    expect422(await post(a.token, generated(a, { quantity: false })), {
      quantity: ['The quantity field must be an integer.', 'The quantity field must be at least 1.'],
    });
    expect(await codesIn(a.tenant_id)).toBe(2);
    expect((await post(a.token, generated(a, { quantity: true }))).status).toBe(201);
    expect(await codesIn(a.tenant_id)).toBe(3);
  });

  it('requires location, service profile and type, and a code for type 1', async () => {
    const a = await tenant();
    const res = await post(a.token, {});
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      '{"message":"The location id field is required. (and 2 more errors)","errors":{' +
        '"location_id":["The location id field is required."],' +
        '"service_profile_id":["The service profile id field is required."],' +
        '"type":["The type field is required."]}}',
    );
    for (const code of [undefined, null, '', '   ']) {
      expect422(await post(a.token, generated(a, { type: 1, code })), {
        code: ['The code field is required when type is 1.'],
      });
    }
    expect422(await post(a.token, generated(a, { type: '1' })), {
      code: ['The code field is required when type is 1.'],
    });
    for (const type of [0, 3, '2a']) {
      const res2 = await post(a.token, generated(a, { type }));
      expect(res2.status).toBe(422);
      expect(res2.json.errors.type).toEqual([
        ...(type === '2a' ? ['The type field must be an integer.'] : []),
        'The selected type is invalid.',
      ]);
    }
    expect422(await post(a.token, generated(a, { type: 1, code: 'x'.repeat(65) })), {
      code: ['The code field must not be greater than 64 characters.'],
    });
    expect422(await post(a.token, generated(a, { description: 5 })), {
      description: ['The description field must be a string.'],
    });
    // Each code of a batch stores and answers it: bounded (a 1 MB one made a 10 MB answer).
    expect422(await post(a.token, generated(a, { quantity: 10, description: 'd'.repeat(256) })), {
      description: ['The description field must not be greater than 255 characters.'],
    });
    expect(await codesIn(a.tenant_id)).toBe(0);
    expect(created(await post(a.token, generated(a, { description: 'd'.repeat(255) }))).count).toBe(1);
  });

  it('takes an empty code for type 2 (nullable, ignored) and stores a shared code trimmed', async () => {
    const a = await tenant();
    for (const code of [null, '', '   ']) {
      expect(created(await post(a.token, generated(a, { type: 2, code }))).count).toBe(1);
    }
    const shared = created(await post(a.token, generated(a, { type: 1, code: '  SPACED  ' })));
    expect(shared.access_codes[0].code).toBe('SPACED');
  });

  it('refuses a shared code already taken in the tenant (also by a generated code), creating nothing', async () => {
    const a = await tenant();
    const b = await tenant();
    created(await post(a.token, generated(a, { type: 1, code: 'WELCOME' })));
    const gen = created(await post(a.token, generated(a))).access_codes[0].code;
    for (const code of ['WELCOME', gen]) {
      expect422(await post(a.token, generated(a, { type: 1, code })), {
        code: ['The code has already been taken.'],
      });
    }
    expect(await codesIn(a.tenant_id)).toBe(2);
    // Case matters, and another tenant may use the same text.
    expect(created(await post(a.token, generated(a, { type: 1, code: 'welcome' }))).count).toBe(1);
    expect(created(await post(b.token, generated(b, { type: 1, code: 'WELCOME' }))).count).toBe(1);
    // For type 2 a code field is ignored, even a taken one.
    expect(created(await post(a.token, generated(a, { code: 'WELCOME', quantity: 3 }))).count).toBe(3);
  });

  it('lets two racing requests for one shared code create it once', async () => {
    const a = await tenant();
    const body = generated(a, { type: 1, code: 'RACE' });
    const results = await Promise.all([post(a.token, body), post(a.token, body), post(a.token, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422]);
    for (const r of results.filter((x) => x.status === 422)) {
      expect(r.json).toEqual(unprocessable({ code: ['The code has already been taken.'] }));
    }
    expect(await codesIn(a.tenant_id)).toBe(1);
  });

  it('refuses another tenant’s location, service profile or guest, and a trashed location', async () => {
    const a = await tenant();
    const b = await tenant();
    const theirGuest = await addGuest(b.tenant_id, b.location_id);
    const trashed = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Closed venue', isTrashed: true },
    });
    expect422(
      await post(a.token, {
        location_id: b.location_id,
        service_profile_id: b.service_profile_id,
        guest_id: theirGuest.id,
        type: 2,
      }),
      {
        location_id: ['The selected location id is invalid.'],
        service_profile_id: ['The selected service profile id is invalid.'],
        guest_id: ['The selected guest id is invalid.'],
      },
    );
    expect422(await post(a.token, generated(a, { location_id: trashed.id })), {
      location_id: ['The selected location id is invalid.'],
    });
    expect422(await post(a.token, generated(a, { location_id: 'nope', guest_id: 'nope' })), {
      location_id: ['The selected location id is invalid.'],
      guest_id: ['The selected guest id is invalid.'],
    });
    expect422(await post(a.token, generated(a, { location_id: 12 })), {
      location_id: ['The location id field must be a string.'],
    });
    expect(await codesIn(a.tenant_id)).toBe(0);
    expect(await codesIn(b.tenant_id)).toBe(0);
  });

  it('checks dates: Y-m-d, expiry not before start', async () => {
    const a = await tenant();
    expect422(await post(a.token, generated(a, { start_date: '2026-12-02', expiry_date: '2026-12-01' })), {
      expiry_date: ['The expiry date field must be a date after or equal to start date.'],
    });
    expect422(await post(a.token, generated(a, { start_date: '01/12/2026', expiry_date: '2026-02-30' })), {
      start_date: ['The start date field must match the format Y-m-d.'],
      expiry_date: ['The expiry date field must match the format Y-m-d.'],
    });
    expect422(await post(a.token, generated(a, { expiry_date: '2026-12-01T10:00:00Z' })), {
      expiry_date: ['The expiry date field must match the format Y-m-d.'],
    });
    expect(await codesIn(a.tenant_id)).toBe(0);
    const same = created(
      await post(a.token, generated(a, { start_date: '2026-12-01', expiry_date: '2026-12-01' })),
    );
    expect(same.access_codes[0].start_date).toBe('2026-12-01T00:00:00.000000Z');
    expect(same.access_codes[0].expiry_date).toBe('2026-12-01T00:00:00.000000Z');
    const onlyExpiry = created(await post(a.token, generated(a, { expiry_date: '2027-01-31' })));
    expect(onlyExpiry.access_codes[0]).toMatchObject({
      start_date: null,
      expiry_date: '2027-01-31T00:00:00.000000Z',
    });
  });

  it('pins venue and front-desk users to their location (and its guests)', async () => {
    const a = await tenant();
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Other venue' } });
    const ownGuest = await addGuest(a.tenant_id, a.location_id);
    const otherGuest = await addGuest(a.tenant_id, other.id);
    for (const role of ['venue', 'front-desk'] as const) {
      const user = await addUser(t.db.prisma, a.tenant_id, role, { locationId: a.location_id });
      expect422(await post(user.token, generated(a, { location_id: other.id })), {
        location_id: ['The selected location id is invalid.'],
      });
      expect422(await post(user.token, generated(a, { guest_id: otherGuest.id })), {
        guest_id: ['The selected guest id is invalid.'],
      });
      const body = created(await post(user.token, generated(a, { guest_id: ownGuest.id })));
      expect(body.access_codes[0].location_id).toBe(a.location_id);
    }
    // A tenant user may use any location and guest of the tenant.
    expect(
      created(await post(a.token, generated(a, { location_id: other.id, guest_id: ownGuest.id }))).count,
    ).toBe(1);
    expect(await codesIn(a.tenant_id)).toBe(3);
  });

  it('answers 401 without a token and 400 for a malformed body', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, { body: {} });
    expect(res.status).toBe(401);
    const bad = await t.request('POST', URL, { token: a.token, rawBody: '{"type":' });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe('{"message":"Malformed JSON body."}');
  });
});

// -------------------------------------------------------------------------------------------------
// Nothing created: codes that keep colliding, or a database failure in the middle of the batch.
describe('all or nothing', () => {
  it('gives up with ACCESS_CODES_NOT_CREATED when every candidate code is taken', async () => {
    const a = await tenant();
    created(await post(a.token, generated(a, { type: 1, code: 'AAAAAAAA' })));
    const principal = await (await import('../src/auth/principal.js')).authenticate(t.db.prisma, a.token);
    const ctx = { prisma: t.db.prisma, config: t.config, principal, requestId: 'test' };
    let drawn = 0;
    const err = await execute(
      generateAccessCodesWith({
        // The first two are fresh, then only the taken code comes: the batch can never be completed.
        nextCode: () => (++drawn <= 2 ? `BBBBBBB${drawn + 1}` : 'AAAAAAAA'),
      }),
      ctx,
      generated(a, { quantity: 3 }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('ACCESS_CODES_NOT_CREATED');
    expect((err as AppError).status).toBe(500);
    expect(await codesIn(a.tenant_id)).toBe(1);
    // Collisions with existing codes are replaced, not refused.
    let n = 0;
    const rows = await execute(
      generateAccessCodesWith({ nextCode: () => (n++ < 2 ? 'AAAAAAAA' : `CCCCCCC${n}`) }),
      ctx,
      generated(a, { quantity: 3 }),
    );
    expect(rows.map((r) => r.code)).toEqual(['CCCCCCC3', 'CCCCCCC4', 'CCCCCCC5']);
  });

  it('creates none of a batch whose 600th insert fails, and answers spec 4.9’s 500 body', async () => {
    const a = await tenant();
    const marker = `fail-${randomBytes(6).toString('hex')}`;
    const fn = `test_fail_${randomBytes(6).toString('hex')}`;
    const trigger = `${fn}_trg`;
    // A real database failure in the middle of one statement, limited to this test's rows.
    await t.db.prisma.$executeRawUnsafe(`CREATE SEQUENCE ${fn}_seq`);
    await t.db.prisma.$executeRawUnsafe(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF nextval('${fn}_seq') >= 600 THEN RAISE EXCEPTION 'disk full (test)'; END IF;
         RETURN NEW;
       END $$`,
    );
    await t.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON "AccessCode" FOR EACH ROW
       WHEN (NEW.description = '${marker}') EXECUTE FUNCTION ${fn}()`,
    );
    try {
      const res = await post(a.token, generated(a, { quantity: 1000, description: marker }));
      expect(res.status).toBe(500);
      expect(res.text).toBe(NOT_CREATED);
      expect(await codesIn(a.tenant_id)).toBe(0);
      const gql = await t.graphql(
        a.token,
        'mutation($input: GenerateAccessCodesInput!) { generateAccessCodes(input: $input) { count } }',
        {
          input: {
            locationId: a.location_id,
            serviceProfileId: a.service_profile_id,
            type: 1,
            code: 'SHARED1',
            description: marker,
          },
        },
      );
      expect(gql.json.data).toBeNull();
      expect(gql.json.errors).toEqual([
        {
          message: 'Access codes could not be created.',
          locations: [{ line: 1, column: 47 }],
          path: ['generateAccessCodes'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ]);
      expect(await codesIn(a.tenant_id)).toBe(0);
    } finally {
      await t.db.prisma.$executeRawUnsafe(`DROP TRIGGER ${trigger} ON "AccessCode"`);
      await t.db.prisma.$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
      await t.db.prisma.$executeRawUnsafe(`DROP SEQUENCE ${fn}_seq`);
    }
    // Without the failure the same request goes through.
    expect(created(await post(a.token, generated(a, { quantity: 1000, description: marker }))).count).toBe(
      1000,
    );
  });
});

// Alone: it counts every statement sent while its own request runs.
describe.sequential('POST /access-codes statement count', () => {
  it('sends as many statements for 1000 codes as for 1', async () => {
    const a = await tenant();
    const run = async (quantity: number) => {
      const { result, sql } = await recordStatements(t.db, () => post(a.token, generated(a, { quantity })));
      expect(result.status).toBe(201);
      expect(result.json.count).toBe(quantity);
      return sql.length;
    };
    const one = await run(1);
    const many = await run(1000);
    expect(many).toBe(one);
    expect(one).toBeLessThanOrEqual(16);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /access-codes', () => {
  it('lists newest first with every filter, and counts', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Pool bar' } });
    const guest = await addGuest(a.tenant_id, a.location_id);
    const shared = created(await post(a.token, generated(a, { type: 1, code: 'POOL-party' })))
      .access_codes[0];
    const batch = created(
      await post(a.token, generated(a, { quantity: 3, location_id: other.id })),
    ).access_codes;
    const withGuest = created(await post(a.token, generated(a, { guest_id: guest.id }))).access_codes[0];
    created(await post(b.token, generated(b, { type: 1, code: 'POOL-party' })));

    const list = async (query: string) => {
      const res = await t.request('GET', `${URL}${query}`, { token: a.token });
      expect(res.status, res.text).toBe(200);
      return res.json.data.map((c: Json) => c.id);
    };
    const count = async (query: string) =>
      (await t.request('GET', `${URL}/count${query}`, { token: a.token })).json.count;

    const batchIds = batch.map((c: Json) => c.id).sort((x: string, y: string) => (x < y ? 1 : -1));
    const all = await list('?per_page=100');
    expect(all).toHaveLength(5);
    expect(all[0]).toBe(withGuest.id);
    expect(all[4]).toBe(shared.id);
    expect(await count('')).toBe(5);
    expect(new Set(await list(`?location_id=${other.id}`))).toEqual(new Set(batchIds));
    expect(await count(`?location_id=${other.id}`)).toBe(3);
    expect(await list(`?location_id=${b.location_id}`)).toEqual([]);
    expect(await list('?type=1')).toEqual([shared.id]);
    expect(await count('?type=2')).toBe(4);
    expect(await list('?code=pool')).toEqual([shared.id]);
    expect(await list(`?code=${batch[1].code.toLowerCase()}`)).toEqual([batch[1].id]);
    expect(await list(`?guest_id=${guest.id}`)).toEqual([withGuest.id]);
    expect(await count('?status=1')).toBe(5);
    expect(await count('?status=2')).toBe(0);
    const bad = await t.request('GET', `${URL}?type=5`, { token: a.token });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual(unprocessable({ type: ['The selected type is invalid.'] }));
    // The list item is the 2.13 shape the 201 answered.
    const first = await t.request('GET', `${URL}?per_page=1&type=1`, { token: a.token });
    expect(first.json.data[0]).toEqual(shared);
    expect(first.json.meta.per_page).toBe(1);
  });

  it('shows pinned users only their location', async () => {
    const a = await tenant();
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Spa' } });
    const mine = created(await post(a.token, generated(a))).access_codes[0];
    const theirs = created(await post(a.token, generated(a, { location_id: other.id }))).access_codes[0];
    for (const role of ['venue', 'front-desk'] as const) {
      const user = await addUser(t.db.prisma, a.tenant_id, role, { locationId: a.location_id });
      const res = await t.request('GET', URL, { token: user.token });
      expect(res.json.data.map((c: Json) => c.id)).toEqual([mine.id]);
      const filtered = await t.request('GET', `${URL}?location_id=${other.id}`, { token: user.token });
      expect(filtered.json.data).toEqual([]);
      expect((await t.request('GET', `${URL}/count`, { token: user.token })).json).toEqual({ count: 1 });
    }
    expect((await t.request('GET', `${URL}/count`, { token: a.token })).json).toEqual({ count: 2 });
    expect(theirs.location_id).toBe(other.id);
  });

  it('never shows another tenant’s codes', async () => {
    const a = await tenant();
    const b = await tenant();
    created(await post(b.token, generated(b, { quantity: 2 })));
    expect((await t.request('GET', URL, { token: a.token })).json.data).toEqual([]);
    expect((await t.request('GET', `${URL}/count`, { token: a.token })).text).toBe('{"count":0}');
    expect((await t.request('GET', URL)).status).toBe(401);
  });
});

// -------------------------------------------------------------------------------------------------
const GENERATE = `mutation($input: GenerateAccessCodesInput!) {
  generateAccessCodes(input: $input) {
    count
    accessCodes { id code type typeName status statusName locationId locationName serviceProfileName
      guestId guestName startDate expiryDate useCount usedAt location { id } serviceProfile { id } }
  }
}`;
const LIST = `query($locationId: String, $type: Int, $code: String, $guestId: String, $status: Int) {
  accessCodes(first: 100, locationId: $locationId, type: $type, code: $code, guestId: $guestId, status: $status) {
    totalCount edges { node { id code } }
  }
}`;

describe.concurrent('GraphQL access codes', () => {
  it('generates with the same rules and messages, returning { count, accessCodes }', async () => {
    const a = await tenant();
    const input = { locationId: a.location_id, serviceProfileId: a.service_profile_id, type: 2, quantity: 5 };
    const res = await t.graphql(a.token, GENERATE, { input: { ...input, startDate: '2026-01-01' } });
    expect(res.json.errors, res.text).toBeUndefined();
    const payload = res.json.data.generateAccessCodes;
    expect(payload.count).toBe(5);
    expect(payload.accessCodes).toHaveLength(5);
    for (const c of payload.accessCodes) {
      expect(c.code).toMatch(NO_LOOK_ALIKES);
      expect(c).toMatchObject({
        type: 2,
        typeName: 'Access Code',
        status: 1,
        statusName: 'Available',
        locationId: a.location_id,
        serviceProfileName: 'Default',
        guestId: null,
        guestName: '',
        startDate: '2026-01-01T00:00:00.000000Z',
        expiryDate: null,
        useCount: 0,
        usedAt: null,
        location: { id: a.location_id },
        serviceProfile: { id: a.service_profile_id },
      });
    }
    const bad = await t.graphql(a.token, GENERATE, {
      input: { ...input, type: 1, quantity: 1001, startDate: '2026-02-02', expiryDate: '2026-02-01' },
    });
    expect(bad.json.errors).toHaveLength(1);
    expect(bad.json.errors[0].message).toBe('The code field is required when type is 1. (and 2 more errors)');
    expect(bad.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: {
        code: ['The code field is required when type is 1.'],
        quantity: ['The quantity field must not be greater than 1000.'],
        expiryDate: ['The expiry date field must be a date after or equal to start date.'],
      },
    });
    const b = await tenant();
    const foreign = await t.graphql(b.token, GENERATE, { input });
    expect(foreign.json.errors[0].extensions.fields).toEqual({
      locationId: ['The selected location id is invalid.'],
      serviceProfileId: ['The selected service profile id is invalid.'],
    });
    expect(await codesIn(a.tenant_id)).toBe(5);
    expect(await codesIn(b.tenant_id)).toBe(0);
  });

  it('lists with the REST filters and totalCount, newest first, within the tenant', async () => {
    const a = await tenant();
    const b = await tenant();
    const shared = created(await post(a.token, generated(a, { type: 1, code: 'GQL-SHARED' })))
      .access_codes[0];
    created(await post(a.token, generated(a, { quantity: 2 })));
    created(await post(b.token, generated(b, { type: 1, code: 'GQL-SHARED' })));
    const all = await t.graphql(a.token, LIST, {});
    expect(all.json.errors, all.text).toBeUndefined();
    const rest = (await t.request('GET', URL, { token: a.token })).json.data.map((c: Json) => c.id);
    expect(all.json.data.accessCodes.totalCount).toBe(3);
    expect(all.json.data.accessCodes.edges.map((e: Json) => e.node.id)).toEqual(rest);
    const one = await t.graphql(a.token, LIST, { type: 1, code: 'gql' });
    expect(one.json.data.accessCodes).toEqual({
      totalCount: 1,
      edges: [{ node: { id: shared.id, code: 'GQL-SHARED' } }],
    });
    const foreign = await t.graphql(a.token, LIST, { locationId: b.location_id });
    expect(foreign.json.data.accessCodes).toEqual({ totalCount: 0, edges: [] });
  });
});

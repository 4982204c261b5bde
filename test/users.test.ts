// Dashboard users (spec 2.11, 3, 4.7 and the decisions): REST and GraphQL, exact bodies, every
// validation rule at its edge, the 401s that status changes cause, and tenant/location isolation.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/auth/passwords.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addUser, newTenant, uniqueName } from './helpers/fixtures.js';
import { unprocessable as unprocessableBody } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

/** `xs[i]`, which must exist. */
function nth<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new Error(`no element ${i}`);
  return x;
}

const URL = '/api/v1/users';
const LINK = String.raw`http:\/\/localhost\/api\/v1\/users`;
const PASSWORD = 'Secr3t!pass';

const tenant = () => newTenant(t.db.prisma);
const userRow = (id: string) => t.db.prisma.user.findUniqueOrThrow({ where: { id } });
const tenantName = async (id: string) => (await t.db.prisma.tenant.findUniqueOrThrow({ where: { id } })).name;
const locationName = async (id: string) =>
  (await t.db.prisma.location.findUniqueOrThrow({ where: { id } })).name;
const ids = (res: TestResponse) => res.json.data.map((x: { id: string }) => x.id);

/** The exact 422 body text. */
const unprocessable = (errors: Record<string, string[]>) => JSON.stringify(unprocessableBody(errors));

const email = () => `${uniqueName('u').replace(' ', '-')}@example.test`;

/** A valid create body. */
const body = (over: Record<string, unknown> = {}) => ({
  name: 'Jane Operator',
  email: email(),
  role: 'tenant',
  password: PASSWORD,
  password_confirmation: PASSWORD,
  status: 1,
  ...over,
});

/** The user shape (spec 2.11), keys in order, from a database row. */
async function shape(id: string, withToken: boolean): Promise<string> {
  const u = await userRow(id);
  const types: Record<string, [number, string]> = {
    tenant: [1, 'Tenant Admin'],
    venue: [2, 'Venue Admin'],
    'front-desk': [3, 'Front Desk'],
    support: [4, 'Support'],
  };
  const [type, typeName] = types[u.role] ?? [0, ''];
  return JSON.stringify({
    id: u.id,
    user_id: u.userId,
    name: u.name,
    username: u.username,
    user_type: type,
    user_type_name: typeName,
    email: u.email,
    role: u.role,
    role_name: typeName,
    current_tenant_name: await tenantName(u.tenantId),
    current_tenant_id: u.tenantId,
    location_id: u.locationId,
    location_name: u.locationId ? await locationName(u.locationId) : null,
    status: u.status,
    is_trashed: u.isTrashed,
    locale: u.locale,
    ...(withToken ? { api_token: null } : {}),
  }).replaceAll('/', '\\/');
}

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /users and /users/count', () => {
  it('shows the bootstrap API user with its email as its username, as every user has it', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('GET', '/api/v1/users', { token: a.token });
    expect(res.status, res.text).toBe(200);
    const [api] = res.json.data;
    expect(res.json.data).toHaveLength(1);
    expect(api.username).toBe(api.email);
    expect(api.email).toMatch(/^api-[0-9a-f]{8}@t[a-z0-9]+\.invalid$/);
  });

  it('lists the users whose current tenant is the caller’s, oldest first, in the exact envelope', async () => {
    const a = await tenant();
    const b = await tenant();
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id, status: 2 });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[${await shape(a.user_id, false)},${await shape(venue.userId, false)}],` +
        `"links":{"first":"${LINK}?page=1","last":null,"prev":null,"next":null},` +
        `"meta":{"current_page":1,"from":1,"to":2,"path":"${LINK}","per_page":10}}`,
    );
    expect(res.text).not.toContain('api_token');
    expect(res.text).not.toContain(b.user_id);
    expect((await t.request('GET', `${URL}/count`, { token: a.token })).text).toBe('{"count":2}');
  });

  it('filters name and email by literal case-insensitive substring; another tenant’s users never match', async () => {
    const a = await tenant();
    const b = await tenant();
    const mk = (tenantId: string, name: string, mail: string) =>
      t.db.prisma.user.create({ data: { tenantId, name, username: mail, email: mail, role: 'tenant' } });
    // Hex suffixes: no `_` or `%` in them, so only the literal ones below match.
    const hex = () => randomBytes(5).toString('hex');
    const ann = await mk(a.tenant_id, 'Ann 100% Smith', `ann.${hex()}@hotel.test`);
    const bob = await mk(a.tenant_id, 'Bob Jones', `bob_${hex()}@mall.test`);
    await mk(b.tenant_id, 'Ann Other', `ann.${hex()}@hotel.test`);
    const q = async (query: string) => ids(await t.request('GET', `${URL}?${query}`, { token: a.token }));
    expect(await q('name=ANN')).toEqual([ann.id]);
    expect(await q('name=100%25')).toEqual([ann.id]);
    expect(await q('email=HOTEL.TEST')).toEqual([ann.id]);
    expect(await q('email=b_')).toEqual([bob.id]);
    expect(await q('email=_')).toEqual([bob.id]);
    expect(await q('name=ann&email=mall')).toEqual([]);
    expect((await t.request('GET', `${URL}/count?email=hotel`, { token: a.token })).text).toBe('{"count":1}');
  });

  it('a venue admin sees only the users pinned to its location', async () => {
    const a = await tenant();
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Other venue' } });
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const desk = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: other.id });
    await addUser(t.db.prisma, a.tenant_id, 'support');
    const res = await t.request('GET', `${URL}?per_page=100`, { token: venue.token });
    expect(ids(res)).toEqual([venue.userId, desk.userId]);
    expect((await t.request('GET', `${URL}/count`, { token: venue.token })).text).toBe('{"count":2}');
  });

  it('pages with per_page', async () => {
    const a = await tenant();
    const more = [];
    for (let i = 0; i < 2; i++) more.push(await addUser(t.db.prisma, a.tenant_id, 'tenant'));
    const res = await t.request('GET', `${URL}?per_page=2&page=2`, { token: a.token });
    expect(ids(res)).toEqual([nth(more, 1).userId]);
    expect(res.json.meta).toMatchObject({ current_page: 2, from: 3, to: 3, per_page: 2 });
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /users', () => {
  it('creates a tenant admin: 200 with the user and api_token null; the password is hashed with scrypt', async () => {
    const a = await tenant();
    const mail = email();
    const res = await t.request('POST', URL, {
      token: a.token,
      body: body({ email: mail, location_id: a.location_id }),
    });
    expect(res.status).toBe(200);
    const id = res.json.data.id as string;
    expect(res.text).toBe(`{"data":${await shape(id, true)}}`);
    expect(res.json.data).toMatchObject({
      name: 'Jane Operator',
      username: mail,
      email: mail,
      role: 'tenant',
      role_name: 'Tenant Admin',
      user_type: 1,
      user_type_name: 'Tenant Admin',
      current_tenant_id: a.tenant_id,
      // A tenant admin is never pinned.
      location_id: null,
      location_name: null,
      status: 1,
      is_trashed: false,
      locale: 'en',
      api_token: null,
    });
    const row = await userRow(id);
    expect(row.passwordHash).toMatch(/^scrypt\$N=16384,r=8,p=1\$[\w-]{22}\$[\w-]{86}$/);
    expect(await verifyPassword(PASSWORD, row.passwordHash ?? '')).toBe(true);
    expect(await verifyPassword('Secr3t!pasS', row.passwordHash ?? '')).toBe(false);
    expect(res.text).not.toContain(row.passwordHash ?? 'never');
    // Two users with one password get different hashes (per-password salt).
    const twin = await t.request('POST', URL, { token: a.token, body: body() });
    expect((await userRow(twin.json.data.id)).passwordHash).not.toBe(row.passwordHash);
  });

  it('creates venue and front-desk users pinned to a location of the tenant, with the given status', async () => {
    const a = await tenant();
    for (const [role, name, type] of [
      ['venue', 'Venue Admin', 2],
      ['front-desk', 'Front Desk', 3],
    ] as const) {
      const res = await t.request('POST', URL, {
        token: a.token,
        body: body({ role, location_id: a.location_id, status: 0 }),
      });
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({
        role,
        role_name: name,
        user_type: type,
        user_type_name: name,
        location_id: a.location_id,
        location_name: await locationName(a.location_id),
        status: 0,
      });
    }
  });

  it('validates every field at its edge (create)', async () => {
    const a = await tenant();
    const taken = await userRow((await addUser(t.db.prisma, a.tenant_id, 'tenant')).userId);
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [
        {},
        {
          name: ['The name field is required.'],
          email: ['The email field is required.'],
          role: ['The role field is required.'],
          password: ['The password field is required.'],
          status: ['The status field is required.'],
        },
      ],
      [{ name: 'Abcd' }, { name: ['The name field must be at least 5 characters.'] }],
      [{ email: 'not-an-email' }, { email: ['The email field must be a valid email address.'] }],
      [{ email: taken.email }, { email: ['The email has already been taken.'] }],
      [{ email: taken.email.toUpperCase() }, { email: ['The email has already been taken.'] }],
      [{ role: 'support' }, { role: ['The selected role is invalid.'] }],
      [{ role: 'admin' }, { role: ['The selected role is invalid.'] }],
      [{ status: 3 }, { status: ['The selected status is invalid.'] }],
      [
        { status: 'x' },
        { status: ['The status field must be an integer.', 'The selected status is invalid.'] },
      ],
      [{ role: 'venue' }, { location_id: ['The location id field is required when role is venue.'] }],
      [
        { role: 'front-desk', location_id: null },
        { location_id: ['The location id field is required when role is front-desk.'] },
      ],
      [
        { role: 'venue', location_id: 'missing-id' },
        { location_id: ['The selected location id is invalid.'] },
      ],
      // Password: length 7 and 31 (only the length message, as Laravel's Password rule), and each class.
      [
        { password: 'Ab1!xyz', password_confirmation: 'Ab1!xyz' },
        { password: ['The password field must be at least 8 characters.'] },
      ],
      [
        { password: `Ab1!${'x'.repeat(27)}`, password_confirmation: `Ab1!${'x'.repeat(27)}` },
        { password: ['The password field must not be greater than 30 characters.'] },
      ],
      [
        { password: 'abc1!xyz', password_confirmation: 'abc1!xyz' },
        { password: ['The password field must contain at least one uppercase and one lowercase letter.'] },
      ],
      [
        { password: 'ABC1!XYZ', password_confirmation: 'ABC1!XYZ' },
        { password: ['The password field must contain at least one uppercase and one lowercase letter.'] },
      ],
      [
        { password: 'Abc1dxyz', password_confirmation: 'Abc1dxyz' },
        { password: ['The password field must contain at least one symbol.'] },
      ],
      [
        { password: 'Abc!dxyz', password_confirmation: 'Abc!dxyz' },
        { password: ['The password field must contain at least one number.'] },
      ],
      [
        { password: 'abcdefgh', password_confirmation: 'abcdefgh' },
        {
          password: [
            'The password field must contain at least one uppercase and one lowercase letter.',
            'The password field must contain at least one symbol.',
            'The password field must contain at least one number.',
          ],
        },
      ],
      [
        { password_confirmation: 'Other1!pass' },
        { password: ['The password field confirmation does not match.'] },
      ],
      [
        { password_confirmation: undefined },
        { password: ['The password field confirmation does not match.'] },
      ],
    ];
    for (const [over, errors] of cases) {
      const input = over && Object.keys(over).length === 0 ? {} : body(over);
      const res = await t.request('POST', URL, { token: a.token, body: input });
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect(res.text, JSON.stringify(over)).toBe(unprocessable(errors));
    }
    expect(await t.db.prisma.user.count({ where: { tenantId: a.tenant_id } })).toBe(2);
    // The edges that pass: 8 and 30 characters, 5-character name.
    for (const pw of ['Ab1!xyzw', `Ab1!${'x'.repeat(26)}`]) {
      const ok = await t.request('POST', URL, {
        token: a.token,
        body: body({ name: 'Abcde', password: pw, password_confirmation: pw }),
      });
      expect(ok.status, pw).toBe(200);
    }
  });

  it('emails are unique across tenants, compared case-insensitively and literally (`_`, `%`)', async () => {
    const a = await tenant();
    const b = await tenant();
    const hex = randomBytes(5).toString('hex');
    const first = await t.request('POST', URL, {
      token: b.token,
      body: body({ email: `first_100%${hex}@example.test` }),
    });
    expect(first.status).toBe(200);
    const taken = unprocessable({ email: ['The email has already been taken.'] });
    for (const mail of [`first_100%${hex}@example.test`, `FIRST_100%${hex}@EXAMPLE.TEST`]) {
      const res = await t.request('POST', URL, { token: a.token, body: body({ email: mail }) });
      expect(res.text, mail).toBe(taken);
    }
    // `_` and `%` are not wildcards: these are other addresses.
    for (const mail of [`firstx100%${hex}@example.test`, `first_100x${hex}@example.test`]) {
      const res = await t.request('POST', URL, { token: a.token, body: body({ email: mail }) });
      expect(res.status, mail).toBe(200);
    }
  });

  it('another tenant’s location id is 422 `The selected location id is invalid.`', async () => {
    const a = await tenant();
    const b = await tenant();
    const res = await t.request('POST', URL, {
      token: a.token,
      body: body({ role: 'venue', location_id: b.location_id }),
    });
    expect(res.status).toBe(422);
    expect(res.text).toBe(unprocessable({ location_id: ['The selected location id is invalid.'] }));
  });

  it('a venue admin creates only venue/front-desk users of its own location', async () => {
    const a = await tenant();
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Elsewhere' } });
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const asTenant = await t.request('POST', URL, { token: venue.token, body: body({ role: 'tenant' }) });
    expect(asTenant.text).toBe(unprocessable({ role: ['The selected role is invalid.'] }));
    const elsewhere = await t.request('POST', URL, {
      token: venue.token,
      body: body({ role: 'front-desk', location_id: other.id }),
    });
    expect(elsewhere.text).toBe(unprocessable({ location_id: ['The selected location id is invalid.'] }));
    const ok = await t.request('POST', URL, {
      token: venue.token,
      body: body({ role: 'front-desk', location_id: a.location_id }),
    });
    expect(ok.status).toBe(200);
    expect(ok.json.data.location_id).toBe(a.location_id);
  });

  it('the new user’s token works only while it is Active (status as created)', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, { token: a.token, body: body({ status: 2 }) });
    const { token } = await import('../src/modules/tenants/bootstrap.service.js').then((m) =>
      m.issueToken(t.db.prisma, res.json.data.id),
    );
    expect((await t.request('GET', URL, { token })).status).toBe(401);
    await t.request('PUT', `${URL}/${res.json.data.id}/activate`, { token: a.token });
    expect((await t.request('GET', URL, { token })).status).toBe(200);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /users/:id', () => {
  it('updates name, email (username follows), role, status and location; password optional', async () => {
    const a = await tenant();
    const u = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const before = await userRow(u.userId);
    const mail = email();
    const res = await t.request('PUT', `${URL}/${u.userId}`, {
      token: a.token,
      body: { name: 'Renamed user', email: mail, role: 'venue', status: 2, location_id: a.location_id },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(`{"data":${await shape(u.userId, true)}}`);
    expect(res.json.data).toMatchObject({
      name: 'Renamed user',
      email: mail,
      username: mail,
      role: 'venue',
      status: 2,
    });
    expect((await userRow(u.userId)).passwordHash).toBe(before.passwordHash);
    // Keeping one's own email is not "taken"; a tenant admin loses the pinned location.
    const again = await t.request('PUT', `${URL}/${u.userId}`, {
      token: a.token,
      body: {
        name: 'Renamed user',
        email: mail.toUpperCase(),
        role: 'tenant',
        status: 1,
        location_id: a.location_id,
      },
    });
    expect(again.status).toBe(200);
    expect(again.json.data).toMatchObject({ role: 'tenant', location_id: null, location_name: null });
    // A new password is checked and stored.
    const pw = await t.request('PUT', `${URL}/${u.userId}`, {
      token: a.token,
      body: { name: 'Renamed user', email: mail, role: 'tenant', status: 1, password: 'Short1!' },
    });
    expect(pw.text).toBe(
      unprocessable({
        password: [
          'The password field confirmation does not match.',
          'The password field must be at least 8 characters.',
        ],
      }),
    );
    const ok = await t.request('PUT', `${URL}/${u.userId}`, {
      token: a.token,
      body: {
        name: 'Renamed user',
        email: mail,
        role: 'tenant',
        status: 1,
        password: PASSWORD,
        password_confirmation: PASSWORD,
      },
    });
    expect(ok.status).toBe(200);
    expect(await verifyPassword(PASSWORD, (await userRow(u.userId)).passwordHash ?? '')).toBe(true);
    // An empty password field (null, '' or blank: passwords are not trimmed) keeps the password.
    const stored = (await userRow(u.userId)).passwordHash;
    for (const password of [null, '', '   ']) {
      const keep = await t.request('PUT', `${URL}/${u.userId}`, {
        token: a.token,
        body: {
          name: 'Renamed user',
          email: mail,
          role: 'tenant',
          status: 1,
          password,
          password_confirmation: password,
        },
      });
      expect(keep.status, JSON.stringify(password)).toBe(200);
    }
    expect((await userRow(u.userId)).passwordHash).toBe(stored);
    // Spaces around a password are part of it (TrimStrings leaves passwords alone).
    const spaced = ` ${PASSWORD} `;
    const withSpaces = await t.request('PUT', `${URL}/${u.userId}`, {
      token: a.token,
      body: {
        name: ' Renamed user ',
        email: mail,
        role: 'tenant',
        status: 1,
        password: spaced,
        password_confirmation: spaced,
      },
    });
    expect(withSpaces.status).toBe(200);
    expect(withSpaces.json.data.name).toBe('Renamed user');
    const hash = (await userRow(u.userId)).passwordHash ?? '';
    expect(await verifyPassword(spaced, hash)).toBe(true);
    expect(await verifyPassword(PASSWORD, hash)).toBe(false);
  });

  it('requires name, email, role and status; another user’s email is taken', async () => {
    const a = await tenant();
    const u = await addUser(t.db.prisma, a.tenant_id, 'tenant');
    const res = await t.request('PUT', `${URL}/${u.userId}`, { token: a.token, body: {} });
    expect(res.text).toBe(
      unprocessable({
        name: ['The name field is required.'],
        email: ['The email field is required.'],
        role: ['The role field is required.'],
        status: ['The status field is required.'],
      }),
    );
    const taken = (await userRow((await addUser(t.db.prisma, a.tenant_id, 'venue')).userId)).email;
    const dup = await t.request('PUT', `${URL}/${u.userId}`, {
      token: a.token,
      body: { name: 'Valid name', email: taken, role: 'venue', status: 1 },
    });
    expect(dup.text).toBe(
      unprocessable({
        email: ['The email has already been taken.'],
        location_id: ['The location id field is required when role is venue.'],
      }),
    );
  });

  it('another tenant’s user or an unknown id is 404; a support user is 403; a venue admin cannot reach a tenant admin', async () => {
    const a = await tenant();
    const b = await tenant();
    const valid = { name: 'Taken over', email: email(), role: 'tenant', status: 1 };
    for (const id of [b.user_id, 'missing-id']) {
      const res = await t.request('PUT', `${URL}/${id}`, { token: a.token, body: valid });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
    const support = await addUser(t.db.prisma, a.tenant_id, 'support');
    const sup = await t.request('PUT', `${URL}/${support.userId}`, { token: a.token, body: valid });
    expect(sup.status).toBe(403);
    expect(sup.text).toBe('{"message":"This action is unauthorized."}');
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const res = await t.request('PUT', `${URL}/${a.user_id}`, { token: venue.token, body: valid });
    expect(res.status).toBe(404);
    expect((await userRow(a.user_id)).name).not.toBe('Taken over');
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /users/:id/deactivate and /activate', () => {
  it('204 with an empty body; status 0 then 1; the user’s token answers 401 while Passive', async () => {
    const a = await tenant();
    const u = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    expect((await t.request('GET', URL, { token: u.token })).status).toBe(200);
    const off = await t.request('PUT', `${URL}/${u.userId}/deactivate`, { token: a.token });
    expect(off.status).toBe(204);
    expect(off.text).toBe('');
    expect((await userRow(u.userId)).status).toBe(0);
    const refused = await t.request('GET', URL, { token: u.token });
    expect(refused.status).toBe(401);
    expect(refused.text).toBe('{"message":"Unauthenticated."}');
    expect((await t.graphql(u.token, '{ viewer { id } }')).status).toBe(401);
    const on = await t.request('PUT', `${URL}/${u.userId}/activate`, { token: a.token });
    expect(on.status).toBe(204);
    expect(on.text).toBe('');
    expect((await userRow(u.userId)).status).toBe(1);
    expect((await t.request('GET', URL, { token: u.token })).status).toBe(200);
  });

  it('a Banned user (status 2 by update) is refused too, and activate brings it back', async () => {
    const a = await tenant();
    const u = await addUser(t.db.prisma, a.tenant_id, 'tenant');
    const row = await userRow(u.userId);
    await t.request('PUT', `${URL}/${u.userId}`, {
      token: a.token,
      body: { name: row.name, email: row.email, role: 'tenant', status: 2 },
    });
    expect((await t.request('GET', URL, { token: u.token })).status).toBe(401);
    await t.request('PUT', `${URL}/${u.userId}/activate`, { token: a.token });
    expect((await t.request('GET', URL, { token: u.token })).status).toBe(200);
  });

  it('another tenant’s user is 404 and keeps its status; support users are 403', async () => {
    const a = await tenant();
    const b = await tenant();
    for (const action of ['deactivate', 'activate']) {
      const res = await t.request('PUT', `${URL}/${b.user_id}/${action}`, { token: a.token });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
    expect((await userRow(b.user_id)).status).toBe(1);
    const support = await addUser(t.db.prisma, a.tenant_id, 'support');
    expect((await t.request('PUT', `${URL}/${support.userId}/deactivate`, { token: a.token })).status).toBe(
      403,
    );
    expect((await userRow(support.userId)).status).toBe(1);
  });

  it('deactivations and an activation at once take turns: the log’s last word is the final status', async () => {
    const a = await tenant();
    for (let round = 0; round < 4; round++) {
      const u = await addUser(t.db.prisma, a.tenant_id, 'tenant');
      const answers = await Promise.all(
        ['deactivate', 'activate', 'deactivate'].map((action) =>
          t.request('PUT', `${URL}/${u.userId}/${action}`, { token: a.token }),
        ),
      );
      for (const r of answers) expect(r.status, r.text).toBe(204);
      const row = await userRow(u.userId);
      const events = await t.db.prisma.event.findMany({
        where: { tenantId: a.tenant_id, resourceId: u.userId },
        orderBy: { id: 'asc' },
      });
      // Each event a change from the status before it: alternating, ending where the row is.
      const statuses = events.map((e) => (e.payload as { status: number }).status);
      expect(statuses.at(-1)).toBe(row.status);
      for (let i = 1; i < statuses.length; i++) expect(statuses[i]).not.toBe(statuses[i - 1]);
    }
  });

  it('a venue admin deactivates its location’s front desk, not another location’s', async () => {
    const a = await tenant();
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Far venue' } });
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const mine = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const far = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: other.id });
    expect((await t.request('PUT', `${URL}/${mine.userId}/deactivate`, { token: venue.token })).status).toBe(
      204,
    );
    expect((await t.request('PUT', `${URL}/${far.userId}/deactivate`, { token: venue.token })).status).toBe(
      404,
    );
    expect((await userRow(far.userId)).status).toBe(1);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL users and viewer', () => {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
  const data = (res: TestResponse): any => {
    expect(res.json?.errors, res.text).toBeUndefined();
    return res.json.data;
  };
  const onlyError = (res: TestResponse) => {
    expect(res.json?.errors, res.text).toHaveLength(1);
    return res.json.errors[0];
  };

  it('viewer: the caller, its tenant, role and allowed actions', async () => {
    const a = await tenant();
    const desk = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const q =
      '{ viewer { id userId role roleName userType userTypeName currentTenant { id name } location { id } allowedActions } }';
    const v = data(await t.graphql(desk.token, q)).viewer;
    const row = await userRow(desk.userId);
    expect(v).toMatchObject({
      id: desk.userId,
      userId: row.userId,
      role: 'front-desk',
      roleName: 'Front Desk',
      userType: 3,
      userTypeName: 'Front Desk',
      currentTenant: { id: a.tenant_id, name: await tenantName(a.tenant_id) },
      location: { id: a.location_id },
    });
    expect(v.allowedActions).toContain('locations.list');
    expect(v.allowedActions).not.toContain('users.list');
    expect(v.allowedActions).not.toContain('tenants.list');
    const admin = data(await t.graphql(a.token, '{ viewer { location { id } allowedActions } }')).viewer;
    expect(admin.location).toBeNull();
    expect(admin.allowedActions).toContain('tenants.switch');
    // A `read` token's viewer lists what the token may do: the reads (probe O: every write too).
    const read = (await issueToken(t.db.prisma, a.user_id, ['read'])).token;
    const reader = data(await t.graphql(read, '{ viewer { allowedActions } }')).viewer.allowedActions;
    expect(reader).toContain('locations.list');
    expect(reader).not.toContain('locations.create');
    expect(reader).not.toContain('tenants.switch');
    expect(admin.allowedActions).toEqual(expect.arrayContaining(reader));
    // The password hash is not in the graph.
    const field = onlyError(await t.graphql(a.token, '{ viewer { passwordHash } }'));
    expect(field.message).toMatch(/Cannot query field "passwordHash"/);
  });

  it('users connection with filters and totalCount; never another tenant’s users', async () => {
    const a = await tenant();
    const b = await tenant();
    const u = await addUser(t.db.prisma, a.tenant_id, 'tenant');
    const q = `query($name: String, $email: String) { users(first: 10, name: $name, email: $email) {
      totalCount edges { node { id currentTenantId } } } }`;
    const all = data(await t.graphql(a.token, q)).users;
    expect(all.totalCount).toBe(2);
    expect(all.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([a.user_id, u.userId]);
    const byEmail = data(
      await t.graphql(a.token, q, { email: (await userRow(u.userId)).email.toUpperCase() }),
    ).users;
    expect(byEmail.totalCount).toBe(1);
    const other = data(await t.graphql(a.token, q, { email: (await userRow(b.user_id)).email })).users;
    expect(other).toEqual({ totalCount: 0, edges: [] });
  });

  it('createUser and updateUser with the REST rules, messages keyed by GraphQL field', async () => {
    const a = await tenant();
    const bad = onlyError(
      await t.graphql(
        a.token,
        `mutation { createUser(input: { name: "Abcd", email: "x@example.test", role: "venue", password: "abcdefgh",
          passwordConfirmation: "abcdefgh", status: 1 }) { id } }`,
      ),
    );
    expect(bad.extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.extensions.fields).toEqual({
      name: ['The name field must be at least 5 characters.'],
      password: [
        'The password field must contain at least one uppercase and one lowercase letter.',
        'The password field must contain at least one symbol.',
        'The password field must contain at least one number.',
      ],
      locationId: ['The location id field is required when role is venue.'],
    });
    const mail = email();
    const created = data(
      await t.graphql(
        a.token,
        `mutation($email: String, $loc: String) { createUser(input: { name: "Graph user", email: $email, role: "venue",
          password: "${PASSWORD}", passwordConfirmation: "${PASSWORD}", status: 1, locationId: $loc }) {
          id email role location { id } currentTenant { id } } }`,
        { email: mail, loc: a.location_id },
      ),
    ).createUser;
    expect(created).toMatchObject({
      email: mail,
      role: 'venue',
      location: { id: a.location_id },
      currentTenant: { id: a.tenant_id },
    });
    const updated = data(
      await t.graphql(
        a.token,
        `mutation($id: ID!, $email: String) { updateUser(id: $id, input: { name: "Graph user 2", email: $email, role: "tenant", status: 0 }) { name status location { id } } }`,
        { id: created.id, email: mail },
      ),
    ).updateUser;
    expect(updated).toEqual({ name: 'Graph user 2', status: 0, location: null });
    const on = data(await t.graphql(a.token, `mutation { activateUser(id: "${created.id}") { status } }`));
    expect(on.activateUser.status).toBe(1);
    const off = data(await t.graphql(a.token, `mutation { deactivateUser(id: "${created.id}") { status } }`));
    expect(off.deactivateUser.status).toBe(0);
  });

  it('another tenant’s user is NOT_FOUND on every mutation', async () => {
    const a = await tenant();
    const b = await tenant();
    for (const m of [
      `updateUser(id: "${b.user_id}", input: { name: "Taken over", email: "t@example.test", role: "tenant", status: 1 }) { id }`,
      `deactivateUser(id: "${b.user_id}") { id }`,
      `activateUser(id: "${b.user_id}") { id }`,
    ]) {
      expect(onlyError(await t.graphql(a.token, `mutation { ${m} }`)).extensions.code).toBe('NOT_FOUND');
    }
    expect((await userRow(b.user_id)).status).toBe(1);
  });
});

// Tenants (spec 2.10, 3, 4.6 and the decisions "Tenancy and roles", "Resource details"): REST and
// GraphQL, exact bodies, every transition, group isolation and the 401s the transitions cause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant } from '../src/modules/tenants/bootstrap.service.js';
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

const URL = '/api/v1/tenants';
const LINK = String.raw`http:\/\/localhost\/api\/v1\/tenants`;

/** Two (or more) tenants in one fresh group. */
async function group(n = 2) {
  const name = uniqueName('Group');
  const tenants = [];
  for (let i = 0; i < n; i++) tenants.push(await newTenant(t.db.prisma, { group: name }));
  return { name, tenants };
}

const tenantRow = (id: string) => t.db.prisma.tenant.findUniqueOrThrow({ where: { id } });
const userRow = (id: string) => t.db.prisma.user.findUniqueOrThrow({ where: { id } });

/** A list item (spec 2.10) of a tenant holding only a name, keys in order. */
const listItem = (id: string, name: string, groupId: string, groupName: string, trashed = false) =>
  `{"id":"${id}","name":"${name}","address":null,"city":null,"country_code":null,"country_name":null,` +
  `"description":null,"is_trashed":${trashed},"group_id":"${groupId}","group_name":"${groupName}"}`;

/** The exact 422 body text. */
const unprocessable = (errors: Record<string, string[]>) => JSON.stringify(unprocessableBody(errors));

const ids = (res: TestResponse) => res.json.data.map((x: { id: string }) => x.id);

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /tenants and /tenants/count', () => {
  it('lists the tenants of the caller’s group, oldest first, in the exact envelope', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const [ta, tb] = [await tenantRow(a.tenant_id), await tenantRow(b.tenant_id)];
    const res = await t.request('GET', URL, { token: b.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[${listItem(ta.id, ta.name, a.group_id, g.name)},${listItem(tb.id, tb.name, a.group_id, g.name)}],` +
        `"links":{"first":"${LINK}?page=1","last":null,"prev":null,"next":null},` +
        `"meta":{"current_page":1,"from":1,"to":2,"path":"${LINK}","per_page":10}}`,
    );
    const count = await t.request('GET', `${URL}/count`, { token: a.token });
    expect(count.status).toBe(200);
    expect(count.text).toBe('{"count":2}');
  });

  it('never shows another group’s tenants, even by name', async () => {
    const mine = await group(1);
    const other = await group(1);
    const otherName = (await tenantRow(nth(other.tenants, 0).tenant_id)).name;
    const res = await t.request('GET', `${URL}?name=${encodeURIComponent(otherName)}`, {
      token: nth(mine.tenants, 0).token,
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([]);
    const count = await t.request('GET', `${URL}/count?name=${encodeURIComponent(otherName)}`, {
      token: nth(mine.tenants, 0).token,
    });
    expect(count.text).toBe('{"count":0}');
  });

  it('writes every field, country_name from the code, non-ASCII escaped, trashed included', async () => {
    const g = await group(1);
    const a = nth(g.tenants, 0);
    await t.db.prisma.tenant.update({
      where: { id: a.tenant_id },
      data: {
        address: '1 Rue/Haute',
        city: 'Zürich',
        countryCode: 'CH',
        description: 'Swiss',
        isTrashed: false,
      },
    });
    const trashed = await t.db.prisma.tenant.create({
      data: { groupId: a.group_id, name: 'Old tenant', isTrashed: true },
    });
    const res = await t.request('GET', URL, { token: a.token });
    const name = (await tenantRow(a.tenant_id)).name;
    expect(res.text).toContain(
      String.raw`"data":[{"id":"${a.tenant_id}","name":"${name}","address":"1 Rue\/Haute","city":"Z\u00fcrich",` +
        `"country_code":"CH","country_name":"Switzerland","description":"Swiss","is_trashed":false,` +
        `"group_id":"${a.group_id}","group_name":"${g.name}"},${listItem(trashed.id, 'Old tenant', a.group_id, g.name, true)}]`,
    );
  });

  it('name is the full name, case-insensitive; description a literal substring', async () => {
    const g = await group(1);
    const a = nth(g.tenants, 0);
    const acme = await t.db.prisma.tenant.create({
      data: { groupId: a.group_id, name: 'Acme Hotels', description: 'Five 100% stars' },
    });
    const other = await t.db.prisma.tenant.create({
      data: { groupId: a.group_id, name: 'Acme Hotels East', description: 'Four_stars' },
    });
    const q = async (query: string) => ids(await t.request('GET', `${URL}?${query}`, { token: a.token }));
    expect(await q('name=acme%20hotels')).toEqual([acme.id]);
    expect(await q('name=ACME%20HOTELS%20EAST')).toEqual([other.id]);
    expect(await q('name=Acme')).toEqual([]);
    expect(await q('name=Acme%25')).toEqual([]);
    expect(await q('description=STARS')).toEqual([acme.id, other.id]);
    expect(await q('description=100%25')).toEqual([acme.id]);
    expect(await q('description=_')).toEqual([other.id]);
    expect(await q('description=r_s')).toEqual([other.id]);
    const count = await t.request('GET', `${URL}/count?description=stars&name=acme%20hotels`, {
      token: a.token,
    });
    expect(count.text).toBe('{"count":1}');
  });

  it('pages with per_page, links keep the filters', async () => {
    const g = await group(3);
    const a = nth(g.tenants, 0);
    const res = await t.request('GET', `${URL}?per_page=2&page=2`, { token: a.token });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([nth(g.tenants, 2).tenant_id]);
    expect(res.json.links).toEqual({
      first: 'http://localhost/api/v1/tenants?per_page=2&page=1',
      last: null,
      prev: 'http://localhost/api/v1/tenants?per_page=2&page=1',
      next: null,
    });
    expect(res.json.meta).toMatchObject({ current_page: 2, from: 3, to: 3, per_page: 2 });
    const bad = await t.request('GET', `${URL}?per_page=101`, { token: a.token });
    expect(bad.status).toBe(422);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /tenants', () => {
  it('answers 200 with the tenant (no group keys), and moves the caller to it', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('POST', URL, {
      token: a.token,
      body: {
        name: 'Grand Hôtel/Dubai',
        country_code: 'AE',
        city: 'Dubai',
        address: 'Sheikh Zayed Rd',
        post_code: '00000',
        description: 'Flagship',
        unknown: 'ignored',
      },
    });
    expect(res.status).toBe(200);
    const id = res.json.data.id as string;
    expect(res.text).toBe(
      String.raw`{"data":{"id":"${id}","name":"Grand H\u00f4tel\/Dubai","address":"Sheikh Zayed Rd","city":"Dubai",` +
        `"country_code":"AE","country_name":"United Arab Emirates","description":"Flagship","is_trashed":false}}`,
    );
    const row = await tenantRow(id);
    expect(row).toMatchObject({ groupId: a.group_id, postCode: '00000' });
    // The caller now works in the new tenant.
    expect((await userRow(a.user_id)).tenantId).toBe(id);
    const locations = await t.request('GET', '/api/v1/locations', { token: a.token });
    expect(locations.json.data.map((l: { name: string }) => l.name)).toEqual(['Grand Hôtel/Dubai']);
    const profiles = await t.db.prisma.serviceProfile.findMany({ where: { tenantId: id } });
    expect(profiles.map((p) => [p.name, p.isDefault])).toEqual([['Default', true]]);
    // The old tenant is still in the group and listed.
    const list = await t.request('GET', URL, { token: a.token });
    expect(ids(list)).toEqual([a.tenant_id, id]);
  });

  it('names the default location with the first 50 characters of a long tenant name', async () => {
    const a = await newTenant(t.db.prisma);
    const name = `${'L'.repeat(49)}é and more`;
    const res = await t.request('POST', URL, { token: a.token, body: { name } });
    expect(res.status).toBe(200);
    const loc = await t.db.prisma.location.findMany({ where: { tenantId: res.json.data.id } });
    expect(loc.map((l) => l.name)).toEqual([`${'L'.repeat(49)}é`]);
  });

  it('a support user creates too and is moved', async () => {
    const a = await newTenant(t.db.prisma);
    const s = await addUser(t.db.prisma, a.tenant_id, 'support');
    const res = await t.request('POST', URL, { token: s.token, body: { name: 'Support made' } });
    expect(res.status).toBe(200);
    expect((await userRow(s.userId)).tenantId).toBe(res.json.data.id);
    expect((await tenantRow(res.json.data.id)).groupId).toBe(a.group_id);
  });

  it('validates name (required, at least 5), country_code and types, creating nothing', async () => {
    const a = await newTenant(t.db.prisma);
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { name: ['The name field is required.'] }],
      [{ name: '   ' }, { name: ['The name field is required.'] }],
      [{ name: 'Abcd' }, { name: ['The name field must be at least 5 characters.'] }],
      [{ name: 12345 }, { name: ['The name field must be a string.'] }],
      [{ name: 'x'.repeat(256) }, { name: ['The name field must not be greater than 255 characters.'] }],
      [
        { name: 'Valid', country_code: 'USA', city: 5 },
        {
          country_code: [
            'The country code field must be 2 characters.',
            'The selected country code is invalid.',
          ],
          city: ['The city field must be a string.'],
        },
      ],
      [{ name: 'Valid', country_code: 'us' }, { country_code: ['The selected country code is invalid.'] }],
      [{ name: 'Valid', country_code: 'XX' }, { country_code: ['The selected country code is invalid.'] }],
      [{ name: 'Valid', description: ['x'] }, { description: ['The description field must be a string.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await t.request('POST', URL, { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.text).toBe(unprocessable(errors));
    }
    expect(await t.db.prisma.tenant.count({ where: { groupId: a.group_id } })).toBe(1);
    expect((await userRow(a.user_id)).tenantId).toBe(a.tenant_id);
    // The edge: exactly 5 characters pass.
    const ok = await t.request('POST', URL, { token: a.token, body: { name: 'Abcde', country_code: null } });
    expect(ok.status).toBe(200);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /tenants/:id', () => {
  it('updates a tenant of the group and answers it without group keys', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const res = await t.request('PUT', `${URL}/${b.tenant_id}`, {
      token: a.token,
      body: { name: 'Renamed tenant', country_code: 'GB', city: 'London' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":{"id":"${b.tenant_id}","name":"Renamed tenant","address":null,"city":"London",` +
        `"country_code":"GB","country_name":"United Kingdom",` +
        `"description":null,"is_trashed":false}}`,
    );
    // Only the fields sent change; null clears.
    const again = await t.request('PUT', `${URL}/${b.tenant_id}`, {
      token: a.token,
      body: { name: 'Renamed again', city: null },
    });
    expect(again.json.data).toMatchObject({ name: 'Renamed again', city: null, country_code: 'GB' });
    // The caller stays where it was.
    expect((await userRow(a.user_id)).tenantId).toBe(a.tenant_id);
  });

  it('another group’s tenant or an unknown id is 404, and nothing changes', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    const before = await tenantRow(b.tenant_id);
    for (const id of [b.tenant_id, 'missing-id']) {
      const res = await t.request('PUT', `${URL}/${id}`, { token: a.token, body: { name: 'Taken over' } });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
    expect((await tenantRow(b.tenant_id)).name).toBe(before.name);
  });

  it('validates like create (name stays required)', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('PUT', `${URL}/${a.tenant_id}`, { token: a.token, body: { city: 'Paris' } });
    expect(res.status).toBe(422);
    expect(res.text).toBe(unprocessable({ name: ['The name field is required.'] }));
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /tenants/:id/deactivate and /activate', () => {
  it('trashes and restores, answering {"is_trashed":…}; users keep their status without user_status', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const off = await t.request('PUT', `${URL}/${b.tenant_id}/deactivate`, { token: a.token });
    expect(off.status).toBe(200);
    expect(off.text).toBe('{"is_trashed":true}');
    expect((await tenantRow(b.tenant_id)).isTrashed).toBe(true);
    expect((await userRow(b.user_id)).status).toBe(1);
    // b's users are refused while their tenant is trashed.
    const refused = await t.request('GET', '/api/v1/locations', { token: b.token });
    expect(refused.status).toBe(401);
    expect(refused.text).toBe('{"message":"Unauthenticated."}');
    // Deactivating twice is fine.
    expect((await t.request('PUT', `${URL}/${b.tenant_id}/deactivate`, { token: a.token })).status).toBe(200);
    const on = await t.request('PUT', `${URL}/${b.tenant_id}/activate`, { token: a.token });
    expect(on.status).toBe(200);
    expect(on.text).toBe('{"is_trashed":false}');
    expect((await t.request('GET', '/api/v1/locations', { token: b.token })).status).toBe(200);
  });

  it('user_status sets the tenant’s users (current tenant), never support users nor other tenants', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const venue = await addUser(t.db.prisma, b.tenant_id, 'venue', { locationId: b.location_id, status: 0 });
    const support = await addUser(t.db.prisma, b.tenant_id, 'support');
    const res = await t.request('PUT', `${URL}/${b.tenant_id}/deactivate`, {
      token: a.token,
      body: { user_status: 2 },
    });
    expect(res.status).toBe(200);
    expect((await userRow(b.user_id)).status).toBe(2);
    expect((await userRow(venue.userId)).status).toBe(2);
    expect((await userRow(support.userId)).status).toBe(1);
    expect((await userRow(a.user_id)).status).toBe(1);
    // Support users still work in a trashed tenant; the others are refused.
    expect((await t.request('GET', '/api/v1/locations', { token: support.token })).status).toBe(200);
    expect((await t.request('GET', '/api/v1/locations', { token: venue.token })).status).toBe(401);

    // Activate with user_status 1: everyone back (as a string too, like a form would send it).
    const on = await t.request('PUT', `${URL}/${b.tenant_id}/activate`, {
      token: support.token,
      body: { user_status: '1' },
    });
    expect(on.status).toBe(200);
    expect((await userRow(b.user_id)).status).toBe(1);
    expect((await userRow(venue.userId)).status).toBe(1);
    expect((await t.request('GET', '/api/v1/locations', { token: venue.token })).status).toBe(200);

    // Activate with user_status 0: the tenant is active but its users are Passive (401); support is not.
    await t.request('PUT', `${URL}/${b.tenant_id}/activate`, { token: a.token, body: { user_status: 0 } });
    expect((await tenantRow(b.tenant_id)).isTrashed).toBe(false);
    expect((await t.request('GET', '/api/v1/locations', { token: b.token })).status).toBe(401);
    expect((await userRow(support.userId)).status).toBe(1);
  });

  it('a user whose current tenant moved away is not touched by the old tenant’s user_status', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const sw = await t.request('PUT', `${URL}/${a.tenant_id}/switch`, { token: b.token });
    expect(sw.status).toBe(200);
    await t.request('PUT', `${URL}/${b.tenant_id}/deactivate`, { token: a.token, body: { user_status: 0 } });
    expect((await userRow(b.user_id)).status).toBe(1);
    expect((await t.request('GET', URL, { token: b.token })).status).toBe(200);
  });

  it('invalid user_status is 422 and changes nothing', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const invalid = 'The selected user status is invalid.';
    const notInteger = 'The user status field must be an integer.';
    // Not nullable: a null (or empty) status is no status, judged by both rules as Laravel does.
    const cases: [unknown, string[]][] = [
      [3, [invalid]],
      [-1, [invalid]],
      ['x', [notInteger, invalid]],
      [1.5, [notInteger, invalid]],
      [null, [notInteger, invalid]],
      ['', [notInteger, invalid]],
    ];
    for (const [value, message] of cases) {
      for (const action of ['deactivate', 'activate']) {
        const res = await t.request('PUT', `${URL}/${b.tenant_id}/${action}`, {
          token: a.token,
          body: { user_status: value },
        });
        expect(res.status).toBe(422);
        expect(res.text).toBe(unprocessable({ user_status: message }));
      }
    }
    expect((await tenantRow(b.tenant_id)).isTrashed).toBe(false);
    expect((await userRow(b.user_id)).status).toBe(1);
  });

  it('another group’s tenant is 404 and stays as it was', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    for (const action of ['deactivate', 'activate']) {
      const res = await t.request('PUT', `${URL}/${b.tenant_id}/${action}`, {
        token: a.token,
        body: { user_status: 0 },
      });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
    expect((await tenantRow(b.tenant_id)).isTrashed).toBe(false);
    expect((await userRow(b.user_id)).status).toBe(1);
  });

  it('deactivating one’s own tenant locks the caller out from the next request', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('PUT', `${URL}/${a.tenant_id}/deactivate`, { token: a.token });
    expect(res.text).toBe('{"is_trashed":true}');
    expect((await t.request('GET', URL, { token: a.token })).status).toBe(401);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /tenants/:id/switch', () => {
  it('moves the caller to a tenant of its group: {"success":true}, then reads that tenant', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const res = await t.request('PUT', `${URL}/${b.tenant_id}/switch`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"success":true}');
    expect((await userRow(a.user_id)).tenantId).toBe(b.tenant_id);
    const locations = await t.request('GET', '/api/v1/locations', { token: a.token });
    expect(ids(locations)).toEqual([b.location_id]);
    // a now appears among b's users (oldest first), and switches back.
    const users = await t.request('GET', '/api/v1/users', { token: b.token });
    expect(ids(users)).toEqual([a.user_id, b.user_id]);
    const back = await t.request('PUT', `${URL}/${a.tenant_id}/switch`, { token: a.token });
    expect(back.text).toBe('{"success":true}');
    expect(ids(await t.request('GET', '/api/v1/locations', { token: a.token }))).toEqual([a.location_id]);
  });

  it('another group’s tenant or an unknown id is 404, and the caller stays', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    for (const id of [b.tenant_id, 'missing-id']) {
      const res = await t.request('PUT', `${URL}/${id}/switch`, { token: a.token });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
    expect((await userRow(a.user_id)).tenantId).toBe(a.tenant_id);
  });

  it('into a trashed tenant: 403 for a tenant admin (it would lock itself out), allowed for support', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const support = await addUser(t.db.prisma, a.tenant_id, 'support');
    await t.request('PUT', `${URL}/${b.tenant_id}/deactivate`, { token: a.token });
    const res = await t.request('PUT', `${URL}/${b.tenant_id}/switch`, { token: a.token });
    expect(res.status).toBe(403);
    expect(res.text).toBe('{"message":"This action is unauthorized."}');
    expect((await userRow(a.user_id)).tenantId).toBe(a.tenant_id);
    const ok = await t.request('PUT', `${URL}/${b.tenant_id}/switch`, { token: support.token });
    expect(ok.text).toBe('{"success":true}');
    expect((await t.request('GET', '/api/v1/locations', { token: support.token })).status).toBe(200);
  });

  it('beside a deactivation of that tenant: switched before it (then given its user_status) or refused after it', async () => {
    for (let round = 0; round < 6; round++) {
      const g = await group(3);
      const [a, b, c] = [nth(g.tenants, 0), nth(g.tenants, 1), nth(g.tenants, 2)];
      const [sw, off] = await Promise.all([
        t.request('PUT', `${URL}/${b.tenant_id}/switch`, { token: a.token }),
        t.request('PUT', `${URL}/${b.tenant_id}/deactivate`, { token: c.token, body: { user_status: 2 } }),
      ]);
      expect(off.text).toBe('{"is_trashed":true}');
      const user = await userRow(a.user_id);
      if (sw.status === 200) expect([user.tenantId, user.status]).toEqual([b.tenant_id, 2]);
      else {
        expect([sw.status, sw.text]).toEqual([403, '{"message":"This action is unauthorized."}']);
        expect([user.tenantId, user.status]).toEqual([a.tenant_id, 1]);
      }
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL tenants', () => {
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
  const data = (res: TestResponse): any => {
    expect(res.json?.errors, res.text).toBeUndefined();
    return res.json.data;
  };
  const onlyError = (res: TestResponse) => {
    expect(res.json?.errors, res.text).toHaveLength(1);
    return res.json.errors[0];
  };

  it('tenants connection: the group’s tenants, filters and totalCount as REST', async () => {
    const g = await group(2);
    const a = nth(g.tenants, 0);
    await t.db.prisma.tenant.update({
      where: { id: a.tenant_id },
      data: { description: 'The Flagship', countryCode: 'FR' },
    });
    const other = await newTenant(t.db.prisma);
    const q = `query($name: String, $description: String) {
      tenants(first: 10, name: $name, description: $description) {
        totalCount edges { node { id name countryCode countryName isTrashed groupId groupName } }
      } }`;
    const all = data(await t.graphql(a.token, q)).tenants;
    expect(all.totalCount).toBe(2);
    expect(all.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(
      g.tenants.map((x) => x.tenant_id),
    );
    expect(all.edges[0].node).toMatchObject({
      countryCode: 'FR',
      countryName: 'France',
      groupId: a.group_id,
      groupName: g.name,
    });
    const flagship = data(await t.graphql(a.token, q, { description: 'flagSHIP' })).tenants;
    expect(flagship.totalCount).toBe(1);
    const otherName = (await tenantRow(other.tenant_id)).name;
    expect(data(await t.graphql(a.token, q, { name: otherName })).tenants.totalCount).toBe(0);
    const big = onlyError(await t.graphql(a.token, '{ tenants(first: 101) { totalCount } }'));
    expect(big.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('createTenant moves the caller; validation carries the REST messages by GraphQL field', async () => {
    const a = await newTenant(t.db.prisma);
    const bad = onlyError(
      await t.graphql(
        a.token,
        'mutation { createTenant(input: { name: "Abcd", countryCode: "XX" }) { id } }',
      ),
    );
    expect(bad.message).toBe('The name field must be at least 5 characters. (and 1 more error)');
    expect(bad.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: {
        name: ['The name field must be at least 5 characters.'],
        countryCode: ['The selected country code is invalid.'],
      },
    });
    const created = data(
      await t.graphql(
        a.token,
        'mutation { createTenant(input: { name: "Graph tenant", countryCode: "DE" }) { id name countryName groupId } }',
      ),
    ).createTenant;
    expect(created).toMatchObject({ name: 'Graph tenant', countryName: 'Germany', groupId: a.group_id });
    const viewer = data(
      await t.graphql(a.token, '{ viewer { currentTenantId currentTenant { name } } }'),
    ).viewer;
    expect(viewer).toEqual({ currentTenantId: created.id, currentTenant: { name: 'Graph tenant' } });
  });

  it('updateTenant, deactivateTenant(userStatus), activateTenant and switchTenant; other group NOT_FOUND', async () => {
    const g = await group(2);
    const [a, b] = [nth(g.tenants, 0), nth(g.tenants, 1)];
    const stranger = await newTenant(t.db.prisma);
    const upd = data(
      await t.graphql(
        a.token,
        `mutation { updateTenant(id: "${b.tenant_id}", input: { name: "Updated B" }) { name } }`,
      ),
    );
    expect(upd.updateTenant.name).toBe('Updated B');
    const off = data(
      await t.graphql(
        a.token,
        `mutation { deactivateTenant(id: "${b.tenant_id}", userStatus: 0) { isTrashed } }`,
      ),
    );
    expect(off.deactivateTenant.isTrashed).toBe(true);
    expect((await userRow(b.user_id)).status).toBe(0);
    const badStatus = onlyError(
      await t.graphql(
        a.token,
        `mutation { activateTenant(id: "${b.tenant_id}", userStatus: 7) { isTrashed } }`,
      ),
    );
    expect(badStatus.extensions.fields).toEqual({ userStatus: ['The selected user status is invalid.'] });
    const on = data(
      await t.graphql(
        a.token,
        `mutation { activateTenant(id: "${b.tenant_id}", userStatus: 1) { isTrashed } }`,
      ),
    );
    expect(on.activateTenant.isTrashed).toBe(false);
    expect((await userRow(b.user_id)).status).toBe(1);
    const sw = data(await t.graphql(a.token, `mutation { switchTenant(id: "${b.tenant_id}") { id } }`));
    expect(sw.switchTenant.id).toBe(b.tenant_id);
    expect((await userRow(a.user_id)).tenantId).toBe(b.tenant_id);
    for (const m of [
      `updateTenant(id: "${stranger.tenant_id}", input: { name: "Taken over" }) { id }`,
      `deactivateTenant(id: "${stranger.tenant_id}") { id }`,
      `activateTenant(id: "${stranger.tenant_id}") { id }`,
      `switchTenant(id: "${stranger.tenant_id}") { id }`,
    ]) {
      expect(onlyError(await t.graphql(a.token, `mutation { ${m} }`)).extensions.code).toBe('NOT_FOUND');
    }
    expect((await tenantRow(stranger.tenant_id)).isTrashed).toBe(false);
  });
});

// Several connections at once: on PGlite every transaction has the one connection to itself.
describe.skipIf(!process.env.TEST_DATABASE_URL)('bootstrap run at once (PostgreSQL)', () => {
  it('into one new group: every run succeeds and they share the group; of one new tenant, they share the tenant (the losers failed on the group’s unique name; probe L)', async () => {
    const groupName = uniqueName('Race group');
    const runs = await Promise.all(
      [1, 2, 3].map((i) =>
        bootstrapTenant(t.db.prisma, { tenant: `${groupName} tenant ${i}`, group: groupName }),
      ),
    );
    expect(new Set(runs.map((r) => r.group_id)).size).toBe(1);
    expect(new Set(runs.map((r) => r.tenant_id)).size).toBe(3);
    const tenantName = uniqueName('Race tenant');
    const same = await Promise.all([1, 2, 3].map(() => bootstrapTenant(t.db.prisma, { tenant: tenantName })));
    expect(new Set(same.map((r) => r.tenant_id)).size).toBe(1);
    expect(new Set(same.map((r) => r.token)).size).toBe(3);
    expect(await t.db.prisma.tenantGroup.count({ where: { name: { in: [groupName, tenantName] } } })).toBe(2);
  });
});

// The audit log (beyond the spec): GET /audit-logs[/count] and GraphQL `auditLogs`. Each write of the
// API leaves one entry, in its transaction, naming the actor, the action, the resource and the changed
// fields (never a password or a token's secret; an erased guest's values read "[erased]"); filters
// with Laravel's messages; tenant admins only; another tenant's entries are out of reach; read only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoMicros } from '../src/shared/format.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addUser, newTenant, uniqueName } from './helpers/fixtures.js';
import { unprocessable as unprocessableBody } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const URL = '/api/v1/audit-logs';
const LINK = String.raw`http:\/\/localhost\/api\/v1\/audit-logs`;
const FORBIDDEN = '{"message":"This action is unauthorized."}';
const PASSWORD = 'Secret-pass-123';
const prisma = () => t.db.prisma;
const unprocessable = (errors: Record<string, string[]>) => JSON.stringify(unprocessableBody(errors));

async function tenant() {
  const a = await newTenant(prisma());
  const token = await prisma().apiToken.findFirstOrThrow({ where: { userId: a.user_id } });
  return { ...a, token_id: token.id };
}

const get = (token: string, query = '') => t.request('GET', `${URL}${query}`, { token });

describe.concurrent('GET /audit-logs', () => {
  it('answers the exact list envelope, newest first, one entry per write with its changes', async () => {
    const a = await tenant();
    const name = uniqueName('Lobby').slice(0, 40);
    const created = await t.request('POST', '/api/v1/locations', {
      token: a.token,
      body: { name, lat: 25, timezone: 'Asia/Dubai' },
      headers: { 'x-request-id': 'audit-create-1' },
    });
    expect(created.status, created.text).toBe(201);
    const loc = created.json.data;
    const updated = await t.request('PUT', `/api/v1/locations/${loc.id}`, {
      token: a.token,
      body: { name, city: 'Dubai', lat: 25.5 },
      headers: { 'x-request-id': 'audit-update-1' },
    });
    expect(updated.status, updated.text).toBe(200);
    const rows = await prisma().auditLog.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    expect(rows).toHaveLength(2);
    const [second, first] = rows;
    const res = await get(a.token);
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[{"id":"${second?.id}","user_id":"${a.user_id}","token_id":"${a.token_id}",` +
        `"request_id":"audit-update-1","action":"locations.update","resource_type":"location",` +
        `"resource_id":"${loc.id}","changes":{"city":{"old":null,"new":"Dubai"},"lat":{"old":25,"new":25.5}},` +
        `"created_at":"${isoMicros(second?.createdAt)}"},` +
        `{"id":"${first?.id}","user_id":"${a.user_id}","token_id":"${a.token_id}",` +
        `"request_id":"audit-create-1","action":"locations.create","resource_type":"location",` +
        `"resource_id":"${loc.id}","changes":{"name":{"old":null,"new":"${name}"},` +
        `"lat":{"old":null,"new":25},"is_trashed":{"old":null,"new":false},"timezone":{"old":null,"new":"Asia\\/Dubai"}},` +
        `"created_at":"${isoMicros(first?.createdAt)}"}],` +
        `"links":{"first":"${LINK}?page=1","last":null,"prev":null,"next":null},` +
        `"meta":{"current_page":1,"from":1,"to":2,"path":"${LINK}","per_page":10}}`,
    );
    const count = await get(a.token, '/count');
    expect(count.text).toBe('{"count":2}');
  });

  it('names a password change without its value, and never a token secret', async () => {
    const a = await tenant();
    const email = `${uniqueName('op').replace(' ', '-')}@example.test`;
    const body = { name: 'Jane Operator', email, role: 'tenant', status: 1 };
    const created = await t.request('POST', '/api/v1/users', {
      token: a.token,
      body: { ...body, password: PASSWORD, password_confirmation: PASSWORD },
    });
    expect(created.status, created.text).toBe(200);
    const userId = created.json.data.id;
    const other = `${PASSWORD}-2`;
    const changed = await t.request('PUT', `/api/v1/users/${userId}`, {
      token: a.token,
      body: { ...body, password: other, password_confirmation: other },
    });
    expect(changed.status, changed.text).toBe(200);
    const token = await t.request('POST', '/api/v1/api-tokens', {
      token: a.token,
      body: { name: 'CRM', scopes: ['read'] },
    });
    expect(token.status).toBe(201);
    const res = await get(a.token, `?resource_id=${userId}`);
    expect(res.json.data.map((e: { action: string }) => e.action)).toEqual(['users.update', 'users.create']);
    expect(res.json.data[0].changes).toEqual({ password: { old: '[redacted]', new: '[redacted]' } });
    expect(res.json.data[1].changes.password).toEqual({ old: null, new: '[redacted]' });
    const all = (await get(a.token, '?per_page=100')).text;
    const hash = (await prisma().user.findUniqueOrThrow({ where: { id: userId } })).passwordHash ?? '';
    for (const secret of [PASSWORD, other, hash, token.json.data.token]) expect(all).not.toContain(secret);
  });

  it('filters by user, resource type and id, action and dates, and counts with the same filters', async () => {
    const a = await tenant();
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const guest = await t.request('POST', '/api/v1/guests', {
      token: venue.token,
      body: { location_id: a.location_id, name: 'Ann Example' },
    });
    expect(guest.status, guest.text).toBe(201);
    const loc = await t.request('POST', '/api/v1/locations', {
      token: a.token,
      body: { name: uniqueName('Spa').slice(0, 40) },
    });
    expect(loc.status).toBe(201);
    const ids = async (query: string) => {
      const res = await get(a.token, query);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      const count = await get(a.token, `/count${query}`);
      expect(count.json.count).toBe(res.json.data.length);
      return res.json.data.map((e: { resource_id: string }) => e.resource_id);
    };
    const today = new Date().toISOString().slice(0, 10);
    expect(await ids('')).toEqual([loc.json.data.id, guest.json.data.id]);
    expect(await ids(`?user_id=${venue.userId}`)).toEqual([guest.json.data.id]);
    expect(await ids('?resource_type=guest')).toEqual([guest.json.data.id]);
    expect(await ids(`?resource_id=${loc.json.data.id}`)).toEqual([loc.json.data.id]);
    expect(await ids('?action=locations.create')).toEqual([loc.json.data.id]);
    expect(await ids('?action=locations.update')).toEqual([]);
    expect(await ids(`?from=${today}&to=${today}`)).toHaveLength(2);
    expect(await ids('?to=2020-01-01')).toEqual([]);
    expect(await ids('?from=2999-01-01')).toEqual([]);
    // The first and last days PHP's `Y-m-d` reads are days like any other.
    expect(await ids('?from=0001-01-01&to=0001-01-01')).toEqual([]);
    expect(await ids('?from=0001-01-01&to=9999-12-31')).toHaveLength(2);
    expect(await ids('?resource_type=&user_id=')).toHaveLength(2);
    // The actions a write names beside the permission it checks are filters too.
    const off = await t.request('PUT', `/api/v1/users/${venue.userId}/deactivate`, { token: a.token });
    expect(off.status, off.text).toBe(204);
    expect(await ids('?action=users.deactivate')).toEqual([String(venue.userId)]);
    expect(await ids('?action=users.activate')).toEqual([]);
  });

  it('answers bad filters with Laravel’s messages, on REST and GraphQL', async () => {
    const a = await tenant();
    const res = await get(a.token, '?resource_type=room&action=locations&from=2026-13-01&to=2026-01-01');
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      unprocessable({
        resource_type: ['The selected resource type is invalid.'],
        action: ['The selected action is invalid.'],
        from: ['The from field must match the format Y-m-d.'],
        to: ['The to field must be a date after or equal to from.'],
      }),
    );
    // Bad paging does not hide bad filters: one 422 names them all, paging last.
    const paged = await get(a.token, '?user_id[]=x&from=x&page=0&per_page=101');
    expect(paged.text).toBe(
      unprocessable({
        user_id: ['The user id field must be a string.'],
        from: ['The from field must match the format Y-m-d.'],
        page: ['The page field must be at least 1.'],
        per_page: ['The per page field must not be greater than 100.'],
      }),
    );
    const order = await get(a.token, '/count?from=2026-02-01&to=2026-01-31&user_id[]=x');
    expect(order.text).toBe(
      unprocessable({
        user_id: ['The user id field must be a string.'],
        to: ['The to field must be a date after or equal to from.'],
      }),
    );
    const gql = await t.graphql(
      a.token,
      '{ auditLogs(resourceType: "room", action: "guests.delete", from: "01/02/2026") { totalCount } }',
    );
    expect(gql.json.errors[0].extensions.fields).toEqual({
      resourceType: ['The selected resource type is invalid.'],
      action: ['The selected action is invalid.'],
      from: ['The from field must match the format Y-m-d.'],
    });
  });

  it('is for tenant admins only (403 for venue and front-desk users) and read only (405)', async () => {
    const a = await tenant();
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    for (const token of [venue.token, desk.token]) {
      expect((await get(token)).text).toBe(FORBIDDEN);
      expect((await get(token, '/count')).text).toBe(FORBIDDEN);
      const gql = await t.graphql(token, '{ auditLogs { totalCount } }');
      expect(gql.json.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await t.request(method, URL, { token: a.token, body: {} });
      expect(res.status, `${method} ${res.text}`).toBe(405);
    }
  });

  it('keeps each tenant’s entries to itself, on both transports', async () => {
    const a = await tenant();
    const b = await tenant();
    const created = await t.request('POST', '/api/v1/locations', {
      token: a.token,
      body: { name: uniqueName('Roof').slice(0, 40) },
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    expect((await get(b.token)).json.data).toEqual([]);
    expect((await get(b.token, `/count?resource_id=${id}`)).text).toBe('{"count":0}');
    const gqlB = await t.graphql(
      b.token,
      `{ auditLogs(resourceId: "${id}") { totalCount edges { node { id } } } }`,
    );
    expect(gqlB.json.data.auditLogs).toEqual({ totalCount: 0, edges: [] });
    const gqlA = await t.graphql(
      a.token,
      `{ auditLogs { totalCount edges { node { id userId tokenId requestId action resourceType resourceId
        changes { field old new } createdAt } } } }`,
    );
    const rest = (await get(a.token)).json.data[0];
    expect(gqlA.json.data.auditLogs).toEqual({
      totalCount: 1,
      edges: [
        {
          node: {
            id: rest.id,
            userId: a.user_id,
            tokenId: a.token_id,
            requestId: rest.request_id,
            action: 'locations.create',
            resourceType: 'location',
            resourceId: id,
            changes: [
              { field: 'name', old: null, new: JSON.stringify(created.json.data.name) },
              { field: 'is_trashed', old: null, new: 'false' },
              { field: 'timezone', old: null, new: '"UTC"' },
            ],
            createdAt: rest.created_at,
          },
        },
      ],
    });
  });

  it('after a guest’s erasure, its entries and the copies of its name read "[erased]"', async () => {
    const a = await tenant();
    const guest = await t.request('POST', '/api/v1/guests', {
      token: a.token,
      body: {
        location_id: a.location_id,
        name: 'Zelda Private',
        email: `${uniqueName('z').replace(' ', '-')}@x.test`,
      },
    });
    expect(guest.status, guest.text).toBe(201);
    const guestId = guest.json.data.id;
    const codes = await t.request('POST', '/api/v1/access-codes', {
      token: a.token,
      body: {
        location_id: a.location_id,
        service_profile_id: a.service_profile_id,
        type: 1,
        code: 'ZELDA-1',
        guest_id: guestId,
      },
    });
    expect(codes.status, codes.text).toBe(201);
    const code = codes.json.access_codes[0];
    expect(code.guest_name).toBe('Zelda Private');
    const erased = await t.request('DELETE', `/api/v1/guests/${guestId}`, { token: a.token });
    expect(erased.status).toBe(204);
    const entries = (await get(a.token)).json.data;
    expect(entries.map((e: { action: string }) => e.action)).toEqual([
      'guests.erase',
      'accessCodes.create',
      'guests.create',
    ]);
    expect(entries[0].changes).toEqual({ erased_at: { old: null, new: expect.any(String) } });
    expect(entries[1].changes.guest_name).toEqual({ old: '[erased]', new: '[erased]' });
    expect(Object.values(entries[2].changes)).not.toHaveLength(0);
    for (const c of Object.values(entries[2].changes))
      expect(c).toEqual({ old: '[erased]', new: '[erased]' });
    const events = await prisma().event.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { id: 'asc' },
    });
    expect(events.map((e) => e.type)).toEqual(['guest.created', 'access_code.created', 'guest.erased']);
    expect(events[1]?.payload).toEqual({ ...code, guest_name: '' });
    const all = JSON.stringify([entries, events.map((e) => e.payload)]);
    expect(all).not.toContain('Zelda');
  });
});

// Every write of the API appends its event in its own transaction (src/events/outbox.ts): per
// resource kind the type, the actor (user and token), the request id the answer carries, and the
// resource in its REST shape as payload; a write that fails leaves no event; GraphQL writes the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addUser, newTenant, uniqueName } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const prisma = () => t.db.prisma;
const PASSWORD = 'Secret-pass-123';
let requestNo = 0;
const requestId = () => `evt-${Date.now().toString(36)}-${++requestNo}`;

interface Caller {
  token: string;
  userId: string;
  tokenId: string;
  tenantId: string;
}

async function tenant(): Promise<Caller & { locationId: string; serviceProfileId: string }> {
  const a = await newTenant(prisma());
  const token = await prisma().apiToken.findFirstOrThrow({ where: { userId: a.user_id } });
  return {
    token: a.token,
    userId: a.user_id,
    tokenId: token.id,
    tenantId: a.tenant_id,
    locationId: a.location_id,
    serviceProfileId: a.service_profile_id,
  };
}

/** A REST call with its own `X-Request-Id`, which the answer echoes. */
async function call(who: Caller, method: string, url: string, body?: unknown) {
  const id = requestId();
  const res = await t.request(method, `/api/v1${url}`, {
    token: who.token,
    headers: { 'x-request-id': id },
    ...(body !== undefined ? { body } : {}),
  });
  expect(res.headers['x-request-id']).toBe(id);
  return { res, id };
}

/** The tenant's events, oldest first, as plain objects (ids as numbers). */
async function eventsOf(tenantId: string) {
  const rows = await prisma().event.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    actorType: r.actorType,
    actorUserId: r.actorUserId,
    actorTokenId: r.actorTokenId,
    requestId: r.requestId,
    resourceType: r.resourceType,
    resourceId: r.resourceId,
    payload: r.payload,
  }));
}

const by = (who: Caller, id: string) => ({
  actorType: 'user',
  actorUserId: who.userId,
  actorTokenId: who.tokenId,
  requestId: id,
});

/** The answer's `data`, parsed (PHP's 41.0 reads as 41, as the stored JSON has it). */
const dataOf = (res: TestResponse) => JSON.parse(res.text).data;

describe.concurrent('events of the API writes', () => {
  it('locations: created and updated, with actor, request id and the REST detail; an unchanged update records nothing', async () => {
    const a = await tenant();
    const created = await call(a, 'POST', '/locations', {
      name: uniqueName('Lobby').slice(0, 40),
      lat: 25.5,
    });
    expect(created.res.status, created.res.text).toBe(201);
    const loc = dataOf(created.res);
    const body = { name: loc.name, lat: 25.5, city: 'Dubai' };
    const updated = await call(a, 'PUT', `/locations/${loc.id}`, body);
    expect(updated.res.status, updated.res.text).toBe(200);
    const again = await call(a, 'PUT', `/locations/${loc.id}`, body);
    expect(again.res.status).toBe(200);
    expect(await eventsOf(a.tenantId)).toEqual([
      {
        id: 1,
        type: 'location.created',
        ...by(a, created.id),
        resourceType: 'location',
        resourceId: loc.id,
        payload: loc,
      },
      {
        id: 2,
        type: 'location.updated',
        ...by(a, updated.id),
        resourceType: 'location',
        resourceId: loc.id,
        payload: dataOf(updated.res),
      },
    ]);
  });

  it('a write refused by a unique index (or a rule) leaves no event', async () => {
    const a = await tenant();
    const name = uniqueName('Venue').slice(0, 40);
    expect((await call(a, 'POST', '/locations', { name })).res.status).toBe(201);
    // The same name in other case: the unique index refuses it (the rule too: a 422 either way).
    expect((await call(a, 'POST', '/locations', { name: name.toUpperCase() })).res.status).toBe(422);
    const u = {
      name: 'Dup User',
      email: `${uniqueName('d').replace(' ', '-')}@example.test`,
      role: 'tenant',
    };
    const user = { ...u, password: PASSWORD, password_confirmation: PASSWORD, status: 1 };
    expect((await call(a, 'POST', '/users', user)).res.status).toBe(200);
    expect((await call(a, 'POST', '/users', user)).res.status).toBe(422);
    const types = (await eventsOf(a.tenantId)).map((e) => [e.id, e.type]);
    expect(types).toEqual([
      [1, 'location.created'],
      [2, 'user.created'],
    ]);
  });

  it('guests: created, updated (REST detail) and erased (payload and earlier history emptied)', async () => {
    const a = await tenant();
    const created = await call(a, 'POST', '/guests', {
      location_id: a.locationId,
      name: 'Rita Moreno',
      email: `${uniqueName('rita').replace(' ', '-')}@example.test`,
      tags: ['vip'],
    });
    expect(created.res.status, created.res.text).toBe(201);
    const guest = dataOf(created.res);
    const updated = await call(a, 'PUT', `/guests/${guest.id}`, {
      location_id: a.locationId,
      name: 'Rita M. Moreno',
      tags: ['vip', 'late'],
    });
    expect(updated.res.status, updated.res.text).toBe(200);
    let events = await eventsOf(a.tenantId);
    expect(events).toEqual([
      {
        id: 1,
        type: 'guest.created',
        ...by(a, created.id),
        resourceType: 'guest',
        resourceId: guest.id,
        payload: guest,
      },
      {
        id: 2,
        type: 'guest.updated',
        ...by(a, updated.id),
        resourceType: 'guest',
        resourceId: guest.id,
        payload: dataOf(updated.res),
      },
    ]);
    const erased = await call(a, 'DELETE', `/guests/${guest.id}`);
    expect(erased.res.status, erased.res.text).toBe(204);
    events = await eventsOf(a.tenantId);
    const last = events[2];
    expect(last).toMatchObject({
      id: 3,
      type: 'guest.erased',
      ...by(a, erased.id),
      resourceType: 'guest',
      resourceId: guest.id,
      payload: { id: guest.id, erased_at: expect.stringMatching(/^\d{4}-.*Z$/) },
    });
    // The earlier events no longer carry the guest's data: they show the erasure's payload.
    expect(events.slice(0, 2).map((e) => e.payload)).toEqual([last?.payload, last?.payload]);
    expect(JSON.stringify(events)).not.toContain('Rita');
  });

  it('users: created (password named, never its hash), updated, deactivated and activated', async () => {
    const a = await tenant();
    const email = `${uniqueName('op').replace(' ', '-')}@example.test`;
    const created = await call(a, 'POST', '/users', {
      name: 'Jane Operator',
      email,
      role: 'tenant',
      password: PASSWORD,
      password_confirmation: PASSWORD,
      status: 1,
    });
    expect(created.res.status, created.res.text).toBe(200);
    const { api_token: _none, ...user } = dataOf(created.res);
    const updated = await call(a, 'PUT', `/users/${user.id}`, {
      name: 'Jane Q. Operator',
      email,
      role: 'tenant',
      status: 1,
    });
    expect(updated.res.status, updated.res.text).toBe(200);
    const off = await call(a, 'PUT', `/users/${user.id}/deactivate`);
    expect(off.res.status).toBe(204);
    const on = await call(a, 'PUT', `/users/${user.id}/activate`);
    expect(on.res.status).toBe(204);
    const events = await eventsOf(a.tenantId);
    expect(events.map((e) => [e.type, e.requestId, e.resourceId])).toEqual([
      ['user.created', created.id, user.id],
      ['user.updated', updated.id, user.id],
      ['user.updated', off.id, user.id],
      ['user.updated', on.id, user.id],
    ]);
    expect(events[0]?.payload).toEqual(user);
    expect(events[2]?.payload).toEqual({ ...user, name: 'Jane Q. Operator', status: 0 });
    const row = await prisma().user.findUniqueOrThrow({ where: { id: user.id } });
    expect(JSON.stringify(events)).not.toContain(String(row.passwordHash).slice(0, 20));
    expect(JSON.stringify(events)).not.toContain(PASSWORD);
  });

  it('tenants: created (its log opens with the tenant, its location and the caller moved), updated, deactivated', async () => {
    const a = await tenant();
    const created = await call(a, 'POST', '/tenants', { name: uniqueName('Branch') });
    expect(created.res.status, created.res.text).toBe(200);
    const branch = dataOf(created.res);
    const events = await eventsOf(branch.id);
    expect(events.map((e) => [e.id, e.type, e.requestId])).toEqual([
      [1, 'tenant.created', created.id],
      [2, 'location.created', created.id],
      [3, 'user.updated', created.id],
    ]);
    expect(events[0]).toMatchObject({ ...by(a, created.id), resourceId: branch.id, payload: branch });
    expect(events[2]).toMatchObject({
      resourceId: a.userId,
      payload: { id: a.userId, current_tenant_id: branch.id },
    });
    // The caller now works in the new tenant: its next writes go to that log.
    const updated = await call(a, 'PUT', `/tenants/${branch.id}`, { name: `${branch.name} 2` });
    expect(updated.res.status, updated.res.text).toBe(200);
    const off = await call(a, 'PUT', `/tenants/${a.tenantId}/deactivate`, { user_status: 0 });
    expect(off.res.status, off.res.text).toBe(200);
    expect((await eventsOf(branch.id)).slice(3)).toMatchObject([
      { id: 4, type: 'tenant.updated', requestId: updated.id, payload: dataOf(updated.res) },
    ]);
    // The old tenant's own log: its deactivation (its only user, the caller, has moved on).
    expect((await eventsOf(a.tenantId)).map((e) => [e.type, e.requestId, e.resourceId])).toEqual([
      ['tenant.updated', off.id, a.tenantId],
    ]);
  });

  it('tenants: deactivation with user_status records each user whose status changed', async () => {
    const a = await tenant();
    const group = await prisma().tenantGroup.findFirstOrThrow({
      where: { tenants: { some: { id: a.tenantId } } },
    });
    const other = await newTenant(prisma(), { group: group.name });
    const venue = await addUser(prisma(), other.tenant_id, 'venue', { locationId: other.location_id });
    const off = await call(a, 'PUT', `/tenants/${other.tenant_id}/deactivate`, { user_status: 0 });
    expect(off.res.status, off.res.text).toBe(200);
    const events = await eventsOf(other.tenant_id);
    expect(events.map((e) => [e.type, e.resourceId])).toEqual([
      ['tenant.updated', other.tenant_id],
      // Users in the list's order: oldest first.
      ['user.updated', other.user_id],
      ['user.updated', venue.userId],
    ]);
    expect(events.every((e) => e.requestId === off.id && e.actorUserId === a.userId)).toBe(true);
    expect(events[1]?.payload).toMatchObject({ status: 0 });
  });

  it('access codes: created, redeemed (with the device first seen and the session started) and revoked', async () => {
    const a = await tenant();
    const created = await call(a, 'POST', '/access-codes', {
      location_id: a.locationId,
      service_profile_id: a.serviceProfileId,
      type: 2,
      quantity: 2,
    });
    expect(created.res.status, created.res.text).toBe(201);
    const codes = JSON.parse(created.res.text).access_codes;
    const mac = 'AA:BB:CC:00:11:22';
    const redeemed = await call(a, 'POST', '/access-codes/redeem', {
      code: codes[0].code,
      location_id: a.locationId,
      mac,
      start_session: true,
      ip_address: '10.0.0.7',
    });
    expect(redeemed.res.status, redeemed.res.text).toBe(200);
    const revoked = await call(a, 'PUT', `/access-codes/${codes[1].id}/revoke`);
    expect(revoked.res.status, revoked.res.text).toBe(200);
    // Revoking it again changes nothing: no event.
    expect((await call(a, 'PUT', `/access-codes/${codes[1].id}/revoke`)).res.status).toBe(200);
    const events = await eventsOf(a.tenantId);
    expect(events.map((e) => [e.type, e.requestId])).toEqual([
      ['access_code.created', created.id],
      ['access_code.created', created.id],
      ['guest.created', redeemed.id],
      ['device.first_seen', redeemed.id],
      ['access_code.used', redeemed.id],
      ['guest_session.started', redeemed.id],
      ['access_code.revoked', revoked.id],
    ]);
    expect(events.slice(0, 2).map((e) => e.payload)).toEqual(codes);
    expect(events[4]?.payload).toEqual(dataOf(redeemed.res));
    expect(events[3]?.payload).toMatchObject({ mac });
    // The guest and the device as the redeem left them (its session put them online), as GET shows them.
    const guest = await call(a, 'GET', `/guests/${events[2]?.resourceId}`);
    expect(events[2]?.payload).toEqual(dataOf(guest.res));
    expect(events[2]?.payload).toMatchObject({ online: true, visit_count: 1 });
    const devices = await call(a, 'GET', '/guest-devices?per_page=10');
    expect(events[3]?.payload).toEqual(dataOf(devices.res)[0]);
    expect(events[3]?.payload).toMatchObject({ connection_status: 'Online' });
    expect(events[5]?.payload).toMatchObject({ guest_device_mac: mac, guest_device_ip: '10.0.0.7' });
    expect(events[6]?.payload).toEqual(dataOf(revoked.res));
    const batch = await call(a, 'POST', '/access-codes/revoke', { ids: [codes[0].id, codes[1].id] });
    expect(batch.res.status, batch.res.text).toBe(200);
    const after = await eventsOf(a.tenantId);
    expect(after.slice(7).map((e) => [e.type, e.resourceId, e.requestId])).toEqual([
      ['access_code.revoked', codes[0].id, batch.id],
    ]);
  });

  it('API tokens: created (no secret anywhere) and revoked', async () => {
    const a = await tenant();
    const created = await call(a, 'POST', '/api-tokens', { name: 'CRM', scopes: ['read'] });
    expect(created.res.status, created.res.text).toBe(201);
    const { token: secret, ...item } = dataOf(created.res);
    const revoked = await call(a, 'DELETE', `/api-tokens/${item.id}`);
    expect(revoked.res.status).toBe(204);
    const events = await eventsOf(a.tenantId);
    expect(events.map((e) => [e.type, e.requestId, e.resourceId])).toEqual([
      ['api_token.created', created.id, item.id],
      ['api_token.revoked', revoked.id, item.id],
    ]);
    expect(events[0]?.payload).toEqual(item);
    expect(events[1]?.payload).toMatchObject({ id: item.id, revoked_at: expect.any(String) });
    const audit = await prisma().auditLog.findMany({ where: { tenantId: a.tenantId } });
    const hash = (await prisma().apiToken.findUniqueOrThrow({ where: { id: item.id } })).tokenHash;
    for (const text of [JSON.stringify(events), JSON.stringify(audit)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(hash);
    }
  });

  it('GraphQL writes record the same events, with the request id of the GraphQL request', async () => {
    const a = await tenant();
    const id = requestId();
    const res = await t.request('POST', '/graphql', {
      token: a.token,
      headers: { 'x-request-id': id },
      body: {
        query: 'mutation($input: GuestCreateInput!) { createGuest(input: $input) { id name } }',
        variables: { input: { locationId: a.locationId, name: 'Graph Guest' } },
      },
    });
    expect(res.status, res.text).toBe(200);
    const guestId = res.json.data.createGuest.id;
    const rest = await t.request('GET', `/api/v1/guests/${guestId}`, { token: a.token });
    const { settings: _settings, ...detail } = dataOf(rest);
    expect(await eventsOf(a.tenantId)).toEqual([
      {
        id: 1,
        type: 'guest.created',
        ...by(a, id),
        resourceType: 'guest',
        resourceId: guestId,
        payload: detail,
      },
    ]);
  });
});

describe.concurrent('events of the guest import', () => {
  it('records guest.created / guest.updated for the stored rows (REST detail, audit action guests.import); unchanged rows record nothing', async () => {
    const a = await tenant();
    const first = await call(a, 'POST', '/guests/import', [
      { location_id: a.locationId, name: 'Ann Lee', email: 'ann@example.com', tags: ['vip'] },
      { location_id: a.locationId, name: 'Bo Chen', partner_id: 'P-1' },
    ]);
    expect(first.res.text).toBe('{"data":{"created":2,"updated":0,"skipped":0},"errors":{}}');
    const guests = await prisma().guest.findMany({
      where: { tenantId: a.tenantId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    const [ann, bo] = guests;
    const detail = async (id: string | undefined) =>
      dataOf(await t.request('GET', `/api/v1/guests/${id}`, { token: a.token }));
    const annBefore = await detail(ann?.id);
    expect(await eventsOf(a.tenantId)).toEqual([
      {
        id: 1,
        type: 'guest.created',
        ...by(a, first.id),
        resourceType: 'guest',
        resourceId: ann?.id,
        payload: annBefore,
      },
      {
        id: 2,
        type: 'guest.created',
        ...by(a, first.id),
        resourceType: 'guest',
        resourceId: bo?.id,
        payload: await detail(bo?.id),
      },
    ]);
    // An upsert: Ann's room changes, Bo's row sends what he has (nothing changes, no event).
    const second = await call(a, 'POST', '/guests/import?upsert_by=email', [
      { location_id: a.locationId, email: 'ANN@example.com', room_no: '12' },
    ]);
    expect(second.res.text).toBe('{"data":{"created":0,"updated":1,"skipped":0},"errors":{}}');
    const third = await call(a, 'POST', '/guests/import?upsert_by=partner_id', [
      { location_id: a.locationId, name: 'Bo Chen', partner_id: 'P-1' },
    ]);
    expect(third.res.text).toBe('{"data":{"created":0,"updated":1,"skipped":0},"errors":{}}');
    const events = await eventsOf(a.tenantId);
    expect(events.slice(2)).toEqual([
      {
        id: 3,
        type: 'guest.updated',
        ...by(a, second.id),
        resourceType: 'guest',
        resourceId: ann?.id,
        payload: await detail(ann?.id),
      },
    ]);
    const audit = await prisma().auditLog.findMany({
      where: { tenantId: a.tenantId },
      orderBy: { createdAt: 'asc' },
    });
    // One import's entries share the transaction's time: compared in a fixed order.
    const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();
    expect(sorted(audit.map((e) => [e.action, e.resourceId, e.requestId]))).toEqual(
      sorted([
        ['guests.import', ann?.id, first.id],
        ['guests.import', bo?.id, first.id],
        ['guests.import', ann?.id, second.id],
      ]),
    );
    // The row's e-mail matched case-insensitively and is stored as sent.
    expect(audit.find((e) => e.requestId === second.id)?.changes).toEqual({
      email: { old: 'ann@example.com', new: 'ANN@example.com' },
      room_no: { old: null, new: '12' },
    });
  });
});

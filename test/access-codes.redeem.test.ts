// POST /api/v1/access-codes/redeem and GraphQL `redeemAccessCode` (vouchers, beyond the spec): one
// use counted exactly once (twenty concurrent redeems of a single-use code: one succeeds), every
// refusal named, the device linked to its guest, a session opened on demand, the service profile's
// limits answered; pinned roles, the controller's `ingest` token and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addDevice, addGuest, addSession, addUser, newTenant, randomMac } from './helpers/fixtures.js';
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

const CODES = '/api/v1/access-codes';
const REDEEM = '/api/v1/access-codes/redeem';
const prisma = () => t.db.prisma;

const tenant = () => newTenant(prisma());
type Tenant = Awaited<ReturnType<typeof tenant>>;

const micros = (d: Date) => `${d.toISOString().slice(0, 23)}000Z`;
/** `yyyy-mm-dd` of today plus `days`, in UTC. */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Creates codes through the API (201) and answers them. */
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

const redeem = (token: string, body: Record<string, unknown>) => t.request('POST', REDEEM, { token, body });

/** A session started through the ingest (`POST /ingest/sessions`), for the guest at the tenant's location. */
const startSession = (
  ingest: string,
  s: { id: string; mac: string; ip: string; guest: { id: string }; a: Tenant },
) =>
  t.request('POST', '/api/v1/ingest/sessions', {
    token: ingest,
    body: {
      events: [
        {
          event_id: s.id,
          kind: 'start',
          mac: s.mac,
          ip: s.ip,
          location_id: s.a.location_id,
          guest_id: s.guest.id,
          bytes_up: 0,
          bytes_down: 0,
          login_type: 'Email',
          at: new Date().toISOString(),
        },
      ],
    },
  });

function ok(res: TestResponse): Json {
  expect(res.status, res.text).toBe(200);
  return res.json;
}

function expect422(res: TestResponse, errors: Record<string, string[]>): void {
  expect(res.status, res.text).toBe(422);
  expect(res.json).toEqual(unprocessable(errors));
}

const refused = (res: TestResponse, message: string) => expect422(res, { code: [message] });

const stored = (id: string) => prisma().accessCode.findUniqueOrThrow({ where: { id } });

/** A service profile with limits, in the tenant. */
const limitedProfile = (a: Tenant) =>
  prisma().serviceProfile.create({
    data: {
      tenantId: a.tenant_id,
      name: `Premium ${Math.random()}`,
      sessionDuration: 90,
      dataQuota: 5_368_709_120n,
      bandwidthUp: 2048,
      bandwidthDown: 16384,
    },
  });

// -------------------------------------------------------------------------------------------------
describe.concurrent('rows a redeem or the session ingest creates and updates in one transaction', () => {
  // Probe T: `"updatedAt" = now()` (the transaction's start) came before the `createdAt` Prisma had
  // given the rows a moment later (by 1.2 s on the embedded database).
  it('are never updated before they were created', async () => {
    const a = await tenant();
    const code = await one(a);
    const mac = randomMac();
    ok(
      await redeem(a.token, {
        code: code.code,
        location_id: a.location_id,
        mac,
        start_session: true,
        ip_address: '10.5.0.1',
      }),
    );
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const other = randomMac();
    const guest = await addGuest(prisma(), a.tenant_id, a.location_id);
    const sent = await startSession(ingest, { id: `upd-${other}`, mac: other, ip: '10.5.0.2', guest, a });
    expect(sent.status, sent.text).toBe(200);
    const devices = await prisma().guestDevice.findMany({
      where: { tenantId: a.tenant_id },
      include: { guest: true },
    });
    expect(devices).toHaveLength(2);
    for (const d of devices) {
      expect(d.updatedAt.getTime(), `device ${d.mac}`).toBeGreaterThanOrEqual(d.createdAt.getTime());
      expect(d.guest.updatedAt.getTime(), `guest of ${d.mac}`).toBeGreaterThanOrEqual(
        d.guest.createdAt.getTime(),
      );
    }
  });
});

describe('an IPv6 address the ingest or a redeem is sent in upper case (probe R)', () => {
  it('is stored in lower case, so GET /sessions/:ip_address and sessionsByIp find it under any spelling', async () => {
    const a = await tenant();
    const code = await one(a);
    ok(
      await redeem(a.token, {
        code: code.code,
        location_id: a.location_id,
        mac: randomMac(),
        start_session: true,
        ip_address: '2001:DB8::BEEF',
      }),
    );
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const guest = await addGuest(prisma(), a.tenant_id, a.location_id);
    const mac = randomMac();
    const sent = await startSession(ingest, { id: `v6-${mac}`, mac, ip: '2001:DB8::ABCD', guest, a });
    expect(sent.status, sent.text).toBe(200);
    for (const ip of ['2001:db8::beef', '2001:db8::abcd']) {
      for (const spelling of [ip, ip.toUpperCase()]) {
        const res = await t.request('GET', `/api/v1/sessions/${spelling}`, { token: a.token });
        expect(res.status, `${spelling}: ${res.text}`).toBe(200);
        expect(res.json.ip_address).toBe(ip);
      }
    }
    const devices = await prisma().guestDevice.findMany({
      where: { tenantId: a.tenant_id },
      select: { ip: true },
    });
    expect(devices.map((d) => d.ip).sort()).toEqual(['2001:db8::abcd', '2001:db8::beef']);
    const gql = await t.graphql(
      a.token,
      '{ sessionsByIp(ipAddresses: ["2001:DB8::ABCD", "2001:db8::beef"]) { ipAddress } }',
    );
    expect(gql.json).toEqual({
      data: { sessionsByIp: [{ ipAddress: '2001:db8::abcd' }, { ipAddress: '2001:db8::beef' }] },
    });
  });
});

describe.concurrent('POST /access-codes/redeem', () => {
  it('counts one use of a single-use code and answers the exact body with the limits', async () => {
    const a = await tenant();
    const profile = await limitedProfile(a);
    const code = await one(a, { service_profile_id: profile.id, description: 'Room 12' });
    expect(code.max_uses).toBe(1);
    const res = await redeem(a.token, {
      code: code.code,
      location_id: a.location_id,
      mac: 'aa-bb-cc-dd-ee-01',
    });
    expect(res.status, res.text).toBe(200);
    const row = await stored(code.id);
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect(device.mac).toBe('AA:BB:CC:DD:EE:01');
    const guest = await prisma().guest.findUniqueOrThrow({ where: { id: device.guestId } });
    // No guest named and no device known: an anonymous guest at the location, named after the MAC.
    expect(guest).toMatchObject({
      locationId: a.location_id,
      name: 'AA:BB:CC:DD:EE:01',
      username: 'AA:BB:CC:DD:EE:01',
    });
    const location = await prisma().location.findUniqueOrThrow({ where: { id: a.location_id } });
    expect(row.usedAt).not.toBeNull();
    expect(res.text).toBe(
      `{"data":{"id":"${code.id}","location_id":"${a.location_id}","location_name":"${location.name}",` +
        `"code":"${code.code}","type":2,"type_name":"Access Code","description":"Room 12",` +
        `"service_profile_id":"${profile.id}","service_profile_name":"${profile.name}","start_date":null,` +
        `"expiry_date":null,"status":2,"status_name":"Used","use_count":1,"used_at":"${micros(row.usedAt as Date)}",` +
        `"guest_id":"${guest.id}","guest_name":"AA:BB:CC:DD:EE:01","created_at":"${code.created_at}",` +
        `"max_uses":1,"revoked_at":null},` +
        `"limits":{"session_duration":90,"data_quota":5368709120,"bandwidth_up":2048,"bandwidth_down":16384}}`,
    );
    expect(row).toMatchObject({ status: 2, useCount: 1, guestId: guest.id });
    // The list shows the same item.
    const listed = await t.request('GET', `${CODES}?code=${code.code}`, { token: a.token });
    expect(listed.json.data[0]).toEqual(res.json.data);
    // Used up now, from any device.
    refused(
      await redeem(a.token, { code: code.code, location_id: a.location_id, mac: randomMac() }),
      'The code has been used up.',
    );
    expect((await stored(code.id)).useCount).toBe(1);
  });

  it('lets a shared code be redeemed without limit by default, never giving it a guest', async () => {
    const a = await tenant();
    const code = await one(a, { type: 1, code: 'LOBBY-2026' });
    expect(code.max_uses).toBeNull();
    for (let i = 1; i <= 3; i++) {
      const body = ok(
        await redeem(a.token, { code: 'LOBBY-2026', location_id: a.location_id, mac: randomMac() }),
      );
      expect(body.data).toMatchObject({
        status: 1,
        status_name: 'Available',
        use_count: i,
        guest_id: null,
        guest_name: '',
      });
      expect(body.limits).toEqual({
        session_duration: 0,
        data_quota: null,
        bandwidth_up: 0,
        bandwidth_down: 0,
      });
    }
    // Three devices, three anonymous guests.
    expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id } })).toBe(3);
  });

  it('takes max_uses on creation: a shared code of 2 uses is used up at the third', async () => {
    const a = await tenant();
    const code = await one(a, { type: 1, code: 'TWICE', max_uses: 2 });
    expect(code.max_uses).toBe(2);
    const body = { code: 'TWICE', location_id: a.location_id, mac: randomMac() };
    expect(ok(await redeem(a.token, body)).data).toMatchObject({ use_count: 1, status: 1 });
    expect(ok(await redeem(a.token, body)).data).toMatchObject({
      use_count: 2,
      status: 2,
      status_name: 'Used',
    });
    refused(await redeem(a.token, body), 'The code has been used up.');
    const five = await one(a, { quantity: 2, max_uses: '5' });
    expect(five.max_uses).toBe(5);
  });

  it('names every refusal and changes nothing', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Pool bar' } });
    const at = (code: string, extra: Record<string, unknown> = {}) =>
      redeem(a.token, { code, location_id: a.location_id, mac: randomMac(), ...extra });

    const shared = await one(a, { type: 1, code: 'CaseSensitive' });
    refused(await at('NOPE1234'), 'The selected code is invalid.');
    refused(await at('casesensitive'), 'The selected code is invalid.');
    const theirs = await one(b, { type: 1, code: 'THEIRS' });
    refused(await at(theirs.code), 'The selected code is invalid.');

    const elsewhere = await one(a, { location_id: other.id });
    refused(await at(elsewhere.code), 'The code is not valid at this location.');
    const early = await one(a, { start_date: day(1) });
    refused(await at(early.code), 'The code is not valid yet.');
    // Expiry is the stored instant (the day at 00:00 UTC): today's has come.
    const expired = await one(a, { expiry_date: day(0) });
    refused(await at(expired.code), 'The code has expired.');
    const revoked = await one(a, { expiry_date: day(0) });
    expect((await t.request('PUT', `${CODES}/${revoked.id}/revoke`, { token: a.token })).status).toBe(200);
    // Revoked comes before expired.
    refused(await at(revoked.code), 'The code has been revoked.');
    const startsToday = await one(a, { start_date: day(0), expiry_date: day(1) });
    expect(ok(await at(startsToday.code)).data.use_count).toBe(1);

    for (const c of [shared, elsewhere, early, expired, revoked]) {
      expect((await stored(c.id)).useCount).toBe(0);
    }
    expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id } })).toBe(1);
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(1);
  });

  it('checks every field with Laravel’s messages', async () => {
    const a = await tenant();
    const b = await tenant();
    const code = await one(a);
    const base = { code: code.code, location_id: a.location_id, mac: randomMac() };
    const res = await redeem(a.token, {});
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      '{"message":"The code field is required. (and 2 more errors)","errors":{' +
        '"code":["The code field is required."],"location_id":["The location id field is required."],' +
        '"mac":["The mac field is required."]}}',
    );
    expect422(await redeem(a.token, { ...base, mac: 'aa:bb:cc:dd:ee', code: 'x'.repeat(65) }), {
      code: ['The code field must not be greater than 64 characters.'],
      mac: ['The mac field must be a valid MAC address.'],
    });
    expect422(await redeem(a.token, { ...base, location_id: b.location_id, guest_id: 'nope', mac: 12 }), {
      location_id: ['The selected location id is invalid.'],
      mac: ['The mac field must be a string.', 'The mac field must be a valid MAC address.'],
      guest_id: ['The selected guest id is invalid.'],
    });
    expect422(await redeem(a.token, { ...base, start_session: 'yes' }), {
      start_session: ['The start session field must be true or false.'],
    });
    // The word `"true"` too, as Laravel's `boolean` reads a body (it was taken as true);
    // `required_if` reads it as `true`, as Laravel's does.
    expect422(await redeem(a.token, { ...base, start_session: 'true' }), {
      start_session: ['The start session field must be true or false.'],
      ip_address: ['The ip address field is required when start session is true.'],
    });
    expect422(await redeem(a.token, { ...base, start_session: true }), {
      ip_address: ['The ip address field is required when start session is true.'],
    });
    for (const ip_address of ['10.0.0.300', 'fe80::1%eth0']) {
      expect422(await redeem(a.token, { ...base, start_session: false, ip_address }), {
        ip_address: ['The ip address field must be a valid IP address.'],
      });
    }
    expect422(await redeem(a.token, { ...base, code: ['A'] }), {
      code: ['The code field must be a string.'],
    });
    // Nothing was counted meanwhile.
    expect((await stored(code.id)).useCount).toBe(0);
    expect((await t.request('POST', REDEEM, { body: base })).status).toBe(401);
  });

  it('links the device: to the guest named, else its own guest, else the code’s guest', async () => {
    const a = await tenant();
    const x = await addGuest(prisma(), a.tenant_id, a.location_id, { name: 'Xavier Guest' });
    const y = await addGuest(prisma(), a.tenant_id, a.location_id, { name: 'Yolanda Guest' });
    const at = (code: Json, mac: string, extra: Record<string, unknown> = {}) =>
      redeem(a.token, { code: code.code, location_id: a.location_id, mac, ...extra });

    // A new MAC with a guest named: a device of that guest; the code takes the guest.
    const c1 = await one(a);
    const m1 = randomMac();
    expect(ok(await at(c1, m1.toLowerCase(), { guest_id: x.id })).data).toMatchObject({
      guest_id: x.id,
      guest_name: 'Xavier Guest',
    });
    expect(await prisma().guestDevice.findFirstOrThrow({ where: { mac: m1 } })).toMatchObject({
      guestId: x.id,
    });

    // A known device (stored lower-case by another writer), no guest named: its own guest.
    const known = await addDevice(prisma(), a.tenant_id, y.id, { mac: randomMac().toLowerCase() });
    const c2 = await one(a);
    expect(ok(await at(c2, known.mac.replaceAll(':', '-').toUpperCase())).data.guest_id).toBe(y.id);
    // Named with another guest: the device moves to that guest.
    const c3 = await one(a);
    expect(ok(await at(c3, known.mac, { guest_id: x.id })).data.guest_id).toBe(x.id);
    expect((await prisma().guestDevice.findUniqueOrThrow({ where: { id: known.id } })).guestId).toBe(x.id);

    // A code issued to a guest: a new device without a guest named becomes that guest's.
    const issued = await one(a, { guest_id: y.id });
    const m2 = randomMac();
    expect(ok(await at(issued, m2)).data.guest_id).toBe(y.id);
    expect((await prisma().guestDevice.findFirstOrThrow({ where: { mac: m2 } })).guestId).toBe(y.id);
    // No anonymous guest was needed.
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(2);
  });

  it('opens a guest session when asked, closing the one the device left open', async () => {
    const a = await tenant();
    const profile = await limitedProfile(a);
    const guest = await addGuest(prisma(), a.tenant_id, a.location_id);
    const device = await addDevice(prisma(), a.tenant_id, guest.id);
    const forgotten = await prisma().guestSession.create({
      data: {
        tenantId: a.tenant_id,
        locationId: a.location_id,
        guestId: guest.id,
        deviceId: device.id,
        ipAddress: '10.0.0.9',
        startTime: new Date(Date.now() - 3_600_000),
        online: true,
        connectionStatus: 1,
      },
    });
    const code = await one(a, { service_profile_id: profile.id });
    const body = ok(
      await redeem(a.token, {
        code: code.code,
        location_id: a.location_id,
        mac: device.mac,
        start_session: true,
        ip_address: '10.0.0.42',
      }),
    );
    expect(body.data.guest_id).toBe(guest.id);
    const sessions = await prisma().guestSession.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { startTime: 'asc' },
    });
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toMatchObject({ id: forgotten.id, online: false });
    expect(sessions[0]?.endTime).not.toBeNull();
    expect(sessions[1]).toMatchObject({
      locationId: a.location_id,
      guestId: guest.id,
      deviceId: device.id,
      ipAddress: '10.0.0.42',
      accessCodeId: code.id,
      serviceProfileId: profile.id,
      loginType: 'Access Code',
      endTime: null,
      online: true,
    });
    expect(await prisma().guestDevice.findUniqueOrThrow({ where: { id: device.id } })).toMatchObject({
      ip: '10.0.0.42',
      online: true,
    });
    expect(await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } })).toMatchObject({
      online: true,
      visitCount: 1,
      lastLoginType: 'Access Code',
    });
    // Without start_session no session is opened.
    const shared = await one(a, { type: 1, code: 'NO-SESSION' });
    ok(await redeem(a.token, { code: shared.code, location_id: a.location_id, mac: device.mac }));
    expect(await prisma().guestSession.count({ where: { tenantId: a.tenant_id } })).toBe(2);
  });

  it('lets the controller’s ingest token and pinned users redeem at their location', async () => {
    const a = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Spa' } });
    const guest = await addGuest(prisma(), a.tenant_id, a.location_id, { name: 'Hidden Name' });
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const issued = await one(a, { guest_id: guest.id });
    const body = ok(
      await redeem(ingest, { code: issued.code, location_id: a.location_id, mac: randomMac() }),
    );
    // The token may redeem, not read guests: no guest name.
    expect(body.data).toMatchObject({ use_count: 1, guest_id: guest.id, guest_name: '' });
    expect((await t.request('GET', CODES, { token: ingest })).status).toBe(403);

    const theirs = await one(a, { location_id: other.id, type: 1, code: 'SPA' });
    for (const role of ['venue', 'front-desk'] as const) {
      const user = await addUser(prisma(), a.tenant_id, role, { locationId: a.location_id });
      const mine = await one(a);
      expect(
        ok(await redeem(user.token, { code: mine.code, location_id: a.location_id, mac: randomMac() })).data
          .use_count,
      ).toBe(1);
      expect422(await redeem(user.token, { code: theirs.code, location_id: other.id, mac: randomMac() }), {
        location_id: ['The selected location id is invalid.'],
      });
      refused(
        await redeem(user.token, { code: theirs.code, location_id: a.location_id, mac: randomMac() }),
        'The code is not valid at this location.',
      );
    }
    expect((await stored(theirs.id)).useCount).toBe(0);
  });

  it('counts a use the session ingest reports, and marks the code Used at its max_uses', async () => {
    const a = await tenant();
    const guest = await addGuest(prisma(), a.tenant_id, a.location_id);
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const code = await one(a);
    const res = await t.request('POST', '/api/v1/ingest/sessions', {
      token: ingest,
      body: {
        events: [
          {
            event_id: `e-${Date.now()}`,
            kind: 'start',
            mac: randomMac(),
            ip: '10.1.1.1',
            guest_id: guest.id,
            location_id: a.location_id,
            bytes_up: 0,
            bytes_down: 0,
            login_type: 'Access Code',
            access_code: code.code,
            at: new Date().toISOString(),
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(await stored(code.id)).toMatchObject({ useCount: 1, status: 2 });
    refused(
      await redeem(a.token, { code: code.code, location_id: a.location_id, mac: randomMac() }),
      'The code has been used up.',
    );
  });
});

// -------------------------------------------------------------------------------------------------
// Exactly once: concurrent redeems race for the code's row, and only the uses it has left succeed.
describe('concurrent redeems', () => {
  it('twenty concurrent redeems of a single-use code: one 200, nineteen 422 used up', async () => {
    const a = await tenant();
    const code = await one(a);
    const macs = Array.from({ length: 20 }, () => randomMac());
    const results = await Promise.all(
      macs.map((mac) => redeem(a.token, { code: code.code, location_id: a.location_id, mac })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 422)) {
      expect(r.json).toEqual(unprocessable({ code: ['The code has been used up.'] }));
    }
    expect(await stored(code.id)).toMatchObject({ useCount: 1, status: 2 });
    // The losers' devices and guests were rolled back.
    expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id } })).toBe(1);
    expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(1);
  });

  it('twenty concurrent redeems of a shared code of five uses: five succeed', async () => {
    const a = await tenant();
    await one(a, { type: 1, code: 'FIVE', max_uses: 5 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        redeem(a.token, { code: 'FIVE', location_id: a.location_id, mac: randomMac() }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 422)).toHaveLength(15);
    const counts = results.filter((r) => r.status === 200).map((r) => r.json.data.use_count);
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5]);
    const row = await prisma().accessCode.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect(row).toMatchObject({ useCount: 5, status: 2 });
  });

  it('two first redeems from one new MAC share one device', async () => {
    const a = await tenant();
    await one(a, { type: 1, code: 'SAME-MAC' });
    const mac = randomMac();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => redeem(a.token, { code: 'SAME-MAC', location_id: a.location_id, mac })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id } })).toBe(1);
  });
});

// -------------------------------------------------------------------------------------------------
const REDEEM_GQL = `mutation($input: RedeemAccessCodeInput!) {
  redeemAccessCode(input: $input) {
    accessCode { id code status statusName useCount maxUses guestId guestName revokedAt }
    limits { sessionDuration dataQuota bandwidthUp bandwidthDown }
    deviceId
    sessionId
  }
}`;

describe.concurrent('GraphQL redeemAccessCode', () => {
  it('redeems with the same rules, refusals and messages', async () => {
    const a = await tenant();
    const b = await tenant();
    const profile = await limitedProfile(a);
    const code = await one(a, { service_profile_id: profile.id });
    const mac = randomMac();
    const res = await t.graphql(a.token, REDEEM_GQL, {
      input: {
        code: code.code,
        locationId: a.location_id,
        mac,
        startSession: true,
        ipAddress: '192.168.1.10',
      },
    });
    expect(res.json.errors, res.text).toBeUndefined();
    const r = res.json.data.redeemAccessCode;
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    const session = await prisma().guestSession.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect(r).toEqual({
      accessCode: {
        id: code.id,
        code: code.code,
        status: 2,
        statusName: 'Used',
        useCount: 1,
        maxUses: 1,
        guestId: device.guestId,
        guestName: mac,
        revokedAt: null,
      },
      limits: { sessionDuration: 90, dataQuota: 5368709120, bandwidthUp: 2048, bandwidthDown: 16384 },
      deviceId: device.id,
      sessionId: session.id,
    });
    const again = await t.graphql(a.token, REDEEM_GQL, {
      input: { code: code.code, locationId: a.location_id, mac: randomMac() },
    });
    expect(again.json.errors[0].message).toBe('The code has been used up.');
    expect(again.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { code: ['The code has been used up.'] },
    });
    const bad = await t.graphql(a.token, REDEEM_GQL, {
      input: { code: code.code, locationId: b.location_id, mac: 'nope', startSession: true },
    });
    expect(bad.json.errors[0].extensions.fields).toEqual({
      locationId: ['The selected location id is invalid.'],
      mac: ['The mac field must be a valid MAC address.'],
      ipAddress: ['The ip address field is required when start session is true.'],
    });
    const foreign = await t.graphql(b.token, REDEEM_GQL, {
      input: { code: code.code, locationId: b.location_id, mac: randomMac() },
    });
    expect(foreign.json.errors[0].extensions.fields).toEqual({ code: ['The selected code is invalid.'] });
    expect((await stored(code.id)).useCount).toBe(1);
  });
});

describe.concurrent('GraphQL redeemAccessCode: an answer the caller may not read', () => {
  it('is refused before the use is counted (an ingest token asking for the location’s guests): FORBIDDEN, use count 0', async () => {
    const a = await tenant();
    const code = await one(a);
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const input = { code: code.code, locationId: a.location_id, mac: randomMac() };
    const beyond = await t.graphql(
      ingest,
      `mutation($input: RedeemAccessCodeInput!) {
        redeemAccessCode(input: $input) { accessCode { id useCount location { guests(first: 1) { totalCount } } } }
      }`,
      { input },
    );
    expect(beyond.json.data).toBeNull();
    expect(beyond.json.errors.map((e: Json) => [e.message, e.extensions.code])).toEqual([
      ['This action is unauthorized.', 'FORBIDDEN'],
    ]);
    expect((await stored(code.id)).useCount).toBe(0);
    expect(await prisma().event.count({ where: { tenantId: a.tenant_id, type: 'access_code.used' } })).toBe(
      0,
    );
    // What the token may read: the use is counted and answered.
    const within = await t.graphql(
      ingest,
      'mutation($input: RedeemAccessCodeInput!) { redeemAccessCode(input: $input) { accessCode { id useCount } } }',
      { input },
    );
    expect(within.json).toEqual({ data: { redeemAccessCode: { accessCode: { id: code.id, useCount: 1 } } } });
  });
});

// Two connections redeeming one code at once: PGlite's one connection serialises them.
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'concurrent first uses of a generated code without a guest',
  () => {
    it('link every device to the one guest the first use gave the code; each answer names that guest', async () => {
      const a = await tenant();
      const code = await one(a, { max_uses: 5 });
      expect(code.guest_id).toBeNull();
      const guestsBefore = await prisma().guest.count({ where: { tenantId: a.tenant_id } });
      const macs = Array.from({ length: 5 }, () => randomMac());
      const answers = await Promise.all(
        macs.map((mac) => redeem(a.token, { code: code.code, location_id: a.location_id, mac })),
      );
      const bodies = answers.map(ok);
      const holder = (await stored(code.id)).guestId;
      expect(holder).not.toBeNull();
      expect(await prisma().guest.count({ where: { tenantId: a.tenant_id } })).toBe(guestsBefore + 1);
      const devices = await prisma().guestDevice.findMany({
        where: { tenantId: a.tenant_id, mac: { in: macs } },
      });
      expect(devices.map((d) => d.guestId)).toEqual(macs.map(() => holder));
      const name = (await prisma().guest.findUniqueOrThrow({ where: { id: holder as string } })).name;
      expect(bodies.map((b) => [b.data.guest_id, b.data.guest_name])).toEqual(macs.map(() => [holder, name]));
    });
  },
);

// Alone: it counts every statement sent while its own request runs.
describe.sequential('redeem statement count', () => {
  it('redeems a shared code for a known device in a fixed number of statements', async () => {
    const a = await tenant();
    await one(a, { type: 1, code: 'HOT-PATH' });
    const body = { code: 'HOT-PATH', location_id: a.location_id, mac: randomMac() };
    ok(await redeem(a.token, body));
    const { result, sql } = await recordStatements(t.db, () => redeem(a.token, body));
    expect(result.status, result.text).toBe(200);
    // Authentication, the code and location rules, the code with its names and limits, then in
    // one transaction the device's turn (src/modules/presence/device-locks.ts), the device, the
    // conditional update and the event (with its audit entry).
    // (PGlite reports its commit as `-- Implicit "COMMIT" query …`, PostgreSQL as `COMMIT`.)
    expect(sql.filter((s) => !/^BEGIN\b|\bCOMMIT\b/.test(s))).toHaveLength(8);
  });
});

describe.concurrent('GraphQL redeemAccessCode isolation', () => {
  it('keeps pinned users to their location and other tenants out', async () => {
    const a = await tenant();
    const b = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Garden' } });
    const theirs = await one(a, { type: 1, code: 'GARDEN', location_id: other.id });
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const atOther = await t.graphql(venue.token, REDEEM_GQL, {
      input: { code: 'GARDEN', locationId: other.id, mac: randomMac() },
    });
    expect(atOther.json.errors[0].extensions.fields).toEqual({
      locationId: ['The selected location id is invalid.'],
    });
    const here = await t.graphql(venue.token, REDEEM_GQL, {
      input: { code: 'GARDEN', locationId: a.location_id, mac: randomMac() },
    });
    expect(here.json.errors[0].extensions.fields).toEqual({
      code: ['The code is not valid at this location.'],
    });
    const foreign = await t.graphql(b.token, REDEEM_GQL, {
      input: { code: 'GARDEN', locationId: a.location_id, mac: randomMac() },
    });
    expect(foreign.json.errors[0].extensions.fields).toEqual({
      code: ['The selected code is invalid.'],
      locationId: ['The selected location id is invalid.'],
    });
    expect((await stored(theirs.id)).useCount).toBe(0);
  });

  it('a pinned caller’s redeem leaves another location’s device, its guest and session alone (probe S)', async () => {
    const a = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Annex' } });
    const away = await addGuest(prisma(), a.tenant_id, other.id);
    const device = await addDevice(prisma(), a.tenant_id, away.id);
    const open = await addSession(
      prisma(),
      a.tenant_id,
      { guestId: away.id, deviceId: device.id, locationId: other.id },
      { startTime: new Date(Date.now() - 60_000), endTime: null },
    );
    const mine = await addGuest(prisma(), a.tenant_id, a.location_id);
    const code = await one(a, { type: 1, code: `LOBBY${Date.now()}` });
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    for (const extra of [{}, { guest_id: mine.id }]) {
      const body = {
        code: code.code,
        location_id: a.location_id,
        mac: device.mac,
        start_session: true,
        ip_address: '10.0.0.77',
        ...extra,
      };
      const res = await redeem(venue.token, body);
      expect([res.status, res.json], JSON.stringify(body)).toEqual([
        422,
        { message: 'The selected mac is invalid.', errors: { mac: ['The selected mac is invalid.'] } },
      ]);
    }
    // Nothing moved, closed or counted; the tenant's admin may still redeem it (the device roams).
    expect((await prisma().guestDevice.findUniqueOrThrow({ where: { id: device.id } })).guestId).toBe(
      away.id,
    );
    expect((await prisma().guestSession.findUniqueOrThrow({ where: { id: open.id } })).endTime).toBeNull();
    expect((await stored(code.id)).useCount).toBe(0);
    const admin = await redeem(a.token, {
      code: code.code,
      location_id: a.location_id,
      mac: device.mac,
      guest_id: mine.id,
    });
    expect(admin.status, admin.text).toBe(200);
    expect((await prisma().guestDevice.findUniqueOrThrow({ where: { id: device.id } })).guestId).toBe(
      mine.id,
    );
  });

  it('a pinned caller may not give a new device to the code’s guest of another location (probe Z2)', async () => {
    const a = await tenant();
    const other = await prisma().location.create({ data: { tenantId: a.tenant_id, name: 'Harbour' } });
    const away = await addGuest(prisma(), a.tenant_id, other.id, { visitCount: 7 });
    const shared = await one(a, { type: 1, code: `HARBOUR${Date.now()}`, guest_id: away.id });
    const [generated] = await create(a, { quantity: 1 });
    await prisma().accessCode.update({ where: { id: generated.id }, data: { guestId: away.id } });
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const refusal = 'The code belongs to a guest of another location.';
    for (const code of [shared, generated]) {
      const mac = randomMac();
      const body = {
        code: code.code,
        location_id: a.location_id,
        mac,
        start_session: true,
        ip_address: '10.0.0.9',
      };
      expect422(await redeem(venue.token, body), { code: [refusal] });
      const gql = await t.graphql(venue.token, REDEEM_GQL, {
        input: { code: code.code, locationId: a.location_id, mac, startSession: true, ipAddress: '10.0.0.9' },
      });
      expect(gql.json.errors?.[0]?.extensions?.fields, gql.text).toEqual({ code: [refusal] });
      // Nothing written: no device, no session, the guest's visits and the code's uses as they were.
      expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id, mac } })).toBe(0);
      expect((await stored(code.id)).useCount).toBe(0);
    }
    expect(await prisma().guestSession.count({ where: { guestId: away.id } })).toBe(0);
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: away.id } })).visitCount).toBe(7);
    // The tenant's admin (every location) may: the device joins the code's guest.
    const admin = await redeem(a.token, { code: shared.code, location_id: a.location_id, mac: randomMac() });
    expect(ok(admin).data.guest_id).toBe(away.id);
  });
});

// REST /api/v1/sessions (spec 2.5, 2.6, 4.4 and the decisions): exact bodies, durations, sizes,
// local display times, every filter, `GET /sessions/:ip_address` in all its forms, pinned roles,
// tenant isolation and a fixed number of statements per page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { addDevice, addGuest, addSession, addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const URL = '/api/v1/sessions';
const H = 3_600_000;

/** A tenant with a guest, one device and a place to hold sessions. */
async function setup(opts: { timezone?: string; partnerId?: string } = {}) {
  const a = await newTenant(t.db.prisma);
  if (opts.timezone) {
    await t.db.prisma.location.update({ where: { id: a.location_id }, data: { timezone: opts.timezone } });
  }
  const guest = await addGuest(t.db.prisma, a.tenant_id, a.location_id, {
    partnerId: opts.partnerId ?? null,
  });
  const device = await addDevice(t.db.prisma, a.tenant_id, guest.id, { description: 'Phone' });
  const at = { guestId: guest.id, deviceId: device.id, locationId: a.location_id };
  const session = (data: Parameters<typeof addSession>[3] = {}) =>
    addSession(t.db.prisma, a.tenant_id, at, data);
  return { a, guest, device, at, session };
}

async function ids(token: string, query: string): Promise<string[]> {
  const res = await t.request('GET', `${URL}${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.json.data.map((d: { id: string }) => d.id);
}

async function count(token: string, query: string): Promise<number> {
  const res = await t.request('GET', `${URL}/count${query}`, { token });
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.json)).toEqual(['count']);
  return res.json.count;
}

// -------------------------------------------------------------------------------------------------
// Alone: it counts every statement sent while its own request runs.
describe.sequential('GET /sessions statement count', () => {
  it('sends the same statements for one session and for a full page of 100', async () => {
    const small = await setup({ timezone: 'Asia/Dubai' });
    await small.session();
    const large = await setup();
    const code = await t.db.prisma.accessCode.create({
      data: {
        tenantId: large.a.tenant_id,
        locationId: large.a.location_id,
        serviceProfileId: large.a.service_profile_id,
        code: 'ABCD2345',
        type: 2,
      },
    });
    const data = Array.from({ length: 120 }, (_, i) => ({
      tenantId: large.a.tenant_id,
      ...large.at,
      ipAddress: `10.0.${i >> 8}.${i & 255}`,
      startTime: new Date(Date.UTC(2026, 0, 1) + i * H),
      endTime: new Date(Date.UTC(2026, 0, 1) + i * H + 60_000),
      accessCodeId: i % 2 ? code.id : null,
      serviceProfileId: large.a.service_profile_id,
    }));
    await t.db.prisma.guestSession.createMany({ data });
    for (const query of ['', '?per_page=100&last_session_first=1']) {
      const a = await recordStatements(t.db, () =>
        t.request('GET', `${URL}${query}`, { token: small.a.token }),
      );
      const b = await recordStatements(t.db, () =>
        t.request('GET', `${URL}${query}`, { token: large.a.token }),
      );
      expect(a.result.json.data).toHaveLength(1);
      expect(b.result.json.data).toHaveLength(query ? 100 : 10);
      expect(b.result.json.data[1].access_code).toBe(query ? '' : 'ABCD2345');
      expect(a.sql.length).toBeGreaterThan(0);
      // Sorted: on PostgreSQL the relation reads run in parallel on the pool, in any order.
      expect([...b.sql].sort(), 'statements grow with the page (N+1)').toEqual([...a.sql].sort());
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /sessions', () => {
  it('writes every field of spec 2.5 in order, local times in the location time zone', async () => {
    const { a, guest, device, session } = await setup({ timezone: 'Asia/Dubai', partnerId: 'ext/1' });
    await t.db.prisma.guestDevice.update({ where: { id: device.id }, data: { mac: 'A4:5E:60:C1:2B:0F' } });
    const code = await t.db.prisma.accessCode.create({
      data: {
        tenantId: a.tenant_id,
        locationId: a.location_id,
        serviceProfileId: a.service_profile_id,
        code: 'K7M9P2QX',
        type: 2,
      },
    });
    const loc = await t.db.prisma.location.findUniqueOrThrow({ where: { id: a.location_id } });
    // 49 hours, 3 minutes, 10 seconds: hours grow past 24.
    const start = new Date('2026-01-05T09:05:03.789Z');
    const s = await session({
      ipAddress: '192.168.1.20',
      loginType: 'Access Code',
      accessCodeId: code.id,
      serviceProfileId: a.service_profile_id,
      downloadedData: 12_939_428n,
      uploadedData: 1536n,
      startTime: start,
      endTime: new Date(start.getTime() + 49 * H + 3 * 60_000 + 10_000),
      online: false,
      connectionStatus: 0,
    });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[{"id":"${s.id}","location_id":"${a.location_id}","location_name":"${loc.name}",` +
        `"guest_device_description":"Phone","guest_device_mac":"A4:5E:60:C1:2B:0F",` +
        `"guest_device_ip":"192.168.1.20","access_code":"K7M9P2QX","login_type_name":"Access Code",` +
        `"service_profile_name":"Default","total_duration":"49:03:10","downloaded_data":"12.34 MB",` +
        `"uploaded_data":"1.5 KB","connection_status":"Offline","connection_status_value":0,` +
        `"start_time":"2026-01-05T09:05:03+00:00","end_time":"2026-01-07T10:08:13+00:00",` +
        // Dubai is UTC+4.
        `"start_time_formatted":"2026-01-05 1:05 PM","end_time_formatted":"2026-01-07 2:08 PM",` +
        String.raw`"guest_id":"${guest.id}","partner_id":"ext\/1"}],` +
        String.raw`"links":{"first":"http:\/\/localhost\/api\/v1\/sessions?page=1","last":null,"prev":null,"next":null},` +
        String.raw`"meta":{"current_page":1,"from":1,"to":1,"path":"http:\/\/localhost\/api\/v1\/sessions","per_page":10}}`,
    );
  });

  it('counts the duration between the whole seconds it shows, on both transports (06:59:00.500 to 07:01:00.499 was 00:01:59; probe T)', async () => {
    const { a, session } = await setup();
    const s = await session({
      startTime: new Date('2026-03-08T06:59:00.500Z'),
      endTime: new Date('2026-03-08T07:01:00.499Z'),
    });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.json.data[0]).toMatchObject({
      id: s.id,
      start_time: '2026-03-08T06:59:00+00:00',
      end_time: '2026-03-08T07:01:00+00:00',
      total_duration: '00:02:00',
    });
    const gql = await t.request('POST', '/graphql', {
      token: a.token,
      body: { query: '{ guestSessions(first: 1) { edges { node { durationSeconds totalDuration } } } }' },
    });
    expect(gql.json.data.guestSessions.edges[0].node).toEqual({
      durationSeconds: 120,
      totalDuration: '00:02:00',
    });
  });

  it('shows an open session as Online, counting its duration up to now, with null end times', async () => {
    const { a, session } = await setup();
    const s = await session({
      startTime: new Date(Date.now() - (2 * H + 3 * 60_000 + 4_000)),
      endTime: null,
      online: true,
      connectionStatus: 1,
    });
    const res = await t.request('GET', URL, { token: a.token });
    const item = res.json.data[0];
    expect(item.id).toBe(s.id);
    // 02:03:04 at creation; the request may run a second or two later.
    expect(['02:03:04', '02:03:05', '02:03:06']).toContain(item.total_duration);
    expect(item).toMatchObject({
      connection_status: 'Online',
      connection_status_value: 1,
      end_time: null,
      end_time_formatted: null,
      access_code: '',
      service_profile_name: '',
      login_type_name: '',
      partner_id: null,
      downloaded_data: '0 B',
    });
  });

  it('formats local times across a date boundary and on a 12-hour clock', async () => {
    const { a, session } = await setup({ timezone: 'America/New_York' });
    await session({ startTime: new Date('2026-01-05T03:30:00Z'), endTime: new Date('2026-01-05T17:00:00Z') });
    await session({ startTime: new Date('2026-07-01T04:00:00Z'), endTime: new Date('2026-07-01T16:59:00Z') });
    const res = await t.request('GET', URL, { token: a.token });
    expect(
      res.json.data.map((s: { start_time_formatted: string; end_time_formatted: string }) => [
        s.start_time_formatted,
        s.end_time_formatted,
      ]),
    ).toEqual([
      ['2026-01-04 10:30 PM', '2026-01-05 12:00 PM'],
      // Daylight saving time: UTC-4.
      ['2026-07-01 12:00 AM', '2026-07-01 12:59 PM'],
    ]);
  });

  it('orders oldest first by default (id breaks ties); last_session_first puts the newest first', async () => {
    const { a, session } = await setup();
    const same = new Date('2026-01-05T10:00:00Z');
    const late = await session({ startTime: new Date('2026-01-09T10:00:00Z') });
    const t1 = await session({ startTime: same });
    const early = await session({ startTime: new Date('2026-01-01T10:00:00Z') });
    const t2 = await session({ startTime: same });
    const oldest = [early.id, ...[t1.id, t2.id].sort(), late.id];
    expect(await ids(a.token, '')).toEqual(oldest);
    expect(await ids(a.token, '?last_session_first=false')).toEqual(oldest);
    expect(await ids(a.token, '?last_session_first=true')).toEqual([...oldest].reverse());
    expect(await ids(a.token, '?last_session_first=1&per_page=2&page=2')).toEqual(
      [...oldest].reverse().slice(2),
    );
    // The count takes it too (and it changes nothing there), validated like the list.
    expect(await count(a.token, '?last_session_first=true')).toBe(4);
    for (const path of ['', '/count']) {
      const res = await t.request('GET', `${URL}${path}?last_session_first=newest`, { token: a.token });
      expect(res.status).toBe(422);
      expect(res.json).toEqual(
        unprocessable({ last_session_first: ['The last session first field must be true or false.'] }),
      );
    }
  });

  it('filters by guest_id and location_id', async () => {
    const { a, at, session } = await setup();
    const other = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const otherDevice = await addDevice(t.db.prisma, a.tenant_id, other.id);
    const elsewhere = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Elsewhere' },
    });
    const mine = await session();
    const there = await session({ locationId: elsewhere.id, startTime: new Date('2026-02-01T00:00:00Z') });
    const theirs = await addSession(t.db.prisma, a.tenant_id, {
      ...at,
      guestId: other.id,
      deviceId: otherDevice.id,
    });
    expect(await ids(a.token, `?guest_id=${at.guestId}`)).toEqual([mine.id, there.id]);
    expect(await count(a.token, `?guest_id=${other.id}`)).toBe(1);
    expect(await ids(a.token, `?location_id=${elsewhere.id}`)).toEqual([there.id]);
    expect(await count(a.token, `?location_id=${a.location_id}`)).toBe(2);
    expect(await ids(a.token, `?location_id=${a.location_id}&guest_id=${other.id}`)).toEqual([theirs.id]);
    expect(await ids(a.token, '?guest_id=nope')).toEqual([]);
  });

  it('filters by guest_device_mac in any common notation and refuses a malformed one', async () => {
    const { a, guest, session } = await setup();
    const d2 = await addDevice(t.db.prisma, a.tenant_id, guest.id, { mac: 'A4:5E:60:C1:2B:0F' });
    await session();
    const s = await session({ deviceId: d2.id });
    for (const mac of ['A4:5E:60:C1:2B:0F', 'a4-5e-60-c1-2b-0f', 'a45e.60c1.2b0f']) {
      expect(await ids(a.token, `?guest_device_mac=${mac}`), mac).toEqual([s.id]);
      expect(await count(a.token, `?guest_device_mac=${mac}`), mac).toBe(1);
    }
    const res = await t.request('GET', `${URL}/count?guest_device_mac=A4:5E`, { token: a.token });
    expect(res.status).toBe(422);
    expect(res.json).toEqual(
      unprocessable({ guest_device_mac: ['The guest device mac field must be a valid MAC address.'] }),
    );
  });

  it('filters start_time (started on or after that day) and end_time (ended on or before that day)', async () => {
    const { a, session } = await setup();
    const jan4 = await session({
      startTime: new Date('2026-01-04T23:00:00Z'),
      endTime: new Date('2026-01-05T00:30:00Z'),
    });
    const jan5 = await session({
      startTime: new Date('2026-01-05T00:00:00Z'),
      endTime: new Date('2026-01-05T23:59:59Z'),
    });
    const open = await session({ startTime: new Date('2026-01-06T08:00:00Z'), endTime: null });
    expect(await ids(a.token, '?start_time=2026-01-05')).toEqual([jan5.id, open.id]);
    expect(await count(a.token, '?start_time=2026-01-04')).toBe(3);
    // An open session has not ended: never in an end_time filter.
    expect(await ids(a.token, '?end_time=2026-01-05')).toEqual([jan4.id, jan5.id]);
    expect(await ids(a.token, '?end_time=2026-01-04')).toEqual([]);
    expect(await ids(a.token, '?start_time=2026-01-05&end_time=2026-01-05')).toEqual([jan5.id]);
    expect(await ids(a.token, '?start_time=0001-01-01&end_time=9999-12-31')).toEqual([jan4.id, jan5.id]);
    expect(await count(a.token, '?end_time=2027-01-01')).toBe(2);
    const res = await t.request('GET', `${URL}?start_time=2026-01-05T00:00:00Z&end_time=yesterday`, {
      token: a.token,
    });
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      '{"message":"The start time field must match the format Y-m-d. (and 1 more error)","errors":{' +
        '"start_time":["The start time field must match the format Y-m-d."],' +
        '"end_time":["The end time field must match the format Y-m-d."]}}',
    );
  });

  it("filters partner_id by the guest's partner id, and online", async () => {
    const { a, at, session } = await setup({ partnerId: 'crm-1' });
    const other = await addGuest(t.db.prisma, a.tenant_id, a.location_id, { partnerId: 'crm-2' });
    const otherDevice = await addDevice(t.db.prisma, a.tenant_id, other.id);
    const on = await session({ online: true, connectionStatus: 1, endTime: null });
    const off = await session({ startTime: new Date('2026-03-01T00:00:00Z') });
    const theirs = await addSession(t.db.prisma, a.tenant_id, {
      ...at,
      guestId: other.id,
      deviceId: otherDevice.id,
    });
    expect(await ids(a.token, '?partner_id=crm-1')).toEqual([on.id, off.id]);
    expect(await count(a.token, '?partner_id=crm-2')).toBe(1);
    expect(await ids(a.token, '?partner_id=crm')).toEqual([]);
    expect(await ids(a.token, '?online=true')).toEqual([on.id]);
    expect(await ids(a.token, '?online=0')).toEqual([theirs.id, off.id]);
    expect(await count(a.token, '?online=1&partner_id=crm-1')).toBe(1);
    const res = await t.request('GET', `${URL}?online=2`, { token: a.token });
    expect(res.status).toBe(422);
    expect(res.json).toEqual(unprocessable({ online: ['The online field must be true or false.'] }));
  });

  it('refuses per_page over 100', async () => {
    const { a } = await setup();
    const res = await t.request('GET', `${URL}?per_page=101`, { token: a.token });
    expect(res.status).toBe(422);
    expect(res.json).toEqual(
      unprocessable({ per_page: ['The per page field must not be greater than 100.'] }),
    );
  });

  it("shows venue and front-desk users only their location's sessions", async () => {
    const { a, session } = await setup();
    const elsewhere = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Elsewhere' },
    });
    const home = await session({ ipAddress: '10.9.0.1' });
    const away = await session({
      locationId: elsewhere.id,
      ipAddress: '10.9.0.2',
      startTime: new Date('2026-02-01T00:00:00Z'),
    });
    for (const role of ['venue', 'front-desk'] as const) {
      const u = await addUser(t.db.prisma, a.tenant_id, role, { locationId: a.location_id });
      expect(await ids(u.token, '')).toEqual([home.id]);
      expect(await count(u.token, '')).toBe(1);
      expect(await ids(u.token, `?location_id=${elsewhere.id}`)).toEqual([]);
      const one = await t.request('GET', `${URL}/10.9.0.2`, { token: u.token });
      expect(one.status).toBe(404);
      const both = await t.request('GET', `${URL}/10.9.0.1,10.9.0.2`, { token: u.token });
      expect(both.json.map((r: { ip_address: string }) => r.ip_address)).toEqual(['10.9.0.1']);
    }
    expect(await ids(a.token, '')).toEqual([home.id, away.id]);
  });

  it('never shows another tenant’s sessions, whatever the filter or path', async () => {
    const mine = await setup({ partnerId: 'shared' });
    const theirs = await setup({ partnerId: 'shared' });
    const s = await mine.session({ ipAddress: '172.16.0.1' });
    const foreign = await theirs.session({ ipAddress: '172.16.0.2' });
    expect(await ids(mine.a.token, '')).toEqual([s.id]);
    expect(await ids(theirs.a.token, '')).toEqual([foreign.id]);
    expect(await ids(mine.a.token, `?guest_id=${theirs.guest.id}`)).toEqual([]);
    expect(await ids(mine.a.token, `?location_id=${theirs.a.location_id}`)).toEqual([]);
    expect(await count(mine.a.token, `?guest_device_mac=${theirs.device.mac}`)).toBe(0);
    expect(await count(mine.a.token, '?partner_id=shared')).toBe(1);
    const one = await t.request('GET', `${URL}/172.16.0.2`, { token: mine.a.token });
    expect(one.status).toBe(404);
    expect(one.text).toBe('{"error":"Record not found."}');
    const many = await t.request('GET', `${URL}/172.16.0.1,172.16.0.2`, { token: mine.a.token });
    expect(many.json.map((r: { ip_address: string }) => r.ip_address)).toEqual(['172.16.0.1']);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /sessions/:ip_address', () => {
  it('answers one address with an object for its latest session and the guest', async () => {
    const { a, guest, session } = await setup();
    await session({ ipAddress: '10.20.0.5', startTime: new Date('2026-01-01T08:00:00Z') });
    // The latest by start time, whatever the creation order: 49h 3m 10s.
    await session({
      ipAddress: '10.20.0.5',
      startTime: new Date('2026-01-03T08:00:00Z'),
      endTime: new Date('2026-01-05T09:03:10Z'),
    });
    await session({ ipAddress: '10.20.0.5', startTime: new Date('2026-01-02T08:00:00Z') });
    const res = await t.request('GET', `${URL}/10.20.0.5`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"ip_address":"10.20.0.5","username":"${guest.username}","name":"${guest.name}",` +
        `"email":"${guest.email}","duration":176590}`,
    );
  });

  it('counts an open session up to now', async () => {
    const { a, session } = await setup();
    await session({ ipAddress: '10.20.0.6', startTime: new Date(Date.now() - 90_000), endTime: null });
    const res = await t.request('GET', `${URL}/10.20.0.6`, { token: a.token });
    expect(res.json.duration).toBeGreaterThanOrEqual(90);
    expect(res.json.duration).toBeLessThan(95);
  });

  it('answers several addresses with an array in the order asked, unknown ones left out', async () => {
    const { a, guest, session } = await setup();
    const other = await addGuest(t.db.prisma, a.tenant_id, a.location_id, { email: null, name: 'Zoë' });
    const otherDevice = await addDevice(t.db.prisma, a.tenant_id, other.id);
    await session({ ipAddress: '10.30.0.1' });
    await session({ ipAddress: '2001:db8::1' });
    await addSession(
      t.db.prisma,
      a.tenant_id,
      { guestId: other.id, deviceId: otherDevice.id, locationId: a.location_id },
      { ipAddress: '10.30.0.2', endTime: new Date(Date.UTC(2026, 0, 10, 8, 0, 42)) },
    );
    const res = await t.request('GET', `${URL}/10.30.0.2,10.30.0.9,10.30.0.1,2001:DB8::1,10.30.0.1`, {
      token: a.token,
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `[{"ip_address":"10.30.0.2","username":"${other.username}","name":"Zo\\u00eb","email":null,"duration":42},` +
        `{"ip_address":"10.30.0.1","username":"${guest.username}","name":"${guest.name}","email":"${guest.email}","duration":3600},` +
        `{"ip_address":"2001:db8::1","username":"${guest.username}","name":"${guest.name}","email":"${guest.email}","duration":3600}]`,
    );
    const none = await t.request('GET', `${URL}/10.30.0.8,10.30.0.9`, { token: a.token });
    expect(none.status).toBe(200);
    expect(none.text).toBe('[]');
  });

  it('answers one unknown address with 404', async () => {
    const { a } = await setup();
    const res = await t.request('GET', `${URL}/10.40.0.1`, { token: a.token });
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"error":"Record not found."}');
  });

  it('refuses more than 100 addresses', async () => {
    const { a, session } = await setup();
    await session({ ipAddress: '10.50.0.1' });
    const hundred = Array.from({ length: 100 }, (_, i) => `10.50.0.${i + 1}`);
    const ok = await t.request('GET', `${URL}/${hundred.join(',')}`, { token: a.token });
    expect(ok.status).toBe(200);
    expect(ok.json).toHaveLength(1);
    // The longest addresses fit too (Fastify's default parameter limit is 100 characters).
    const long = Array.from(
      { length: 100 },
      (_, i) => `2001:0db8:85a3:0000:0000:8a2e:0370:${String(i).padStart(4, '0')}`,
    );
    const ipv6 = await t.request('GET', `${URL}/${long.join(',')}`, { token: a.token });
    expect(ipv6.status).toBe(200);
    expect(ipv6.text).toBe('[]');
    const res = await t.request('GET', `${URL}/${[...hundred, '10.50.1.1'].join(',')}`, { token: a.token });
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      '{"message":"The ip address field must not have more than 100 items.",' +
        '"errors":{"ip_address":["The ip address field must not have more than 100 items."]}}',
    );
  });

  it('refuses a malformed address, naming its position', async () => {
    const { a } = await setup();
    const one = await t.request('GET', `${URL}/10.0.0.256`, { token: a.token });
    expect(one.status).toBe(422);
    expect(one.text).toBe(
      '{"message":"The ip_address.0 field must be a valid IP address.",' +
        '"errors":{"ip_address.0":["The ip_address.0 field must be a valid IP address."]}}',
    );
    const many = await t.request('GET', `${URL}/10.0.0.1,abc,,2001:db8::g,fe80::1%25eth0`, {
      token: a.token,
    });
    expect(many.status).toBe(422);
    expect(many.json).toEqual(
      unprocessable({
        'ip_address.1': ['The ip_address.1 field must be a valid IP address.'],
        'ip_address.2': ['The ip_address.2 field must be a valid IP address.'],
        'ip_address.3': ['The ip_address.3 field must be a valid IP address.'],
        // An IPv6 zone, which PHP's FILTER_VALIDATE_IP refuses.
        'ip_address.4': ['The ip_address.4 field must be a valid IP address.'],
      }),
    );
  });

  it('leaves /sessions/count to the count (the static route wins)', async () => {
    const { a, session } = await setup();
    await session();
    const res = await t.request('GET', `${URL}/count`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"count":1}');
  });

  it('needs a token on every path', async () => {
    for (const path of ['', '/count', '/10.0.0.1']) {
      const res = await t.request('GET', `${URL}${path}`);
      expect(res.status).toBe(401);
      expect(res.text).toBe('{"message":"Unauthenticated."}');
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL guestSessions, sessionsByIp and nested sessions', () => {
  const LIST = `query S($first: Int, $after: String, $guestId: String, $locationId: String, $mac: String,
      $startTime: String, $endTime: String, $partnerId: String, $online: Boolean, $last: Boolean) {
    guestSessions(first: $first, after: $after, guestId: $guestId, locationId: $locationId,
        guestDeviceMac: $mac, startTime: $startTime, endTime: $endTime, partnerId: $partnerId,
        online: $online, lastSessionFirst: $last) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { id } }
    }
  }`;

  async function graphqlIds(token: string, vars: Record<string, unknown>) {
    const all: string[] = [];
    let after: string | null = null;
    let totalCount = -1;
    for (let i = 0; i < 20; i++) {
      const res = await t.graphql(token, LIST, { ...vars, first: 2, after });
      expect(res.json.errors, res.text).toBeUndefined();
      const conn = res.json.data.guestSessions;
      totalCount = conn.totalCount;
      all.push(...conn.edges.map((e: { node: { id: string } }) => e.node.id));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    return { ids: all, totalCount };
  }

  it('returns the same records as REST for the same filters, in the same order', async () => {
    const { a, guest, device, at, session } = await setup({ partnerId: 'crm' });
    const other = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const otherDevice = await addDevice(t.db.prisma, a.tenant_id, other.id);
    const elsewhere = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Elsewhere' },
    });
    for (let i = 0; i < 6; i++) {
      const start = new Date(Date.UTC(2026, 0, 10 - i, 12));
      const data = {
        startTime: start,
        endTime: i === 0 ? null : new Date(start.getTime() + H),
        online: i === 0,
      };
      if (i % 2) await session({ ...data, locationId: i === 5 ? elsewhere.id : a.location_id });
      else
        await addSession(
          t.db.prisma,
          a.tenant_id,
          { ...at, guestId: other.id, deviceId: otherDevice.id },
          data,
        );
    }
    const cases: [string, Record<string, unknown>][] = [
      ['', {}],
      ['?last_session_first=true', { last: true }],
      [`?guest_id=${guest.id}`, { guestId: guest.id }],
      [`?location_id=${elsewhere.id}`, { locationId: elsewhere.id }],
      [`?guest_device_mac=${device.mac.toLowerCase()}`, { mac: device.mac.toLowerCase() }],
      ['?start_time=2026-01-07', { startTime: '2026-01-07' }],
      ['?end_time=2026-01-08&last_session_first=1', { endTime: '2026-01-08', last: true }],
      ['?partner_id=crm', { partnerId: 'crm' }],
      ['?online=true', { online: true }],
    ];
    for (const [query, vars] of cases) {
      const rest = await ids(a.token, `${query}${query ? '&' : '?'}per_page=100`);
      const gql = await graphqlIds(a.token, vars);
      expect(gql.ids, query).toEqual(rest);
      expect(gql.totalCount, query).toBe(await count(a.token, query));
      expect(rest.length, `${query} selects something`).toBeGreaterThan(0);
    }
  });

  it('shows durations, sizes and local times as REST does, with raw values beside them', async () => {
    const { a, device, session } = await setup({ timezone: 'Asia/Dubai' });
    const start = new Date('2026-01-05T09:05:03Z');
    const closed = await session({
      startTime: start,
      endTime: new Date(start.getTime() + 49 * H + 3 * 60_000 + 10_000),
      downloadedData: 12_939_428n,
      uploadedData: 0n,
      serviceProfileId: a.service_profile_id,
      loginType: 'Social',
    });
    const made = Date.now();
    const open = await session({
      startTime: new Date(made - 61_000),
      endTime: null,
      connectionStatus: 1,
    });
    const res = await t.graphql(
      a.token,
      `{ guestSessions { edges { node { id totalDuration durationSeconds downloadedData downloadedDataHuman
        uploadedDataHuman startTime endTime startTimeFormatted endTimeFormatted serviceProfileName accessCode
        loginType connectionStatusName device { id } location { id } } } } }`,
    );
    expect(res.json.errors, res.text).toBeUndefined();
    const [c, o] = res.json.data.guestSessions.edges.map((e: { node: unknown }) => e.node);
    expect(c).toEqual({
      id: closed.id,
      totalDuration: '49:03:10',
      durationSeconds: 176_590,
      downloadedData: 12_939_428,
      downloadedDataHuman: '12.34 MB',
      uploadedDataHuman: '0 B',
      startTime: '2026-01-05T09:05:03.000000Z',
      endTime: '2026-01-07T10:08:13.000000Z',
      startTimeFormatted: '2026-01-05 1:05 PM',
      endTimeFormatted: '2026-01-07 2:08 PM',
      serviceProfileName: 'Default',
      accessCode: null,
      loginType: 'Social',
      connectionStatusName: 'Offline',
      device: { id: device.id },
      location: { id: a.location_id },
    });
    expect(o).toMatchObject({
      id: open.id,
      endTime: null,
      endTimeFormatted: null,
      connectionStatusName: 'Online',
    });
    // Running: 61 s and the time since (a loaded machine took more than 5 s here).
    expect(o.durationSeconds).toBeGreaterThanOrEqual(61);
    expect(o.durationSeconds).toBeLessThanOrEqual(61 + Math.ceil((Date.now() - made) / 1000));
    const [m, sec] = [Math.floor(o.durationSeconds / 60), o.durationSeconds % 60];
    expect(o.totalDuration).toBe(`00:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`);
  });

  it('answers sessionsByIp with the known addresses, and REST’s messages for bad input', async () => {
    const { a, guest, session } = await setup();
    await session({ ipAddress: '10.60.0.1', endTime: new Date(Date.UTC(2026, 0, 10, 8, 0, 7)) });
    const Q =
      'query B($ips: [String!]!) { sessionsByIp(ipAddresses: $ips) { ipAddress username name email duration } }';
    const res = await t.graphql(a.token, Q, { ips: ['10.60.0.9', '10.60.0.1'] });
    expect(res.json).toEqual({
      data: {
        sessionsByIp: [
          {
            ipAddress: '10.60.0.1',
            username: guest.username,
            name: guest.name,
            email: guest.email,
            duration: 7,
          },
        ],
      },
    });
    const unknown = await t.graphql(a.token, Q, { ips: ['10.60.0.9'] });
    expect(unknown.json).toEqual({ data: { sessionsByIp: [] } });
    const bad = await t.graphql(a.token, Q, { ips: ['10.60.0.1', 'x'] });
    expect(bad.json.errors[0].message).toBe('The ip_addresses.1 field must be a valid IP address.');
    expect(bad.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { 'ipAddresses.1': ['The ip_addresses.1 field must be a valid IP address.'] },
    });
    const many = await t.graphql(a.token, Q, { ips: Array.from({ length: 101 }, (_, i) => `10.61.0.${i}`) });
    expect(many.json.errors[0].extensions.fields).toEqual({
      ipAddresses: ['The ip addresses field must not have more than 100 items.'],
    });
    // Another tenant's addresses are unknown.
    const other = await setup();
    const foreign = await t.graphql(other.a.token, Q, { ips: ['10.60.0.1'] });
    expect(foreign.json).toEqual({ data: { sessionsByIp: [] } });
  });

  it('lists a guest’s and a device’s sessions newest first, never another tenant’s or location’s', async () => {
    const { a, guest, device, session } = await setup();
    const elsewhere = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Elsewhere' },
    });
    const older = await session({ startTime: new Date('2026-01-01T00:00:00Z') });
    const newer = await session({ startTime: new Date('2026-01-02T00:00:00Z') });
    const away = await session({ startTime: new Date('2026-01-03T00:00:00Z'), locationId: elsewhere.id });
    const other = await setup();
    await other.session();
    const Q = `{ guests { edges { node { id sessions { totalCount edges { node { id } } }
      devices { edges { node { id sessions { totalCount edges { node { id } } } } } } } } } }`;
    const ids2 = (conn: { totalCount: number; edges: { node: { id: string } }[] }) => ({
      totalCount: conn.totalCount,
      ids: conn.edges.map((e) => e.node.id),
    });
    const res = await t.graphql(a.token, Q);
    expect(res.json.errors, res.text).toBeUndefined();
    const [g] = res.json.data.guests.edges.map((e: { node: unknown }) => e.node);
    expect(res.json.data.guests.edges).toHaveLength(1);
    expect(g.id).toBe(guest.id);
    expect(ids2(g.sessions)).toEqual({ totalCount: 3, ids: [away.id, newer.id, older.id] });
    expect(g.devices.edges[0].node.id).toBe(device.id);
    expect(ids2(g.devices.edges[0].node.sessions)).toEqual({
      totalCount: 3,
      ids: [away.id, newer.id, older.id],
    });
    // A venue user of the default location sees the same guest without the session elsewhere.
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const pinned = await t.graphql(venue.token, Q);
    expect(pinned.json.errors, pinned.text).toBeUndefined();
    const [pg] = pinned.json.data.guests.edges.map((e: { node: unknown }) => e.node);
    expect(ids2(pg.sessions)).toEqual({ totalCount: 2, ids: [newer.id, older.id] });
    expect(ids2(pg.devices.edges[0].node.sessions)).toEqual({ totalCount: 2, ids: [newer.id, older.id] });
    expect(await graphqlIds(venue.token, {})).toEqual({ ids: [older.id, newer.id], totalCount: 2 });
    expect(await graphqlIds(a.token, { guestId: other.guest.id })).toEqual({ ids: [], totalCount: 0 });
  });
});

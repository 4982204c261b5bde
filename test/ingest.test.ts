// The ingest (beyond the spec): presence and session accounting batches, validated whole (every bad
// event named by index, nothing half-written), idempotent by event id, and kept consistent with
// presence, location sessions and logs, sessions, devices and guests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLOCK_SKEW_MINUTES } from '../src/modules/ingest/ingest.inputs.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, addUser, newTenant, randomMac, uniqueName } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const PRESENCE = '/api/v1/ingest/presence';
const SESSIONS = '/api/v1/ingest/sessions';
const ACTIVE = '/api/v1/locations-analytics/active-sessions';
const prisma = () => t.db.prisma;

async function setup() {
  const a = await newTenant(prisma());
  const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 2 });
  const zones = await prisma().zone.findMany({
    where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
    include: { floor: true },
    orderBy: { name: 'asc' },
  });
  const [z0, z1] = zones as [(typeof zones)[number], (typeof zones)[number]];
  const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
  return { a, locationId, z0, z1, ingest };
}

let n = 0;
const eid = (): string => `evt-${Date.now()}-${++n}`;
const iso = (secondsAgo: number): string => new Date(Date.now() - secondsAgo * 1000).toISOString();

const presence = (data: Record<string, unknown>) => ({
  event_id: eid(),
  mac: 'aa-bb-cc-00-00-01',
  data_type: 1,
  connected: false,
  seen_at: iso(10),
  ...data,
});

const tables = async (tenantId: string) => ({
  presence: await prisma().presenceRecord.count({ where: { tenantId } }),
  current: await prisma().currentPresence.count({ where: { tenantId } }),
  sessions: await prisma().locationSession.count({ where: { tenantId } }),
  logs: await prisma().locationLog.count({ where: { tenantId } }),
  events: await prisma().ingestEvent.count({ where: { tenantId } }),
  guestSessions: await prisma().guestSession.count({ where: { tenantId } }),
  devices: await prisma().guestDevice.count({ where: { tenantId } }),
});

describe.concurrent('POST /ingest/presence', () => {
  it('writes presence that active sessions then show, with place ids resolved from the zone', async () => {
    const { a, locationId, z0, ingest } = await setup();
    const seenAt = iso(5);
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          presence({
            mac: 'aa-bb-cc-00-00-01',
            zone_id: z0.id,
            x: 2,
            y: 3.5,
            connected: true,
            seen_at: seenAt,
          }),
          presence({ mac: '0A:00:00:00:00:02', floor_id: z0.floorId, data_type: 2 }),
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('{"accepted":2}');
    const active = await t.request('GET', ACTIVE, { token: a.token });
    const byMac = Object.fromEntries(
      active.json.data.map((d: { mac_address: string }) => [d.mac_address, d]),
    );
    expect(byMac['AA:BB:CC:00:00:01']).toMatchObject({
      data_type: 1,
      x: 2,
      y: 3.5,
      location_id: locationId,
      building_id: z0.floor.buildingId,
      floor_id: z0.floorId,
      zone_id: z0.id,
      zone: 'Z0',
      connected: 1,
      last_seen: `${seenAt.slice(0, 23)}000Z`,
    });
    expect(byMac['0A:00:00:00:00:02']).toMatchObject({ data_type: 2, floor_id: z0.floorId, zone_id: null });
  });

  it('names every bad event by index and writes nothing', async () => {
    const { a, z0, ingest } = await setup();
    const other = await newTenant(prisma());
    const before = await tables(a.tenant_id);
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          presence({ zone_id: z0.id }),
          presence({ mac: 'not-a-mac', data_type: 3, zone_id: z0.id }),
          presence({ seen_at: 'yesterday' }),
          presence({ location_id: other.location_id }),
          'nonsense',
          presence({ zone_id: z0.id, location_id: other.location_id, event_id: undefined }),
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: 'The events.1.mac field must be a valid MAC address. (and 7 more errors)',
      errors: {
        'events.1.mac': ['The events.1.mac field must be a valid MAC address.'],
        'events.1.data_type': ['The selected events.1.data_type is invalid.'],
        'events.2.location_id': [
          'The events.2.location_id field is required when none of events.2.zone_id / events.2.floor_id are present.',
        ],
        'events.2.seen_at': [
          'The events.2.seen_at field must be a valid ISO 8601 date-time with a time zone.',
        ],
        'events.3.location_id': ['The selected events.3.location_id is invalid.'],
        'events.4': ['The events.4 field must be an object.'],
        'events.5.event_id': ['The events.5.event_id field is required.'],
        // Named though the event failed another rule: Laravel runs every rule (probe Z3).
        'events.5.location_id': ['The selected events.5.location_id is invalid.'],
      },
    });
    // Each event's fields in its rules' order, as Laravel lists them.
    expect(Object.keys(res.json.errors)).toEqual([
      'events.1.mac',
      'events.1.data_type',
      'events.2.location_id',
      'events.2.seen_at',
      'events.3.location_id',
      'events.4',
      'events.5.event_id',
      'events.5.location_id',
    ]);
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('checks the ids of an event that failed another rule: every message in one 422 (probe Z3)', async () => {
    const { a, z0, ingest } = await setup();
    const before = await tables(a.tenant_id);
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          presence({ data_type: 3, zone_id: 'QnyXibmTfnge' }),
          presence({ data_type: 3, zone_id: 5 }),
          presence({ data_type: 3, zone_id: z0.id, floor_id: ['x'] }),
          // Each unknown id is named, as each exists rule is (probe Z5), not only the first.
          presence({ zone_id: 'nozone', floor_id: 'nofloor', location_id: 'noloc' }),
          presence({ zone_id: 'nozone', floor_id: 7 }),
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      JSON.stringify({
        message: 'The selected events.0.data_type is invalid. (and 12 more errors)',
        errors: {
          'events.0.data_type': ['The selected events.0.data_type is invalid.'],
          'events.0.zone_id': ['The selected events.0.zone_id is invalid.'],
          'events.1.data_type': ['The selected events.1.data_type is invalid.'],
          'events.1.zone_id': [
            'The events.1.zone_id field must be a string.',
            'The selected events.1.zone_id is invalid.',
          ],
          'events.2.data_type': ['The selected events.2.data_type is invalid.'],
          'events.2.floor_id': ['The events.2.floor_id field must be a string.'],
          'events.3.zone_id': ['The selected events.3.zone_id is invalid.'],
          'events.3.floor_id': ['The selected events.3.floor_id is invalid.'],
          'events.3.location_id': ['The selected events.3.location_id is invalid.'],
          'events.4.zone_id': ['The selected events.4.zone_id is invalid.'],
          'events.4.floor_id': [
            'The events.4.floor_id field must be a string.',
            'The selected events.4.floor_id is invalid.',
          ],
        },
      }),
    );
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('refuses a moment the database cannot hold (year 0, or past 9999 once its offset applies)', async () => {
    const { a, z0, ingest } = await setup();
    const before = await tables(a.tenant_id);
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          presence({ zone_id: z0.id, seen_at: '0001-01-01T00:00:00+14:00' }),
          presence({ zone_id: z0.id, seen_at: '9999-12-31T23:59:59-14:00' }),
          presence({ zone_id: z0.id, seen_at: '0001-01-01T00:00:00Z' }),
        ],
      },
    });
    expect(res.status).toBe(422);
    // Year 1 in UTC can be held, but is before 2000: a reset clock's, refused too.
    expect(res.json.errors).toEqual({
      'events.0.seen_at': ['The events.0.seen_at field must be a valid ISO 8601 date-time with a time zone.'],
      'events.1.seen_at': ['The events.1.seen_at field must be a valid ISO 8601 date-time with a time zone.'],
      'events.2.seen_at': ['The events.2.seen_at field must be a date after or equal to 2000-01-01.'],
    });
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('refuses a day the calendar lacks, and a time more than MAX_CLOCK_SKEW_MINUTES ahead (a fast clock a little is fine)', async () => {
    const { a, z0, ingest } = await setup();
    const before = await tables(a.tenant_id);
    const ahead = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          presence({ zone_id: z0.id, seen_at: '2026-02-30T10:00:00Z' }),
          presence({ zone_id: z0.id, seen_at: '2026-04-31T10:00:00+02:00' }),
          presence({ zone_id: z0.id, seen_at: ahead(MAX_CLOCK_SKEW_MINUTES + 1) }),
          presence({ zone_id: z0.id, seen_at: '2030-01-01T00:00:00Z' }),
          presence({ zone_id: z0.id, seen_at: ahead(MAX_CLOCK_SKEW_MINUTES - 1) }),
          // A controller's clock reset: before 2000 (probe R: a session of 1900 overflowed its duration).
          presence({ zone_id: z0.id, seen_at: '1999-12-31T23:59:59Z' }),
          presence({ zone_id: z0.id, seen_at: '0001-01-01T00:00:00Z' }),
          presence({ zone_id: z0.id, seen_at: '2000-01-01T00:00:00Z' }),
        ],
      },
    });
    expect(res.status).toBe(422);
    const late = (i: number) =>
      `The events.${i}.seen_at field must be a date before or equal to ${MAX_CLOCK_SKEW_MINUTES} minutes from now.`;
    const early = (i: number) => `The events.${i}.seen_at field must be a date after or equal to 2000-01-01.`;
    expect(res.json.errors).toEqual({
      'events.0.seen_at': ['The events.0.seen_at field must be a valid ISO 8601 date-time with a time zone.'],
      'events.1.seen_at': ['The events.1.seen_at field must be a valid ISO 8601 date-time with a time zone.'],
      'events.2.seen_at': [late(2)],
      'events.3.seen_at': [late(3)],
      'events.5.seen_at': [early(5)],
      'events.6.seen_at': [early(6)],
    });
    expect(await tables(a.tenant_id)).toEqual(before);
    // A session event's time likewise.
    const start = (at: string) => ({
      event_id: eid(),
      kind: 'start',
      mac: 'aa-bb-cc-00-00-09',
      ip: '10.0.0.9',
      location_id: a.location_id,
      bytes_up: 0,
      bytes_down: 0,
      login_type: 'voucher',
      at,
    });
    const session = await t.request('POST', SESSIONS, {
      token: ingest,
      body: { events: [start('2030-01-01T00:00:00Z'), start('1970-01-01T00:00:00Z')] },
    });
    expect(session.json.errors).toEqual({
      'events.0.at': [
        `The events.0.at field must be a date before or equal to ${MAX_CLOCK_SKEW_MINUTES} minutes from now.`,
      ],
      'events.1.at': ['The events.1.at field must be a date after or equal to 2000-01-01.'],
    });
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('refuses a zone of another location than the one named, and the envelope', async () => {
    const { z0, ingest, a } = await setup();
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: { events: [presence({ zone_id: z0.id, location_id: a.location_id })] },
    });
    expect(res.json.errors).toEqual({
      'events.0.location_id': ['The selected events.0.location_id is invalid.'],
    });
    const none = await t.request('POST', PRESENCE, { token: ingest, body: {} });
    expect(none.status).toBe(422);
    expect(none.json.errors).toEqual({ events: ['The events field is required.'] });
    const many = await t.request('POST', PRESENCE, {
      token: ingest,
      body: { events: Array.from({ length: 1001 }, () => presence({ zone_id: z0.id })) },
    });
    expect(many.json.errors).toEqual({ events: ['The events field must not have more than 1000 items.'] });
  });

  it('applies a retried batch once and answers the same', async () => {
    const { a, z0, z1, ingest } = await setup();
    const batch = {
      events: [
        presence({ zone_id: z0.id, seen_at: iso(30) }),
        presence({ zone_id: z1.id, seen_at: iso(20) }),
        presence({ mac: 'AA:BB:CC:00:00:09', zone_id: z1.id, seen_at: iso(20) }),
      ],
    };
    const first = await t.request('POST', PRESENCE, { token: ingest, body: batch });
    const after = await tables(a.tenant_id);
    const second = await t.request('POST', PRESENCE, { token: ingest, body: batch });
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(await tables(a.tenant_id)).toEqual(after);
    expect(after).toMatchObject({ presence: 3, current: 2, sessions: 2, logs: 3, events: 3 });
    // A batch mixing new and known events applies only the new ones.
    const mixed = { events: [...batch.events, presence({ zone_id: z0.id, seen_at: iso(5) })] };
    expect((await t.request('POST', PRESENCE, { token: ingest, body: mixed })).text).toBe('{"accepted":4}');
    expect(await tables(a.tenant_id)).toMatchObject({ presence: 4, events: 4 });
    // Concurrent deliveries of one batch: still applied once.
    const again = { events: [presence({ zone_id: z1.id, seen_at: iso(1) })] };
    const answers = await Promise.all(
      [1, 2, 3].map(() => t.request('POST', PRESENCE, { token: ingest, body: again })),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await tables(a.tenant_id)).toMatchObject({ presence: 5, events: 5 });
  });

  it('refuses an event id reused with other content, in the batch or before', async () => {
    const { a, z0, z1, ingest } = await setup();
    const e = presence({ zone_id: z0.id });
    expect((await t.request('POST', PRESENCE, { token: ingest, body: { events: [e] } })).status).toBe(200);
    const before = await tables(a.tenant_id);
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          { ...e, zone_id: z1.id },
          presence({ event_id: 'twice', zone_id: z0.id }),
          presence({ event_id: 'twice', zone_id: z1.id }),
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual({
      'events.0.event_id': ['The events.0.event_id has already been taken.'],
      'events.2.event_id': ['The events.2.event_id field has a duplicate value.'],
    });
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('takes a retry as the same event when only what the rules ignore differs: an unknown field, the MAC notation, spaces, key order (probe R)', async () => {
    const { a, z0, ingest } = await setup();
    const e = presence({ zone_id: z0.id, mac: 'AA:BB:CC:00:00:42', seen_at: iso(30) });
    expect((await t.request('POST', PRESENCE, { token: ingest, body: { events: [e] } })).text).toBe(
      '{"accepted":1}',
    );
    const before = await tables(a.tenant_id);
    const retries = [
      { ...e, retry: 1 },
      { ...e, mac: 'aabbcc000042' },
      // Cisco's dotted notation, which Laravel's mac_address takes too.
      { ...e, mac: 'aabb.cc00.0042' },
      { ...e, mac: 'aa-bb-cc-00-00-42', event_id: ` ${e.event_id} ` },
      Object.fromEntries(Object.entries(e).reverse()),
    ];
    for (const retry of retries) {
      const res = await t.request('POST', PRESENCE, { token: ingest, body: { events: [retry] } });
      expect(res.status, JSON.stringify(retry)).toBe(200);
      expect(res.text).toBe('{"accepted":1}');
    }
    expect(await tables(a.tenant_id)).toEqual(before);
    // Another time or another device is other content.
    for (const other of [
      { ...e, seen_at: iso(29) },
      { ...e, mac: 'AA:BB:CC:00:00:43' },
    ]) {
      const res = await t.request('POST', PRESENCE, { token: ingest, body: { events: [other] } });
      expect(res.status).toBe(422);
      expect(res.json.errors).toEqual({
        'events.0.event_id': ['The events.0.event_id has already been taken.'],
      });
    }
  });

  it('keeps location sessions and zone logs: one session per visit, one log per zone', async () => {
    const { a, locationId, z0, z1, ingest } = await setup();
    const mac = 'AA:BB:CC:00:00:42';
    const base = Date.now() - 3600_000;
    const at = (s: number) => new Date(base + s * 1000).toISOString();
    const send = (events: Record<string, unknown>[]) =>
      t.request('POST', PRESENCE, {
        token: ingest,
        body: { events: events.map((e) => presence({ mac, ...e })) },
      });
    expect(
      (
        await send([
          { zone_id: z0.id, seen_at: at(0) },
          { zone_id: z0.id, seen_at: at(60) },
        ])
      ).status,
    ).toBe(200);
    expect((await send([{ zone_id: z1.id, seen_at: at(120) }])).status).toBe(200);
    // Gone for longer than the window (300 s): the first visit ends at its last detection.
    expect((await send([{ zone_id: z1.id, seen_at: at(1000) }])).status).toBe(200);
    const sessions = await prisma().locationSession.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { startedAt: 'asc' },
    });
    expect(
      sessions.map((s) => [
        s.locationId,
        s.startedAt.toISOString(),
        s.endedAt?.toISOString() ?? null,
        s.duration,
        s.visitType,
      ]),
    ).toEqual([
      [locationId, at(0), at(120), 120, 1],
      [locationId, at(1000), null, 0, 2],
    ]);
    const logs = await prisma().locationLog.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { timestamp: 'asc' },
    });
    expect(logs.map((l) => [l.sessionId, l.zoneId, l.timestamp.toISOString(), l.duration])).toEqual([
      // The zone visit ends at its last detection there (60), as the location visit does (120).
      [sessions[0]?.id, z0.id, at(0), 60],
      [sessions[0]?.id, z1.id, at(120), 0],
      [sessions[1]?.id, z1.id, at(1000), 0],
    ]);
  });

  it('links presence to a known device and its guest, and moves its last-seen time', async () => {
    const { a, z0, ingest } = await setup();
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const device = await prisma().guestDevice.create({
      data: { tenantId: a.tenant_id, guestId: guest.id, mac: 'AA:BB:CC:00:00:77' },
    });
    const seenAt = iso(3);
    await t.request('POST', PRESENCE, {
      token: ingest,
      body: { events: [presence({ mac: 'aa:bb:cc:00:00:77', zone_id: z0.id, seen_at: seenAt })] },
    });
    const record = await prisma().presenceRecord.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect([record.deviceId, record.guestId]).toEqual([device.id, guest.id]);
    const after = await prisma().guestDevice.findUniqueOrThrow({ where: { id: device.id } });
    expect(after.lastSeenTime?.toISOString()).toBe(seenAt);
    const active = await t.request('GET', ACTIVE, { token: a.token });
    expect(active.json.data[0].guest_id).toBe(guest.id);
  });

  it('accepts ingest-scoped tokens and tenant users, refuses the others', async () => {
    const { a, z0, ingest } = await setup();
    const body = () => ({ events: [presence({ zone_id: z0.id })] });
    expect((await t.request('POST', PRESENCE, { token: ingest, body: body() })).status).toBe(200);
    expect((await t.request('POST', PRESENCE, { token: a.token, body: body() })).status).toBe(200);
    for (const role of ['venue', 'front-desk'] as const) {
      const u = await addUser(prisma(), a.tenant_id, role, { locationId: a.location_id });
      const res = await t.request('POST', PRESENCE, { token: u.token, body: body() });
      expect(res.status).toBe(403);
    }
    expect((await t.request('POST', PRESENCE, { body: body() })).status).toBe(401);
  });

  it("refuses another tenant's zone, floor and location as invalid", async () => {
    const { ingest } = await setup();
    const other = await setup();
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          presence({ zone_id: other.z0.id }),
          presence({ floor_id: other.z0.floorId }),
          presence({ location_id: other.locationId }),
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual({
      'events.0.zone_id': ['The selected events.0.zone_id is invalid.'],
      'events.1.floor_id': ['The selected events.1.floor_id is invalid.'],
      'events.2.location_id': ['The selected events.2.location_id is invalid.'],
    });
    expect(await tables(other.a.tenant_id)).toMatchObject({ presence: 0 });
  });
});

// -------------------------------------------------------------------------------------------------
const accounting = (data: Record<string, unknown>) => ({
  event_id: eid(),
  kind: 'start',
  mac: 'AA:BB:CC:00:01:01',
  ip: '10.0.0.5',
  bytes_up: 0,
  bytes_down: 0,
  login_type: 'Email',
  at: iso(100),
  ...data,
});

describe.concurrent('POST /ingest/sessions', () => {
  it('opens, updates and closes a session, keeping device and guest totals and flags', async () => {
    const { a, ingest } = await setup();
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const send = (events: Record<string, unknown>[]) =>
      t.request('POST', SESSIONS, { token: ingest, body: { events } });
    const common = { location_id: a.location_id, mac: 'aa:bb:cc:00:01:01' };
    const start = await send([
      accounting({ ...common, guest_id: guest.id, at: iso(300), service_profile_id: a.service_profile_id }),
    ]);
    expect(start.status, start.text).toBe(200);
    let device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect(device).toMatchObject({
      mac: 'AA:BB:CC:00:01:01',
      guestId: guest.id,
      online: true,
      connectionStatus: 1,
    });
    expect(await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } })).toMatchObject({
      online: true,
      connectionStatus: 1,
      visitCount: 1,
      lastLoginType: 'Email',
    });

    await send([accounting({ ...common, kind: 'interim', bytes_up: 100, bytes_down: 1000, at: iso(200) })]);
    const stopAt = iso(100);
    await send([accounting({ ...common, kind: 'stop', bytes_up: 150, bytes_down: 3000, at: stopAt })]);
    const session = await prisma().guestSession.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect(session).toMatchObject({
      guestId: guest.id,
      deviceId: device.id,
      locationId: a.location_id,
      ipAddress: '10.0.0.5',
      loginType: 'Email',
      serviceProfileId: a.service_profile_id,
      uploadedData: 150n,
      downloadedData: 3000n,
      online: false,
      connectionStatus: 0,
    });
    expect(session.endTime?.toISOString()).toBe(stopAt);
    device = await prisma().guestDevice.findUniqueOrThrow({ where: { id: device.id } });
    expect(device).toMatchObject({
      online: false,
      connectionStatus: 0,
      totalUploadedData: 150n,
      totalDownloadedData: 3000n,
    });
    expect(await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } })).toMatchObject({
      online: false,
      connectionStatus: 0,
      totalUploadedData: 150n,
      totalDownloadedData: 3000n,
    });
  });

  it('names every bad event, including an unknown device without a guest, and writes nothing', async () => {
    const { a, ingest } = await setup();
    const other = await newTenant(prisma());
    const before = await tables(a.tenant_id);
    const res = await t.request('POST', SESSIONS, {
      token: ingest,
      body: {
        events: [
          accounting({ location_id: a.location_id, mac: 'AA:BB:CC:00:02:01' }),
          accounting({ location_id: other.location_id, kind: 'pause', ip: '300.1.1.1', bytes_up: -1 }),
          accounting({
            location_id: a.location_id,
            access_code: 'NOPE',
            service_profile_id: other.service_profile_id,
            guest_id: 'missing',
          }),
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual({
      'events.0.guest_id': [
        'The events.0.guest_id field is required when events.0.mac is not a known device.',
      ],
      'events.1.kind': ['The selected events.1.kind is invalid.'],
      'events.1.ip': ['The events.1.ip field must be a valid IP address.'],
      // Named though the event failed other rules: Laravel runs every rule (probe Z3).
      'events.1.location_id': ['The selected events.1.location_id is invalid.'],
      'events.1.bytes_up': ['The events.1.bytes_up field must be at least 0.'],
      'events.2.guest_id': ['The selected events.2.guest_id is invalid.'],
      'events.2.access_code': ['The selected events.2.access_code is invalid.'],
      'events.2.service_profile_id': ['The selected events.2.service_profile_id is invalid.'],
    });
    // Each event's fields in its rules' order, as Laravel lists them.
    expect(Object.keys(res.json.errors)).toEqual([
      'events.0.guest_id',
      'events.1.kind',
      'events.1.ip',
      'events.1.location_id',
      'events.1.bytes_up',
      'events.2.guest_id',
      'events.2.access_code',
      'events.2.service_profile_id',
    ]);
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('applies a retried batch once, with the same answer and totals', async () => {
    const { a, ingest } = await setup();
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const batch = {
      events: [
        accounting({ location_id: a.location_id, guest_id: guest.id, at: iso(50) }),
        accounting({
          location_id: a.location_id,
          kind: 'interim',
          bytes_up: 10,
          bytes_down: 20,
          at: iso(40),
        }),
      ],
    };
    const first = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    const second = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    expect(first.text).toBe('{"accepted":2}');
    expect(second.text).toBe(first.text);
    expect(await tables(a.tenant_id)).toMatchObject({ guestSessions: 1, devices: 1, events: 2 });
    expect(await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } })).toMatchObject({
      totalUploadedData: 10n,
      totalDownloadedData: 20n,
      visitCount: 1,
    });
  });
  it('accepts an interim or stop of an unknown MAC without a guest, writing nothing for it, and applies the rest of the batch', async () => {
    const { a, ingest } = await setup();
    const guest = await addGuest(a.tenant_id, a.location_id);
    const known = 'AA:BB:CC:00:03:01';
    const unknown = 'AA:BB:CC:00:03:02';
    await accepted(ingest, [
      accounting({ location_id: a.location_id, mac: known, guest_id: guest.id, at: iso(300) }),
    ]);
    const before = await tables(a.tenant_id);
    const after = await lastEventId(a.tenant_id);
    const batch = {
      events: [
        accounting({
          location_id: a.location_id,
          mac: 'aa-bb-cc-00-03-02',
          kind: 'interim',
          bytes_up: 5,
          at: iso(200),
        }),
        accounting({
          location_id: a.location_id,
          mac: known,
          kind: 'stop',
          bytes_up: 7,
          bytes_down: 9,
          at: iso(100),
        }),
      ],
    };
    const first = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    expect(first.status, first.text).toBe(200);
    expect(first.text).toBe('{"accepted":2}');
    // Both event ids are in the ledger; no device or session for the unknown MAC.
    const applied = await tables(a.tenant_id);
    expect(applied).toEqual({ ...before, events: before.events + 2 });
    expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id, mac: unknown } })).toBe(0);
    const session = await prisma().guestSession.findFirstOrThrow({
      where: { tenantId: a.tenant_id },
      include: { device: true },
    });
    expect(session).toMatchObject({ uploadedData: 7n, downloadedData: 9n, online: false });
    expect(session.device.mac).toBe(known);
    // The event log holds the known device's session end, nothing about the unknown MAC.
    const log = await t.request('GET', `/api/v1/events?after=${after}`, { token: a.token });
    expect(log.status, log.text).toBe(200);
    expect(log.json.data.map((e: { type: string; resource_id: string }) => [e.type, e.resource_id])).toEqual([
      ['guest_session.ended', session.id],
    ]);
    expect(log.text).not.toContain('03:02');

    const retry = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.text).toBe('{"accepted":2}');
    expect(await tables(a.tenant_id)).toEqual(applied);
    expect(await lastEventId(a.tenant_id)).toBe(after + 1);
  });

  it('still refuses a start of an unknown MAC without a guest (a new session needs one), and writes nothing', async () => {
    const { a, ingest } = await setup();
    const before = await tables(a.tenant_id);
    const res = await t.request('POST', SESSIONS, {
      token: ingest,
      body: {
        events: [
          accounting({ location_id: a.location_id, mac: 'AA:BB:CC:00:04:01' }),
          accounting({ location_id: a.location_id, mac: 'AA:BB:CC:00:04:02', kind: 'stop' }),
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: 'The events.0.guest_id field is required when events.0.mac is not a known device.',
      errors: {
        'events.0.guest_id': [
          'The events.0.guest_id field is required when events.0.mac is not a known device.',
        ],
      },
    });
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('knows a MAC from an earlier event of the batch (time, then position) that names its guest', async () => {
    const { a, ingest } = await setup();
    const guest = await addGuest(a.tenant_id, a.location_id);
    const ev = (mac: string, kind: string, at: string, more: Record<string, unknown> = {}) =>
      accounting({ location_id: a.location_id, mac, kind, at, ...more });
    const sessionsOf = (mac: string) =>
      prisma().guestSession.findMany({ where: { tenantId: a.tenant_id, device: { mac } } });

    // start with the guest, then stop without: the stop closes the session the start opened.
    const m1 = 'AA:BB:CC:00:05:01';
    const stopAt = iso(200);
    await accepted(ingest, [ev(m1, 'start', iso(300), { guest_id: guest.id }), ev(m1, 'stop', stopAt)]);
    const [s1] = await sessionsOf(m1);
    expect(s1?.endTime?.toISOString()).toBe(stopAt);

    // A stop before the start that names the guest: no device yet, nothing to close; the start opens.
    const m2 = 'AA:BB:CC:00:05:02';
    const startAt = iso(200);
    await accepted(ingest, [ev(m2, 'stop', iso(300)), ev(m2, 'start', startAt, { guest_id: guest.id })]);
    const s2 = await sessionsOf(m2);
    expect(s2.map((s) => [s.startTime.toISOString(), s.endTime])).toEqual([[startAt, null]]);

    // At the same time, the batch's position decides: the start first, the interim updates it.
    const m3 = 'AA:BB:CC:00:05:03';
    const same = iso(150);
    await accepted(ingest, [
      ev(m3, 'start', same, { guest_id: guest.id }),
      ev(m3, 'interim', same, { bytes_down: 30 }),
    ]);
    expect((await sessionsOf(m3)).map((s) => s.downloadedData)).toEqual([30n]);

    // An interim with the guest still opens a session for an unknown MAC at its time.
    const m4 = 'AA:BB:CC:00:05:04';
    const interimAt = iso(120);
    await accepted(ingest, [ev(m4, 'interim', interimAt, { guest_id: guest.id })]);
    expect((await sessionsOf(m4)).map((s) => [s.startTime.toISOString(), s.endTime])).toEqual([
      [interimAt, null],
    ]);

    // A start without a guest before the event that names it is a start of an unknown device.
    const m5 = 'AA:BB:CC:00:05:05';
    const before = await tables(a.tenant_id);
    const refused = await t.request('POST', SESSIONS, {
      token: ingest,
      body: { events: [ev(m5, 'interim', iso(100), { guest_id: guest.id }), ev(m5, 'start', iso(200))] },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual({
      'events.1.guest_id': [
        'The events.1.guest_id field is required when events.1.mac is not a known device.',
      ],
    });
    expect(await tables(a.tenant_id)).toEqual(before);
  });

  it('answers a retried batch as the first delivery, though a guest it names was erased since (its events are not checked again)', async () => {
    const { a, ingest } = await setup();
    const guest = await addGuest(a.tenant_id, a.location_id);
    const batch = {
      events: [
        accounting({ location_id: a.location_id, mac: randomMac(), guest_id: guest.id, at: iso(300) }),
      ],
    };
    const first = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    expect(first.text).toBe('{"accepted":1}');
    expect((await t.request('DELETE', `/api/v1/guests/${guest.id}`, { token: a.token })).status).toBe(204);
    const before = await tables(a.tenant_id);
    const retry = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.text).toBe('{"accepted":1}');
    expect(await tables(a.tenant_id)).toEqual(before);
    // A new event naming the erased guest is still refused, beside the retried one.
    const mixed = await t.request('POST', SESSIONS, {
      token: ingest,
      body: {
        events: [
          ...batch.events,
          accounting({ location_id: a.location_id, mac: randomMac(), guest_id: guest.id, at: iso(60) }),
        ],
      },
    });
    expect(mixed.status, mixed.text).toBe(422);
    expect(mixed.json.errors).toEqual({
      'events.1.guest_id': ['The selected events.1.guest_id is invalid.'],
    });
  });

  it("accepts a stop for an erased guest's real MAC beside another device's interim, which applies", async () => {
    const { a, ingest } = await setup();
    const erased = await addGuest(a.tenant_id, a.location_id);
    const other = await addGuest(a.tenant_id, a.location_id);
    const mac = 'AA:BB:CC:00:06:01';
    const otherMac = 'AA:BB:CC:00:06:02';
    await accepted(ingest, [
      accounting({ location_id: a.location_id, mac, guest_id: erased.id, at: iso(300) }),
      accounting({ location_id: a.location_id, mac: otherMac, guest_id: other.id, at: iso(300) }),
    ]);
    const del = await t.request('DELETE', `/api/v1/guests/${erased.id}`, { token: a.token });
    expect(del.status, del.text).toBe(204);
    const before = await tables(a.tenant_id);
    const after = await lastEventId(a.tenant_id);

    // The controller still sees the real MAC connected, and reports its stop.
    const batch = {
      events: [
        accounting({
          location_id: a.location_id,
          mac,
          kind: 'stop',
          bytes_up: 1,
          bytes_down: 2,
          at: iso(100),
        }),
        accounting({
          location_id: a.location_id,
          mac: otherMac,
          kind: 'interim',
          bytes_up: 40,
          bytes_down: 50,
          at: iso(100),
        }),
      ],
    };
    const res = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('{"accepted":2}');
    const applied = await tables(a.tenant_id);
    expect(applied).toEqual({ ...before, events: before.events + 2 });
    expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id, mac } })).toBe(0);
    expect(
      await prisma().guestSession.findFirstOrThrow({ where: { tenantId: a.tenant_id, guestId: other.id } }),
    ).toMatchObject({ uploadedData: 40n, downloadedData: 50n, online: true, endTime: null });
    expect(await prisma().guest.findUniqueOrThrow({ where: { id: other.id } })).toMatchObject({
      totalUploadedData: 40n,
      totalDownloadedData: 50n,
      online: true,
    });
    expect(await lastEventId(a.tenant_id)).toBe(after);

    const retry = await t.request('POST', SESSIONS, { token: ingest, body: batch });
    expect(retry.text).toBe('{"accepted":2}');
    expect(await tables(a.tenant_id)).toEqual(applied);
  });
});

// Two connections ending sessions of one guest at once: PGlite's one connection serialises them.
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'POST /ingest/sessions: stops of one guest’s devices at once',
  () => {
    it('leave the guest offline once the last session ends (each counts after the other’s end)', async () => {
      const { a, locationId, ingest } = await setup();
      for (let round = 0; round < 3; round++) {
        const guest = await addGuest(a.tenant_id, locationId);
        const macs = Array.from({ length: 8 }, () => randomMac());
        await accepted(
          ingest,
          macs.map((mac) => accounting({ mac, guest_id: guest.id, location_id: locationId, at: iso(60) })),
        );
        expect(await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } })).toMatchObject({
          online: true,
        });
        const stops = await Promise.all(
          macs.map((mac) =>
            t.request('POST', SESSIONS, {
              token: ingest,
              body: { events: [accounting({ kind: 'stop', mac, location_id: locationId, at: iso(10) })] },
            }),
          ),
        );
        expect(stops.map((r) => r.status)).toEqual(macs.map(() => 200));
        expect(await prisma().guestSession.count({ where: { guestId: guest.id, endTime: null } })).toBe(0);
        expect(await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } })).toMatchObject({
          online: false,
          connectionStatus: 0,
        });
      }
    });
  },
);

function addGuest(tenantId: string, locationId: string) {
  return prisma().guest.create({ data: { tenantId, locationId, username: uniqueName('g'), name: 'G' } });
}

async function accepted(token: string, events: Record<string, unknown>[]): Promise<void> {
  const res = await t.request('POST', SESSIONS, { token, body: { events } });
  expect(res.status, res.text).toBe(200);
  expect(res.json).toEqual({ accepted: events.length });
}

/** The tenant's latest event-log id (0 when none). */
async function lastEventId(tenantId: string): Promise<number> {
  const last = await prisma().event.findFirst({ where: { tenantId }, orderBy: { id: 'desc' } });
  return Number(last?.id ?? 0);
}

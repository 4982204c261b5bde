// The ingest's events (src/modules/ingest/ingest.events.ts): presence entries and leaves of zones and
// locations, a device's first sighting, sessions started and ended; appended in the batch's
// transaction with the ingest token's user and token and the request id, never twice for a retried
// batch, and emptied of the MAC by the guest's erasure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, newTenant, uniqueName } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const PRESENCE = '/api/v1/ingest/presence';
const SESSIONS = '/api/v1/ingest/sessions';
const prisma = () => t.db.prisma;

async function setup() {
  const a = await newTenant(prisma());
  const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 2 });
  const zones = await prisma().zone.findMany({
    where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
    orderBy: { name: 'asc' },
  });
  const [z0, z1] = zones as [(typeof zones)[number], (typeof zones)[number]];
  const issued = await issueToken(prisma(), a.user_id, ['ingest']);
  const tokenId = (
    await prisma().apiToken.findFirstOrThrow({ where: { userId: a.user_id, scopes: { has: 'ingest' } } })
  ).id;
  return { a, locationId, z0, z1, ingest: issued.token, tokenId };
}

let n = 0;
const eid = (): string => `ie-${Date.now()}-${++n}`;
/** Whole seconds ago, so the payloads' times are exact. */
const ago = (seconds: number): Date => new Date(Math.floor(Date.now() / 1000) * 1000 - seconds * 1000);
const micros = (d: Date): string => `${d.toISOString().slice(0, 23)}000Z`;

async function send(url: string, token: string, events: Record<string, unknown>[]) {
  const requestId = `ie-req-${++n}`;
  const res = await t.request('POST', url, {
    token,
    headers: { 'x-request-id': requestId },
    body: { events },
  });
  expect(res.status, res.text).toBe(200);
  return requestId;
}

/** The tenant's events after `after`, but the setup's own (event 1: its ingest token was created). */
async function eventsOf(tenantId: string, after = 1) {
  const rows = await prisma().event.findMany({
    where: { tenantId, id: { gt: BigInt(after) } },
    orderBy: { id: 'asc' },
  });
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    actor: [r.actorType, r.actorUserId, r.actorTokenId, r.requestId],
    resourceType: r.resourceType,
    resourceId: r.resourceId,
    payload: r.payload as Record<string, unknown>,
  }));
}

describe.concurrent('events of the presence ingest', () => {
  it('a move from zone A to zone B records zone_left A then zone_entered B, with payloads and the ingest as actor', async () => {
    const { a, locationId, z0, z1, ingest, tokenId } = await setup();
    const mac = 'AA:BB:CC:10:00:01';
    const first = ago(60);
    const second = ago(30);
    const r1 = await send(PRESENCE, ingest, [
      { event_id: eid(), mac, data_type: 1, connected: false, zone_id: z0.id, seen_at: first.toISOString() },
    ]);
    const r2 = await send(PRESENCE, ingest, [
      { event_id: eid(), mac, data_type: 1, connected: false, zone_id: z1.id, seen_at: second.toISOString() },
    ]);
    const session = await prisma().locationSession.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    const logs = await prisma().locationLog.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { timestamp: 'asc' },
    });
    const [logA, logB] = logs as [(typeof logs)[number], (typeof logs)[number]];
    const zone = (log: typeof logA, zoneId: string, enteredAt: Date, left: Date | null) => ({
      id: log.id,
      location_visit_id: session.id,
      mac,
      device_id: null,
      guest_id: null,
      location_id: locationId,
      zone_id: zoneId,
      entered_at: micros(enteredAt),
      left_at: left ? micros(left) : null,
      duration: left ? (left.getTime() - enteredAt.getTime()) / 1000 : 0,
      reason: left ? 'moved' : null,
    });
    const by = (requestId: string) => ['ingest', a.user_id, tokenId, requestId];
    expect(await eventsOf(a.tenant_id)).toEqual([
      {
        id: 2,
        type: 'presence.location_entered',
        actor: by(r1),
        resourceType: 'presence',
        resourceId: session.id,
        payload: {
          id: session.id,
          mac,
          device_id: null,
          guest_id: null,
          location_id: locationId,
          visit_type: 1,
          entered_at: micros(first),
          left_at: null,
          duration: 0,
          reason: null,
        },
      },
      {
        id: 3,
        type: 'presence.zone_entered',
        actor: by(r1),
        resourceType: 'presence',
        resourceId: logA.id,
        payload: zone(logA, z0.id, first, null),
      },
      {
        id: 4,
        type: 'presence.zone_left',
        actor: by(r2),
        resourceType: 'presence',
        resourceId: logA.id,
        // Left at its last detection in zone A (seen only once there), as a location is.
        payload: zone(logA, z0.id, first, first),
      },
      {
        id: 5,
        type: 'presence.zone_entered',
        actor: by(r2),
        resourceType: 'presence',
        resourceId: logB.id,
        payload: zone(logB, z1.id, second, null),
      },
    ]);
    // The same batch again changes nothing and records nothing; a detection in the same zone neither.
    await send(PRESENCE, ingest, [
      {
        event_id: eid(),
        mac,
        data_type: 1,
        connected: false,
        zone_id: z1.id,
        seen_at: ago(20).toISOString(),
      },
    ]);
    expect(await eventsOf(a.tenant_id, 5)).toEqual([]);
  });

  it('a zone left by a move inside the location ends at its last detection there, as a location does', async () => {
    const { a, z0, z1, ingest } = await setup();
    const mac = 'AA:BB:CC:10:00:07';
    const [entered, last, moved] = [ago(60), ago(40), ago(30)];
    for (const [zone, at] of [
      [z0, entered],
      [z0, last],
      [z1, moved],
    ] as const) {
      await send(PRESENCE, ingest, [
        { event_id: eid(), mac, data_type: 1, connected: false, zone_id: zone.id, seen_at: at.toISOString() },
      ]);
    }
    const left = (await eventsOf(a.tenant_id)).find((e) => e.type === 'presence.zone_left');
    expect(left?.payload).toMatchObject({
      zone_id: z0.id,
      entered_at: micros(entered),
      left_at: micros(last),
      duration: 20,
      reason: 'moved',
    });
    const logs = await prisma().locationLog.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { timestamp: 'asc' },
    });
    expect(logs.map((l) => [l.zoneId, l.duration])).toEqual([
      [z0.id, 20],
      [z1.id, 0],
    ]);
  });

  it('a detection without a zone ends the zone visit and begins none; the zone again begins the next (probe O)', async () => {
    const { a, locationId, z0, ingest } = await setup();
    const mac = 'AA:BB:CC:10:00:17';
    const [entered, last, nowhere, back] = [ago(60), ago(40), ago(30), ago(20)];
    const seen = (at: Date, where: Record<string, string>) =>
      send(PRESENCE, ingest, [
        { event_id: eid(), mac, data_type: 1, connected: false, seen_at: at.toISOString(), ...where },
      ]);
    await seen(entered, { zone_id: z0.id });
    await seen(last, { zone_id: z0.id });
    await seen(nowhere, { location_id: locationId });
    await seen(back, { zone_id: z0.id });
    const events = (await eventsOf(a.tenant_id)).filter((e) => e.type.startsWith('presence.'));
    expect(events.map((e) => [e.type, e.payload.reason ?? null])).toEqual([
      ['presence.location_entered', null],
      ['presence.zone_entered', null],
      ['presence.zone_left', 'moved'],
      ['presence.zone_entered', null],
    ]);
    expect(events[2]?.payload).toMatchObject({ left_at: micros(last), duration: 20 });
    const logs = await prisma().locationLog.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { timestamp: 'asc' },
    });
    expect(logs.map((l) => [l.zoneId, l.timestamp, l.duration])).toEqual([
      [z0.id, entered, 20],
      [z0.id, back, 0],
    ]);
    // The visit's last zone visit is the open one: a timeout or an erasure closes it.
    const visit = await prisma().locationSession.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect(visit.lastLogId).toBe(logs[1]?.id);
  });

  it('a device seen in two zones at the same instant, then again where it is, enters and leaves each visit once', async () => {
    const { a, z0, z1, ingest } = await setup();
    const at = ago(30).toISOString();
    // Several devices: which of two visits starting at the same instant is the latest is no matter of chance.
    const macs = Array.from({ length: 6 }, (_, i) => `AA:BB:CC:10:01:0${i}`);
    for (const zone of [z0, z1, z1]) {
      await send(
        PRESENCE,
        ingest,
        macs.map((mac) => ({
          event_id: eid(),
          mac,
          data_type: 1,
          connected: false,
          zone_id: zone.id,
          seen_at: at,
        })),
      );
    }
    const events = await eventsOf(a.tenant_id);
    for (const mac of macs) {
      const mine = events.filter((e) => e.payload.mac === mac);
      expect(mine.map((e) => [e.type, e.payload.zone_id ?? null])).toEqual([
        ['presence.location_entered', null],
        ['presence.zone_entered', z0.id],
        ['presence.zone_left', z0.id],
        ['presence.zone_entered', z1.id],
      ]);
      expect(await prisma().locationLog.count({ where: { tenantId: a.tenant_id, guestMac: mac } })).toBe(2);
    }
  });

  it('batches about the same devices at once take turns: one open visit each, every zone visit entered and left once', async () => {
    const { a, z0, z1, ingest } = await setup();
    const other = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
    const z2 = await prisma().zone.findFirstOrThrow({
      where: { tenantId: a.tenant_id, floor: { building: { locationId: other } } },
    });
    const macs = Array.from({ length: 5 }, (_, i) => `AA:BB:CC:10:02:0${i}`);
    const batch = (zoneId: string, secondsAgo: number) =>
      macs.map((mac) => ({
        event_id: eid(),
        mac,
        data_type: 1,
        connected: false,
        zone_id: zoneId,
        seen_at: ago(secondsAgo).toISOString(),
      }));
    await send(PRESENCE, ingest, batch(z0.id, 60));
    await Promise.all([
      send(PRESENCE, ingest, batch(z1.id, 50)),
      send(PRESENCE, ingest, batch(z2.id, 40)),
      send(PRESENCE, ingest, batch(z1.id, 30)),
      send(PRESENCE, ingest, batch(z2.id, 20)),
    ]);
    const events = await eventsOf(a.tenant_id);
    for (const mac of macs) {
      expect(
        await prisma().locationSession.count({ where: { tenantId: a.tenant_id, mac, endedAt: null } }),
      ).toBe(1);
      const open = new Map<string, number>();
      for (const e of events.filter((x) => x.payload.mac === mac)) {
        const n = open.get(e.resourceId) ?? 0;
        if (e.type.endsWith('_entered')) open.set(e.resourceId, n + 1);
        else open.set(e.resourceId, n - 1);
        // Left only once entered, entered once.
        expect([0, 1], `${mac} ${e.type} ${e.resourceId}`).toContain(open.get(e.resourceId));
      }
      // What is still open: one location visit and one zone visit.
      expect([...open.values()].filter((n) => n === 1)).toHaveLength(2);
    }
  });

  it('a detection after the active window leaves zone and location by timeout, then enters again (a returning visit)', async () => {
    const { a, locationId, z0, ingest } = await setup();
    const mac = 'AA:BB:CC:10:00:02';
    const first = ago(1000);
    const again = ago(10);
    // One batch: the events are applied in time order whatever their order in the batch.
    await send(PRESENCE, ingest, [
      { event_id: eid(), mac, data_type: 1, connected: false, zone_id: z0.id, seen_at: again.toISOString() },
      { event_id: eid(), mac, data_type: 1, connected: false, zone_id: z0.id, seen_at: first.toISOString() },
    ]);
    const events = await eventsOf(a.tenant_id);
    expect(events.map((e) => e.type)).toEqual([
      'presence.location_entered',
      'presence.zone_entered',
      'presence.zone_left',
      'presence.location_left',
      'presence.location_entered',
      'presence.zone_entered',
    ]);
    expect(events[2]?.payload).toMatchObject({ zone_id: z0.id, left_at: micros(first), reason: 'timeout' });
    expect(events[3]?.payload).toMatchObject({
      location_id: locationId,
      entered_at: micros(first),
      left_at: micros(first),
      duration: 0,
      reason: 'timeout',
    });
    expect(events[4]?.payload).toMatchObject({ visit_type: 2, entered_at: micros(again) });
  });

  it("a known device's events name it and its guest; the guest's erasure empties their MAC", async () => {
    const { a, z0, ingest } = await setup();
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const device = await prisma().guestDevice.create({
      data: { tenantId: a.tenant_id, guestId: guest.id, mac: 'AA:BB:CC:10:00:03' },
    });
    await send(PRESENCE, ingest, [
      {
        event_id: eid(),
        mac: 'aa:bb:cc:10:00:03',
        data_type: 1,
        connected: false,
        zone_id: z0.id,
        seen_at: ago(5).toISOString(),
      },
    ]);
    const before = await eventsOf(a.tenant_id);
    expect(before.map((e) => [e.type, e.payload.device_id, e.payload.guest_id, e.payload.mac])).toEqual([
      ['presence.location_entered', device.id, guest.id, 'AA:BB:CC:10:00:03'],
      ['presence.zone_entered', device.id, guest.id, 'AA:BB:CC:10:00:03'],
    ]);
    const erased = await t.request('DELETE', `/api/v1/guests/${guest.id}`, { token: a.token });
    expect(erased.status, erased.text).toBe(204);
    const after = await eventsOf(a.tenant_id);
    expect(after.slice(0, 2).map((e) => [e.payload.device_id, e.payload.guest_id, e.payload.mac])).toEqual([
      [device.id, guest.id, ''],
      [device.id, guest.id, ''],
    ]);
  });

  it('a batch refused as a whole records nothing', async () => {
    const { a, z0, ingest } = await setup();
    const res = await t.request('POST', PRESENCE, {
      token: ingest,
      body: {
        events: [
          {
            event_id: eid(),
            mac: 'AA:BB:CC:10:00:04',
            data_type: 1,
            zone_id: z0.id,
            seen_at: ago(5).toISOString(),
          },
          {
            event_id: eid(),
            mac: 'AA:BB:CC:10:00:05',
            data_type: 1,
            zone_id: 'nope',
            seen_at: ago(5).toISOString(),
          },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(await eventsOf(a.tenant_id)).toEqual([]);
  });
});

describe.concurrent('events of the session ingest', () => {
  it('starts for one new device sent at once take turns: one device, one open session, each ended once', async () => {
    const { a, ingest } = await setup();
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const mac = 'AA:BB:CC:20:01:01';
    const at = ago(60).toISOString();
    await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) =>
        send(SESSIONS, ingest, [
          {
            event_id: eid(),
            kind: 'start',
            mac,
            ip: `10.0.1.${i}`,
            guest_id: guest.id,
            location_id: a.location_id,
            login_type: 'Email',
            bytes_up: 0,
            bytes_down: 0,
            at,
          },
        ]),
      ),
    );
    expect(await prisma().guestDevice.count({ where: { tenantId: a.tenant_id, mac } })).toBe(1);
    const sessions = await prisma().guestSession.findMany({
      where: { tenantId: a.tenant_id, guestId: guest.id },
    });
    expect(sessions.filter((x) => x.endTime === null)).toHaveLength(1);
    const ended = (await eventsOf(a.tenant_id)).filter((e) => e.type === 'guest_session.ended');
    expect(new Set(ended.map((e) => e.resourceId)).size).toBe(ended.length);
  });

  it('records device.first_seen once, and sessions started and ended (a new start ends the open one)', async () => {
    const { a, ingest, tokenId } = await setup();
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const common = {
      location_id: a.location_id,
      mac: 'aa:bb:cc:20:00:01',
      ip: '10.0.0.5',
      login_type: 'Email',
    };
    const acct = (kind: string, at: Date, extra: Record<string, unknown> = {}) => ({
      event_id: eid(),
      kind,
      bytes_up: 0,
      bytes_down: 0,
      at: at.toISOString(),
      ...common,
      ...extra,
    });
    const r1 = await send(SESSIONS, ingest, [acct('start', ago(400), { guest_id: guest.id })]);
    await send(SESSIONS, ingest, [
      acct('interim', ago(300), { bytes_up: 10, bytes_down: 20 }),
      acct('start', ago(200)),
    ]);
    const r3 = await send(SESSIONS, ingest, [acct('stop', ago(100), { bytes_up: 5, bytes_down: 7 })]);
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    const sessions = await prisma().guestSession.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { startTime: 'asc' },
    });
    const [s1, s2] = sessions as [(typeof sessions)[number], (typeof sessions)[number]];
    const events = await eventsOf(a.tenant_id);
    expect(events.map((e) => [e.type, e.resourceId])).toEqual([
      ['device.first_seen', device.id],
      ['guest_session.started', s1.id],
      ['guest_session.ended', s1.id],
      ['guest_session.started', s2.id],
      ['guest_session.ended', s2.id],
    ]);
    expect(events[0]?.actor).toEqual(['ingest', a.user_id, tokenId, r1]);
    expect(events[4]?.actor).toEqual(['ingest', a.user_id, tokenId, r3]);
    expect(events[0]?.payload).toMatchObject({ id: device.id, guest_id: guest.id, mac: 'AA:BB:CC:20:00:01' });
    // The sessions in their REST item shape, as GET /sessions shows them once ended.
    const list = await t.request('GET', '/api/v1/sessions?per_page=10', { token: a.token });
    expect(list.status, list.text).toBe(200);
    const item = (id: string) => (list.json.data as { id: string }[]).find((s) => s.id === id);
    expect(events[2]?.payload).toEqual(JSON.parse(JSON.stringify(item(s1.id))));
    expect(events[4]?.payload).toEqual(JSON.parse(JSON.stringify(item(s2.id))));
    expect(events[1]?.payload).toMatchObject({ id: s1.id, end_time: null });
  });

  it('guest_session.started carries the totals of the event that opened the session (probe W)', async () => {
    const { a, ingest } = await setup();
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const acct = (kind: string, at: Date, up: number, down: number) => ({
      event_id: eid(),
      kind,
      location_id: a.location_id,
      mac: 'aa:bb:cc:20:00:31',
      ip: '10.0.0.31',
      login_type: 'Email',
      guest_id: guest.id,
      bytes_up: up,
      bytes_down: down,
      at: at.toISOString(),
    });
    // A start with totals, then a stop, in one batch; then an interim that opens the next session.
    await send(SESSIONS, ingest, [acct('start', ago(300), 1, 2), acct('stop', ago(200), 1000, 2000)]);
    await send(SESSIONS, ingest, [acct('interim', ago(100), 30, 40)]);
    const events = (await eventsOf(a.tenant_id)).filter((e) => e.type.startsWith('guest_session.'));
    expect(
      events.map((e) => {
        const p = e.payload as Record<string, unknown>;
        return [e.type, p.uploaded_data, p.downloaded_data, p.end_time === null];
      }),
    ).toEqual([
      ['guest_session.started', '1 B', '2 B', true],
      ['guest_session.ended', '1000 B', '1.95 KB', false],
      ['guest_session.started', '30 B', '40 B', true],
    ]);
    // The device's and the guest's totals count each byte once.
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    expect([device.totalUploadedData, device.totalDownloadedData]).toEqual([1030n, 2040n]);
    const after = await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } });
    expect([after.totalUploadedData, after.totalDownloadedData]).toEqual([1030n, 2040n]);
  });

  it('a start naming an access code records its use (access_code.used, audited as the ingest), as a redeem does', async () => {
    const { a, ingest, tokenId } = await setup();
    const created = await t.request('POST', '/api/v1/access-codes', {
      token: a.token,
      body: { location_id: a.location_id, service_profile_id: a.service_profile_id, type: 2 },
    });
    expect(created.status, created.text).toBe(201);
    const code = created.json.access_codes[0];
    const after = Number(
      (await prisma().eventSequence.findUniqueOrThrow({ where: { tenantId: a.tenant_id } })).lastId,
    );
    const guest = await prisma().guest.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
    });
    const requestId = await send(SESSIONS, ingest, [
      {
        event_id: eid(),
        kind: 'start',
        location_id: a.location_id,
        mac: 'aa:bb:cc:20:00:09',
        ip: '10.0.0.9',
        login_type: 'Access Code',
        guest_id: guest.id,
        access_code: code.code,
        bytes_up: 0,
        bytes_down: 0,
        at: ago(60).toISOString(),
      },
    ]);
    const events = await eventsOf(a.tenant_id, after);
    expect(events.map((e) => e.type)).toEqual([
      'device.first_seen',
      'guest_session.started',
      'access_code.used',
    ]);
    const used = events[2];
    expect(used?.actor).toEqual(['ingest', a.user_id, tokenId, requestId]);
    // The code as the list shows it after the use.
    const list = await t.request('GET', '/api/v1/access-codes?per_page=100', { token: a.token });
    const item = (list.json.data as { id: string }[]).find((c) => c.id === code.id);
    expect(used?.payload).toEqual(JSON.parse(JSON.stringify(item)));
    expect(used?.payload).toMatchObject({ use_count: 1, status: 2 });
    const audit = await prisma().auditLog.findFirstOrThrow({
      where: { tenantId: a.tenant_id, resourceId: code.id, action: 'ingest.write' },
    });
    expect(audit.changes).toMatchObject({ use_count: { old: 0, new: 1 }, status: { old: 1, new: 2 } });
  });
});

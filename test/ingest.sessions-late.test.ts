// Session accounting events that arrive late (a controller replaying its buffer, batches crossing):
// an event older than its device's latest session is history only. Its bytes count on the session
// it falls in; no session is opened or closed, no flag or visit field moves (probe I found stops
// closing sessions before they began, a late interim opening a second session and counting its bytes
// twice). And a code counts a use on `start` only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLOCK_SKEW_MINUTES } from '../src/modules/ingest/ingest.inputs.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant, randomMac, uniqueName } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const prisma = () => t.db.prisma;
let n = 0;
const eid = (): string => `late-${Date.now()}-${++n}`;
/** Whole seconds before the file's start (one clock for every test), so stored times compare exactly. */
const START = Math.floor(Date.now() / 1000) * 1000;
const ago = (seconds: number): Date => new Date(START - seconds * 1000);

/** Another guest of the venue's tenant, at its location. */
const anotherGuest = (v: { a: { tenant_id: string; location_id: string } }) =>
  prisma().guest.create({
    data: { tenantId: v.a.tenant_id, locationId: v.a.location_id, username: uniqueName('g'), name: 'Other' },
  });

/** A tenant, a guest, a device's MAC, and the batch sender. */
async function venue() {
  const a = await newTenant(prisma());
  const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
  const guest = await prisma().guest.create({
    data: { tenantId: a.tenant_id, locationId: a.location_id, username: uniqueName('g'), name: 'G' },
  });
  const mac = randomMac();
  const send = async (
    // `guest`: false sends none, a guest id sends that guest's (a login of another guest).
    ...events: { kind: string; at: Date; down?: number; code?: string; guest?: boolean | string }[]
  ) => {
    const res = await t.request('POST', '/api/v1/ingest/sessions', {
      token: ingest,
      body: {
        events: events.map((e) => ({
          event_id: eid(),
          kind: e.kind,
          mac,
          ip: '10.0.0.5',
          location_id: a.location_id,
          bytes_up: 0,
          bytes_down: e.down ?? 0,
          login_type: 'Email',
          at: e.at.toISOString(),
          ...(e.guest === false ? {} : { guest_id: typeof e.guest === 'string' ? e.guest : guest.id }),
          ...(e.code ? { access_code: e.code } : {}),
        })),
      },
    });
    expect(res.status, res.text).toBe(200);
  };
  /** The device's sessions (start, end, bytes down), the device's and the guest's state. */
  const state = async () => {
    const sessions = await prisma().guestSession.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { startTime: 'asc' },
    });
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    const g = await prisma().guest.findUniqueOrThrow({ where: { id: guest.id } });
    return {
      sessions: sessions.map((s) => [
        s.startTime.toISOString(),
        s.endTime?.toISOString() ?? null,
        Number(s.downloadedData),
      ]),
      device: {
        online: device.online,
        lastSeen: device.lastSeenTime?.toISOString(),
        down: Number(device.totalDownloadedData),
      },
      guest: {
        online: g.online,
        visits: g.visitCount,
        lastVisit: g.lastVisitDate?.toISOString(),
        lastConnection: g.lastConnectionTime?.toISOString(),
        down: Number(g.totalDownloadedData),
      },
    };
  };
  return { a, guest, mac, ingest, send, state };
}

describe.concurrent('a session event older than its device’s latest session', () => {
  it('a stop from before the open session’s start closes nothing and moves no time back', async () => {
    const v = await venue();
    await v.send({ kind: 'start', at: ago(100) }, { kind: 'interim', at: ago(60), down: 500 });
    const before = await v.state();
    expect(before.sessions).toEqual([[ago(100).toISOString(), null, 500]]);
    await v.send({ kind: 'stop', at: ago(400), down: 9000, guest: false });
    expect(await v.state()).toEqual(before);
  });

  it('a start from before the open session neither ends it nor opens another, nor moves the visit back', async () => {
    const v = await venue();
    await v.send({ kind: 'start', at: ago(100) });
    const before = await v.state();
    await v.send({ kind: 'start', at: ago(200) });
    expect(await v.state()).toEqual(before);
    expect(before.guest).toMatchObject({ online: true, visits: 1, lastVisit: ago(100).toISOString() });
  });

  it('an interim within a closed session counts only its larger bytes there: no second session, visit or online flag', async () => {
    const v = await venue();
    await v.send({ kind: 'start', at: ago(100) }, { kind: 'stop', at: ago(50), down: 5000 });
    const before = await v.state();
    expect(before.guest).toMatchObject({ online: false, visits: 1, down: 5000 });
    // Smaller than the session's total: nothing changes (it had counted it).
    await v.send({ kind: 'interim', at: ago(70), down: 3000 });
    expect(await v.state()).toEqual(before);
    // Larger (the stop's count was behind): the session and the totals grow by the difference only.
    await v.send({ kind: 'interim', at: ago(60), down: 5600 });
    const after = await v.state();
    expect(after.sessions).toEqual([[ago(100).toISOString(), ago(50).toISOString(), 5600]]);
    expect(after.device.down).toBe(5600);
    expect(after.guest).toEqual({ ...before.guest, down: 5600 });
    // A stop sent again (a new event id) at the session's end is late too.
    await v.send({ kind: 'stop', at: ago(50), down: 5600 });
    expect(await v.state()).toEqual(after);
  });

  it('a start of another guest is a login all the same: the open session ends no earlier than it began', async () => {
    const v = await venue();
    await v.send({ kind: 'start', at: ago(100) });
    const other = await anotherGuest(v);
    await v.send({ kind: 'start', at: ago(110), guest: other.id });
    const sessions = await prisma().guestSession.findMany({
      where: { tenantId: v.a.tenant_id },
      orderBy: { createdAt: 'asc' },
    });
    expect(
      sessions.map((s) => [s.guestId, s.startTime.toISOString(), s.endTime?.toISOString() ?? null]),
    ).toEqual([
      [v.guest.id, ago(100).toISOString(), ago(100).toISOString()],
      [other.id, ago(110).toISOString(), null],
    ]);
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: v.a.tenant_id } });
    expect(device.guestId).toBe(other.id);
  });

  it('a start of another guest older than the open session by more than the clocks may differ is history only', async () => {
    const v = await venue();
    await v.send({ kind: 'start', at: ago(100) });
    const before = await v.state();
    const other = await anotherGuest(v);
    const loginAt = (at: Date) => v.send({ kind: 'start', at, guest: other.id });
    await loginAt(ago(100 + MAX_CLOCK_SKEW_MINUTES * 60 + 1));
    expect(await v.state()).toEqual(before);
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: v.a.tenant_id } });
    expect(device.guestId).toBe(v.guest.id);
    const untouched = await prisma().guest.findUniqueOrThrow({ where: { id: other.id } });
    expect([untouched.online, untouched.visitCount]).toEqual([false, 0]);
    // At the edge of the clocks' difference it is a login.
    await loginAt(ago(100 + MAX_CLOCK_SKEW_MINUTES * 60));
    const moved = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: v.a.tenant_id } });
    expect(moved.guestId).toBe(other.id);
  });

  it('an event after the latest session ended still opens one at its time, as before', async () => {
    const v = await venue();
    await v.send({ kind: 'start', at: ago(100) }, { kind: 'stop', at: ago(50), down: 10 });
    await v.send({ kind: 'interim', at: ago(40), down: 20 });
    const s = await v.state();
    expect(s.sessions).toEqual([
      [ago(100).toISOString(), ago(50).toISOString(), 10],
      [ago(40).toISOString(), null, 20],
    ]);
    expect(s.guest).toMatchObject({ online: true, visits: 2, down: 30 });
  });
});

describe.concurrent('an access code named by accounting', () => {
  it('counts a use on a start only, not on an interim or stop that opens a session', async () => {
    const v = await venue();
    const code = await prisma().accessCode.create({
      data: {
        tenantId: v.a.tenant_id,
        locationId: v.a.location_id,
        serviceProfileId: v.a.service_profile_id,
        code: uniqueName('CODE').slice(0, 30),
        type: 1,
        maxUses: 5,
      },
    });
    const uses = async () =>
      (await prisma().accessCode.findUniqueOrThrow({ where: { id: code.id } })).useCount;
    await v.send({ kind: 'interim', at: ago(100), code: code.code });
    await v.send({ kind: 'stop', at: ago(90), code: code.code });
    await v.send({ kind: 'stop', at: ago(80), code: code.code });
    expect(await uses()).toBe(0);
    // The session an interim opened records the code all the same.
    const opened = await prisma().guestSession.findFirstOrThrow({ where: { tenantId: v.a.tenant_id } });
    expect(opened.accessCodeId).toBe(code.id);
    await v.send({ kind: 'start', at: ago(70), code: code.code });
    expect(await uses()).toBe(1);
  });
});

/** Sends one batch of accounting events (each names its MAC, guest and time) with the venue's token. */
async function post(v: Awaited<ReturnType<typeof venue>>, events: Record<string, unknown>[]) {
  const res = await t.request('POST', '/api/v1/ingest/sessions', {
    token: v.ingest,
    body: {
      events: events.map((e) => ({
        event_id: eid(),
        ip: '10.0.0.5',
        location_id: v.a.location_id,
        bytes_up: 0,
        bytes_down: 0,
        login_type: 'Email',
        mac: v.mac,
        ...e,
        at: (e.at as Date).toISOString(),
      })),
    },
  });
  expect(res.status, res.text).toBe(200);
}

describe.concurrent('a login of another guest reported before the open session (probe S)', () => {
  const otherGuest = (v: Awaited<ReturnType<typeof venue>>, name: string) =>
    prisma().guest.create({
      data: { tenantId: v.a.tenant_id, locationId: v.a.location_id, username: uniqueName('g'), name },
    });

  it('is the current session: its interims keep the largest count once, and its stop closes it', async () => {
    const v = await venue();
    const a = await otherGuest(v, 'A');
    await post(v, [{ kind: 'start', guest_id: v.guest.id, at: ago(10) }]);
    await post(v, [{ kind: 'start', guest_id: a.id, at: ago(50) }]);
    await post(v, [
      { kind: 'interim', at: ago(20), bytes_down: 500, bytes_up: 50 },
      { kind: 'interim', at: ago(5), bytes_down: 100, bytes_up: 10 },
    ]);
    const open = await prisma().guestSession.findFirstOrThrow({ where: { guestId: a.id } });
    expect([Number(open.downloadedData), Number(open.uploadedData), open.endTime]).toEqual([500, 50, null]);
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: v.a.tenant_id } });
    expect([Number(device.totalDownloadedData), Number(device.totalUploadedData)]).toEqual([500, 50]);
    const guestA = await prisma().guest.findUniqueOrThrow({ where: { id: a.id } });
    expect([Number(guestA.totalDownloadedData), guestA.online]).toEqual([500, true]);
    // Its stop, in a batch of its own, closes it (as in one batch with the start).
    await post(v, [{ kind: 'stop', at: ago(2), bytes_down: 600 }]);
    const closed = await prisma().guestSession.findUniqueOrThrow({ where: { id: open.id } });
    expect([closed.endTime?.toISOString(), Number(closed.downloadedData)]).toEqual([
      ago(2).toISOString(),
      600,
    ]);
    expect((await prisma().guest.findUniqueOrThrow({ where: { id: a.id } })).online).toBe(false);
  });

  it('keeps the latest visit’s login type, as it keeps its time', async () => {
    const v = await venue();
    await post(v, [{ kind: 'start', guest_id: v.guest.id, at: ago(30), login_type: 'SMS' }]);
    await post(v, [
      { kind: 'start', mac: randomMac(), guest_id: v.guest.id, at: ago(40), login_type: 'Voucher' },
    ]);
    const g = await prisma().guest.findUniqueOrThrow({ where: { id: v.guest.id } });
    expect([g.lastLoginType, g.lastVisitDate?.toISOString(), g.visitCount]).toEqual([
      'SMS',
      ago(30).toISOString(),
      2,
    ]);
  });

  it('a redeem after a session the ingest opened a moment ahead ends it no earlier than it began, and moves no time back', async () => {
    const v = await venue();
    const ahead = new Date(Math.floor(Date.now() / 1000) * 1000 + 120_000);
    await post(v, [{ kind: 'start', guest_id: v.guest.id, at: ahead }]);
    const code = uniqueName('R').slice(0, 30);
    const created = await t.request('POST', '/api/v1/access-codes', {
      token: v.a.token,
      body: { location_id: v.a.location_id, service_profile_id: v.a.service_profile_id, type: 1, code },
    });
    expect(created.status, created.text).toBe(201);
    const redeemed = await t.request('POST', '/api/v1/access-codes/redeem', {
      token: v.ingest,
      body: { code, location_id: v.a.location_id, mac: v.mac, start_session: true, ip_address: '10.0.0.9' },
    });
    expect(redeemed.status, redeemed.text).toBe(200);
    // The ingest's (the redeem opened another of the guest's: picked by its start, not by row order).
    const ingested = await prisma().guestSession.findFirstOrThrow({
      where: { guestId: v.guest.id, startTime: ahead },
    });
    expect(ingested.endTime?.toISOString()).toBe(ahead.toISOString());
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: v.a.tenant_id } });
    expect(device.lastSeenTime?.toISOString()).toBe(ahead.toISOString());
    const g = await prisma().guest.findUniqueOrThrow({ where: { id: v.guest.id } });
    expect(g.lastVisitDate?.toISOString()).toBe(ahead.toISOString());
  });
});

// A guest's erasure ends its devices' current presence, as it ends their open sessions: the MACs
// become stand-ins, so a controller naming the device again (by its real MAC) is a new device, and
// the stand-in's presence left in place would count the same phone twice until it timed out. The
// open visits close at the last detection with `reason: "erased"`, the current presence goes,
// subscribers hear it; a device another guest has now stays present (src/modules/guests/guests.privacy.ts).
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PresenceChange } from '../src/modules/presence/presence.pubsub.js';
import { presenceTopic } from '../src/modules/presence/presence.pubsub.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, newTenant, randomMac } from './helpers/fixtures.js';
import { subscribeTo } from './helpers/sse.js';

let t: TestApp;
/** The server's address: the resumed subscription is a real SSE stream. */
let base: string;
beforeAll(async () => {
  t = await startApp();
  await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.fastify.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

const prisma = () => t.db.prisma;
let n = 0;
const eid = (): string => `erasure-presence-${Date.now()}-${++n}-${randomBytes(3).toString('hex')}`;
/** Whole seconds ago, so the events' times are exact. */
const ago = (seconds: number): Date => new Date(Math.floor(Date.now() / 1000) * 1000 - seconds * 1000);
const micros = (d: Date): string => `${d.toISOString().slice(0, 23)}000Z`;
const STAND_IN = /^02(:[0-9A-F]{2}){5}$/;

/** A tenant with one location and zone, its ingest token, and the calls the tests make. */
async function venue() {
  const a = await newTenant(prisma());
  const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
  const zone = await prisma().zone.findFirstOrThrow({
    where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
  });
  const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
  const guest = async (name: string): Promise<string> => {
    const res = await t.request('POST', '/api/v1/guests', {
      token: a.token,
      body: { location_id: locationId, name },
    });
    expect(res.status, res.text).toBe(201);
    return res.json.data.id;
  };
  /** The device signs in as the guest (the device becomes the guest's). */
  const signIn = async (mac: string, guestId: string, at: Date) => {
    const res = await t.request('POST', '/api/v1/ingest/sessions', {
      token: ingest,
      body: {
        events: [
          {
            event_id: eid(),
            kind: 'start',
            mac,
            ip: '10.1.2.3',
            guest_id: guestId,
            location_id: locationId,
            bytes_up: 1,
            bytes_down: 2,
            login_type: 'Email',
            at: at.toISOString(),
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
  };
  const detect = async (mac: string, at: Date) => {
    const res = await t.request('POST', '/api/v1/ingest/presence', {
      token: ingest,
      body: {
        events: [
          {
            event_id: eid(),
            mac,
            zone_id: zone.id,
            data_type: 1,
            connected: true,
            seen_at: at.toISOString(),
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
  };
  /** REST active sessions' MACs at the location. */
  const activeMacs = async (): Promise<string[]> => {
    const res = await t.request(
      'GET',
      `/api/v1/locations-analytics/active-sessions?location_id=${locationId}`,
      {
        token: a.token,
      },
    );
    expect(res.status, res.text).toBe(200);
    return (res.json.data ?? res.json).map((r: Json) => r.mac_address).sort();
  };
  /** GraphQL presenceOccupancy of the location. */
  const occupancy = async (): Promise<Json> => {
    const res = await t.graphql(
      a.token,
      'query($l: ID) { presenceOccupancy(locationId: $l) { locations { id present connected } } }',
      { l: locationId },
    );
    expect(res.json.errors, res.text).toBeUndefined();
    return res.json.data.presenceOccupancy.locations;
  };
  const erase = async (guestId: string) => {
    const res = await t.request('DELETE', `/api/v1/guests/${guestId}`, { token: a.token });
    expect(res.status, res.text).toBe(204);
  };
  /** The tenant's presence leaves in the log (REST GET /events). */
  const leaves = async (): Promise<Json[]> => {
    const res = await t.request(
      'GET',
      '/api/v1/events?types[]=presence.zone_left&types[]=presence.location_left&per_page=100',
      { token: a.token },
    );
    expect(res.status, res.text).toBe(200);
    return res.json.data;
  };
  return { a, locationId, zone, guest, signIn, detect, activeMacs, occupancy, erase, leaves };
}

describe.concurrent('erasure of a guest whose device is present', () => {
  it('ends its presence: 0 present at once, the visit closed with reason `erased`, the real MAC counted once when seen again', async () => {
    const v = await venue();
    const guest = await v.guest('Present Guest');
    const mac = randomMac();
    await v.signIn(mac, guest, ago(300));
    await v.detect(mac, ago(60));
    const seen = ago(30);
    await v.detect(mac, seen);
    expect(await v.activeMacs()).toEqual([mac]);
    expect(await v.occupancy()).toEqual([{ id: v.locationId, present: 1, connected: 1 }]);
    const visit = await prisma().locationSession.findFirstOrThrow({
      where: { tenantId: v.a.tenant_id, endedAt: null },
    });
    // Subscribers of the location hear of the erasure's leave.
    const heard: PresenceChange[] = [];
    const listening = t.app.pubsub.listen(
      'presenceChanged',
      presenceTopic(v.a.tenant_id, v.locationId),
      (c) => heard.push(c),
    );
    await listening.ready;

    try {
      await v.erase(guest);

      expect(await v.activeMacs()).toEqual([]);
      expect(await v.occupancy()).toEqual([]);
      expect(await prisma().currentPresence.count({ where: { tenantId: v.a.tenant_id } })).toBe(0);
      // The visit ended at its last detection, under the stand-in.
      const closed = await prisma().locationSession.findUniqueOrThrow({ where: { id: visit.id } });
      expect(closed.mac).toMatch(STAND_IN);
      expect(closed.endedAt).toEqual(seen);
      expect(closed.duration).toBe(Math.floor((seen.getTime() - visit.startedAt.getTime()) / 1000));
      const zoneVisit = await prisma().locationLog.findFirstOrThrow({ where: { id: visit.lastLogId ?? '' } });
      expect(zoneVisit.duration).toBe(Math.floor((seen.getTime() - zoneVisit.timestamp.getTime()) / 1000));

      // The two leaves, by the eraser, naming the device by its stand-in (as the visit's row does).
      const erasedEvent = await prisma().event.findFirstOrThrow({
        where: { tenantId: v.a.tenant_id, type: 'guest.erased' },
      });
      const left = await v.leaves();
      expect(left.map((e: Json) => [e.type, e.payload.reason])).toEqual([
        ['presence.zone_left', 'erased'],
        ['presence.location_left', 'erased'],
      ]);
      for (const e of left) {
        expect(e.actor).toEqual({
          type: 'user',
          user_id: v.a.user_id,
          token_id: erasedEvent.actorTokenId,
        });
        expect(e.actor.token_id).not.toBeNull();
        expect(e.payload).toMatchObject({ mac: closed.mac, guest_id: guest, location_id: v.locationId });
        expect(e.payload.left_at).toBe(micros(seen));
        expect(JSON.stringify(e.payload)).not.toContain(mac);
      }
      expect(left[0].payload).toMatchObject({ location_visit_id: visit.id, zone_id: v.zone.id });
      expect(left[1].payload).toMatchObject({ id: visit.id, visit_type: 1, duration: closed.duration });
      // Before guest.erased: the device left, then the guest was erased.
      expect(left.every((e: Json) => BigInt(e.id) < erasedEvent.id)).toBe(true);

      // Published after the commit: the stand-in left, at the erasure's log position.
      const last = await prisma().event.findFirstOrThrow({
        where: { tenantId: v.a.tenant_id },
        orderBy: { id: 'desc' },
      });
      expect(heard).toEqual([
        {
          tenantId: v.a.tenant_id,
          locationId: v.locationId,
          macs: [closed.mac],
          at: expect.any(String),
          eventId: String(last.id),
          // The transaction's first event: its zone leave (its ids are consecutive).
          firstEventId: String(left[0].id),
        },
      ]);

      // The controller names the phone again by its real MAC: one device present, a new one.
      await v.detect(mac, ago(0));
      expect(await v.activeMacs()).toEqual([mac]);
      expect(await v.occupancy()).toEqual([{ id: v.locationId, present: 1, connected: 1 }]);
      const open = await prisma().locationSession.findMany({
        where: { tenantId: v.a.tenant_id, endedAt: null },
      });
      expect(open.map((s) => [s.mac, s.visitType, s.guestId])).toEqual([[mac, 1, null]]);
    } finally {
      listening.close();
    }
  });

  it('reaches a subscriber resuming with `after` as it reached a live one: the stand-in left, at the erasure’s position', async () => {
    const v = await venue();
    const guest = await v.guest('Resumed Guest');
    const mac = randomMac();
    await v.signIn(mac, guest, ago(300));
    await v.detect(mac, ago(30));
    const before = await prisma().eventSequence.findUniqueOrThrow({ where: { tenantId: v.a.tenant_id } });
    await v.erase(guest);
    const [device] = await prisma().guestDevice.findMany({
      where: { tenantId: v.a.tenant_id, guestId: guest },
    });
    expect(device?.mac).toMatch(STAND_IN);
    const after = await prisma().eventSequence.findUniqueOrThrow({ where: { tenantId: v.a.tenant_id } });

    const sub = await subscribeTo(
      base,
      v.a.token,
      'subscription($l: ID!, $after: ID) { presenceChanged(locationId: $l, after: $after) { macAddresses eventId sessions { macAddress } } }',
      { l: v.locationId, after: String(before.lastId) },
    );
    try {
      const first = await sub.nextFrame(5000);
      expect(first.data).toEqual({
        data: {
          presenceChanged: { macAddresses: [device?.mac], eventId: String(after.lastId), sessions: [] },
        },
      });
      expect(first.id).toBe(String(after.lastId));
    } finally {
      sub.close();
    }
  });

  it('leaves another guest’s devices present: its own, and one the erased guest used before', async () => {
    const v = await venue();
    const [erased, other] = [await v.guest('Erased Guest'), await v.guest('Other Guest')];
    const [mine, theirs, passedOn] = [randomMac(), randomMac(), randomMac()];
    await v.signIn(mine, erased, ago(600));
    await v.signIn(theirs, other, ago(600));
    // A device the erased guest used, then signed in as the other guest: it is the other guest's now.
    await v.signIn(passedOn, erased, ago(250));
    await v.detect(passedOn, ago(200));
    await v.signIn(passedOn, other, ago(150));
    for (const mac of [mine, theirs, passedOn]) await v.detect(mac, ago(30));
    expect(await v.activeMacs()).toEqual([mine, theirs, passedOn].sort());
    expect(await v.occupancy()).toEqual([{ id: v.locationId, present: 3, connected: 3 }]);
    const openBefore = await prisma().locationSession.findMany({
      where: { tenantId: v.a.tenant_id, mac: { in: [theirs, passedOn] }, endedAt: null },
      orderBy: { id: 'asc' },
    });
    expect(openBefore).toHaveLength(2);

    await v.erase(erased);

    // The other guest's devices count once each, their visits still open, no leave recorded for them.
    expect(await v.activeMacs()).toEqual([theirs, passedOn].sort());
    expect(await v.occupancy()).toEqual([{ id: v.locationId, present: 2, connected: 2 }]);
    const openAfter = await prisma().locationSession.findMany({
      where: { tenantId: v.a.tenant_id, endedAt: null },
      orderBy: { id: 'asc' },
    });
    expect(openAfter.map((s) => [s.id, s.mac, s.guestId])).toEqual(
      openBefore.map((s) => [s.id, s.mac, other]),
    );
    const left = await v.leaves();
    expect(left.map((e: Json) => [e.type, e.payload.reason, e.payload.guest_id, e.payload.mac])).toEqual([
      ['presence.zone_left', 'erased', erased, expect.stringMatching(STAND_IN)],
      ['presence.location_left', 'erased', erased, expect.stringMatching(STAND_IN)],
    ]);
    expect(left[0].payload.mac).not.toBe(mine);
    // Seen again, they continue their visits: nobody counts twice.
    for (const mac of [theirs, passedOn]) await v.detect(mac, ago(0));
    expect(await v.occupancy()).toEqual([{ id: v.locationId, present: 2, connected: 2 }]);
    expect(await prisma().locationSession.count({ where: { tenantId: v.a.tenant_id, endedAt: null } })).toBe(
      2,
    );
  });
});

// The retention sweeper (issue 17): each tenant's settings applied in bounded batches. Rows older than
// a setting go and younger ones stay; tenants with every setting off, or none saved, are untouched; a
// guest inactive for N months is anonymised exactly as `DELETE /guests/:id` erases (404 afterwards)
// while guests with any recent activity stay; two sweepers started at once (two app instances on one
// database) do the work once; the periodic pass runs on its timer and stops with the app.
// A database of this file's own: a pass sweeps every tenant, and its counts are the database's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { Prisma as PrismaNS } from '../src/generated/prisma/client.js';
import { RETENTION_OFF } from '../src/modules/retention/retention.service.js';
import {
  applyRetention,
  countRetention,
  cutoffsOf,
  eraseIfInactive,
  monthsBefore,
  noCounts,
  type RetentionCounts,
} from '../src/modules/retention/retention.sweep.js';
import { RETENTION_LOCK_KEY, type SweepOutcome } from '../src/modules/retention/retention.sweeper.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { avatarStorage } from '../src/storage/storage.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addDevice, addGuest, addHierarchy, addSession, newTenant, randomMac } from './helpers/fixtures.js';
import { type ScratchDatabase, scratchDatabase } from './helpers/scratch-database.js';

let t: TestApp;
let scratch: ScratchDatabase;
beforeAll(async () => {
  scratch = await scratchDatabase('retention');
  // Avatars in the database (StoredFile), so a removed avatar is a row that is gone.
  t = await startApp({ MEDIA_STORAGE: 'database' }, { db: scratch.db });
});
afterAll(async () => {
  await t.close();
  await scratch.drop();
});

const prisma = () => t.db.prisma;
const DAY = 86_400_000;
const ago = (days: number): Date => new Date(Date.now() - days * DAY);
// The old guests' times, the same for each (the erased twin's row is compared with the swept one's).
const CREATED = ago(600);
const LAST_SEEN = ago(590);
const NOT_FOUND = '{"error":"Record not found."}';
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 7),
]);

/** Settings of a world: 13 months for guests, 30 days for the rest (the defaults of these tests). */
const SETTINGS = {
  anonymizeInactiveGuestsAfterMonths: 13,
  deletePresenceRecordsAfterDays: 30,
  deleteLocationLogsAfterDays: 30,
  deleteGuestSessionsAfterDays: 30,
};

/** Sets a guest's (or device's) times as they would be after months without a write. */
async function backdate(table: 'Guest' | 'GuestDevice', id: string, times: Record<string, Date | null>) {
  for (const [column, value] of Object.entries(times)) {
    await prisma().$executeRaw(
      PrismaNS.sql`UPDATE ${PrismaNS.raw(`"${table}"`)} SET ${PrismaNS.raw(`"${column}"`)} = ${value} WHERE "id" = ${id}`,
    );
  }
}

/** A guest with personal data, a tag, an avatar, a device, and a past 600 days old (20 months). */
async function oldGuest(tenantId: string, locationId: string, name: string) {
  const imagePath = await avatarStorage({ config: t.config, prisma: prisma() }).put('avatar', PNG, 'png');
  const guest = await addGuest(prisma(), tenantId, locationId, {
    name,
    firstName: name.split(' ')[0] ?? null,
    lastName: name.split(' ')[1] ?? null,
    phone: '+971500000001',
    passportNo: 'P1234567',
    roomNo: '101',
    customData: '{"vip":true}',
    imagePath,
    lastVisitDate: LAST_SEEN,
    visitCount: 3,
  });
  const tag = await prisma().tag.upsert({
    where: { tenantId_name: { tenantId, name: 'vip' } },
    create: { tenantId, name: 'vip' },
    update: {},
  });
  await prisma().guestTag.create({ data: { tenantId, guestId: guest.id, tagId: tag.id } });
  const device = await addDevice(prisma(), guest.tenantId, guest.id, {
    ip: '10.1.2.3',
    userAgent: 'Phone/1.0',
    lastSeenTime: LAST_SEEN,
  });
  await backdate('GuestDevice', device.id, { createdAt: CREATED, updatedAt: LAST_SEEN });
  await backdate('Guest', guest.id, { createdAt: CREATED, updatedAt: LAST_SEEN });
  return { guest, device, imagePath };
}

/**
 * A tenant with `settings` (none saved when undefined), and rows on both sides of every cutoff:
 * presence records, location logs and guest sessions 31 days old (go) and 29 days old (stay), an open
 * session started 400 days ago (stays); an inactive guest with its history (goes), and guests each
 * with one sign of activity in the last 13 months (stay).
 */
async function world(settings?: Partial<typeof SETTINGS>) {
  const a = await newTenant(prisma());
  const tenantId = a.tenant_id;
  const locationId = a.location_id;
  if (settings) await prisma().retentionSettings.create({ data: { tenantId, ...settings } });

  // Someone present now, whose rows are the ones aged on both sides of the cutoffs.
  const anchor = await addGuest(prisma(), tenantId, locationId);
  const anchorDevice = await addDevice(prisma(), tenantId, anchor.id);
  const at = { guestId: anchor.id, deviceId: anchorDevice.id, locationId };
  for (const days of [31, 45, 29]) {
    await addSession(prisma(), tenantId, at, { startTime: ago(days + 1), endTime: ago(days) });
    const record = await prisma().presenceRecord.create({
      data: { tenantId, mac: randomMac(), dataType: 1, locationId, seenAt: ago(days) },
    });
    // Each of these devices' latest detection (the active-sessions read model) goes with its record.
    await prisma().currentPresence.create({
      data: { tenantId, mac: record.mac, recordId: record.id, dataType: 1, locationId, seenAt: ago(days) },
    });
  }
  await addSession(prisma(), tenantId, at, { startTime: ago(400), endTime: null, online: true });
  const visit = await prisma().locationSession.create({
    data: { tenantId, locationId, mac: anchorDevice.mac, startedAt: ago(60), endedAt: ago(1) },
  });
  for (const days of [31, 45, 29]) {
    await prisma().locationLog.create({
      data: { tenantId, locationId, sessionId: visit.id, guestMac: anchorDevice.mac, timestamp: ago(days) },
    });
  }

  // The inactive guest: its last session ended and its device was last seen 590 days ago.
  const inactive = await oldGuest(tenantId, locationId, 'Ina Ctive');
  await addSession(
    prisma(),
    tenantId,
    { guestId: inactive.guest.id, deviceId: inactive.device.id, locationId },
    { startTime: ago(591), endTime: ago(590), ipAddress: '10.9.9.9' },
  );
  await prisma().presenceRecord.create({
    data: {
      tenantId,
      mac: inactive.device.mac,
      deviceId: inactive.device.id,
      guestId: inactive.guest.id,
      dataType: 1,
      locationId,
      seenAt: ago(590),
    },
  });
  // A past visit (location sessions are kept by every setting): its MAC becomes the stand-in.
  const inactiveVisit = await prisma().locationSession.create({
    data: {
      tenantId,
      locationId,
      guestId: inactive.guest.id,
      deviceId: inactive.device.id,
      mac: inactive.device.mac,
      startedAt: ago(591),
      endedAt: ago(590),
    },
  });

  // Guests with one sign of activity each within the 13 months.
  const active: Record<string, string> = {};
  const updated = await oldGuest(tenantId, locationId, 'Recently Updated');
  await backdate('Guest', updated.guest.id, { updatedAt: ago(60) });
  active.updated = updated.guest.id;
  const visited = await oldGuest(tenantId, locationId, 'Recent Visit');
  await backdate('Guest', visited.guest.id, { lastVisitDate: ago(60) });
  active.visited = visited.guest.id;
  const seen = await oldGuest(tenantId, locationId, 'Device Seen');
  await backdate('GuestDevice', seen.device.id, { lastSeenTime: ago(60) });
  active.deviceSeen = seen.guest.id;
  const present = await oldGuest(tenantId, locationId, 'Presence Seen');
  // (The ingest moves the device's last sighting with each record; here the record alone says so.)
  await prisma().presenceRecord.create({
    data: { tenantId, mac: present.device.mac, guestId: present.guest.id, dataType: 2, seenAt: ago(20) },
  });
  active.presence = present.guest.id;
  const online = await oldGuest(tenantId, locationId, 'Still Connected');
  await addSession(
    prisma(),
    tenantId,
    { guestId: online.guest.id, deviceId: online.device.id, locationId },
    { startTime: ago(600), endTime: null },
  );
  active.openSession = online.guest.id;
  const walked = await oldGuest(tenantId, locationId, 'Walked Through');
  await prisma().locationSession.create({
    data: {
      tenantId,
      locationId,
      guestId: walked.guest.id,
      mac: walked.device.mac,
      startedAt: ago(200),
      endedAt: ago(200),
    },
  });
  active.locationVisit = walked.guest.id;
  const young = await addGuest(prisma(), tenantId, locationId);
  await backdate('Guest', young.id, { createdAt: ago(60), updatedAt: ago(60) });
  active.new = young.id;

  return { a, tenantId, locationId, inactive, inactiveVisit, active };
}

/** What a world with SETTINGS loses in a pass. */
const WORLD_COUNTS: RetentionCounts = {
  inactive_guests: 1,
  // 31 and 45 days old; the inactive guest's (590 days).
  presence_records: 3,
  location_logs: 2,
  // 31 and 45 days old; the inactive guest's last one (590 days).
  guest_sessions: 3,
  // The rows here are written directly: no event copies them.
  events: 0,
};

/** Rows of the tenant, per table. */
async function rowsOf(tenantId: string) {
  const where = { tenantId };
  const [guests, erased, presence, current, logs, sessions, devices, visits] = await Promise.all([
    prisma().guest.count({ where: { ...where, erasedAt: null } }),
    prisma().guest.count({ where: { ...where, erasedAt: { not: null } } }),
    prisma().presenceRecord.count({ where }),
    prisma().currentPresence.count({ where }),
    prisma().locationLog.count({ where }),
    prisma().guestSession.count({ where }),
    prisma().guestDevice.count({ where }),
    prisma().locationSession.count({ where }),
  ]);
  return { guests, erased, presence, current, logs, sessions, devices, visits };
}

const total = (o: SweepOutcome): number =>
  o.swept ? Object.values(o.counts).reduce((sum, n) => sum + n, 0) : 0;

describe('a retention pass', { timeout: 60_000 }, () => {
  it('removes what is older than each setting, keeps what is younger, and anonymises the inactive guest', async () => {
    const w = await world(SETTINGS);
    const off = await world();
    const allNull = await world({
      anonymizeInactiveGuestsAfterMonths: undefined,
      deletePresenceRecordsAfterDays: undefined,
    });
    const before = await rowsOf(w.tenantId);
    const offBefore = await rowsOf(off.tenantId);
    const allNullBefore = await rowsOf(allNull.tenantId);
    expect(before).toEqual({
      guests: 9,
      erased: 0,
      presence: 5,
      current: 3,
      logs: 3,
      sessions: 6,
      devices: 8,
      visits: 3,
    });

    // What would go, counted as the CLI's dry run counts it.
    const settings = { ...RETENTION_OFF, ...SETTINGS };
    expect(await countRetention(prisma(), w.tenantId, cutoffsOf(settings, new Date()))).toEqual(WORLD_COUNTS);

    const outcome = await t.app.retention.sweep();
    expect(outcome).toEqual({ swept: true, tenants: 1, counts: WORLD_COUNTS, failures: 0 });

    expect(await rowsOf(w.tenantId)).toEqual({
      guests: 8,
      erased: 1,
      // The 29-day-old rows (and the 20-day-old record), and the open sessions (the anchor's, 400
      // days old; the connected guest's).
      presence: 2,
      current: 1,
      logs: 1,
      sessions: 3,
      devices: 8,
      visits: 3,
    });
    const left = await prisma().guestSession.findMany({
      where: { tenantId: w.tenantId },
      select: { endTime: true },
    });
    expect(left.filter((s) => s.endTime === null)).toHaveLength(2);
    // Tenants with nothing on: untouched.
    expect(await rowsOf(off.tenantId)).toEqual(offBefore);
    expect(await rowsOf(allNull.tenantId)).toEqual(allNullBefore);

    // The active guests stay, readable as before.
    for (const [why, id] of Object.entries(w.active)) {
      const res = await t.request('GET', `/api/v1/guests/${id}`, { token: w.a.token });
      expect(res.status, why).toBe(200);
    }
    // A second pass finds nothing more.
    expect(await t.app.retention.sweep()).toEqual({
      swept: true,
      tenants: 1,
      counts: noCounts(),
      failures: 0,
    });
  });

  it('anonymises an inactive guest exactly as the erasure does: 404 afterwards, avatar gone, MACs replaced', async () => {
    const w = await world(SETTINGS);
    const { guest, device, imagePath } = w.inactive;
    // Its twin, erased by DELETE /guests/:id before the pass (an erased guest is no longer inactive).
    const twin = await oldGuest(w.tenantId, w.locationId, 'Ina Ctive');
    const del = await t.request('DELETE', `/api/v1/guests/${twin.guest.id}`, { token: w.a.token });
    expect(del.status).toBe(204);

    const outcome = await t.app.retention.sweep();
    expect(outcome.swept && outcome.counts.inactive_guests).toBe(1);

    for (const [method, url] of [
      ['GET', `/api/v1/guests/${guest.id}`],
      ['GET', `/api/v1/guests/${guest.id}/export`],
      ['DELETE', `/api/v1/guests/${guest.id}`],
    ] as const) {
      const res = await t.request(method, url, { token: w.a.token });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.text).toBe(NOT_FOUND);
    }
    const gql = await t.graphql(w.a.token, 'query($id: ID!) { guest(id: $id) { id } }', { id: guest.id });
    expect(gql.json.data.guest).toBeNull();

    // The swept row and the erased twin hold the same: everything personal emptied.
    const rowOf = async (id: string) => {
      const {
        id: _id,
        username,
        createdAt: _c,
        updatedAt: _u,
        erasedAt,
        ...rest
      } = await prisma().guest.findUniqueOrThrow({
        where: { id },
      });
      expect(username).toMatch(/^erased-[0-9a-f]{12}$/);
      expect(erasedAt).toBeInstanceOf(Date);
      return rest;
    };
    const swept = await rowOf(guest.id);
    expect(swept).toEqual(await rowOf(twin.guest.id));
    expect(swept).toMatchObject({ name: '', email: null, phone: null, imagePath: null, customData: null });
    const deviceOf = async (id: string) => {
      const {
        id: _id,
        guestId: _g,
        mac,
        createdAt: _c,
        updatedAt: _u,
        ...rest
      } = await prisma().guestDevice.findUniqueOrThrow({ where: { id } });
      expect(mac).toMatch(/^02(:[0-9A-F]{2}){5}$/);
      return { mac, rest };
    };
    const sweptDevice = await deviceOf(device.id);
    const twinDevice = await deviceOf(twin.device.id);
    expect(sweptDevice.rest).toEqual(twinDevice.rest);
    expect(sweptDevice.rest).toMatchObject({ ip: null, userAgent: null, partnerId: null, description: '' });
    expect(sweptDevice.mac).not.toBe(device.mac);
    // The kept visit carries the same stand-in: counts of devices and visits stay right.
    const visit = await prisma().locationSession.findUniqueOrThrow({ where: { id: w.inactiveVisit.id } });
    expect(visit.mac).toBe(sweptDevice.mac);
    expect(await prisma().guestTag.count({ where: { guestId: { in: [guest.id, twin.guest.id] } } })).toBe(0);
    const storage = avatarStorage({ config: t.config, prisma: prisma() });
    expect(await storage.get(imagePath)).toBeNull();
    expect(await storage.get(twin.imagePath)).toBeNull();
    // The original MAC is nowhere in the tenant any more.
    for (const table of ['GuestDevice', 'PresenceRecord', 'LocationSession'] as const) {
      const [row] = await prisma().$queryRaw<{ n: number }[]>(
        PrismaNS.sql`SELECT count(*)::int AS n FROM ${PrismaNS.raw(`"${table}"`)} WHERE "mac" = ${device.mac}`,
      );
      expect(row?.n, table).toBe(0);
    }
  });

  it('leaves a guest that came back after a batch picked it (checked again under the row’s lock)', async () => {
    const w = await world({ anonymizeInactiveGuestsAfterMonths: 13 });
    const cutoff = monthsBefore(new Date(), 13);
    const deps = { prisma: prisma(), config: t.config };
    const back = await oldGuest(w.tenantId, w.locationId, 'Back Again');
    // Picked as inactive, then a session starts (as the ingest would open one) before its erasure.
    await addSession(
      prisma(),
      w.tenantId,
      { guestId: back.guest.id, deviceId: back.device.id, locationId: w.locationId },
      { startTime: new Date(), endTime: null },
    );
    expect(await eraseIfInactive(deps, w.tenantId, back.guest.id, cutoff)).toBe(false);
    const kept = await t.request('GET', `/api/v1/guests/${back.guest.id}`, { token: w.a.token });
    expect(kept.status).toBe(200);
    expect(kept.json.data.name).toBe('Back Again');
    expect(await prisma().guestTag.count({ where: { guestId: back.guest.id } })).toBe(1);
    // The one still inactive goes; a second try finds it erased already.
    expect(await eraseIfInactive(deps, w.tenantId, w.inactive.guest.id, cutoff)).toBe(true);
    expect(await eraseIfInactive(deps, w.tenantId, w.inactive.guest.id, cutoff)).toBe(false);
    // Another tenant's id is no guest of this one.
    const other = await world();
    expect(await eraseIfInactive(deps, w.tenantId, other.inactive.guest.id, cutoff)).toBe(false);
    expect((await rowsOf(other.tenantId)).erased).toBe(0);
  });

  it('closes a visit whose device went quiet before the cutoff (timeout) before its current presence goes, else it stayed open for good', async () => {
    const a = await newTenant(prisma());
    const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
    const zone = await prisma().zone.findFirstOrThrow({
      where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
    });
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const mac = randomMac();
    // A late delivery: a detection 40 days old, ingested now (the event sweeper looks back a day).
    const seenAt = new Date(Math.floor(ago(40).getTime() / 1000) * 1000);
    const res = await t.request('POST', '/api/v1/ingest/presence', {
      token: ingest,
      body: {
        events: [
          {
            event_id: `late-${mac}`,
            mac,
            data_type: 1,
            connected: false,
            zone_id: zone.id,
            seen_at: seenAt.toISOString(),
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    const visit = () => prisma().locationSession.findFirstOrThrow({ where: { tenantId: a.tenant_id, mac } });
    expect((await visit()).endedAt).toBeNull();
    const cutoffs = cutoffsOf({ ...RETENTION_OFF, deletePresenceRecordsAfterDays: 30 }, new Date());
    await applyRetention({ prisma: prisma(), config: t.config }, a.tenant_id, cutoffs);
    // Closed at its last detection, by timeout, as the sweeper closes one; then its copy went.
    expect((await visit()).endedAt).toEqual(seenAt);
    expect(await prisma().currentPresence.count({ where: { tenantId: a.tenant_id, mac } })).toBe(0);
    const left = await prisma().event.findMany({
      where: { tenantId: a.tenant_id, type: 'presence.location_left' },
    });
    expect(left.map((e) => [e.actorType, (e.payload as { reason?: string }).reason])).toEqual([
      ['system', 'timeout'],
    ]);
  });

  it('counts, as the dry run, a guest whose only sign of life is a visit the pass closes by timeout first; a device detected since keeps its guest', async () => {
    const a = await newTenant(prisma());
    const tenantId = a.tenant_id;
    const locationId = a.location_id;
    /** An old guest whose visit is still open, its device last detected `days` ago (no row: never). */
    const withOpenVisit = async (name: string, days: number | null) => {
      const { guest, device } = await oldGuest(tenantId, locationId, name);
      await prisma().locationSession.create({
        data: {
          tenantId,
          locationId,
          guestId: guest.id,
          deviceId: device.id,
          mac: device.mac,
          startedAt: ago(591),
        },
      });
      if (days !== null) {
        const seenAt = ago(days);
        const record = await prisma().presenceRecord.create({
          data: { tenantId, mac: device.mac, guestId: guest.id, dataType: 1, locationId, seenAt },
        });
        await prisma().currentPresence.create({
          data: { tenantId, mac: device.mac, recordId: record.id, dataType: 1, locationId, seenAt },
        });
      }
      return guest.id;
    };
    const quiet = await withOpenVisit('Long Gone', 590);
    // Detected 20 days ago (its record alone would keep it); and an open visit with no detection at all.
    const back = await withOpenVisit('Came Back', 20);
    const unknown = await withOpenVisit('No Detection', null);
    const cutoffs = cutoffsOf({ ...RETENTION_OFF, anonymizeInactiveGuestsAfterMonths: 13 }, new Date());
    expect(await countRetention(prisma(), tenantId, cutoffs)).toEqual({ ...noCounts(), inactive_guests: 1 });
    expect(await applyRetention({ prisma: prisma(), config: t.config }, tenantId, cutoffs)).toEqual({
      ...noCounts(),
      inactive_guests: 1,
    });
    const erased = await prisma().guest.findMany({
      where: { tenantId, erasedAt: { not: null } },
      select: { id: true },
    });
    expect(erased.map((g) => g.id)).toEqual([quiet]);
    for (const id of [back, unknown]) {
      expect((await t.request('GET', `/api/v1/guests/${id}`, { token: a.token })).status).toBe(200);
    }
  });

  it('deletes in statements of at most 1000 rows (a batch size of its own here: 2)', async () => {
    const w = await world({ deletePresenceRecordsAfterDays: 30 });
    await prisma().presenceRecord.createMany({
      data: Array.from({ length: 2500 }, () => ({
        tenantId: w.tenantId,
        mac: randomMac(),
        dataType: 1,
        seenAt: ago(40),
      })),
    });
    const cutoffs = cutoffsOf({ ...RETENTION_OFF, deletePresenceRecordsAfterDays: 30 }, new Date());
    const batches: number[] = [];
    const sql: string[] = [];
    const off = t.db.onQuery((s) => {
      if (s.trimStart().startsWith('DELETE FROM "PresenceRecord"')) sql.push(s);
    });
    try {
      const counts = await applyRetention({ prisma: prisma(), config: t.config }, w.tenantId, cutoffs, {
        onProgress: (_kind, n) => batches.push(n),
      });
      // The world's 31- and 45-day-old ones, the inactive guest's, and the 2500.
      expect(counts).toEqual({ ...noCounts(), presence_records: 2503 });
    } finally {
      off();
    }
    expect(batches).toEqual([1000, 1000, 503]);
    expect(sql).toHaveLength(3);
    for (const s of sql) expect(s).toMatch(/LIMIT \$\d+\)\s*$/);

    const small: number[] = [];
    await prisma().presenceRecord.createMany({
      data: Array.from({ length: 5 }, () => ({
        tenantId: w.tenantId,
        mac: randomMac(),
        dataType: 1,
        seenAt: ago(40),
      })),
    });
    await applyRetention({ prisma: prisma(), config: t.config }, w.tenantId, cutoffs, {
      batchSize: 2,
      onProgress: (_kind, n) => small.push(n),
    });
    expect(small).toEqual([2, 2, 1]);
  });

  it('walks the guests in batches of the same bound, active ones among them, equal write times included', async () => {
    const w = await world({ anonymizeInactiveGuestsAfterMonths: 13 });
    // Five more inactive guests, and three active ones between them: all last written at the same
    // instant (LAST_SEEN), so batches are told apart by id alone.
    const gone: string[] = [w.inactive.guest.id];
    for (let i = 0; i < 5; i++) {
      gone.push((await oldGuest(w.tenantId, w.locationId, `Gone ${i}`)).guest.id);
      const stays = await oldGuest(w.tenantId, w.locationId, `Stays ${i}`);
      if (i < 3) await backdate('GuestDevice', stays.device.id, { lastSeenTime: ago(7) });
      else gone.push(stays.guest.id);
    }
    const cutoffs = cutoffsOf({ ...RETENTION_OFF, anonymizeInactiveGuestsAfterMonths: 13 }, new Date());
    const reads: string[] = [];
    const off = t.db.onQuery((sql) => {
      if (sql.includes('AS "inactive"')) reads.push(sql);
    });
    let counts: RetentionCounts;
    try {
      counts = await applyRetention({ prisma: prisma(), config: t.config }, w.tenantId, cutoffs, {
        batchSize: 2,
      });
    } finally {
      off();
    }
    expect(counts).toEqual({ ...noCounts(), inactive_guests: gone.length });
    const erased = await prisma().guest.findMany({
      where: { tenantId: w.tenantId, erasedAt: { not: null } },
      select: { id: true },
    });
    expect(erased.map((g) => g.id).sort()).toEqual([...gone].sort());
    // Every guest written before the cutoff read once, two at a time: the world's old ones (the
    // inactive guest and five active ones) and the ten added, 16 rows in 8 statements, and a ninth
    // that finds the end.
    expect(reads).toHaveLength(9);
    for (const sql of reads) expect(sql).toMatch(/LIMIT \$\d+\s*$/);
  });

  it('two sweepers started at once (two app instances) do the work once, without errors', async () => {
    const w = await world(SETTINGS);
    await prisma().presenceRecord.createMany({
      data: Array.from({ length: 3000 }, () => ({
        tenantId: w.tenantId,
        mac: randomMac(),
        dataType: 1,
        seenAt: ago(40),
      })),
    });
    // A second instance: its own connections to the same database on PostgreSQL; on the embedded
    // database the one process's Database, as a second app in that process would have it.
    const db2 = scratch.url ? await openDatabase({ url: scratch.url, migrate: false, poolSize: 4 }) : t.db;
    const t2 = await startApp({ MEDIA_STORAGE: 'database' }, { db: db2 });
    try {
      const outcomes = await Promise.all([t.app.retention.sweep(), t2.app.retention.sweep()]);
      const expected = { ...WORLD_COUNTS, presence_records: WORLD_COUNTS.presence_records + 3000 };
      const sum = noCounts();
      for (const o of outcomes) {
        if (o.swept) {
          expect(o.failures).toBe(0);
          for (const k of Object.keys(sum) as (keyof RetentionCounts)[]) sum[k] += o.counts[k];
        }
      }
      expect(sum).toEqual(expected);
      // The work was not split: one pass did it all (the other skipped, or came after and found nothing).
      expect(outcomes.map(total).sort((x, y) => x - y)).toEqual([
        0,
        total({ swept: true, tenants: 1, counts: expected, failures: 0 }),
      ]);
      expect(await rowsOf(w.tenantId)).toMatchObject({ erased: 1, presence: 2, logs: 1, sessions: 3 });

      // While another instance holds the lock, a pass skips.
      let release = () => {};
      const holding = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held: () => void = () => {};
      const taken = new Promise<void>((resolve) => {
        held = resolve;
      });
      const holder = db2.tryExclusive(RETENTION_LOCK_KEY, async () => {
        held();
        await holding;
      });
      await taken;
      expect(await t.app.retention.sweep()).toEqual({ swept: false });
      release();
      expect(await holder).toEqual({ acquired: true, value: undefined });
      expect(await t.app.retention.sweep()).toMatchObject({ swept: true, failures: 0 });
    } finally {
      await t2.close();
      if (db2 !== t.db) await db2.close();
    }
  });

  it('runs on its timer (RETENTION_SWEEP_SECONDS) and stops with the app, between two batches', async () => {
    const w = await world({ deletePresenceRecordsAfterDays: 30 });
    const timed = await startApp({ MEDIA_STORAGE: 'database', RETENTION_SWEEP_SECONDS: '1' }, { db: t.db });
    try {
      const deadline = Date.now() + 20_000;
      while ((await rowsOf(w.tenantId)).presence > 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      expect((await rowsOf(w.tenantId)).presence).toBe(2);
    } finally {
      await timed.close();
    }

    // Closing stops a pass after its current batch; what is left waits for the next pass.
    await prisma().presenceRecord.createMany({
      data: Array.from({ length: 5000 }, () => ({
        tenantId: w.tenantId,
        mac: randomMac(),
        dataType: 1,
        seenAt: ago(40),
      })),
    });
    const other = await startApp({ MEDIA_STORAGE: 'database' }, { db: t.db });
    const pass = other.app.retention.sweep();
    await other.close();
    const outcome = await pass;
    expect(outcome.swept).toBe(true);
    const done = outcome.swept ? outcome.counts.presence_records : 0;
    expect(done).toBeLessThan(5000);
    expect((await rowsOf(w.tenantId)).presence).toBe(2 + 5000 - done);
    // The next pass finishes the work.
    const next = await t.app.retention.sweep();
    expect(next.swept && next.counts.presence_records).toBe(5000 - done);
  });
});

describe('monthsBefore', () => {
  it('counts calendar months back in UTC, the day clamped to the month’s last', () => {
    const at = (iso: string) => new Date(iso);
    expect(monthsBefore(at('2027-03-31T10:00:00Z'), 13).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(monthsBefore(at('2026-11-25T02:00:00Z'), 1).toISOString()).toBe('2026-10-25T02:00:00.000Z');
    expect(monthsBefore(at('2026-01-15T00:00:00Z'), 120).toISOString()).toBe('2016-01-15T00:00:00.000Z');
    expect(monthsBefore(at('2028-03-31T00:00:00Z'), 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });
});

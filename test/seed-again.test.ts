// `admin seed` run again on a tenant that lived in between: its guests keep their numbers (an erased
// or re-cased seeded email never makes the next run reuse one, nor fail on the unique email), the
// devices, sessions and presence go to the guests this run created only (never to a guest the API
// created, nor to an erased one), and the counts printed are what this run added. The seeders are
// called as `admin seed` calls them (src/cli/admin.ts), in one transaction, or one by one as the
// parity test and the OpenAPI examples do.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newSeedRun, type SeedOptions, seeders, seedTurn } from '../src/cli/seeders.js';
import type { Database } from '../src/db/database.js';
import { seededRandom } from '../src/modules/locations/locations.seed.js';
import { openTestDatabase, startApp, type TestApp } from './helpers/app.js';
import { addDevice, newTenant } from './helpers/fixtures.js';

let t: TestApp;
let db: Database | undefined;
beforeAll(async () => {
  // Its concurrent describes hold up to eight seed transactions at once (pg-pool waits at most 5 s
  // for a connection, and a 300-guest seed on a busy machine takes longer): one connection each, and
  // one for the test that seeds without a transaction.
  db = await openTestDatabase(10);
  t = await startApp({}, { db });
});
afterAll(async () => {
  await t?.close();
  await db?.close();
});

const prisma = () => t.db.prisma;
const SEED_EMAIL = /^guest(\d+)@guests\.seed\.invalid$/i;

/** Every seeder on the tenant, as `admin seed` runs them (one transaction) or one by one; the counts. */
async function seed(
  tenantId: string,
  guests: number,
  opts: { seed: number; transaction?: boolean; progress?: (message: string) => void },
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const o = { tenantId, rand: seededRandom(opts.seed), guests, progress: opts.progress ?? (() => {}) };
  const made = newSeedRun();
  if (opts.transaction === false) {
    for (const seeder of seeders) Object.assign(counts, await seeder.run(prisma(), o, made));
    return counts;
  }
  await prisma().$transaction(
    async (tx) => {
      await seedTurn(tx, o);
      for (const seeder of seeders) Object.assign(counts, await seeder.run(tx, o, made));
    },
    { maxWait: 30_000, timeout: 120_000 },
  );
  return counts;
}

/** The seeded guests' numbers (from their emails, whatever their case), by guest id. */
async function seededNumbers(tenantId: string): Promise<Map<string, number>> {
  const rows = await prisma().guest.findMany({ where: { tenantId }, select: { id: true, email: true } });
  const numbers = new Map<string, number>();
  for (const r of rows) {
    const m = SEED_EMAIL.exec(r.email ?? '');
    if (m) numbers.set(r.id, Number(m[1]));
  }
  return numbers;
}

/** How many rows of each kind the seed reports the tenant has (the keys of its counts). */
async function totals(tenantId: string): Promise<Record<string, number>> {
  const p = prisma();
  const where = { tenantId };
  return {
    locations: await p.location.count({ where }),
    buildings: await p.building.count({ where }),
    floors: await p.floor.count({ where }),
    zones: await p.zone.count({ where }),
    users: await p.user.count({ where }),
    advertisements: await p.advertisement.count({ where }),
    access_codes: await p.accessCode.count({ where }),
    guests: await p.guest.count({ where }),
    guest_tags: await p.guestTag.count({ where }),
    guest_devices: await p.guestDevice.count({ where }),
    guest_sessions: await p.guestSession.count({ where }),
    presence_records: await p.presenceRecord.count({ where }),
    active_sessions: await p.currentPresence.count({ where }),
    location_sessions: await p.locationSession.count({ where }),
    location_logs: await p.locationLog.count({ where }),
  };
}

const delta = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)]));

/** What the guest has: its rows elsewhere and its totals. */
async function holdings(tenantId: string, guestId: string) {
  const p = prisma();
  const where = { tenantId, guestId };
  const g = await p.guest.findUniqueOrThrow({
    where: { id: guestId },
    select: { totalDownloadedData: true, totalUploadedData: true, visitCount: true, online: true },
  });
  return {
    devices: await p.guestDevice.count({ where }),
    sessions: await p.guestSession.count({ where }),
    presence: await p.presenceRecord.count({ where }),
    current: await p.currentPresence.count({ where }),
    location_sessions: await p.locationSession.count({ where }),
    location_logs: await p.locationLog.count({ where }),
    down: String(g.totalDownloadedData),
    up: String(g.totalUploadedData),
    visits: g.visitCount,
    online: g.online,
  };
}

describe.concurrent('admin seed, run again', () => {
  it('after an erasure, continues the numbering (no number reused, no unique-email failure)', async () => {
    const a = await newTenant(prisma());
    const first = await seed(a.tenant_id, 10, { seed: 1 });
    expect(first.guests).toBe(10);
    const before = await seededNumbers(a.tenant_id);
    expect([...before.values()].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const byNumber = new Map([...before].map(([id, n]) => [n, id]));
    // A middle one (the run after it counted one seeded email less) and the last one.
    for (const n of [3, 10]) {
      const res = await t.request('DELETE', `/api/v1/guests/${byNumber.get(n)}`, { token: a.token });
      expect(res.status, res.text).toBe(204);
    }

    const second = await seed(a.tenant_id, 5, { seed: 2 });
    expect(second.guests).toBe(5);
    const after = await seededNumbers(a.tenant_id);
    const added = [...after].filter(([id]) => !before.has(id)).map(([, n]) => n);
    expect(added).toHaveLength(5);
    expect(new Set(added).size).toBe(5);
    // Past every number the first run gave, the erased ones included.
    for (const n of added) expect(n).toBeGreaterThan(10);
  });

  it('after a seeded email changed case, continues past it (seeders called one by one)', async () => {
    const a = await newTenant(prisma());
    await seed(a.tenant_id, 6, { seed: 3, transaction: false });
    const before = await seededNumbers(a.tenant_id);
    const [id2] = [...before].find(([, n]) => n === 2) ?? [];
    const guest2 = await prisma().guest.findUniqueOrThrow({ where: { id: id2 as string } });
    const put = await t.request('PUT', `/api/v1/guests/${id2}`, {
      token: a.token,
      body: { location_id: guest2.locationId, email: 'GUEST2@GUESTS.SEED.INVALID' },
    });
    expect(put.status, put.text).toBe(200);
    // The unique index on lower(email) still holds it: no other guest may be guest2 in any case.
    expect(await seededNumbers(a.tenant_id)).toEqual(before);
    // A seeded venue renamed in another case is the same venue (names are unique regardless of case).
    const harbour = await prisma().location.findFirstOrThrow({
      where: { tenantId: a.tenant_id, name: 'Harbour Hotel' },
    });
    const renamed = await t.request('PUT', `/api/v1/locations/${harbour.id}`, {
      token: a.token,
      body: { name: 'HARBOUR HOTEL' },
    });
    expect(renamed.status, renamed.text).toBe(200);

    const second = await seed(a.tenant_id, 4, { seed: 4, transaction: false });
    expect(second.guests).toBe(4);
    expect(second.locations).toBe(0);
    const added = [...(await seededNumbers(a.tenant_id))].filter(([id]) => !before.has(id)).map(([, n]) => n);
    expect(added).toHaveLength(4);
    expect(new Set(added).size).toBe(4);
    for (const n of added) expect(n).toBeGreaterThan(6);
  });

  it("equips only this run's guests (not the API's, not erased ones) and reports what it added", async () => {
    const a = await newTenant(prisma());
    const start = await totals(a.tenant_id);
    const first = await seed(a.tenant_id, 8, { seed: 5 });
    expect(delta(await totals(a.tenant_id), start)).toEqual(first);

    // The last seeded guest erased (the numbering alone would not collide then); two guests the API
    // created, one with a device of its own (as the ingest would give it), bytes the guest does not sum.
    const seededIds = new Set((await seededNumbers(a.tenant_id)).keys());
    const last = [...(await seededNumbers(a.tenant_id))].sort((x, y) => y[1] - x[1])[0]?.[0] as string;
    const erased = await t.request('DELETE', `/api/v1/guests/${last}`, { token: a.token });
    expect(erased.status, erased.text).toBe(204);
    const real: string[] = [];
    for (const name of ['Real Guest', 'Real Guest With Phone']) {
      const res = await t.request('POST', '/api/v1/guests', {
        token: a.token,
        body: { location_id: a.location_id, name },
      });
      expect(res.status, res.text).toBe(201);
      real.push(res.json.data.id);
    }
    await addDevice(prisma(), a.tenant_id, real[1] as string, { totalDownloadedData: 12_345n });
    const watched = [last, ...real];
    const held = await Promise.all(watched.map((id) => holdings(a.tenant_id, id)));
    expect(held[0]?.devices).toBeGreaterThan(0);
    expect(held.slice(1).map((h) => h.devices)).toEqual([0, 1]);
    const devicesBefore = new Set(
      (await prisma().guestDevice.findMany({ where: { tenantId: a.tenant_id }, select: { id: true } })).map(
        (d) => d.id,
      ),
    );
    const beforeSecond = await totals(a.tenant_id);

    const second = await seed(a.tenant_id, 5, { seed: 6 });
    // The counts are what this run added: no user, location, advertisement or code again.
    const added = delta(await totals(a.tenant_id), beforeSecond);
    expect(second).toEqual(added);
    expect(second).toMatchObject({ users: 0, locations: 0, advertisements: 0, access_codes: 0, guests: 5 });

    // The guests the API created and the erased one have what they had, totals included.
    expect(await Promise.all(watched.map((id) => holdings(a.tenant_id, id)))).toEqual(held);
    // Every new device, session and presence row is one of this run's guests'.
    const fresh = [...(await seededNumbers(a.tenant_id)).keys()].filter((id) => !seededIds.has(id));
    expect(fresh).toHaveLength(5);
    const newDevices = await prisma().guestDevice.findMany({
      where: { tenantId: a.tenant_id, id: { notIn: [...devicesBefore] } },
      select: { guestId: true },
    });
    expect(newDevices).toHaveLength(second.guest_devices as number);
    expect(new Set(newDevices.map((d) => d.guestId))).toEqual(new Set(fresh));
    // And every row it added is theirs (they had none before): devices, sessions, presence, visits.
    const theirs = { tenantId: a.tenant_id, guestId: { in: fresh } };
    const p = prisma();
    expect({
      guest_sessions: await p.guestSession.count({ where: theirs }),
      presence_records: await p.presenceRecord.count({ where: theirs }),
      active_sessions: await p.currentPresence.count({ where: theirs }),
      location_sessions: await p.locationSession.count({ where: theirs }),
      location_logs: await p.locationLog.count({ where: theirs }),
    }).toEqual({
      guest_sessions: added.guest_sessions,
      presence_records: added.presence_records,
      active_sessions: added.active_sessions,
      location_sessions: added.location_sessions,
      location_logs: added.location_logs,
    });
  });
});

describe.concurrent('admin seed, two runs on one tenant at once', () => {
  it('both land, the later numbered past the earlier (no unique-email failure)', async () => {
    const a = await newTenant(prisma());
    const [one, two] = await Promise.all([
      seed(a.tenant_id, 6, { seed: 1 }),
      seed(a.tenant_id, 6, { seed: 2 }),
    ]);
    expect([one.guests, two.guests]).toEqual([6, 6]);
    const numbers = [...(await seededNumbers(a.tenant_id)).values()].sort((x, y) => x - y);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  // On the embedded database its one connection serves one transaction at a time anyway.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'the later one says it waits, and goes on when the turn ends',
    async () => {
      const a = await newTenant(prisma());
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let turnTaken = () => {};
      const taken = new Promise<void>((resolve) => {
        turnTaken = resolve;
      });
      const holder: Pick<SeedOptions, 'tenantId' | 'progress'> = {
        tenantId: a.tenant_id,
        progress: () => {},
      };
      const holding = prisma().$transaction(
        async (tx) => {
          await seedTurn(tx, { ...holder, rand: seededRandom(1), guests: 1 });
          turnTaken();
          await released;
        },
        { timeout: 60_000 },
      );
      await taken;
      const messages: string[] = [];
      const seeding = seed(a.tenant_id, 3, { seed: 1, progress: (m) => messages.push(m) });
      try {
        // Its transaction opens, then finds the turn taken (seconds on a busy machine).
        await vi.waitFor(
          () => expect(messages).toEqual(['another seed of this tenant is running: waiting for it to end…']),
          { timeout: 20_000, interval: 50 },
        );
        expect((await seededNumbers(a.tenant_id)).size).toBe(0);
      } finally {
        release();
        await holding;
      }
      expect((await seeding).guests).toBe(3);
      expect((await seededNumbers(a.tenant_id)).size).toBe(3);
    },
  );
});

describe.concurrent('admin seed, its times', () => {
  it('writes nothing after now: guests’ visits and writes, sessions’ starts and ends (probe G: up to an hour ahead)', async () => {
    const a = await newTenant(prisma());
    await seed(a.tenant_id, 300, { seed: 11 });
    const now = new Date();
    const later = { gt: now };
    expect(
      await prisma().guest.count({
        where: {
          tenantId: a.tenant_id,
          OR: [{ updatedAt: later }, { lastVisitDate: later }, { createdAt: later }],
        },
      }),
    ).toBe(0);
    expect(
      await prisma().guestSession.count({
        where: { tenantId: a.tenant_id, OR: [{ startTime: later }, { endTime: later }] },
      }),
    ).toBe(0);
    // The visits are still spread up to the last day.
    expect(
      await prisma().guest.count({
        where: { tenantId: a.tenant_id, lastVisitDate: { gt: new Date(now.getTime() - 3 * 86_400_000) } },
      }),
    ).toBeGreaterThan(0);
  });
});

describe.concurrent('admin seed, devices seen', () => {
  it('a device with presence or visits was last seen at the latest of them, never before (probe R)', async () => {
    const a = await newTenant(prisma());
    await seed(a.tenant_id, 40, { seed: 5 });
    const [row] = await prisma().$queryRaw<{ behind: number; seen: number }[]>`
      SELECT count(*) FILTER (WHERE d."lastSeenTime" IS NULL OR d."lastSeenTime" < x."latest")::int AS "behind",
        count(*)::int AS "seen"
      FROM "GuestDevice" d JOIN (
        SELECT "deviceId", max("seenAt") AS "latest" FROM "PresenceRecord" WHERE "tenantId" = ${a.tenant_id}
          AND "deviceId" IS NOT NULL GROUP BY "deviceId"
        UNION ALL
        SELECT "deviceId", max("endedAt") FROM "LocationSession" WHERE "tenantId" = ${a.tenant_id}
          AND "deviceId" IS NOT NULL GROUP BY "deviceId"
      ) x ON x."deviceId" = d."id"`;
    expect(row?.seen).toBeGreaterThan(0);
    expect(row?.behind).toBe(0);
  });
});

describe.concurrent('admin seed, the same --seed on two tenants (decisions.md: deterministic)', () => {
  it('writes the same guests, devices, sessions and presence', async () => {
    const [a, b] = [await newTenant(prisma()), await newTenant(prisma())];
    const [first, second] = [
      await seed(a.tenant_id, 20, { seed: 7 }),
      await seed(b.tenant_id, 20, { seed: 7 }),
    ];
    expect(second).toEqual(first);
    const shape = async (tenantId: string) => ({
      guests: (
        await prisma().guest.findMany({
          where: { tenantId },
          orderBy: { email: 'asc' },
          select: { name: true, email: true, type: true, gender: true, visitCount: true },
        })
      ).map((g) => JSON.stringify(g)),
      // MACs derive from the guests' ids (random), the rest from the seed: devices per guest.
      devices: (
        await prisma().guestDevice.findMany({
          where: { tenantId },
          select: { description: true, guest: { select: { email: true } } },
        })
      )
        .map((d) => `${d.guest.email} ${d.description}`)
        .sort(),
      sessions: await prisma().guestSession.count({ where: { tenantId } }),
      present: await prisma().currentPresence.count({ where: { tenantId } }),
    });
    expect(await shape(b.tenant_id)).toEqual(await shape(a.tenant_id));
  });
});

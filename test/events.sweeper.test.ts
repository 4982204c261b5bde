// The event sweeper (src/events/sweeper.ts): devices not detected for ACTIVE_WINDOW_SECONDS leave
// their zone and location by timeout (src/modules/ingest/ingest.timeouts.ts), the event log keeps
// EVENT_RETENTION_DAYS and the audit log AUDIT_RETENTION_DAYS. The functions are run per tenant here,
// on a database of this file's own.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneAuditLog, pruneEvents } from '../src/events/sweeper.js';
import { closeTimedOutVisits } from '../src/modules/ingest/ingest.timeouts.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, newTenant } from './helpers/fixtures.js';
import { lockWaiters } from './helpers/lock-waits.js';
import { type ScratchDatabase, scratchDatabase } from './helpers/scratch-database.js';

let t: TestApp;
let scratch: ScratchDatabase;
beforeAll(async () => {
  // A database of this file's own: the whole pass below reads every tenant, which in the shared
  // test database would be every earlier run's too (thousands: a pass of tens of seconds).
  scratch = await scratchDatabase('sweeper');
  t = await startApp({}, { db: scratch.db });
});
afterAll(async () => {
  await t.close();
  await scratch.drop();
});

const prisma = () => t.db.prisma;
let n = 0;
const ago = (seconds: number): Date => new Date(Math.floor(Date.now() / 1000) * 1000 - seconds * 1000);
const micros = (d: Date): string => `${d.toISOString().slice(0, 23)}000Z`;
const DAY = 86_400;

async function setup() {
  const a = await newTenant(prisma());
  const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
  const zone = await prisma().zone.findFirstOrThrow({
    where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
  });
  const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
  /** One presence batch: each MAC seen in the zone at `seenAt`. */
  const batch = (macs: string[], seenAt: Date) =>
    t.request('POST', '/api/v1/ingest/presence', {
      token: ingest,
      body: {
        events: macs.map((mac) => ({
          event_id: `sw-${Date.now()}-${++n}`,
          mac,
          data_type: 1,
          connected: false,
          zone_id: zone.id,
          seen_at: seenAt.toISOString(),
        })),
      },
    });
  const detect = async (mac: string, seenAt: Date) => {
    const res = await batch([mac], seenAt);
    expect(res.status, res.text).toBe(200);
  };
  return { a, locationId, zone, batch, detect };
}

/** The tenant's events, but the setup's own (event 1: its ingest token was created). */
const eventsOf = async (tenantId: string) =>
  (await prisma().event.findMany({ where: { tenantId, id: { gt: 1 } }, orderBy: { id: 'asc' } })).map(
    (e) => ({
      id: Number(e.id),
      type: e.type,
      actorType: e.actorType,
      payload: e.payload as Record<string, unknown>,
    }),
  );

describe.concurrent('leave by timeout', () => {
  it('closes a visit quiet for the active window: zone_left and location_left (reason timeout) once, then a new visit', async () => {
    const { a, locationId, zone, detect } = await setup();
    const window = t.config.activeWindowSeconds;
    const gone = ago(window + 100);
    await detect('AA:BB:CC:30:00:01', gone);
    await detect('AA:BB:CC:30:00:02', ago(10)); // still present
    const cutoff = ago(window);
    expect(await closeTimedOutVisits(prisma(), a.tenant_id, ago(DAY), cutoff)).toBe(1);
    // Nothing left to close: a second pass records nothing.
    expect(await closeTimedOutVisits(prisma(), a.tenant_id, ago(DAY), cutoff)).toBe(0);
    const session = await prisma().locationSession.findFirstOrThrow({
      where: { tenantId: a.tenant_id, mac: 'AA:BB:CC:30:00:01' },
    });
    expect(session.endedAt?.toISOString()).toBe(gone.toISOString());
    const open = await prisma().locationSession.count({ where: { tenantId: a.tenant_id, endedAt: null } });
    expect(open).toBe(1);
    const log = await prisma().locationLog.findFirstOrThrow({ where: { sessionId: session.id } });
    const events = await eventsOf(a.tenant_id);
    expect(events.map((e) => [e.type, e.actorType])).toEqual([
      ['presence.location_entered', 'ingest'],
      ['presence.zone_entered', 'ingest'],
      ['presence.location_entered', 'ingest'],
      ['presence.zone_entered', 'ingest'],
      ['presence.zone_left', 'system'],
      ['presence.location_left', 'system'],
    ]);
    expect(events[4]?.payload).toEqual({
      id: log.id,
      location_visit_id: session.id,
      mac: 'AA:BB:CC:30:00:01',
      device_id: null,
      guest_id: null,
      location_id: locationId,
      zone_id: zone.id,
      entered_at: micros(gone),
      left_at: micros(gone),
      duration: 0,
      reason: 'timeout',
    });
    expect(events[5]?.payload).toMatchObject({ id: session.id, left_at: micros(gone), reason: 'timeout' });
    // Its next detection opens a returning visit, and leaves nothing twice.
    await detect('AA:BB:CC:30:00:01', ago(5));
    const later = (await eventsOf(a.tenant_id)).slice(6);
    expect(later.map((e) => e.type)).toEqual(['presence.location_entered', 'presence.zone_entered']);
    expect(later[0]?.payload).toMatchObject({ visit_type: 2 });
  });

  it('looks only at devices gone quiet within its range', async () => {
    const { a, detect } = await setup();
    await detect('AA:BB:CC:30:00:03', ago(3 * DAY));
    expect(await closeTimedOutVisits(prisma(), a.tenant_id, ago(DAY), ago(300))).toBe(0);
    expect(await closeTimedOutVisits(prisma(), a.tenant_id, ago(4 * DAY), ago(300))).toBe(1);
  });
});

// Two connections at once: on PGlite every transaction has the one connection to itself.
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'leave by timeout beside a batch detecting the same devices',
  () => {
    it('takes turns: the sweeper does not close a visit the batch goes on extending', async () => {
      const { a, batch: send } = await setup();
      const window = t.config.activeWindowSeconds;
      const gone = ago(window + 100);
      const macs = ['AA:BB:CC:31:00:01', 'AA:BB:CC:31:00:02'];
      const batch = (seenAt: Date) => send(macs, seenAt);
      expect((await batch(gone)).status).toBe(200);
      // A second client holds the devices' current rows: a late batch (5 s after their last detection,
      // before the cutoff) stops there, after it read their open visits, while the sweeper passes.
      const holder = new pg.Client({ connectionString: scratch.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM "CurrentPresence" WHERE "tenantId" = $1 FOR UPDATE', [a.tenant_id]);
        const late = batch(new Date(gone.getTime() + 5000));
        const waiting = async (like: string): Promise<boolean> => (await lockWaiters(holder, like)) > 0;
        await expect.poll(() => waiting('%INSERT INTO "CurrentPresence"%'), { timeout: 10_000 }).toBe(true);
        let swept = false;
        const closed = closeTimedOutVisits(prisma(), a.tenant_id, ago(DAY), ago(window)).finally(() => {
          swept = true;
        });
        // The sweeper waits for the batch's turn (or, without it, closes the visits under the batch).
        await expect
          .poll(async () => swept || (await waiting('%pg_advisory_xact_lock%')), { timeout: 10_000 })
          .toBe(true);
        await holder.query('COMMIT');
        expect((await late).status).toBe(200);
        expect(await closed).toBe(macs.length);
      } finally {
        await holder.end();
      }
      // Closed once, at the late detections; no visit left by timeout is open again.
      const visits = await prisma().locationSession.findMany({ where: { tenantId: a.tenant_id } });
      expect(visits.map((v) => v.endedAt?.toISOString())).toEqual(
        macs.map(() => new Date(gone.getTime() + 5000).toISOString()),
      );
      const left = (await eventsOf(a.tenant_id)).filter((e) => e.type === 'presence.location_left');
      expect(left.map((e) => e.payload.id).sort()).toEqual(visits.map((v) => v.id).sort());
    });
  },
);

describe.concurrent('event retention', () => {
  it('deletes the events older than the cutoff, the newer stay', async () => {
    const { a, detect } = await setup();
    await detect('AA:BB:CC:30:00:04', ago(20));
    await detect('AA:BB:CC:30:00:05', ago(10));
    expect((await eventsOf(a.tenant_id)).length).toBe(4);
    // The first two of the detections' events (1 is the setup's token's) are 40 days old.
    await prisma()
      .$executeRaw`UPDATE "Event" SET "occurredAt" = now() - interval '40 days' WHERE "tenantId" = ${a.tenant_id} AND "id" BETWEEN 2 AND 3`;
    expect(await pruneEvents(t.db, a.tenant_id, new Date(Date.now() - 30 * DAY * 1000))).toBe(2);
    expect((await eventsOf(a.tenant_id)).map((e) => e.id)).toEqual([4, 5]);
    expect(await pruneEvents(t.db, a.tenant_id, new Date(Date.now() - 30 * DAY * 1000))).toBe(0);
    // The ids go on from the sequence.
    await detect('AA:BB:CC:30:00:06', ago(5));
    expect((await eventsOf(a.tenant_id)).map((e) => e.id)).toEqual([4, 5, 6, 7]);
  });

  it('deletes the audit entries older than the cutoff, of that tenant only; the newer stay', async () => {
    const [a, b] = [await newTenant(prisma()), await newTenant(prisma())];
    const write = async (tenant: typeof a, name: string) => {
      const res = await t.request('POST', '/api/v1/locations', { token: tenant.token, body: { name } });
      expect(res.status, res.text).toBe(201);
    };
    for (const name of ['Old 1', 'Old 2', 'New']) await write(a, name);
    await write(b, 'Old');
    const entries = (tenantId: string) =>
      prisma().auditLog.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    const [old1, old2, recent] = await entries(a.tenant_id);
    // The first two of tenant a's entries, and tenant b's, are 400 days old.
    const aged = [old1?.id, old2?.id, ...(await entries(b.tenant_id)).map((e) => e.id)] as string[];
    await prisma()
      .$executeRaw`UPDATE "AuditLog" SET "createdAt" = now() - interval '400 days' WHERE "id" = ANY(${aged})`;
    const cutoff = new Date(Date.now() - 365 * DAY * 1000);
    expect(await pruneAuditLog(t.db, a.tenant_id, cutoff)).toBe(2);
    expect((await entries(a.tenant_id)).map((e) => e.id)).toEqual([recent?.id]);
    expect(await pruneAuditLog(t.db, a.tenant_id, cutoff)).toBe(0);
    // Tenant b's old entry waits for its own tenant's turn.
    expect(await entries(b.tenant_id)).toHaveLength(1);
  });

  it('the sweeper runs one pass at a time', async () => {
    // A pass at a time long past closes and deletes nothing of the other tests' tenants.
    const past = new Date('2001-01-01T00:00:00Z');
    const [one, two] = await Promise.all([t.app.events.sweep(past), t.app.events.sweep(past)]);
    expect(one).toMatchObject({ swept: true, failures: 0 });
    expect(two).toEqual({ swept: false });
  });
});

// After the concurrent tests above: its passes read every tenant of this file's database.
describe('leave by timeout of a detection that arrives already quiet', () => {
  it('a batch dated before the last pass (a controller replaying its buffer) is closed by the next pass', async () => {
    const { a, detect } = await setup();
    const now = Date.now();
    // A pass: the next looks only at what became quiet since (and a minute before).
    expect(await t.app.events.sweep(new Date(now))).toMatchObject({ swept: true, failures: 0 });
    const old = ago(2 * DAY);
    await detect('AA:BB:CC:30:00:09', old);
    expect(await prisma().sweepBacklog.findUnique({ where: { tenantId: a.tenant_id } })).toMatchObject({
      since: old,
    });
    expect(await t.app.events.sweep(new Date(now + 1000))).toMatchObject({ swept: true, failures: 0 });
    const visit = await prisma().locationSession.findFirstOrThrow({
      where: { tenantId: a.tenant_id, mac: 'AA:BB:CC:30:00:09' },
    });
    expect(visit.endedAt).toEqual(old);
    const left = (await eventsOf(a.tenant_id)).filter((e) => e.type === 'presence.location_left');
    expect(left.map((e) => [e.actorType, e.payload.reason])).toEqual([['system', 'timeout']]);
    // Done: the next pass looks no further back.
    expect(await prisma().sweepBacklog.findUnique({ where: { tenantId: a.tenant_id } })).toBeNull();
  });
});

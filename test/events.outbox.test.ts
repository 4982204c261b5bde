// The event log's mechanics (src/events/outbox.ts): ids per tenant, gapless and in commit order,
// nothing from a rolled-back transaction, the audit entry in the same statement, the announcement
// after commit only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import {
  type EventActor,
  onEventsCommitted,
  type RecordedEvent,
  recordEvents,
  writeWithEvents,
} from '../src/events/outbox.js';
import { openTestDatabase } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db.close();
});

const actor: EventActor = { type: 'user', userId: 'u1', tokenId: 't1', requestId: 'req-1' };

const event = (resourceId: string, payload: unknown = { id: resourceId }) =>
  ({ type: 'guest.created', resourceType: 'guest', resourceId, payload }) as const;

async function ids(tenantId: string): Promise<bigint[]> {
  const rows = await db.prisma.event.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });
  return rows.map((r) => r.id);
}

describe('the event log', () => {
  it('numbers events 1, 2, 3… per tenant, in the order recorded, with actor, request id and payload', async () => {
    const a = await newTenant(db.prisma);
    const b = await newTenant(db.prisma);
    await writeWithEvents({ prisma: db.prisma, tenantId: a.tenant_id, actor }, async (_tx, log) => {
      log.record(event('g1', { id: 'g1', lat: 41.5, big: 12345678901234567890n }), event('g2'));
    });
    await writeWithEvents({ prisma: db.prisma, tenantId: b.tenant_id, actor }, async (_tx, log) => {
      log.record(event('x'));
    });
    await writeWithEvents({ prisma: db.prisma, tenantId: a.tenant_id, actor }, async (_tx, log) => {
      log.record(event('g3'));
    });
    const rows = await db.prisma.event.findMany({ where: { tenantId: a.tenant_id }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => [r.id, r.resourceId])).toEqual([
      [1n, 'g1'],
      [2n, 'g2'],
      [3n, 'g3'],
    ]);
    expect(rows[0]).toMatchObject({
      type: 'guest.created',
      actorType: 'user',
      actorUserId: 'u1',
      actorTokenId: 't1',
      requestId: 'req-1',
      resourceType: 'guest',
      payload: { id: 'g1', lat: 41.5, big: '12345678901234567890' },
    });
    expect(await ids(b.tenant_id)).toEqual([1n]);
  });

  it('keeps nothing of a rolled-back transaction, and announces only what committed', async () => {
    const { tenant_id } = await newTenant(db.prisma);
    const heard: RecordedEvent[] = [];
    const stop = onEventsCommitted((events) => heard.push(...events.filter((e) => e.tenantId === tenant_id)));
    try {
      await expect(
        writeWithEvents({ prisma: db.prisma, tenantId: tenant_id, actor }, async (_tx, log) => {
          log.record(event('lost'));
          throw new Error('the write failed');
        }),
      ).rejects.toThrow('the write failed');
      // A failure after the events were written (the sequence taken) rolls them back too.
      await expect(
        db.prisma.$transaction(async (tx) => {
          await recordEvents(tx, tenant_id, actor, [event('also lost')]);
          throw new Error('later failure');
        }),
      ).rejects.toThrow('later failure');
      expect(await ids(tenant_id)).toEqual([]);
      expect(heard).toEqual([]);
      await writeWithEvents({ prisma: db.prisma, tenantId: tenant_id, actor }, async (_tx, log) => {
        log.record(event('kept'));
      });
      // Gapless: the rolled-back ids were never taken.
      expect(await ids(tenant_id)).toEqual([1n]);
      expect(heard.map((e) => [e.id, e.resourceId, e.requestId])).toEqual([[1n, 'kept', 'req-1']]);
    } finally {
      stop();
    }
  });

  it('writes the audit entry with its event, in the same transaction', async () => {
    const { tenant_id } = await newTenant(db.prisma);
    await writeWithEvents({ prisma: db.prisma, tenantId: tenant_id, actor }, async (_tx, log) => {
      log.record({
        ...event('g1'),
        audit: { action: 'guests.create', changes: { name: { old: null, new: 'Ann' } } },
      });
      log.record(event('g2'));
    });
    const audit = await db.prisma.auditLog.findMany({ where: { tenantId: tenant_id } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actorUserId: 'u1',
      actorTokenId: 't1',
      requestId: 'req-1',
      action: 'guests.create',
      resourceType: 'guest',
      resourceId: 'g1',
      changes: { name: { old: null, new: 'Ann' } },
    });
  });

  it('orders concurrent writers of a tenant by commit: no id is committed below one already visible', async () => {
    const { tenant_id } = await newTenant(db.prisma);
    // Each writer records, then holds its transaction open a moment; a reader polls meanwhile and
    // must never see an id appear below the highest one it has seen.
    const writers = Array.from({ length: 8 }, (_, i) =>
      writeWithEvents(
        { prisma: db.prisma, tenantId: tenant_id, actor },
        async (_tx, log) => {
          log.record(event(`w${i}`));
        },
        { maxWait: 20_000, timeout: 20_000 },
      ),
    );
    const seen: bigint[][] = [];
    let done = false;
    const all = Promise.all(writers).finally(() => {
      done = true;
    });
    while (!done) {
      seen.push(await ids(tenant_id));
      await new Promise((r) => setTimeout(r, 2));
    }
    await all;
    const final = await ids(tenant_id);
    expect(final).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
    // Every snapshot is a prefix 1..k: nothing with a lower id showed up after a higher one.
    for (const snap of seen) expect(snap).toEqual(final.slice(0, snap.length));
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'times its events and audit entries by commit: a write begun first but committed last is the newest (probe L)',
    async () => {
      const { tenant_id } = await newTenant(db.prisma);
      const audited = (id: string) => ({
        ...event(id),
        audit: { action: 'guests.update' as const, changes: { name: { old: 'x', new: id } } },
      });
      let go = () => {};
      const released = new Promise<void>((resolve) => {
        go = resolve;
      });
      let begun = () => {};
      const started = new Promise<void>((resolve) => {
        begun = resolve;
      });
      // The first writer begins (its transaction's time is set), then waits for the second to commit.
      const first = writeWithEvents({ prisma: db.prisma, tenantId: tenant_id, actor }, async (tx, log) => {
        await tx.$queryRaw`SELECT 1`;
        begun();
        await released;
        log.record(audited('first'));
      });
      await started;
      await new Promise((r) => setTimeout(r, 20));
      await writeWithEvents({ prisma: db.prisma, tenantId: tenant_id, actor }, async (_tx, log) => {
        log.record(audited('second'));
      });
      go();
      await first;
      const events = await db.prisma.event.findMany({
        where: { tenantId: tenant_id },
        orderBy: { id: 'asc' },
      });
      expect(events.map((e) => e.resourceId)).toEqual(['second', 'first']);
      expect(events[1]?.occurredAt.getTime()).toBeGreaterThanOrEqual(
        events[0]?.occurredAt.getTime() ?? Infinity,
      );
      // Newest first, as the audit log lists them: the change committed last on top.
      const audit = await db.prisma.auditLog.findMany({
        where: { tenantId: tenant_id },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      });
      expect(audit.map((a) => a.resourceId)).toEqual(['first', 'second']);
      expect(audit.map((a) => a.createdAt)).toEqual([events[1]?.occurredAt, events[0]?.occurredAt]);
    },
  );
});

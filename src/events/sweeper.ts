// The event sweeper: every EVENT_SWEEP_SECONDS (default 60; 0 turns it off) one pass, once across a
// fleet (Database.tryExclusive, a PostgreSQL advisory lock, as the retention sweeper takes its own):
//   1. leave by timeout: each tenant's devices not detected for ACTIVE_WINDOW_SECONDS leave their
//      zone and location (src/modules/ingest/ingest.timeouts.ts);
//   2. the event log's retention: events older than EVENT_RETENTION_DAYS are deleted, a bounded
//      batch per statement;
//   3. the audit log's, when AUDIT_RETENTION_DAYS is set: older entries are deleted the same way.
// Passes never overlap within a process; closing stops a pass between two batches.

import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { failureFields } from '../errors.js';
import { closeTimedOutVisits } from '../modules/ingest/ingest.timeouts.js';
import { periodicPass } from '../shared/periodic-pass.js';
import type { EventSpan } from './outbox.js';

/** The advisory lock's key: the ASCII of "evts" (the retention sweeper's is "rete"). */
export const EVENT_SWEEP_LOCK_KEY = 0x65767473n;

/** Events deleted per statement. */
export const EVENT_PRUNE_BATCH = 5000;

/**
 * How far back a pass looks for devices gone quiet when it does not know when the last one ran (the
 * process's first pass, or after another instance's): a day.
 */
const LOOKBACK_MS = 24 * 3600 * 1000;

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export type EventSweepOutcome =
  | { swept: false }
  | { swept: true; visitsClosed: number; eventsDeleted: number; auditDeleted: number; failures: number };

export interface EventSweeper {
  /** One pass now: `{ swept: false }` when another instance (or a pass of this process) runs one. */
  sweep(now?: Date): Promise<EventSweepOutcome>;
  close(): Promise<void>;
}

/** Runs `deleteBatch` until it deletes fewer than EVENT_PRUNE_BATCH rows or `signal` aborts; the rows deleted. */
async function inBatches(
  signal: AbortSignal | undefined,
  deleteBatch: () => Promise<number>,
): Promise<number> {
  let deleted = 0;
  while (!signal?.aborted) {
    const n = await deleteBatch();
    deleted += n;
    if (n < EVENT_PRUNE_BATCH) break;
  }
  return deleted;
}

/**
 * Deletes the tenant's events older than `cutoff`, oldest ids first, `EVENT_PRUNE_BATCH` a statement.
 * Ids follow commit order and times follow ids closely, so a batch that meets a newer event ends
 * the tenant's turn (the primary key walks from the oldest; nothing scans the tenant's whole log).
 */
export async function pruneEvents(
  db: Pick<Database, 'prisma'>,
  tenantId: string,
  cutoff: Date,
  signal?: AbortSignal,
): Promise<number> {
  return inBatches(signal, async () => {
    const [row] = await db.prisma.$queryRaw<{ deleted: number }[]>`
      WITH oldest AS (
        SELECT "id", "occurredAt" FROM "Event" WHERE "tenantId" = ${tenantId} ORDER BY "id" LIMIT ${EVENT_PRUNE_BATCH}
      ), gone AS (
        DELETE FROM "Event" e USING oldest o
        WHERE e."tenantId" = ${tenantId} AND e."id" = o."id" AND o."occurredAt" < ${cutoff}
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM gone)::int AS "deleted"`;
    return row?.deleted ?? 0;
  });
}

/**
 * Deletes the tenant's audit entries older than `cutoff`, oldest first, `EVENT_PRUNE_BATCH` a
 * statement, along the `(tenantId, createdAt, id)` index (the audit log's own order).
 */
export async function pruneAuditLog(
  db: Pick<Database, 'prisma'>,
  tenantId: string,
  cutoff: Date,
  signal?: AbortSignal,
): Promise<number> {
  return inBatches(
    signal,
    () => db.prisma.$executeRaw`
      DELETE FROM "AuditLog" WHERE "id" IN (
        SELECT "id" FROM "AuditLog" WHERE "tenantId" = ${tenantId} AND "createdAt" < ${cutoff}
        ORDER BY "createdAt", "id" LIMIT ${EVENT_PRUNE_BATCH})`,
  );
}

export function startEventSweeper(deps: {
  db: Database;
  config: Pick<Config, 'activeWindowSeconds' | 'eventRetentionDays' | 'auditRetentionDays'>;
  log: Log;
  /** Between passes; 0: no periodic passes (sweep() still runs one). */
  intervalMs: number;
  /** Devices that left by timeout, per tenant and location, once each batch has committed (presence subscribers). */
  onLeft?: (tenantId: string, macsByLocation: Map<string, Set<string>>, span: EventSpan | null) => void;
}): EventSweeper {
  const { db, config, log, intervalMs, onLeft } = deps;
  /** The quiet-since bound of this process's last pass (what the next one needs to look at). */
  let lastCutoff: Date | undefined;

  const pass = async (signal: AbortSignal, now = new Date()): Promise<EventSweepOutcome> => {
    const started = Date.now();
    const cutoff = new Date(now.getTime() - config.activeWindowSeconds * 1000);
    // A little overlap with the last pass: a detection committed late (ingest batches carry their
    // own times) is still looked at.
    const from = lastCutoff
      ? new Date(Math.min(lastCutoff.getTime() - Math.max(intervalMs, 60_000), cutoff.getTime()))
      : new Date(cutoff.getTime() - LOOKBACK_MS);
    const eventCutoff = new Date(now.getTime() - config.eventRetentionDays * 86_400_000);
    const auditCutoff =
      config.auditRetentionDays === undefined
        ? null
        : new Date(now.getTime() - config.auditRetentionDays * 86_400_000);
    const held = await db.tryExclusive(EVENT_SWEEP_LOCK_KEY, async () => {
      const tenants = await db.prisma.tenant.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
      // Detections written already quiet (src/modules/ingest/ingest.presence.ts): their tenants look back to them.
      const backlog = new Map(
        (await db.prisma.sweepBacklog.findMany()).map((b) => [b.tenantId, { since: b.since, mark: b.mark }]),
      );
      let visitsClosed = 0;
      let eventsDeleted = 0;
      let auditDeleted = 0;
      let failures = 0;
      for (const { id } of tenants) {
        if (signal.aborted) break;
        try {
          const late = backlog.get(id);
          visitsClosed += await closeTimedOutVisits(
            db.prisma,
            id,
            late && late.since < from ? late.since : from,
            cutoff,
            signal,
            onLeft && ((left, span) => onLeft(id, left, span)),
          );
          // Done with it, unless a batch marked it again meanwhile (that mark waits for the next pass).
          if (late && !signal.aborted)
            await db.prisma.sweepBacklog.deleteMany({ where: { tenantId: id, mark: late.mark } });
          eventsDeleted += await pruneEvents(db, id, eventCutoff, signal);
          if (auditCutoff) auditDeleted += await pruneAuditLog(db, id, auditCutoff, signal);
        } catch (err) {
          failures++;
          log.warn(
            { ...failureFields(err), tenantId: id },
            'events: the sweep failed for a tenant (the next pass retries)',
          );
        }
      }
      return { visitsClosed, eventsDeleted, auditDeleted, failures };
    });
    if (!held.acquired) {
      log.debug({}, 'events: another instance is sweeping; skipped');
      // That instance covers the range; this one looks back a whole lookback next time.
      lastCutoff = undefined;
      return { swept: false };
    }
    if (held.value.failures === 0) lastCutoff = cutoff;
    const v = held.value;
    if (v.visitsClosed > 0 || v.eventsDeleted > 0 || v.auditDeleted > 0 || v.failures > 0)
      log.info({ ...v, ms: Date.now() - started }, 'events: sweep done');
    return { swept: true, ...v };
  };

  const job = periodicPass({ name: 'events', intervalMs, busy: { swept: false } as const, log, pass });
  return { sweep: job.run, close: job.close };
}

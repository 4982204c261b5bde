// What a tenant's retention settings remove, and the removal itself in bounded batches: the work of
// the periodic sweeper (retention.sweeper.ts) and of `admin retention run` (src/cli/retention.ts).
// Every statement touches at most BATCH_SIZE rows (a guest's anonymisation is one erasure, its own
// short transaction), so no statement holds its locks for long and ingest and requests go on beside it.

import { setImmediate } from 'node:timers/promises';
import type { Prisma } from '../../db/database.js';
import { ANONYMIZE_ACTION } from '../../events/audit.js';
import type { EventType } from '../../events/event-types.js';
import { systemActor } from '../../events/outbox.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ErasureDeps, eraseGuestData, type Tx } from '../guests/guests.privacy.js';
import { closeTimedOutVisits } from '../ingest/ingest.timeouts.js';

/** What a retention pass needs: the erasure's, less who acts (the service itself, see below). */
export type RetentionDeps = Pick<ErasureDeps, 'prisma' | 'config'>;

import type { RetentionSettingsView } from './retention.service.js';

/** What goes, in the order a pass removes it (guests first, judged while their history is whole). */
export const RETENTION_KINDS = [
  'inactive_guests',
  'presence_records',
  'location_logs',
  'guest_sessions',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];
/**
 * Rows per kind, and `events`: the event-log copies of the deleted rows that went with them (not
 * counted in their kind: a row is one, whatever number of events copied it).
 */
export type RetentionCounts = Record<RetentionKind, number> & { events: number };

export const noCounts = (): RetentionCounts => ({
  inactive_guests: 0,
  presence_records: 0,
  location_logs: 0,
  guest_sessions: 0,
  events: 0,
});

/** Rows per statement, at most. */
export const BATCH_SIZE = 1000;

const DAY_MS = 86_400_000;

/**
 * `n` calendar months before `now` (UTC), the day clamped to the month's last (13 months before
 * 2027-03-31 is 2026-02-28), the time of day kept.
 */
export function monthsBefore(now: Date, n: number): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - n;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const d = new Date(now);
  d.setUTCFullYear(year, month, Math.min(now.getUTCDate(), lastDay));
  return d;
}

/** The instants before which each kind goes, at `now`; a kind whose setting is off is absent. */
export type RetentionCutoffs = Partial<Record<RetentionKind, Date>>;

export function cutoffsOf(settings: RetentionSettingsView, now: Date): RetentionCutoffs {
  const days = (n: number | null) => (n === null ? undefined : new Date(now.getTime() - n * DAY_MS));
  const out: RetentionCutoffs = {};
  if (settings.anonymizeInactiveGuestsAfterMonths !== null)
    out.inactive_guests = monthsBefore(now, settings.anonymizeInactiveGuestsAfterMonths);
  const presence = days(settings.deletePresenceRecordsAfterDays);
  if (presence) out.presence_records = presence;
  const logs = days(settings.deleteLocationLogsAfterDays);
  if (logs) out.location_logs = logs;
  const sessions = days(settings.deleteGuestSessionsAfterDays);
  if (sessions) out.guest_sessions = sessions;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Inactive guests

/**
 * A guest (`g`) of the tenant inactive since `cutoff`: not erased, not online, created and last
 * written (`updatedAt`: an API update, a session's start or stop, a redeem) before it, no visit or
 * connection recorded on or after it (`lastVisitDate`, `lastConnectionTime`), and nothing of its own
 * on or after it: no guest session started or ended then or still open, no presence record seen then,
 * no device seen (`lastSeenTime`) or changed then, no location session (visit) begun or ended then
 * or still open, unless its device was last detected before the cutoff: a pass closes such a visit
 * by timeout at that detection first (applyRetention), and the dry run counts as that pass will.
 * The stored fields keep the evidence when older rows were deleted by the other settings. README
 * "Data retention" states the same.
 */
function inactiveGuest(tenantId: string, cutoff: Date): PrismaNS.Sql {
  return PrismaNS.sql`g."tenantId" = ${tenantId} AND g."erasedAt" IS NULL AND g."online" = false
    AND g."createdAt" < ${cutoff} AND g."updatedAt" < ${cutoff}
    AND (g."lastVisitDate" IS NULL OR g."lastVisitDate" < ${cutoff})
    AND (g."lastConnectionTime" IS NULL OR g."lastConnectionTime" < ${cutoff})
    AND NOT EXISTS (SELECT 1 FROM "GuestSession" s WHERE s."tenantId" = ${tenantId} AND s."guestId" = g."id"
      AND (s."endTime" IS NULL OR s."endTime" >= ${cutoff} OR s."startTime" >= ${cutoff}))
    AND NOT EXISTS (SELECT 1 FROM "PresenceRecord" p WHERE p."tenantId" = ${tenantId} AND p."guestId" = g."id"
      AND p."seenAt" >= ${cutoff})
    AND NOT EXISTS (SELECT 1 FROM "GuestDevice" d WHERE d."tenantId" = ${tenantId} AND d."guestId" = g."id"
      AND (d."updatedAt" >= ${cutoff} OR d."lastSeenTime" >= ${cutoff}))
    AND NOT EXISTS (SELECT 1 FROM "LocationSession" l WHERE l."tenantId" = ${tenantId} AND l."guestId" = g."id"
      AND (l."endedAt" >= ${cutoff} OR l."startedAt" >= ${cutoff} OR (l."endedAt" IS NULL AND NOT EXISTS (
        SELECT 1 FROM "CurrentPresence" cp WHERE cp."tenantId" = ${tenantId} AND cp."mac" = l."mac" AND cp."seenAt" < ${cutoff}))))`;
}

async function countInactiveGuests(prisma: Prisma, tenantId: string, cutoff: Date): Promise<number> {
  const [row] = await prisma.$queryRaw<{ n: number }[]>(
    PrismaNS.sql`SELECT count(*)::int AS n FROM "Guest" g WHERE ${inactiveGuest(tenantId, cutoff)}`,
  );
  return row?.n ?? 0;
}

/** Where a batch of guests ends: its last row's `updatedAt` as PostgreSQL's text (microseconds kept), and id. */
interface GuestCursor {
  at: string;
  id: string;
}

/**
 * The next `limit` guests last written before the cutoff, oldest write first, after `after` (the last
 * of the previous batch): each batch reads at most `limit` rows of the `[tenantId, updatedAt]` index,
 * however many of them are still active (a regular whose device is seen every week but whose row is
 * never written), and a pass walks that range once. `inactive` says which of them go.
 */
function nextGuestBatch(
  prisma: Prisma,
  tenantId: string,
  cutoff: Date,
  after: GuestCursor | null,
  limit: number,
) {
  const from = after
    ? PrismaNS.sql`AND (g."updatedAt", g."id") > (${after.at}::timestamptz, ${after.id})`
    : PrismaNS.empty;
  return prisma.$queryRaw<{ id: string; at: string; inactive: boolean }[]>(PrismaNS.sql`
    SELECT g."id", g."updatedAt"::text AS "at", (${inactiveGuest(tenantId, cutoff)}) AS "inactive"
    FROM "Guest" g
    WHERE g."tenantId" = ${tenantId} AND g."updatedAt" < ${cutoff} ${from}
    ORDER BY g."updatedAt", g."id" LIMIT ${limit}`);
}

/** Checked again under the guest's lock, in the erasure's transaction: a guest back meanwhile stays. */
async function stillInactive(tx: Tx, tenantId: string, guestId: string, cutoff: Date): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ inactive: boolean }[]>(PrismaNS.sql`
    SELECT EXISTS (SELECT 1 FROM "Guest" g WHERE g."id" = ${guestId} AND ${inactiveGuest(tenantId, cutoff)}) AS inactive`);
  return row?.inactive === true;
}

/**
 * Anonymises the guest by the erasure itself (eraseGuestData) if it is still inactive since `cutoff`
 * once its row is locked: a guest picked by a batch that came back meanwhile (a session started, an
 * update) stays. Resolves to whether it was erased.
 */
export function eraseIfInactive(
  deps: RetentionDeps,
  tenantId: string,
  guestId: string,
  cutoff: Date,
): Promise<boolean> {
  return eraseGuestData(
    { ...deps, actor: systemActor, action: ANONYMIZE_ACTION },
    { id: guestId, tenantId },
    { when: (tx) => stillInactive(tx, tenantId, guestId, cutoff) },
  );
}

// ---------------------------------------------------------------------------------------------
// Deletions

/**
 * The table and the time column of each deleted kind (a row goes when that time is before the
 * cutoff), and the event types whose events copy its rows (their `resourceId` is the row's id): they
 * go with the row, so neither the log nor a webhook replay keeps what the setting removed. A presence
 * record (a detection) has no event of its own; `presence.location_*` copy the location session
 * (visit), which no setting deletes.
 */
const DELETIONS = {
  presence_records: { table: 'PresenceRecord', column: 'seenAt', copies: [] },
  location_logs: {
    table: 'LocationLog',
    column: 'timestamp',
    copies: ['presence.zone_entered', 'presence.zone_left'],
  },
  // An open session (no end yet) never goes: `NULL < cutoff` is not true.
  guest_sessions: {
    table: 'GuestSession',
    column: 'endTime',
    copies: ['guest_session.started', 'guest_session.ended'],
  },
} as const satisfies Partial<
  Record<RetentionKind, { table: string; column: string; copies: readonly EventType[] }>
>;

type DeletedKind = keyof typeof DELETIONS;
const DELETED_KINDS = Object.keys(DELETIONS) as DeletedKind[];

/** The kind's event types, or null when no event copies its rows. */
function copiesOf(kind: DeletedKind): PrismaNS.Sql | null {
  const types: readonly EventType[] = DELETIONS[kind].copies;
  return types.length === 0 ? null : PrismaNS.join(types);
}

/** Whether some setting on deletes rows the event log copies (the CLI shows `events` then). */
export const copiesAnyEvents = (cutoffs: RetentionCutoffs): boolean =>
  DELETED_KINDS.some((kind) => cutoffs[kind] !== undefined && copiesOf(kind) !== null);

function older(kind: DeletedKind, tenantId: string, cutoff: Date): PrismaNS.Sql {
  const { table, column } = DELETIONS[kind];
  return PrismaNS.sql`FROM ${PrismaNS.raw(`"${table}"`)} WHERE "tenantId" = ${tenantId} AND ${PrismaNS.raw(`"${column}"`)} < ${cutoff}`;
}

/** The kind's rows older than the cutoff, and the events copying them (along `(tenantId, resourceId)`). */
async function countOlder(
  prisma: Prisma,
  kind: DeletedKind,
  tenantId: string,
  cutoff: Date,
): Promise<{ rows: number; events: number }> {
  const types = copiesOf(kind);
  const events = types
    ? PrismaNS.sql`(SELECT count(*) FROM "Event" e WHERE e."tenantId" = ${tenantId} AND e."type" IN (${types})
        AND e."resourceId" IN (SELECT "id" ${older(kind, tenantId, cutoff)}))::int`
    : PrismaNS.sql`0`;
  const [row] = await prisma.$queryRaw<{ rows: number; events: number }[]>(
    PrismaNS.sql`SELECT (SELECT count(*) ${older(kind, tenantId, cutoff)})::int AS "rows", ${events} AS "events"`,
  );
  return { rows: row?.rows ?? 0, events: row?.events ?? 0 };
}

/** The later of two cutoffs (either may be off). */
const latest = (a: Date | undefined, b: Date | undefined): Date | undefined =>
  a && b ? (a > b ? a : b) : (a ?? b);

/**
 * Deletes at most `limit` current-presence rows (the active-sessions read model: each device's latest
 * detection) older than the presence cutoff: once a device's latest detection is that old, every
 * record of it went, and its copy goes with them. Not counted: it is a copy, not a record.
 */
function deleteCurrentPresenceBatch(prisma: Prisma, tenantId: string, cutoff: Date, limit: number) {
  return prisma.$executeRaw(PrismaNS.sql`
    DELETE FROM "CurrentPresence" WHERE "tenantId" = ${tenantId} AND "mac" IN (
      SELECT cp."mac" FROM "CurrentPresence" cp WHERE cp."tenantId" = ${tenantId} AND cp."seenAt" < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM "LocationSession" s
          WHERE s."tenantId" = ${tenantId} AND s."mac" = cp."mac" AND s."endedAt" IS NULL)
      LIMIT ${limit})`);
}

/**
 * Deletes at most `limit` rows of the kind older than the cutoff and, in the same statement, the
 * events copying them (a few per row, found by the row's id); resolves to how many of each went.
 */
async function deleteBatch(
  prisma: Prisma,
  kind: DeletedKind,
  tenantId: string,
  cutoff: Date,
  limit: number,
): Promise<{ rows: number; events: number }> {
  const table = PrismaNS.raw(`"${DELETIONS[kind].table}"`);
  const rows = PrismaNS.sql`DELETE FROM ${table} WHERE "id" IN (SELECT "id" ${older(kind, tenantId, cutoff)} LIMIT ${limit})`;
  const types = copiesOf(kind);
  if (!types) return { rows: await prisma.$executeRaw(rows), events: 0 };
  const [row] = await prisma.$queryRaw<{ rows: number; events: number }[]>(PrismaNS.sql`
    WITH gone AS (${rows} RETURNING "id"),
    copies AS (
      DELETE FROM "Event" e USING gone g
      WHERE e."tenantId" = ${tenantId} AND e."resourceId" = g."id" AND e."type" IN (${types})
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone)::int AS "rows", (SELECT count(*) FROM copies)::int AS "events"`);
  return { rows: row?.rows ?? 0, events: row?.events ?? 0 };
}

// ---------------------------------------------------------------------------------------------
// A tenant's pass

/** What would go now under these cutoffs (the CLI's dry run and its progress bar's total). */
export async function countRetention(
  prisma: Prisma,
  tenantId: string,
  cutoffs: RetentionCutoffs,
): Promise<RetentionCounts> {
  const counts = noCounts();
  if (cutoffs.inactive_guests)
    counts.inactive_guests = await countInactiveGuests(prisma, tenantId, cutoffs.inactive_guests);
  for (const kind of DELETED_KINDS) {
    const cutoff = cutoffs[kind];
    if (!cutoff) continue;
    const { rows, events } = await countOlder(prisma, kind, tenantId, cutoff);
    counts[kind] = rows;
    counts.events += events;
  }
  const quietBefore = latest(cutoffs.presence_records, cutoffs.inactive_guests);
  if (quietBefore && cutoffs.location_logs)
    counts.events += await countLeavesOfOldLogs(prisma, tenantId, quietBefore, cutoffs.location_logs);
  return counts;
}

/**
 * The `presence.zone_left` events a pass writes (it closes the visits quiet before `quietBefore` by
 * timeout first: applyRetention) for zone visits it then deletes as older than `logCutoff`, with
 * their other copies: counted by the dry run, as the pass deletes them (probe D).
 */
async function countLeavesOfOldLogs(
  prisma: Prisma,
  tenantId: string,
  quietBefore: Date,
  logCutoff: Date,
): Promise<number> {
  const [row] = await prisma.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM "LocationSession" s
    JOIN "CurrentPresence" cp ON cp."tenantId" = s."tenantId" AND cp."mac" = s."mac"
    JOIN "LocationLog" l ON l."tenantId" = s."tenantId" AND l."id" = s."lastLogId"
    WHERE s."tenantId" = ${tenantId} AND s."endedAt" IS NULL AND cp."seenAt" < ${quietBefore}
      AND l."timestamp" < ${logCutoff}`;
  return row?.n ?? 0;
}

export interface ApplyOptions {
  /** Rows per statement: deleted, or guests read (default BATCH_SIZE). */
  batchSize?: number;
  /** Stops between two batches (a server shutting down); what went so far is counted. */
  signal?: AbortSignal;
  /** After each batch (or erased guest): how many of the kind went with it, and what went so far. */
  onProgress?(kind: RetentionKind, removed: number, soFar: Readonly<RetentionCounts>): void;
  /** A guest whose erasure failed (left for the next pass); without it the failure is thrown. */
  onGuestError?(guestId: string, err: unknown): void;
}

/**
 * Applies the cutoffs to one tenant: open visits of devices quiet since before a cutoff closed by
 * timeout, inactive guests anonymised by the erasure itself (eraseGuestData,
 * after checking again under the row's lock that the guest is still inactive), then presence records
 * (and the current-presence rows as old), location logs and ended guest sessions deleted, at most
 * `batchSize` rows a statement (with the events copying them), until none is left. Resolves to how
 * many of each went.
 */
export async function applyRetention(
  deps: RetentionDeps,
  tenantId: string,
  cutoffs: RetentionCutoffs,
  opts: ApplyOptions = {},
): Promise<RetentionCounts> {
  const counts = noCounts();
  const batchSize = opts.batchSize ?? BATCH_SIZE;
  // Before each batch, a turn of the event loop: PGlite answers without one, and a stop (the
  // server's shutdown, the CLI's Ctrl-C) is only heard in one.
  const stopped = async (): Promise<boolean> => {
    if (opts.signal) await setImmediate();
    return opts.signal?.aborted === true;
  };
  // Visits whose device went quiet before a cutoff are closed first (leave by timeout), as the event
  // sweeper would have: it looks back a day only, and the current-presence rows it finds them by go
  // below, with the presence records. Left open, such a visit stayed open for good, and kept its
  // guest from ever being inactive (probe G).
  const quietBefore = latest(cutoffs.presence_records, cutoffs.inactive_guests);
  if (quietBefore) {
    if (await stopped()) return counts;
    await closeTimedOutVisits(deps.prisma, tenantId, new Date(0), quietBefore, opts.signal);
  }
  const guestCutoff = cutoffs.inactive_guests;
  if (guestCutoff) {
    let after: GuestCursor | null = null;
    for (;;) {
      if (await stopped()) return counts;
      const batch = await nextGuestBatch(deps.prisma, tenantId, guestCutoff, after, batchSize);
      for (const { id, inactive } of batch) {
        if (!inactive) continue;
        if (await stopped()) return counts;
        let erased = false;
        try {
          erased = await eraseIfInactive(deps, tenantId, id, guestCutoff);
        } catch (err) {
          // Left for the next pass.
          if (!opts.onGuestError) throw err;
          opts.onGuestError(id, err);
        }
        if (erased) {
          counts.inactive_guests++;
          opts.onProgress?.('inactive_guests', 1, counts);
        }
      }
      const last = batch.at(-1);
      if (!last || batch.length < batchSize) break;
      after = { at: last.at, id: last.id };
    }
  }
  for (const kind of DELETED_KINDS) {
    const cutoff = cutoffs[kind];
    if (!cutoff) continue;
    for (;;) {
      if (await stopped()) return counts;
      const { rows: n, events } = await deleteBatch(deps.prisma, kind, tenantId, cutoff, batchSize);
      counts[kind] += n;
      counts.events += events;
      if (n > 0) opts.onProgress?.(kind, n, counts);
      if (n < batchSize) break;
    }
    if (kind === 'presence_records') {
      for (;;) {
        if (await stopped()) return counts;
        if ((await deleteCurrentPresenceBatch(deps.prisma, tenantId, cutoff, batchSize)) < batchSize) break;
      }
    }
  }
  return counts;
}

// Leave by timeout: a device not detected for ACTIVE_WINDOW_SECONDS has left its location. Its next
// detection would close the visit (ingest.presence.ts); the event sweeper (src/events/sweeper.ts)
// does it sooner, closing the open location session and its latest zone visit (`lastLogId`) at the last detection
// and recording `presence.zone_left` and `presence.location_left` with `reason: "timeout"`, as the
// service (actor `system`). A later detection then opens a new (returning) visit.
// closeVisits is that closing, shared with a guest's erasure (reason `erased`).
import type { Prisma } from '../../db/database.js';
import {
  type EventLog,
  type EventSpan,
  spanOf,
  systemActor,
  type Tx,
  writeReturningEvents,
} from '../../events/outbox.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { lockDevices } from '../presence/device-locks.js';
import { type LeaveReason, locationEvent, zoneEvent } from './ingest.events.js';

/** Visits closed per statement (and per transaction). */
export const TIMEOUT_BATCH = 1000;

export interface ClosedVisit {
  id: string;
  mac: string;
  deviceId: string | null;
  guestId: string | null;
  locationId: string;
  startedAt: Date;
  visitType: number;
  lastSeen: Date;
  lastLogId: string | null;
}

interface LatestLog {
  id: string;
  sessionId: string;
  zoneId: string | null;
  timestamp: Date;
  locationId: string;
  guestId: string | null;
  guestMac: string;
}

/** What a committed batch closed: the devices that left, per location, and the batch's log position. */
export type OnLeft = (macsByLocation: Map<string, Set<string>>, span: EventSpan | null) => void;

/**
 * Closes the tenant's visits whose device was last seen in [from, cutoff), in batches, each batch in
 * one transaction with its events. The range's lower bound keeps a pass to the devices that went
 * quiet since the last one (the `(tenantId, seenAt)` index), not every device ever seen. Returns the
 * visits closed; `onLeft` hears of each batch once it has committed (presence subscribers).
 */
export async function closeTimedOutVisits(
  prisma: Prisma,
  tenantId: string,
  from: Date,
  cutoff: Date,
  signal?: AbortSignal,
  onLeft?: OnLeft,
): Promise<number> {
  let closed = 0;
  for (;;) {
    if (signal?.aborted) return closed;
    let found = 0;
    const { value: visits, events } = await writeReturningEvents(
      { prisma, tenantId, actor: systemActor },
      async (tx, log) => {
        const quiet = await tx.$queryRaw<{ id: string; mac: string }[]>`
        SELECT s."id", s."mac" FROM "CurrentPresence" cp
        JOIN "LocationSession" s ON s."tenantId" = cp."tenantId" AND s."mac" = cp."mac" AND s."endedAt" IS NULL
        WHERE cp."tenantId" = ${tenantId} AND cp."seenAt" >= ${from} AND cp."seenAt" < ${cutoff}
        ORDER BY s."id" LIMIT ${TIMEOUT_BATCH}`;
        found = quiet.length;
        if (quiet.length === 0) return [];
        // The devices' turn (src/modules/presence/device-locks.ts): a batch that read their open visits
        // commits first, and the UPDATE then checks again what the SELECT found.
        await lockDevices(
          tx,
          tenantId,
          quiet.map((q) => q.mac),
        );
        return closeVisits(
          tx,
          log,
          tenantId,
          quiet.map((q) => q.id),
          { reason: 'timeout', cutoff },
        );
      },
    );
    if (visits.length > 0 && onLeft) {
      const left = new Map<string, Set<string>>();
      for (const v of visits) left.set(v.locationId, (left.get(v.locationId) ?? new Set()).add(v.mac));
      onLeft(left, spanOf(events));
    }
    closed += visits.length;
    if (found < TIMEOUT_BATCH) return closed;
  }
}

/**
 * Closes the open visits `ids` at their device's last detection (its current presence's `seenAt`;
 * with `cutoff`, only those last seen before it), sets each one's latest zone visit (`lastLogId`)
 * duration, and records `presence.zone_left` and `presence.location_left` with `reason`, in the
 * order the devices left. The caller holds the devices' turn. Leave by
 * timeout and a guest's erasure (src/modules/guests/guests.privacy.ts) share it.
 */
export async function closeVisits(
  tx: Tx,
  log: EventLog,
  tenantId: string,
  ids: readonly string[],
  how: { reason: LeaveReason; cutoff?: Date },
): Promise<ClosedVisit[]> {
  if (ids.length === 0) return [];
  const quietOnly = how.cutoff ? PrismaNS.sql`AND cp."seenAt" < ${how.cutoff}` : PrismaNS.empty;
  const visits = await tx.$queryRaw<ClosedVisit[]>(PrismaNS.sql`
        UPDATE "LocationSession" AS s SET "endedAt" = cp."seenAt",
          "duration" = GREATEST(0, floor(extract(epoch FROM cp."seenAt" - s."startedAt")))::int
        FROM "CurrentPresence" cp
        WHERE s."id" = ANY(${[...ids]}::text[]) AND s."tenantId" = ${tenantId} AND s."endedAt" IS NULL
          AND cp."tenantId" = s."tenantId" AND cp."mac" = s."mac" ${quietOnly}
        RETURNING s."id", s."mac", s."deviceId", s."guestId", s."locationId", s."startedAt",
          s."visitType", cp."seenAt" AS "lastSeen", s."lastLogId"`);
  if (visits.length === 0) return [];
  const lastLogIds = visits.flatMap((v) => (v.lastLogId ? [v.lastLogId] : []));
  const logs = await tx.$queryRaw<LatestLog[]>`
        SELECT "id", "sessionId", "zoneId", "timestamp", "locationId", "guestId", "guestMac"
        FROM "LocationLog" WHERE "tenantId" = ${tenantId} AND "id" = ANY(${lastLogIds}::text[])`;
  const logOf = new Map(logs.map((l) => [l.sessionId, l]));
  if (logs.length > 0) {
    const lastSeen = new Map(visits.map((v) => [v.id, v.lastSeen]));
    await tx.$executeRaw`UPDATE "LocationLog" AS l
          SET "duration" = GREATEST(0, floor(extract(epoch FROM v."lastSeen" - l."timestamp")))::int
          FROM unnest(${logs.map((l) => l.id)}::text[],
            ${logs.map((l) => (lastSeen.get(l.sessionId) ?? l.timestamp).toISOString())}::timestamptz[])
            AS v("id", "lastSeen")
          WHERE l."id" = v."id" AND l."tenantId" = ${tenantId}`;
  }
  visits.sort((a, b) => a.lastSeen.getTime() - b.lastSeen.getTime() || (a.id < b.id ? -1 : 1));
  for (const v of visits) {
    const left = { at: v.lastSeen, reason: how.reason };
    const zone = logOf.get(v.id);
    if (zone) log.record(zoneEvent(zone, v.deviceId, left));
    log.record(locationEvent(v, left));
  }
  return visits;
}

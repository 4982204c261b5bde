// The ingest's events (src/events/outbox.ts): a batch appends what its detections and accounting
// changed (`presence.*`, `device.first_seen`, `guest_session.*`) in the batch's own transaction, all
// in one statement, with the ingest token's user and token and the request id as actor. No audit
// entries: this is traffic, not a change someone made.
import type { Prisma } from '../../db/database.js';
import {
  announceEvents,
  type EventActor,
  type EventLog,
  type NewEvent,
  type RecordedEvent,
  runRecordingEvents,
} from '../../events/outbox.js';
import { isoMicros } from '../../shared/format.js';
import { inTransaction, type Tx } from './ingest.batch.js';

/**
 * `inTransaction` (one retry when a concurrent delivery claimed the same event ids) with an event
 * log: the events `fn` records are appended as the transaction's last statement and announced once
 * it has committed. A retry starts with no events. `onCommitted` receives the events recorded
 * (the presence pipeline publishes its changes at their log position).
 */
export async function inTransactionWithEvents<T>(
  prisma: Prisma,
  tenantId: string,
  actor: EventActor,
  fn: (tx: Tx, log: EventLog) => Promise<T>,
  onCommitted?: (events: readonly RecordedEvent[], value: T) => void,
): Promise<T> {
  const { value, events } = await inTransaction(prisma, (tx) => runRecordingEvents(tx, tenantId, actor, fn));
  announceEvents(events);
  onCommitted?.(events, value);
  return value;
}

/**
 * Why a device left: `moved` (detected at another zone or location), `timeout` (no detection for
 * ACTIVE_WINDOW_SECONDS: noticed by its next detection, or by the presence sweeper), `erased` (its
 * guest was erased: src/modules/guests/guests.privacy.ts).
 */
export type LeaveReason = 'moved' | 'timeout' | 'erased';

/** A visit of a location (a location session) as its events show it. */
export interface LocationVisit {
  id: string;
  mac: string;
  deviceId: string | null;
  guestId: string | null;
  locationId: string;
  startedAt: Date;
  visitType: number;
}

/** A visit of a zone (a location log) as its events show it. */
export interface ZoneVisit {
  id: string;
  sessionId: string;
  guestMac: string;
  guestId: string | null;
  locationId: string;
  zoneId: string | null;
  timestamp: Date;
}

const seconds = (from: Date, to: Date): number =>
  Math.max(0, Math.floor((to.getTime() - from.getTime()) / 1000));

/** `presence.location_entered`, or `presence.location_left` when `left` is given. */
export function locationEvent(visit: LocationVisit, left?: { at: Date; reason: LeaveReason }): NewEvent {
  return {
    type: left ? 'presence.location_left' : 'presence.location_entered',
    resourceType: 'presence',
    resourceId: visit.id,
    payload: {
      id: visit.id,
      mac: visit.mac,
      device_id: visit.deviceId,
      guest_id: visit.guestId,
      location_id: visit.locationId,
      // 1 new, 2 returning (the location's analytics' visit type).
      visit_type: visit.visitType,
      entered_at: isoMicros(visit.startedAt),
      left_at: left ? isoMicros(left.at) : null,
      duration: left ? seconds(visit.startedAt, left.at) : 0,
      reason: left?.reason ?? null,
    },
  };
}

/** `presence.zone_entered`, or `presence.zone_left` when `left` is given; null outside a zone. */
export function zoneEvent(
  visit: ZoneVisit,
  deviceId: string | null,
  left?: { at: Date; reason: LeaveReason },
): NewEvent | null {
  if (visit.zoneId === null) return null;
  return {
    type: left ? 'presence.zone_left' : 'presence.zone_entered',
    resourceType: 'presence',
    resourceId: visit.id,
    payload: {
      id: visit.id,
      location_visit_id: visit.sessionId,
      mac: visit.guestMac,
      device_id: deviceId,
      guest_id: visit.guestId,
      location_id: visit.locationId,
      zone_id: visit.zoneId,
      entered_at: isoMicros(visit.timestamp),
      left_at: left ? isoMicros(left.at) : null,
      duration: left ? seconds(visit.timestamp, left.at) : 0,
      reason: left?.reason ?? null,
    },
  };
}

// The presence pipeline (POST /ingest/presence): detections of devices by the venue's Wi-Fi and BLE
// controllers. A batch resolves each detection's place inside the tenant, claims its event ids
// (ingest.batch.ts), then writes presence records and keeps current presence, location sessions and
// logs and the devices' last-seen times consistent with them, and publishes what changed.
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { scoped } from '../../db/scope.js';
import { actorOf, type EventLog, spanOf } from '../../events/outbox.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { lockDevices } from '../presence/device-locks.js';
import { macVariants, normalizeMac } from '../presence/mac.js';
import { publishPresence } from '../presence/presence.pubsub.js';
import {
  BatchErrors,
  claimEvents,
  distinct,
  type IngestResult,
  idsNamed,
  inBatchOrder,
  invalid,
  newId,
  onlyFresh,
  type Tx,
  validateEvents,
} from './ingest.batch.js';
import { inTransactionWithEvents, locationEvent, zoneEvent } from './ingest.events.js';
import { type PresenceInput, presenceEventRules, readPresenceEvent } from './ingest.inputs.js';

export async function ingestPresence(
  ctx: AppContext,
  body: Readonly<Record<string, unknown>>,
): Promise<IngestResult> {
  const scope = authorize(ctx.principal, 'ingest.write');
  const errors = new BatchErrors(presenceEventRules);
  const { raw, valid, failed } = await validateEvents(body, presenceEventRules, readPresenceEvent, errors);
  const { tenantId } = scoped(scope);
  const actor = actorOf(ctx, 'ingest');
  await inTransactionWithEvents(
    ctx.prisma,
    tenantId,
    actor,
    async (tx, log) => {
      // The batch's devices take their turn first (src/modules/presence/device-locks.ts).
      await lockDevices(
        tx,
        tenantId,
        [...valid.values()].map((e) => e.mac),
      );
      // The ledger first: a retry's events applied before are not checked again (claimEvents).
      const fresh = await claimEvents(tx, tenantId, 'presence', raw, valid, errors);
      const events = await resolvePlaces(
        tx,
        tenantId,
        onlyFresh(fresh, valid),
        errors,
        idsNamed(failed, { zoneId: 'zone_id', floorId: 'floor_id', locationId: 'location_id' }),
      );
      errors.throwIfAny();
      return applyPresence(tx, log, tenantId, ctx.config.activeWindowSeconds, inBatchOrder(fresh, events));
    },
    (recorded, changed) => publishPresence(ctx.pubsub, tenantId, changed, spanOf(recorded)),
  );
  return { accepted: raw.length };
}

// ── Places ────────────────────────────────────────────────────────────────────────────────────

interface Place {
  zoneId: string | null;
  floorId: string | null;
  buildingId: string | null;
  locationId: string;
}

/** The place ids a detection names. */
type PlaceIds = Pick<PresenceInput, 'zoneId' | 'floorId' | 'locationId'>;

/** A detection with its place resolved. */
interface PresenceEvent extends Place {
  mac: string;
  dataType: number;
  x: number | null;
  y: number | null;
  connected: boolean;
  seenAt: Date;
}

/** The zones, floors and locations of the tenant that the batch names. */
async function loadPlaces(tx: Tx, tenantId: string, events: Iterable<PlaceIds>) {
  const list = [...events];
  const [zones, floors, locations] = await Promise.all([
    tx.zone.findMany({
      where: { tenantId, id: { in: distinct(list, (e) => e.zoneId) } },
      select: {
        id: true,
        floorId: true,
        floor: { select: { buildingId: true, building: { select: { locationId: true } } } },
      },
    }),
    tx.floor.findMany({
      where: { tenantId, id: { in: distinct(list, (e) => e.floorId) } },
      select: { id: true, buildingId: true, building: { select: { locationId: true } } },
    }),
    tx.location.findMany({
      where: { tenantId, id: { in: distinct(list, (e) => e.locationId) } },
      select: { id: true },
    }),
  ]);
  return {
    zoneById: new Map(zones.map((z) => [z.id, z])),
    floorById: new Map(floors.map((f) => [f.id, f])),
    locationIds: new Set(locations.map((l) => l.id)),
  };
}

type KnownPlaces = Awaited<ReturnType<typeof loadPlaces>>;

/**
 * The place of event `i`: from its zone, else its floor, else its location; null (with errors) when
 * unknown or mismatched. Each id the tenant has no record of is named, as each `exists` rule is in
 * Laravel; the zone, floor and location must then agree.
 */
function placeOf(i: number, e: PlaceIds, known: KnownPlaces, errors: BatchErrors): Place | null {
  const { zoneId, floorId, locationId } = e;
  const z = zoneId === null ? undefined : known.zoneById.get(zoneId);
  const f = floorId === null ? undefined : known.floorById.get(floorId);
  let unknown = false;
  const named = (field: string): void => {
    errors.add(i, field, invalid(i, field));
    unknown = true;
  };
  if (zoneId !== null && !z) named('zone_id');
  if (floorId !== null && !f) named('floor_id');
  if (locationId !== null && !known.locationIds.has(locationId)) named('location_id');
  if (unknown) return null;
  let place: Place | null = null;
  if (z) {
    if (floorId !== null && floorId !== z.floorId) errors.add(i, 'floor_id', invalid(i, 'floor_id'));
    else
      place = {
        zoneId,
        floorId: z.floorId,
        buildingId: z.floor.buildingId,
        locationId: z.floor.building.locationId,
      };
  } else if (f) {
    place = { zoneId: null, floorId, buildingId: f.buildingId, locationId: f.building.locationId };
  } else if (locationId !== null) {
    place = { zoneId: null, floorId: null, buildingId: null, locationId };
  }
  if (place && locationId !== null && locationId !== place.locationId) {
    errors.add(i, 'location_id', invalid(i, 'location_id'));
    return null;
  }
  return place;
}

/** Resolves zone → floor → building → location inside the tenant, naming unknown or mismatched ids. */
async function resolvePlaces(
  tx: Tx,
  tenantId: string,
  valid: Map<number, PresenceInput>,
  errors: BatchErrors,
  named: ReadonlyMap<number, PlaceIds>,
): Promise<Map<number, PresenceEvent>> {
  const known = await loadPlaces(tx, tenantId, [...valid.values(), ...named.values()]);
  for (const [i, ids] of named) placeOf(i, ids, known, errors);
  const out = new Map<number, PresenceEvent>();
  for (const [i, e] of valid) {
    const place = placeOf(i, e, known, errors);
    if (!place) continue;
    out.set(i, {
      mac: e.mac,
      dataType: e.dataType,
      x: e.x,
      y: e.y,
      ...place,
      connected: e.connected,
      seenAt: e.seenAt,
    });
  }
  return out;
}

// ── Applying the detections ───────────────────────────────────────────────────────────────────

/** A location session held while the batch is applied: new ones are inserted, touched old ones updated. */
interface LocationSessionRow {
  id: string;
  locationId: string;
  guestId: string | null;
  deviceId: string | null;
  mac: string;
  visitType: number;
  startedAt: Date;
  endedAt: Date | null;
  duration: number;
  /** Its latest zone visit (of an open session): the one a detection extends or leaves. */
  lastLogId: string | null;
  isNew: boolean;
}

/** A session's latest zone visit (location log), held likewise. */
interface LocationLogRow {
  id: string;
  sessionId: string;
  zoneId: string | null;
  timestamp: Date;
  duration: number;
  isNew: boolean;
  locationId: string;
  guestId: string | null;
  guestMac: string;
}

/** What the detections start from, read in two round trips. */
interface PresenceState {
  deviceByMac: Map<string, { id: string; guestId: string; mac: string }>;
  /** Each MAC's current detection; moves with the batch. */
  currentByMac: Map<string, { locationId: string | null; seenAt: Date }>;
  /** Each MAC's open location session. */
  openByMac: Map<string, LocationSessionRow>;
  /** `mac|locationId` pairs with a session before: a new session there is a returning visit. */
  visited: Set<string>;
  /** Each open session's latest log, by session id. */
  logBySession: Map<string, LocationLogRow>;
}

/** What the detections write, gathered one by one and written at the end in a few statements. */
interface PresenceWrites {
  records: PresenceRow[];
  /** Each MAC's newest record, its new current presence. */
  latest: Map<string, PresenceRow>;
  newSessions: LocationSessionRow[];
  touchedSessions: Map<string, LocationSessionRow>;
  newLogs: LocationLogRow[];
  touchedLogs: Map<string, LocationLogRow>;
  /** Each known device's latest detection. */
  deviceSeen: Map<string, Date>;
  /** MACs that changed, per location (published to subscribers). */
  changed: Map<string, Set<string>>;
  /** The batch's zone and location entries and leaves, in time order (src/events). */
  log: EventLog;
}

type PresenceRow = PrismaNS.PresenceRecordCreateManyInput & { id: string };

const seconds = (from: Date, to: Date): number =>
  Math.max(0, Math.floor((to.getTime() - from.getTime()) / 1000));

/**
 * Writes presence records and keeps the current-presence rows, location sessions and logs and the
 * devices' last-seen times consistent with them. Returns the MACs that changed per location.
 *
 * A location session stays open while its device is detected at that location; the next detection
 * elsewhere, or after a gap of at least the active window, closes it at the last detection. Each
 * zone visit within a session is one location log. A detection older than the device's current one
 * is kept as history only.
 */
async function applyPresence(
  tx: Tx,
  log: EventLog,
  tenantId: string,
  windowSeconds: number,
  events: PresenceEvent[],
): Promise<Map<string, Set<string>>> {
  const writes: PresenceWrites = {
    records: [],
    latest: new Map(),
    newSessions: [],
    touchedSessions: new Map(),
    newLogs: [],
    touchedLogs: new Map(),
    deviceSeen: new Map(),
    changed: new Map(),
    log,
  };
  if (events.length === 0) return writes.changed;
  const macs = distinct(events, (e) => e.mac);
  const state = await loadPresenceState(tx, tenantId, macs);
  const ordered = [...events].sort((a, b) => a.seenAt.getTime() - b.seenAt.getTime());
  for (const e of ordered) trackDetection(state, writes, tenantId, windowSeconds, e);
  await writePresence(tx, tenantId, writes);
  const oldest = ordered[0]?.seenAt;
  if (oldest && oldest.getTime() < Date.now() - windowSeconds * 1000)
    await markSweepBacklog(tx, tenantId, oldest);
  return writes.changed;
}

/**
 * A detection already quiet on arrival (a controller replaying its buffer) is older than anything the
 * event sweeper's next pass looks at (what became quiet since its last pass): left here, it looks back
 * that far (src/events/sweeper.ts), else such a visit would stay open. One statement, late batches only.
 */
async function markSweepBacklog(tx: Tx, tenantId: string, since: Date): Promise<void> {
  await tx.$executeRaw`INSERT INTO "SweepBacklog" ("tenantId", "since", "mark") VALUES (${tenantId}, ${since}, ${newId()})
    ON CONFLICT ("tenantId") DO UPDATE
    SET "since" = LEAST("SweepBacklog"."since", EXCLUDED."since"), "mark" = EXCLUDED."mark"`;
}

async function loadPresenceState(tx: Tx, tenantId: string, macs: string[]): Promise<PresenceState> {
  const [devices, current, openRows, visited] = await Promise.all([
    tx.guestDevice.findMany({
      where: { tenantId, mac: { in: macs.flatMap(macVariants) } },
      select: { id: true, guestId: true, mac: true },
    }),
    tx.currentPresence.findMany({ where: { tenantId, mac: { in: macs } } }),
    tx.locationSession.findMany({
      where: { tenantId, mac: { in: macs }, endedAt: null },
      orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
    }),
    tx.locationSession.groupBy({ by: ['mac', 'locationId'], where: { tenantId, mac: { in: macs } } }),
  ]);
  const openByMac = new Map<string, LocationSessionRow>();
  for (const s of openRows) {
    openByMac.set(s.mac, { ...s, isNew: false });
  }
  // The session names its latest visit: two may start at the same instant, which time cannot order.
  const lastLogIds = [...openByMac.values()].flatMap((s) => (s.lastLogId ? [s.lastLogId] : []));
  const lastLogs = await tx.$queryRaw<
    {
      id: string;
      sessionId: string;
      zoneId: string | null;
      timestamp: Date;
      duration: number;
      locationId: string;
      guestId: string | null;
      guestMac: string;
    }[]
  >`SELECT "id", "sessionId", "zoneId", "timestamp", "duration", "locationId", "guestId", "guestMac"
    FROM "LocationLog" WHERE "tenantId" = ${tenantId} AND "id" = ANY(${lastLogIds}::text[])`;
  return {
    deviceByMac: new Map(devices.map((d) => [normalizeMac(d.mac), d])),
    currentByMac: new Map(current.map((c) => [c.mac, c])),
    openByMac,
    visited: new Set(visited.map((v) => `${v.mac}|${v.locationId}`)),
    logBySession: new Map(lastLogs.map((l) => [l.sessionId, { ...l, isNew: false }])),
  };
}

/** One detection, in time order: its record, and (unless it is late) current presence, session and log. */
function trackDetection(
  state: PresenceState,
  writes: PresenceWrites,
  tenantId: string,
  windowSeconds: number,
  e: PresenceEvent,
): void {
  const device = state.deviceByMac.get(e.mac);
  const record = {
    id: newId(),
    tenantId,
    mac: e.mac,
    deviceId: device?.id ?? null,
    guestId: device?.guestId ?? null,
    dataType: e.dataType,
    x: e.x,
    y: e.y,
    locationId: e.locationId,
    buildingId: e.buildingId,
    floorId: e.floorId,
    zoneId: e.zoneId,
    connected: e.connected,
    seenAt: e.seenAt,
  };
  writes.records.push(record);
  if (device) {
    const prev = writes.deviceSeen.get(device.id);
    if (!prev || prev < e.seenAt) writes.deviceSeen.set(device.id, e.seenAt);
  }
  const cur = state.currentByMac.get(e.mac);
  if (cur && e.seenAt < cur.seenAt) return; // late: kept as history only
  markChanged(writes.changed, cur?.locationId, e.mac);
  markChanged(writes.changed, e.locationId, e.mac);
  writes.latest.set(e.mac, record);
  const session = followLocationSession(state, writes, windowSeconds, e, cur, device);
  followZoneLog(state, writes, e, cur, session, device);
  state.currentByMac.set(e.mac, record);
}

function markChanged(
  changed: Map<string, Set<string>>,
  locationId: string | null | undefined,
  mac: string,
): void {
  if (!locationId) return;
  const set = changed.get(locationId) ?? new Set<string>();
  set.add(mac);
  changed.set(locationId, set);
}

const touchSession = (writes: PresenceWrites, s: LocationSessionRow): void => {
  if (!s.isNew) writes.touchedSessions.set(s.id, s);
};
const touchLog = (writes: PresenceWrites, l: LocationLogRow): void => {
  if (!l.isNew) writes.touchedLogs.set(l.id, l);
};

/**
 * The MAC's open session after detection `e`: the same one extended, or (after a move to another
 * location or a gap of the active window) the old one closed at the last detection and a new one.
 */
function followLocationSession(
  state: PresenceState,
  writes: PresenceWrites,
  windowSeconds: number,
  e: PresenceEvent,
  cur: { seenAt: Date } | undefined,
  device: { id: string; guestId: string } | undefined,
): LocationSessionRow {
  const session = state.openByMac.get(e.mac);
  const gone = cur !== undefined && e.seenAt.getTime() - cur.seenAt.getTime() >= windowSeconds * 1000;
  if (session && session.locationId === e.locationId && !gone) {
    session.duration = seconds(session.startedAt, e.seenAt);
    touchSession(writes, session);
    return session;
  }
  if (session) {
    const lastSeen = cur?.seenAt ?? e.seenAt;
    const left = { at: lastSeen, reason: gone ? ('timeout' as const) : ('moved' as const) };
    session.endedAt = lastSeen;
    session.duration = seconds(session.startedAt, lastSeen);
    touchSession(writes, session);
    const log = state.logBySession.get(session.id);
    if (log) {
      log.duration = seconds(log.timestamp, lastSeen);
      touchLog(writes, log);
      writes.log.record(zoneEvent(log, session.deviceId, left));
    }
    writes.log.record(locationEvent(session, left));
    state.openByMac.delete(e.mac);
  }
  const key = `${e.mac}|${e.locationId}`;
  const opened: LocationSessionRow = {
    id: newId(),
    locationId: e.locationId,
    guestId: device?.guestId ?? null,
    deviceId: device?.id ?? null,
    mac: e.mac,
    visitType: state.visited.has(key) ? 2 : 1,
    startedAt: e.seenAt,
    endedAt: null,
    duration: 0,
    lastLogId: null,
    isNew: true,
  };
  state.visited.add(key);
  state.openByMac.set(e.mac, opened);
  writes.newSessions.push(opened);
  writes.log.record(locationEvent(opened));
  return opened;
}

/**
 * The session's zone log after detection `e`: extended in the same zone, else the old one ended at
 * the last detection in its zone (`cur`, as a location visit ends at its last detection) and a new one.
 */
function followZoneLog(
  state: PresenceState,
  writes: PresenceWrites,
  e: PresenceEvent,
  cur: { seenAt: Date } | undefined,
  session: LocationSessionRow,
  device: { guestId: string } | undefined,
): void {
  const log = state.logBySession.get(session.id);
  if (e.zoneId === null) {
    // A detection without a zone (a floor or a location only) is no zone visit: the open one ends at
    // its last detection in its zone, and none begins (a log without a zone broke the spec's
    // `zone_id`, a string; probe O). A later detection in a zone begins the next.
    if (log) {
      const lastSeen = cur?.seenAt ?? e.seenAt;
      log.duration = seconds(log.timestamp, lastSeen);
      touchLog(writes, log);
      writes.log.record(zoneEvent(log, session.deviceId, { at: lastSeen, reason: 'moved' }));
      state.logBySession.delete(session.id);
      session.lastLogId = null;
      touchSession(writes, session);
    }
    return;
  }
  const stays = log !== undefined && log.zoneId === e.zoneId;
  if (log) {
    const lastSeen = stays ? e.seenAt : (cur?.seenAt ?? e.seenAt);
    log.duration = seconds(log.timestamp, lastSeen);
    touchLog(writes, log);
    if (stays) return;
    writes.log.record(zoneEvent(log, session.deviceId, { at: lastSeen, reason: 'moved' }));
  }
  const next: LocationLogRow = {
    id: newId(),
    sessionId: session.id,
    zoneId: e.zoneId,
    timestamp: e.seenAt,
    duration: 0,
    isNew: true,
    locationId: e.locationId,
    guestId: device?.guestId ?? null,
    guestMac: e.mac,
  };
  state.logBySession.set(session.id, next);
  session.lastLogId = next.id;
  touchSession(writes, session);
  writes.newLogs.push(next);
  writes.log.record(zoneEvent(next, session.deviceId));
}

// ── Writing ───────────────────────────────────────────────────────────────────────────────────
// Raw multi-row statements (unnest of one array per column), each skipped when it has no rows.

async function writePresence(tx: Tx, tenantId: string, writes: PresenceWrites): Promise<void> {
  await insertPresenceRecords(tx, writes.records);
  await upsertCurrentPresence(tx, [...writes.latest.values()]);
  await insertLocationSessions(tx, tenantId, writes.newSessions);
  await updateLocationSessions(tx, tenantId, [...writes.touchedSessions.values()]);
  await insertLocationLogs(tx, tenantId, writes.newLogs);
  await updateLocationLogs(tx, tenantId, [...writes.touchedLogs.values()]);
  await updateDevicesLastSeen(tx, tenantId, writes.deviceSeen);
}

/** Presence records in one statement. */
async function insertPresenceRecords(tx: Tx | Prisma, rows: PresenceRow[]): Promise<void> {
  if (rows.length === 0) return;
  const pick = <T>(f: (r: PresenceRow) => T) => rows.map(f);
  await tx.$executeRaw`INSERT INTO "PresenceRecord"
      ("id", "tenantId", "mac", "deviceId", "guestId", "dataType", "x", "y",
       "locationId", "buildingId", "floorId", "zoneId", "connected", "seenAt")
    SELECT * FROM unnest(
      ${pick((r) => r.id)}::text[], ${pick((r) => r.tenantId)}::text[], ${pick((r) => r.mac)}::text[],
      ${pick((r) => r.deviceId ?? null)}::text[], ${pick((r) => r.guestId ?? null)}::text[],
      ${pick((r) => r.dataType)}::smallint[], ${pick((r) => r.x ?? null)}::float8[], ${pick((r) => r.y ?? null)}::float8[],
      ${pick((r) => r.locationId ?? null)}::text[], ${pick((r) => r.buildingId ?? null)}::text[],
      ${pick((r) => r.floorId ?? null)}::text[], ${pick((r) => r.zoneId ?? null)}::text[],
      ${pick((r) => r.connected ?? false)}::boolean[], ${pick((r) => new Date(r.seenAt).toISOString())}::timestamptz[])`;
}

/** One statement: each device's row becomes its latest record, unless a newer one is already there. */
export async function upsertCurrentPresence(
  tx: Tx | Prisma,
  rows: PrismaNS.PresenceRecordCreateManyInput[],
): Promise<void> {
  if (rows.length === 0) return;
  const pick = <T>(f: (r: PrismaNS.PresenceRecordCreateManyInput) => T) => rows.map(f);
  await tx.$executeRaw`INSERT INTO "CurrentPresence"
      ("tenantId", "mac", "recordId", "deviceId", "guestId", "dataType", "x", "y",
       "locationId", "buildingId", "floorId", "zoneId", "connected", "seenAt")
    SELECT * FROM unnest(
      ${pick((r) => r.tenantId)}::text[], ${pick((r) => r.mac)}::text[], ${pick((r) => r.id ?? newId())}::text[],
      ${pick((r) => r.deviceId ?? null)}::text[], ${pick((r) => r.guestId ?? null)}::text[],
      ${pick((r) => r.dataType)}::smallint[], ${pick((r) => r.x ?? null)}::float8[], ${pick((r) => r.y ?? null)}::float8[],
      ${pick((r) => r.locationId ?? null)}::text[], ${pick((r) => r.buildingId ?? null)}::text[],
      ${pick((r) => r.floorId ?? null)}::text[], ${pick((r) => r.zoneId ?? null)}::text[],
      ${pick((r) => r.connected ?? false)}::boolean[], ${pick((r) => new Date(r.seenAt).toISOString())}::timestamptz[])
    ON CONFLICT ("tenantId", "mac") DO UPDATE SET
      "recordId" = EXCLUDED."recordId", "deviceId" = EXCLUDED."deviceId", "guestId" = EXCLUDED."guestId",
      "dataType" = EXCLUDED."dataType", "x" = EXCLUDED."x", "y" = EXCLUDED."y",
      "locationId" = EXCLUDED."locationId", "buildingId" = EXCLUDED."buildingId",
      "floorId" = EXCLUDED."floorId", "zoneId" = EXCLUDED."zoneId",
      "connected" = EXCLUDED."connected", "seenAt" = EXCLUDED."seenAt"
    WHERE "CurrentPresence"."seenAt" <= EXCLUDED."seenAt"`;
}

async function insertLocationSessions(tx: Tx, tenantId: string, list: LocationSessionRow[]): Promise<void> {
  if (list.length === 0) return;
  await tx.$executeRaw`INSERT INTO "LocationSession"
        ("id", "tenantId", "locationId", "guestId", "deviceId", "mac", "startedAt", "endedAt", "duration", "visitType", "lastLogId")
      SELECT v."id", ${tenantId}, v."locationId", v."guestId", v."deviceId", v."mac", v."startedAt", v."endedAt", v."duration", v."visitType", v."lastLogId"
      FROM unnest(${list.map((s) => s.id)}::text[], ${list.map((s) => s.locationId)}::text[],
        ${list.map((s) => s.guestId)}::text[], ${list.map((s) => s.deviceId)}::text[], ${list.map((s) => s.mac)}::text[],
        ${list.map((s) => s.startedAt.toISOString())}::timestamptz[],
        ${list.map((s) => s.endedAt?.toISOString() ?? null)}::timestamptz[],
        ${list.map((s) => s.duration)}::int[], ${list.map((s) => s.visitType)}::smallint[],
        ${list.map((s) => s.lastLogId)}::text[])
        AS v("id", "locationId", "guestId", "deviceId", "mac", "startedAt", "endedAt", "duration", "visitType", "lastLogId")`;
}

async function updateLocationSessions(tx: Tx, tenantId: string, list: LocationSessionRow[]): Promise<void> {
  if (list.length === 0) return;
  await tx.$executeRaw`UPDATE "LocationSession" AS s
      SET "endedAt" = v."endedAt", "duration" = v."duration", "lastLogId" = v."lastLogId"
      FROM (SELECT unnest(${list.map((s) => s.id)}::text[]) AS "id",
                   unnest(${list.map((s) => s.endedAt?.toISOString() ?? null)}::timestamptz[]) AS "endedAt",
                   unnest(${list.map((s) => s.duration)}::int[]) AS "duration",
                   unnest(${list.map((s) => s.lastLogId)}::text[]) AS "lastLogId") AS v
      WHERE s."id" = v."id" AND s."tenantId" = ${tenantId}`;
}

async function insertLocationLogs(tx: Tx, tenantId: string, list: LocationLogRow[]): Promise<void> {
  if (list.length === 0) return;
  await tx.$executeRaw`INSERT INTO "LocationLog"
        ("id", "tenantId", "locationId", "sessionId", "guestId", "guestMac", "zoneId", "timestamp", "duration")
      SELECT v."id", ${tenantId}, v."locationId", v."sessionId", v."guestId", v."guestMac", v."zoneId", v."timestamp", v."duration"
      FROM unnest(${list.map((l) => l.id)}::text[], ${list.map((l) => l.locationId)}::text[],
        ${list.map((l) => l.sessionId)}::text[], ${list.map((l) => l.guestId)}::text[], ${list.map((l) => l.guestMac)}::text[],
        ${list.map((l) => l.zoneId)}::text[], ${list.map((l) => l.timestamp.toISOString())}::timestamptz[],
        ${list.map((l) => l.duration)}::int[])
        AS v("id", "locationId", "sessionId", "guestId", "guestMac", "zoneId", "timestamp", "duration")`;
}

async function updateLocationLogs(tx: Tx, tenantId: string, list: LocationLogRow[]): Promise<void> {
  if (list.length === 0) return;
  await tx.$executeRaw`UPDATE "LocationLog" AS l SET "duration" = v."duration"
      FROM (SELECT unnest(${list.map((l) => l.id)}::text[]) AS "id",
                   unnest(${list.map((l) => l.duration)}::int[]) AS "duration") AS v
      WHERE l."id" = v."id" AND l."tenantId" = ${tenantId}`;
}

/** Known devices' last-seen times move forward only. */
async function updateDevicesLastSeen(tx: Tx, tenantId: string, deviceSeen: Map<string, Date>): Promise<void> {
  if (deviceSeen.size === 0) return;
  const ids = [...deviceSeen.keys()];
  await tx.$executeRaw`UPDATE "GuestDevice" AS d SET "lastSeenTime" = v."seen"
      FROM (SELECT unnest(${ids}::text[]) AS "id",
                   unnest(${ids.map((id) => deviceSeen.get(id)?.toISOString() ?? null)}::timestamptz[]) AS "seen") AS v
      WHERE d."id" = v."id" AND d."tenantId" = ${tenantId}
        AND (d."lastSeenTime" IS NULL OR d."lastSeenTime" < v."seen")`;
}

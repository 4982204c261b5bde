// The ingest (beyond the spec): batches of presence detections and of session accounting from the
// venue's controllers. A batch is validated whole (every bad event named by index), then applied in
// one transaction or not at all. Event ids are unique per tenant, so a retried batch is applied once
// and answers the same.
import { createHash, randomBytes } from 'node:crypto';
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { scoped } from '../../db/scope.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type FieldErrors, type Rules, ValidationError, validate } from '../../validation/validator.js';
import { macVariants, normalizeMac } from '../presence/mac.js';
import { publishPresence } from '../presence/presence.pubsub.js';
import { batchRules, parseIsoDateTime, presenceEventRules, sessionEventRules } from './ingest.inputs.js';

type Tx = PrismaNS.TransactionClient;

export interface IngestResult {
  /** Events of the batch, applied now or by an earlier delivery of the same event ids. */
  accepted: number;
}

const TX_OPTIONS = { maxWait: 30_000, timeout: 120_000 } as const;

/** Short opaque ids in the alphabet of the schema's nanoid(12). */
export const newId = (): string => randomBytes(9).toString('base64url');

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

const digestOf = (event: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(canonical(event)))
    .digest('hex');

/** Per-event messages, flattened index by index into Laravel's `events.N.field` keys. */
class BatchErrors {
  private readonly byEvent = new Map<number, FieldErrors>();
  add(index: number, field: string, message: string): void {
    const e = this.byEvent.get(index) ?? {};
    const list = e[field] ?? [];
    if (!list.includes(message)) list.push(message);
    e[field] = list;
    this.byEvent.set(index, e);
  }
  has(index: number, field?: string): boolean {
    const e = this.byEvent.get(index);
    return field === undefined ? e !== undefined : e?.[field] !== undefined;
  }
  throwIfAny(): void {
    if (this.byEvent.size === 0) return;
    const out: FieldErrors = {};
    for (const index of [...this.byEvent.keys()].sort((a, b) => a - b)) {
      for (const [field, messages] of Object.entries(this.byEvent.get(index) ?? {})) {
        out[field === '' ? `events.${index}` : `events.${index}.${field}`] = messages;
      }
    }
    throw new ValidationError(out);
  }
}

const attr = (index: number, field: string): string => `events.${index}.${field.replaceAll('_', ' ')}`;
const invalid = (index: number, field: string): string => `The selected ${attr(index, field)} is invalid.`;

/** Validates the envelope and each event's own fields; returns the valid events by index. */
async function validateEvents(
  body: Record<string, unknown>,
  rules: Rules,
  errors: BatchErrors,
): Promise<Map<number, Record<string, unknown>>> {
  const { events } = (await validate(body, batchRules)) as { events: unknown[] };
  const attributes = (i: number) => Object.fromEntries(Object.keys(rules).map((f) => [f, attr(i, f)]));
  const valid = new Map<number, Record<string, unknown>>();
  await Promise.all(
    events.map(async (event, i) => {
      if (event === null || typeof event !== 'object' || Array.isArray(event)) {
        errors.add(i, '', `The events.${i} field must be an object.`);
        return;
      }
      try {
        valid.set(i, await validate(event as Record<string, unknown>, rules, { attributes: attributes(i) }));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const [field, messages] of Object.entries(err.errors)) {
          for (const m of messages) errors.add(i, field, m);
        }
      }
    }),
  );
  return valid;
}

/**
 * Which events are new: a repeated event id (in this batch or already stored) with the same content
 * is skipped; with other content it is refused.
 */
async function claimEvents(
  tx: Tx,
  tenantId: string,
  kind: 'presence' | 'session',
  raw: unknown[],
  valid: Map<number, Record<string, unknown>>,
  errors: BatchErrors,
): Promise<Set<number>> {
  const seen = new Map<string, { digest: string }>();
  const fresh = new Set<number>();
  const ids = [...valid.values()].map((e) => String(e.event_id));
  const stored = new Map(
    (
      await tx.ingestEvent.findMany({
        where: { tenantId, eventId: { in: ids } },
        select: { eventId: true, digest: true, kind: true },
      })
    ).map((r) => [r.eventId, r]),
  );
  for (const [i, e] of [...valid.entries()].sort((a, b) => a[0] - b[0])) {
    const id = String(e.event_id);
    const digest = digestOf(raw[i]);
    const earlier = seen.get(id);
    if (earlier) {
      if (earlier.digest !== digest)
        errors.add(i, 'event_id', `The ${attr(i, 'event_id')} field has a duplicate value.`);
      continue;
    }
    seen.set(id, { digest });
    const prior = stored.get(id);
    if (prior) {
      if (prior.digest !== digest || prior.kind !== kind) {
        errors.add(i, 'event_id', `The ${attr(i, 'event_id')} has already been taken.`);
      }
      continue;
    }
    fresh.add(i);
  }
  errors.throwIfAny();
  // Raw multi-row inserts (unnest of one array per column): Prisma's createMany costs far more per
  // row in the client than the database spends on it.
  const claimed = [...fresh];
  if (claimed.length) {
    await tx.$executeRaw`INSERT INTO "IngestEvent" ("tenantId", "eventId", "kind", "digest")
      SELECT ${tenantId}, e, ${kind}, d FROM unnest(
        ${claimed.map((i) => String(valid.get(i)?.event_id))}::text[],
        ${claimed.map((i) => digestOf(raw[i]))}::text[]) AS v(e, d)`;
  }
  return fresh;
}

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; message?: string };
  return e.code === 'P2002' || /unique constraint/i.test(e.message ?? '');
};

/** Runs `fn` in a transaction; a concurrent delivery of the same event ids makes it retry once. */
async function inTransaction<T>(prisma: Prisma, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await prisma.$transaction(fn, TX_OPTIONS);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return prisma.$transaction(fn, TX_OPTIONS);
  }
}

// ── Presence ──────────────────────────────────────────────────────────────────────────────────

export interface PresenceEvent {
  mac: string;
  dataType: number;
  x: number | null;
  y: number | null;
  locationId: string;
  buildingId: string | null;
  floorId: string | null;
  zoneId: string | null;
  connected: boolean;
  seenAt: Date;
}

/** Resolves zone → floor → building → location inside the tenant, naming unknown or mismatched ids. */
async function resolvePlaces(
  tx: Tx,
  tenantId: string,
  valid: Map<number, Record<string, unknown>>,
  errors: BatchErrors,
): Promise<Map<number, PresenceEvent>> {
  const ids = (field: string) => [
    ...new Set(
      [...valid.values()].flatMap((e) => (typeof e[field] === 'string' ? [e[field] as string] : [])),
    ),
  ];
  const [zones, floors, locations] = await Promise.all([
    tx.zone.findMany({
      where: { tenantId, id: { in: ids('zone_id') } },
      select: {
        id: true,
        floorId: true,
        floor: { select: { buildingId: true, building: { select: { locationId: true } } } },
      },
    }),
    tx.floor.findMany({
      where: { tenantId, id: { in: ids('floor_id') } },
      select: { id: true, buildingId: true, building: { select: { locationId: true } } },
    }),
    tx.location.findMany({ where: { tenantId, id: { in: ids('location_id') } }, select: { id: true } }),
  ]);
  const zoneById = new Map(zones.map((z) => [z.id, z]));
  const floorById = new Map(floors.map((f) => [f.id, f]));
  const locationIds = new Set(locations.map((l) => l.id));
  const out = new Map<number, PresenceEvent>();
  for (const [i, e] of valid) {
    const zoneId = (e.zone_id as string | null | undefined) ?? null;
    const floorId = (e.floor_id as string | null | undefined) ?? null;
    const locationId = (e.location_id as string | null | undefined) ?? null;
    let place: {
      zoneId: string | null;
      floorId: string | null;
      buildingId: string | null;
      locationId: string;
    } | null = null;
    if (zoneId !== null) {
      const z = zoneById.get(zoneId);
      if (!z) errors.add(i, 'zone_id', invalid(i, 'zone_id'));
      else if (floorId !== null && floorId !== z.floorId) errors.add(i, 'floor_id', invalid(i, 'floor_id'));
      else
        place = {
          zoneId,
          floorId: z.floorId,
          buildingId: z.floor.buildingId,
          locationId: z.floor.building.locationId,
        };
    } else if (floorId !== null) {
      const f = floorById.get(floorId);
      if (!f) errors.add(i, 'floor_id', invalid(i, 'floor_id'));
      else place = { zoneId: null, floorId, buildingId: f.buildingId, locationId: f.building.locationId };
    } else if (locationId !== null) {
      if (!locationIds.has(locationId)) errors.add(i, 'location_id', invalid(i, 'location_id'));
      else place = { zoneId: null, floorId: null, buildingId: null, locationId };
    }
    if (place && locationId !== null && locationId !== place.locationId) {
      errors.add(i, 'location_id', invalid(i, 'location_id'));
      place = null;
    }
    if (!place) continue;
    out.set(i, {
      mac: normalizeMac(String(e.mac)),
      dataType: Number(e.data_type),
      x: e.x === null || e.x === undefined ? null : Number(e.x),
      y: e.y === null || e.y === undefined ? null : Number(e.y),
      ...place,
      connected: e.connected === true,
      seenAt: parseIsoDateTime(e.seen_at) as Date,
    });
  }
  return out;
}

export async function ingestPresence(ctx: AppContext, body: Record<string, unknown>): Promise<IngestResult> {
  const scope = authorize(ctx.principal, 'ingest.write');
  const errors = new BatchErrors();
  const valid = await validateEvents(body, presenceEventRules, errors);
  const raw = body.events as unknown[];
  const { tenantId } = scoped(scope);
  const changed = await inTransaction(ctx.prisma, async (tx) => {
    const events = await resolvePlaces(tx, tenantId, valid, errors);
    errors.throwIfAny();
    const fresh = await claimEvents(tx, tenantId, 'presence', raw, valid, errors);
    const apply = [...fresh]
      .sort((a, b) => a - b)
      .flatMap((i) => {
        const e = events.get(i);
        return e ? [e] : [];
      });
    return applyPresence(tx, tenantId, ctx.config.activeWindowSeconds, apply);
  });
  publishPresence(ctx.pubsub, tenantId, changed);
  return { accepted: raw.length };
}

interface OpenSession {
  id: string;
  locationId: string;
  guestId: string | null;
  deviceId: string | null;
  mac: string;
  visitType: number;
  startedAt: Date;
  endedAt: Date | null;
  duration: number;
  isNew: boolean;
  dirty: boolean;
}
interface OpenLog {
  id: string;
  sessionId: string;
  zoneId: string | null;
  timestamp: Date;
  duration: number;
  isNew: boolean;
  dirty: boolean;
  locationId: string;
  guestId: string | null;
  guestMac: string;
}

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
export async function applyPresence(
  tx: Tx,
  tenantId: string,
  windowSeconds: number,
  events: PresenceEvent[],
): Promise<Map<string, Set<string>>> {
  const changed = new Map<string, Set<string>>();
  if (events.length === 0) return changed;
  const macs = [...new Set(events.map((e) => e.mac))];
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
  const deviceByMac = new Map(devices.map((d) => [normalizeMac(d.mac), d]));
  const currentByMac = new Map(current.map((c) => [c.mac, c]));
  const open = new Map<string, OpenSession>();
  for (const s of openRows) {
    open.set(s.mac, { ...s, isNew: false, dirty: false });
  }
  const known = new Set(visited.map((v) => `${v.mac}|${v.locationId}`));
  const openIds = [...open.values()].map((s) => s.id);
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
  >`SELECT DISTINCT ON ("sessionId") "id", "sessionId", "zoneId", "timestamp", "duration", "locationId", "guestId", "guestMac"
    FROM "LocationLog" WHERE "tenantId" = ${tenantId} AND "sessionId" = ANY(${openIds}::text[])
    ORDER BY "sessionId", "timestamp" DESC, "id" DESC`;
  const openLog = new Map<string, OpenLog>(
    lastLogs.map((l) => [l.sessionId, { ...l, isNew: false, dirty: false }]),
  );

  const records: PresenceRow[] = [];
  const latest = new Map<string, PresenceRow>();
  const newSessions: OpenSession[] = [];
  const touchedSessions = new Map<string, OpenSession>();
  const newLogs: OpenLog[] = [];
  const touchedLogs = new Map<string, OpenLog>();
  const deviceSeen = new Map<string, Date>();
  const mark = (locationId: string | null | undefined, mac: string) => {
    if (!locationId) return;
    const set = changed.get(locationId) ?? new Set<string>();
    set.add(mac);
    changed.set(locationId, set);
  };

  const ordered = [...events].sort((a, b) => a.seenAt.getTime() - b.seenAt.getTime());
  for (const e of ordered) {
    const device = deviceByMac.get(e.mac);
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
    records.push(record);
    if (device) {
      const prev = deviceSeen.get(device.id);
      if (!prev || prev < e.seenAt) deviceSeen.set(device.id, e.seenAt);
    }
    const cur = currentByMac.get(e.mac);
    if (cur && e.seenAt < cur.seenAt) continue;
    mark(cur?.locationId, e.mac);
    mark(e.locationId, e.mac);
    latest.set(e.mac, record);

    // Location session and zone log.
    let session = open.get(e.mac);
    const gone = cur !== undefined && e.seenAt.getTime() - cur.seenAt.getTime() >= windowSeconds * 1000;
    if (session && (session.locationId !== e.locationId || gone)) {
      const lastSeen = cur?.seenAt ?? e.seenAt;
      session.endedAt = lastSeen;
      session.duration = seconds(session.startedAt, lastSeen);
      if (!session.isNew) touchedSessions.set(session.id, session);
      const log = openLog.get(session.id);
      if (log) {
        log.duration = seconds(log.timestamp, lastSeen);
        if (!log.isNew) touchedLogs.set(log.id, log);
      }
      open.delete(e.mac);
      session = undefined;
    }
    if (!session) {
      const key = `${e.mac}|${e.locationId}`;
      session = {
        id: newId(),
        locationId: e.locationId,
        guestId: device?.guestId ?? null,
        deviceId: device?.id ?? null,
        mac: e.mac,
        visitType: known.has(key) ? 2 : 1,
        startedAt: e.seenAt,
        endedAt: null,
        duration: 0,
        isNew: true,
        dirty: true,
      };
      known.add(key);
      open.set(e.mac, session);
      newSessions.push(session);
    } else {
      session.duration = seconds(session.startedAt, e.seenAt);
      if (!session.isNew) touchedSessions.set(session.id, session);
    }
    const log = openLog.get(session.id);
    if (log && log.zoneId === e.zoneId) {
      log.duration = seconds(log.timestamp, e.seenAt);
      if (!log.isNew) touchedLogs.set(log.id, log);
    } else {
      if (log) {
        log.duration = seconds(log.timestamp, e.seenAt);
        if (!log.isNew) touchedLogs.set(log.id, log);
      }
      const next: OpenLog = {
        id: newId(),
        sessionId: session.id,
        zoneId: e.zoneId,
        timestamp: e.seenAt,
        duration: 0,
        isNew: true,
        dirty: true,
        locationId: e.locationId,
        guestId: device?.guestId ?? null,
        guestMac: e.mac,
      };
      openLog.set(session.id, next);
      newLogs.push(next);
    }
    currentByMac.set(e.mac, { ...record, recordId: record.id });
  }

  await insertPresenceRecords(tx, records);
  await upsertCurrentPresence(tx, [...latest.values()]);
  if (newSessions.length) {
    const list = newSessions;
    await tx.$executeRaw`INSERT INTO "LocationSession"
        ("id", "tenantId", "locationId", "guestId", "deviceId", "mac", "startedAt", "endedAt", "duration", "visitType")
      SELECT v."id", ${tenantId}, v."locationId", v."guestId", v."deviceId", v."mac", v."startedAt", v."endedAt", v."duration", v."visitType"
      FROM unnest(${list.map((s) => s.id)}::text[], ${list.map((s) => s.locationId)}::text[],
        ${list.map((s) => s.guestId)}::text[], ${list.map((s) => s.deviceId)}::text[], ${list.map((s) => s.mac)}::text[],
        ${list.map((s) => s.startedAt.toISOString())}::timestamptz[],
        ${list.map((s) => s.endedAt?.toISOString() ?? null)}::timestamptz[],
        ${list.map((s) => s.duration)}::int[], ${list.map((s) => s.visitType)}::smallint[])
        AS v("id", "locationId", "guestId", "deviceId", "mac", "startedAt", "endedAt", "duration", "visitType")`;
  }
  if (touchedSessions.size) {
    const list = [...touchedSessions.values()];
    await tx.$executeRaw`UPDATE "LocationSession" AS s SET "endedAt" = v."endedAt", "duration" = v."duration"
      FROM (SELECT unnest(${list.map((s) => s.id)}::text[]) AS "id",
                   unnest(${list.map((s) => s.endedAt?.toISOString() ?? null)}::timestamptz[]) AS "endedAt",
                   unnest(${list.map((s) => s.duration)}::int[]) AS "duration") AS v
      WHERE s."id" = v."id" AND s."tenantId" = ${tenantId}`;
  }
  if (newLogs.length) {
    const list = newLogs;
    await tx.$executeRaw`INSERT INTO "LocationLog"
        ("id", "tenantId", "locationId", "sessionId", "guestId", "guestMac", "zoneId", "timestamp", "duration")
      SELECT v."id", ${tenantId}, v."locationId", v."sessionId", v."guestId", v."guestMac", v."zoneId", v."timestamp", v."duration"
      FROM unnest(${list.map((l) => l.id)}::text[], ${list.map((l) => l.locationId)}::text[],
        ${list.map((l) => l.sessionId)}::text[], ${list.map((l) => l.guestId)}::text[], ${list.map((l) => l.guestMac)}::text[],
        ${list.map((l) => l.zoneId)}::text[], ${list.map((l) => l.timestamp.toISOString())}::timestamptz[],
        ${list.map((l) => l.duration)}::int[])
        AS v("id", "locationId", "sessionId", "guestId", "guestMac", "zoneId", "timestamp", "duration")`;
  }
  if (touchedLogs.size) {
    const list = [...touchedLogs.values()];
    await tx.$executeRaw`UPDATE "LocationLog" AS l SET "duration" = v."duration"
      FROM (SELECT unnest(${list.map((l) => l.id)}::text[]) AS "id",
                   unnest(${list.map((l) => l.duration)}::int[]) AS "duration") AS v
      WHERE l."id" = v."id" AND l."tenantId" = ${tenantId}`;
  }
  if (deviceSeen.size) {
    const ids = [...deviceSeen.keys()];
    await tx.$executeRaw`UPDATE "GuestDevice" AS d SET "lastSeenTime" = v."seen"
      FROM (SELECT unnest(${ids}::text[]) AS "id",
                   unnest(${ids.map((id) => deviceSeen.get(id)?.toISOString() ?? null)}::timestamptz[]) AS "seen") AS v
      WHERE d."id" = v."id" AND d."tenantId" = ${tenantId}
        AND (d."lastSeenTime" IS NULL OR d."lastSeenTime" < v."seen")`;
  }
  return changed;
}

type PresenceRow = PrismaNS.PresenceRecordCreateManyInput & { id: string };

/** Presence records in one statement. */
export async function insertPresenceRecords(tx: Tx | Prisma, rows: PresenceRow[]): Promise<void> {
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

// ── Session accounting ────────────────────────────────────────────────────────────────────────

export interface SessionEvent {
  kind: 'start' | 'interim' | 'stop';
  mac: string;
  ip: string;
  guestId: string | null;
  locationId: string;
  bytesUp: number;
  bytesDown: number;
  loginType: string;
  accessCodeId: string | null;
  serviceProfileId: string | null;
  at: Date;
}

async function resolveSessionEvents(
  tx: Tx,
  tenantId: string,
  valid: Map<number, Record<string, unknown>>,
  errors: BatchErrors,
): Promise<Map<number, SessionEvent>> {
  const ids = (field: string) => [
    ...new Set(
      [...valid.values()].flatMap((e) => (typeof e[field] === 'string' ? [e[field] as string] : [])),
    ),
  ];
  const macs = [...new Set([...valid.values()].map((e) => normalizeMac(String(e.mac))))];
  const [locations, guests, profiles, codes, devices] = await Promise.all([
    tx.location.findMany({ where: { tenantId, id: { in: ids('location_id') } }, select: { id: true } }),
    tx.guest.findMany({ where: { tenantId, id: { in: ids('guest_id') } }, select: { id: true } }),
    tx.serviceProfile.findMany({
      where: { tenantId, id: { in: ids('service_profile_id') } },
      select: { id: true },
    }),
    tx.accessCode.findMany({
      where: { tenantId, code: { in: ids('access_code') } },
      select: { id: true, code: true, serviceProfileId: true },
    }),
    tx.guestDevice.findMany({
      where: { tenantId, mac: { in: macs.flatMap(macVariants) } },
      select: { mac: true },
    }),
  ]);
  const has = (rows: { id: string }[]) => new Set(rows.map((r) => r.id));
  const locationIds = has(locations);
  const guestIds = has(guests);
  const profileIds = has(profiles);
  const codeByText = new Map(codes.map((c) => [c.code, c]));
  // A MAC is known when its device exists, or when an event of this batch names its guest.
  const knownMacs = new Set(devices.map((d) => normalizeMac(d.mac)));
  for (const e of valid.values())
    if (typeof e.guest_id === 'string') knownMacs.add(normalizeMac(String(e.mac)));
  const out = new Map<number, SessionEvent>();
  for (const [i, e] of valid) {
    const before = errors.has(i);
    const guestId = (e.guest_id as string | null | undefined) ?? null;
    const code = (e.access_code as string | null | undefined) ?? null;
    const profileId = (e.service_profile_id as string | null | undefined) ?? null;
    const mac = normalizeMac(String(e.mac));
    if (!locationIds.has(String(e.location_id))) errors.add(i, 'location_id', invalid(i, 'location_id'));
    if (guestId !== null && !guestIds.has(guestId)) errors.add(i, 'guest_id', invalid(i, 'guest_id'));
    if (guestId === null && !knownMacs.has(mac)) {
      errors.add(
        i,
        'guest_id',
        `The ${attr(i, 'guest_id')} field is required when ${attr(i, 'mac')} is not a known device.`,
      );
    }
    if (profileId !== null && !profileIds.has(profileId)) {
      errors.add(i, 'service_profile_id', invalid(i, 'service_profile_id'));
    }
    const accessCode = code === null ? undefined : codeByText.get(code);
    if (code !== null && !accessCode) errors.add(i, 'access_code', invalid(i, 'access_code'));
    if (before || errors.has(i)) continue;
    out.set(i, {
      kind: e.kind as SessionEvent['kind'],
      mac,
      ip: String(e.ip),
      guestId,
      locationId: String(e.location_id),
      bytesUp: Number(e.bytes_up),
      bytesDown: Number(e.bytes_down),
      loginType: String(e.login_type),
      accessCodeId: accessCode?.id ?? null,
      serviceProfileId: profileId ?? accessCode?.serviceProfileId ?? null,
      at: parseIsoDateTime(e.at) as Date,
    });
  }
  return out;
}

export async function ingestSessions(ctx: AppContext, body: Record<string, unknown>): Promise<IngestResult> {
  const scope = authorize(ctx.principal, 'ingest.write');
  const errors = new BatchErrors();
  const valid = await validateEvents(body, sessionEventRules, errors);
  const raw = body.events as unknown[];
  const { tenantId } = scoped(scope);
  await inTransaction(ctx.prisma, async (tx) => {
    const events = await resolveSessionEvents(tx, tenantId, valid, errors);
    errors.throwIfAny();
    const fresh = await claimEvents(tx, tenantId, 'session', raw, valid, errors);
    const apply = [...fresh]
      .sort((a, b) => a - b)
      .flatMap((i) => {
        const e = events.get(i);
        return e ? [e] : [];
      })
      .sort((a, b) => a.at.getTime() - b.at.getTime());
    await applySessions(tx, tenantId, apply);
  });
  return { accepted: raw.length };
}

/**
 * Session accounting, event by event in time order. `bytes_up`/`bytes_down` are the session's
 * running totals (as RADIUS accounting sends them): the session keeps the largest value seen and
 * the device and guest totals grow by the difference. `start` opens a session (closing a
 * forgotten open one of the device), `interim` updates it, `stop` closes it; an `interim` or `stop`
 * without an open session opens one at its time. An unknown MAC with a guest gets a device.
 */
export async function applySessions(tx: Tx, tenantId: string, events: SessionEvent[]): Promise<void> {
  if (events.length === 0) return;
  const macs = [...new Set(events.map((e) => e.mac))];
  const devices = await tx.guestDevice.findMany({
    where: { tenantId, mac: { in: macs.flatMap(macVariants) } },
    select: { id: true, guestId: true, mac: true },
  });
  const deviceByMac = new Map(devices.map((d) => [normalizeMac(d.mac), d]));
  const openRows = await tx.guestSession.findMany({
    where: { tenantId, deviceId: { in: devices.map((d) => d.id) }, endTime: null },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    select: { id: true, deviceId: true, guestId: true, downloadedData: true, uploadedData: true },
  });
  const open = new Map(openRows.map((s) => [s.deviceId, s]));

  const close = async (s: { id: string; guestId: string; deviceId: string }, at: Date) => {
    await tx.guestSession.update({
      where: { id: s.id },
      data: { endTime: at, online: false, connectionStatus: 0 },
    });
    open.delete(s.deviceId);
    await tx.guestDevice.update({ where: { id: s.deviceId }, data: { online: false, connectionStatus: 0 } });
    const stillOnline = await tx.guestSession.count({
      where: { tenantId, guestId: s.guestId, endTime: null },
    });
    if (stillOnline === 0) {
      await tx.guest.update({ where: { id: s.guestId }, data: { online: false, connectionStatus: 0 } });
    }
  };

  for (const e of events) {
    let device = deviceByMac.get(e.mac);
    if (!device) {
      device = await tx.guestDevice.create({
        data: { tenantId, guestId: e.guestId as string, mac: e.mac, ip: e.ip, lastSeenTime: e.at },
        select: { id: true, guestId: true, mac: true },
      });
      deviceByMac.set(e.mac, device);
    } else if (e.guestId !== null && device.guestId !== e.guestId) {
      // The device follows the guest who logs in with it.
      device = await tx.guestDevice.update({
        where: { id: device.id },
        data: { guestId: e.guestId },
        select: { id: true, guestId: true, mac: true },
      });
      deviceByMac.set(e.mac, device);
    }
    const guestId = device.guestId;
    let session = open.get(device.id);
    if (session && (e.kind === 'start' || session.guestId !== guestId)) {
      await close({ ...session, deviceId: device.id }, e.at);
      session = undefined;
    }
    const opened = !session;
    if (!session) {
      session = await tx.guestSession.create({
        data: {
          tenantId,
          locationId: e.locationId,
          guestId,
          deviceId: device.id,
          ipAddress: e.ip,
          accessCodeId: e.accessCodeId,
          loginType: e.loginType,
          serviceProfileId: e.serviceProfileId,
          startTime: e.at,
          online: true,
          connectionStatus: 1,
        },
        select: { id: true, deviceId: true, guestId: true, downloadedData: true, uploadedData: true },
      });
      open.set(device.id, session);
      if (e.accessCodeId) {
        await tx.accessCode.update({
          where: { id: e.accessCodeId },
          data: { useCount: { increment: 1 }, usedAt: e.at },
        });
      }
    }
    const down = BigInt(e.bytesDown) > session.downloadedData ? BigInt(e.bytesDown) : session.downloadedData;
    const up = BigInt(e.bytesUp) > session.uploadedData ? BigInt(e.bytesUp) : session.uploadedData;
    const dDown = down - session.downloadedData;
    const dUp = up - session.uploadedData;
    const stop = e.kind === 'stop';
    session = await tx.guestSession.update({
      where: { id: session.id },
      data: {
        downloadedData: down,
        uploadedData: up,
        ipAddress: e.ip,
        ...(stop ? { endTime: e.at, online: false, connectionStatus: 0 } : {}),
      },
      select: { id: true, deviceId: true, guestId: true, downloadedData: true, uploadedData: true },
    });
    if (stop) open.delete(device.id);
    else open.set(device.id, session);
    await tx.guestDevice.update({
      where: { id: device.id },
      data: {
        ip: e.ip,
        lastSeenTime: e.at,
        online: !stop,
        connectionStatus: stop ? 0 : 1,
        totalDownloadedData: { increment: dDown },
        totalUploadedData: { increment: dUp },
      },
    });
    const stillOnline = stop
      ? (await tx.guestSession.count({ where: { tenantId, guestId, endTime: null } })) > 0
      : true;
    await tx.guest.update({
      where: { id: guestId },
      data: {
        online: stillOnline,
        connectionStatus: stillOnline ? 1 : 0,
        totalDownloadedData: { increment: dDown },
        totalUploadedData: { increment: dUp },
        ...(opened
          ? {
              lastVisitDate: e.at,
              lastAttemptTime: e.at,
              lastConnectionTime: e.at,
              lastLoginType: e.loginType,
              visitCount: { increment: 1 },
            }
          : {}),
      },
    });
  }
}

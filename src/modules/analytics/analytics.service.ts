// Location analytics (spec 2.7–2.9, 4.5): active sessions from the current-presence table, and the
// location sessions and logs of the deprecated group. Tenant-scoped, transport-free.
import { authorize } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { AppError } from '../../errors.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { SingleFlight } from '../../shared/single-flight.js';
import { validateFilters } from '../../validation/validator.js';
import { macVariants } from '../presence/mac.js';
import { type PresenceChange, presenceTopic } from '../presence/presence.pubsub.js';
import {
  activeSessionFilterRules,
  locationLogFilterRules,
  locationSessionFilterRules,
} from './analytics.inputs.js';

export interface ActiveSessionFilters {
  location_id?: string;
  building_id?: string;
  floor_id?: string;
  zone_id?: string;
  segment_id?: string;
  data_type?: number;
  connected?: number;
}

export interface ActiveSession {
  mac: string;
  dataType: number;
  x: number | null;
  y: number | null;
  locationId: string | null;
  location: string | null;
  buildingId: string | null;
  building: string | null;
  floorId: string | null;
  floor: string | null;
  zoneId: string | null;
  zone: string | null;
  guestId: string | null;
  gender: number | null;
  nationalityCode: string | null;
  residencyCode: string | null;
  seenAt: Date;
  connected: boolean;
  segment: { id: string; name: string }[];
}

type Row = Omit<ActiveSession, 'segment'>;

/** Records seen after this instant are active: a record exactly ACTIVE_WINDOW_SECONDS old is not. */
export const activeSince = (now: Date, windowSeconds: number): Date =>
  new Date(now.getTime() - windowSeconds * 1000);

const col = (name: string) => PrismaNS.raw(`cp."${name}"`);

/** The caller's scope and validated filters of an active-sessions read (403 and 422 come from here). */
export async function activeSessionRequest(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<{ scope: Scope; filters: ActiveSessionFilters }> {
  const scope = authorize(ctx.principal, 'analytics.read');
  const filters = (await validateFilters(raw, activeSessionFilterRules)) as ActiveSessionFilters;
  return { scope, filters };
}

/**
 * Identifies an active-sessions read: the tenant, the caller's pinned location and the filters.
 * Reads with the same key return the same rows, so concurrent ones may share one answer.
 */
export function activeSessionsKey(scope: Scope, f: ActiveSessionFilters): string {
  return JSON.stringify([scope.tenantId, scope.locationId, Object.entries(f).sort()]);
}

/**
 * Every active session: per device its latest presence record, if younger than the window. One
 * statement for the rows with their place names and guest, one for the guests' tags, whatever the
 * number of devices. `opts.macs` narrows to some devices (subscriptions); `opts.now` fixes the clock.
 */
export async function listActiveSessions(
  ctx: AppContext,
  raw: Record<string, unknown>,
  opts: { now?: Date; macs?: string[] } = {},
): Promise<ActiveSession[]> {
  const { scope, filters } = await activeSessionRequest(ctx, raw);
  return activeSessionsIn(ctx, scope, filters, opts);
}

// Dashboards poll the whole venue at once: identical reads in flight share one statement pair.
const activeReads = new SingleFlight<ActiveSession[]>();

export function activeSessionsIn(
  ctx: AppContext,
  scope: Scope,
  f: ActiveSessionFilters,
  opts: { now?: Date; macs?: string[] } = {},
): Promise<ActiveSession[]> {
  if (opts.now || opts.macs) return readActiveSessions(ctx, scope, f, opts);
  return activeReads.run(activeSessionsKey(scope, f), () => readActiveSessions(ctx, scope, f, opts));
}

/**
 * The WHERE clause of active sessions over `CurrentPresence cp` joined to the device's guest `g`:
 * the caller's scope, the window and the filters.
 */
function activeWhere(
  scope: Scope,
  f: ActiveSessionFilters,
  now: Date,
  windowSeconds: number,
  macs?: string[],
): PrismaNS.Sql {
  const since = activeSince(now, windowSeconds);
  // The tenant (and a pinned user's location) from the one scope helper.
  const conditions: PrismaNS.Sql[] = Object.entries(scoped(scope, 'locationId')).map(
    ([field, value]) => PrismaNS.sql`${col(field)} = ${value}`,
  );
  conditions.push(PrismaNS.sql`cp."seenAt" > ${since}`);
  if (f.location_id !== undefined) conditions.push(PrismaNS.sql`cp."locationId" = ${f.location_id}`);
  if (f.building_id !== undefined) conditions.push(PrismaNS.sql`cp."buildingId" = ${f.building_id}`);
  if (f.floor_id !== undefined) conditions.push(PrismaNS.sql`cp."floorId" = ${f.floor_id}`);
  if (f.zone_id !== undefined) conditions.push(PrismaNS.sql`cp."zoneId" = ${f.zone_id}`);
  if (f.data_type !== undefined) conditions.push(PrismaNS.sql`cp."dataType" = ${f.data_type}`);
  if (f.connected !== undefined) conditions.push(PrismaNS.sql`cp."connected" = ${f.connected === 1}`);
  if (f.segment_id !== undefined) {
    conditions.push(PrismaNS.sql`EXISTS (SELECT 1 FROM "GuestTag" gt
      WHERE gt."tenantId" = cp."tenantId" AND gt."guestId" = g."id" AND gt."tagId" = ${f.segment_id})`);
  }
  if (macs) conditions.push(PrismaNS.sql`cp."mac" = ANY(${macs}::text[])`);
  return PrismaNS.join(conditions, ' AND ');
}

async function readActiveSessions(
  ctx: AppContext,
  scope: Scope,
  f: ActiveSessionFilters,
  opts: { now?: Date; macs?: string[] },
): Promise<ActiveSession[]> {
  const where = activeWhere(scope, f, opts.now ?? new Date(), ctx.config.activeWindowSeconds, opts.macs);

  // The guest is the device's current owner (a device may be registered after it was first seen).
  const rows = await ctx.prisma.$queryRaw<Row[]>`
    SELECT cp."mac", cp."dataType", cp."x", cp."y",
      cp."locationId", l."name" AS "location", cp."buildingId", b."name" AS "building",
      cp."floorId", f."name" AS "floor", cp."zoneId", z."name" AS "zone",
      g."id" AS "guestId", g."gender", g."nationalityCode", g."residencyCode",
      cp."seenAt", cp."connected"
    FROM "CurrentPresence" cp
    LEFT JOIN "Location" l ON l."id" = cp."locationId" AND l."tenantId" = cp."tenantId"
    LEFT JOIN "Building" b ON b."id" = cp."buildingId" AND b."tenantId" = cp."tenantId"
    LEFT JOIN "Floor" f ON f."id" = cp."floorId" AND f."tenantId" = cp."tenantId"
    LEFT JOIN "Zone" z ON z."id" = cp."zoneId" AND z."tenantId" = cp."tenantId"
    LEFT JOIN "GuestDevice" d ON d."tenantId" = cp."tenantId" AND d."mac" = cp."mac"
    LEFT JOIN "Guest" g ON g."tenantId" = cp."tenantId" AND g."id" = COALESCE(d."guestId", cp."guestId")
    WHERE ${where}
    ORDER BY cp."seenAt" DESC, cp."mac" ASC`;

  const guestIds = [...new Set(rows.flatMap((r) => (r.guestId ? [r.guestId] : [])))];
  const tags = await ctx.prisma.$queryRaw<{ guestId: string; id: string; name: string }[]>`
    SELECT gt."guestId", t."id", t."name"
    FROM "GuestTag" gt JOIN "Tag" t ON t."id" = gt."tagId" AND t."tenantId" = gt."tenantId"
    WHERE gt."tenantId" = ${scope.tenantId} AND gt."guestId" = ANY(${guestIds}::text[])
    ORDER BY t."name" ASC, t."id" ASC`;
  const byGuest = new Map<string, { id: string; name: string }[]>();
  for (const t of tags) {
    const list = byGuest.get(t.guestId) ?? [];
    list.push({ id: t.id, name: t.name });
    byGuest.set(t.guestId, list);
  }
  // Every key written out (not `...r`): raw rows are dictionary-mode objects, and 50 000 present
  // devices make this loop and the serializer's reads a visible part of the request.
  return rows.map(
    (r): ActiveSession => ({
      mac: r.mac,
      dataType: Number(r.dataType),
      x: r.x,
      y: r.y,
      locationId: r.locationId,
      location: r.location,
      buildingId: r.buildingId,
      building: r.building,
      floorId: r.floorId,
      floor: r.floor,
      zoneId: r.zoneId,
      zone: r.zone,
      guestId: r.guestId,
      gender: r.gender === null ? null : Number(r.gender),
      nationalityCode: r.nationalityCode,
      residencyCode: r.residencyCode,
      seenAt: r.seenAt,
      connected: r.connected,
      segment: (r.guestId && byGuest.get(r.guestId)) || [],
    }),
  );
}

export interface OccupancyCount {
  id: string;
  name: string | null;
  present: number;
  connected: number;
}

export interface Occupancy {
  locations: OccupancyCount[];
  buildings: OccupancyCount[];
  floors: OccupancyCount[];
  zones: OccupancyCount[];
}

/**
 * Present and connected devices per location, building, floor and zone: the active sessions counted
 * in one statement (GROUPING SETS), so a venue of 50 000 devices sends a few rows, not 50 000.
 */
export async function presenceOccupancy(
  ctx: AppContext,
  raw: Record<string, unknown>,
  opts: { now?: Date } = {},
): Promise<Occupancy> {
  const { scope, filters } = await activeSessionRequest(ctx, raw);
  const where = activeWhere(scope, filters, opts.now ?? new Date(), ctx.config.activeWindowSeconds);
  // The device's guest is joined only for the segment filter; names are looked up for the few counted rows.
  const guestJoin =
    filters.segment_id === undefined
      ? PrismaNS.empty
      : PrismaNS.sql`LEFT JOIN "GuestDevice" d ON d."tenantId" = cp."tenantId" AND d."mac" = cp."mac"
    LEFT JOIN "Guest" g ON g."tenantId" = cp."tenantId" AND g."id" = COALESCE(d."guestId", cp."guestId")`;
  const rows = await ctx.prisma.$queryRaw<
    { level: number; id: string | null; name: string | null; present: number; connected: number }[]
  >`
    WITH c AS (
      SELECT GROUPING(cp."locationId", cp."buildingId", cp."floorId", cp."zoneId")::int AS "level",
        COALESCE(cp."locationId", cp."buildingId", cp."floorId", cp."zoneId") AS "id",
        count(*)::int AS "present", (count(*) FILTER (WHERE cp."connected"))::int AS "connected"
      FROM "CurrentPresence" cp
      ${guestJoin}
      WHERE ${where}
      GROUP BY GROUPING SETS ((cp."locationId"), (cp."buildingId"), (cp."floorId"), (cp."zoneId"))
    )
    SELECT c."level", c."id", COALESCE(l."name", b."name", f."name", z."name") AS "name", c."present", c."connected"
    FROM c
    LEFT JOIN "Location" l ON c."level" = 7 AND l."id" = c."id" AND l."tenantId" = ${scope.tenantId}
    LEFT JOIN "Building" b ON c."level" = 11 AND b."id" = c."id" AND b."tenantId" = ${scope.tenantId}
    LEFT JOIN "Floor" f ON c."level" = 13 AND f."id" = c."id" AND f."tenantId" = ${scope.tenantId}
    LEFT JOIN "Zone" z ON c."level" = 14 AND z."id" = c."id" AND z."tenantId" = ${scope.tenantId}`;
  // GROUPING(...) is a bit mask of the columns left out of the set: 0b0111 is the location set, …
  const levelOf: Record<number, keyof Occupancy> = {
    7: 'locations',
    11: 'buildings',
    13: 'floors',
    14: 'zones',
  };
  const levels: Record<keyof Occupancy, OccupancyCount[]> = {
    locations: [],
    buildings: [],
    floors: [],
    zones: [],
  };
  for (const r of rows) {
    const level = levelOf[Number(r.level)];
    // Records without a place at that level (a BLE tag seen only at a floor) count at the levels they have.
    if (!level || r.id === null) continue;
    levels[level].push({
      id: r.id,
      name: r.name,
      present: Number(r.present),
      connected: Number(r.connected),
    });
  }
  const sorted = (list: OccupancyCount[]) =>
    list.sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.id.localeCompare(b.id));
  return {
    locations: sorted(levels.locations),
    buildings: sorted(levels.buildings),
    floors: sorted(levels.floors),
    zones: sorted(levels.zones),
  };
}

// ── Location sessions and logs (spec 2.7, 2.8) ───────────────────────────────────────────────────

/** `yyyy-mm-dd hh:ii`, read as UTC. */
const minuteDate = (s: string): Date => new Date(`${s.replace(' ', 'T')}:00Z`);

/** Newest first; the id breaks ties. */
export const locationSessionOrder = [
  { startedAt: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.LocationSessionOrderByWithRelationInput[];

export const locationLogOrder = [
  { timestamp: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.LocationLogOrderByWithRelationInput[];

async function locationSessionWhere(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<PrismaNS.LocationSessionWhereInput> {
  const scope = authorize(ctx.principal, 'analytics.read');
  const f = (await validateFilters(raw, locationSessionFilterRules)) as {
    guest_id?: string;
    location_id?: string;
    mac?: string;
    started_at?: string;
    ended_at?: string;
    visit_type?: number;
  };
  const and: PrismaNS.LocationSessionWhereInput[] = [];
  if (f.location_id !== undefined) and.push({ locationId: f.location_id });
  if (f.guest_id !== undefined) and.push({ guestId: f.guest_id });
  if (f.mac !== undefined) and.push({ mac: { in: macVariants(f.mac) } });
  if (f.started_at !== undefined) and.push({ startedAt: { gte: minuteDate(f.started_at) } });
  if (f.ended_at !== undefined) and.push({ endedAt: { lte: minuteDate(f.ended_at) } });
  if (f.visit_type !== undefined) and.push({ visitType: f.visit_type });
  return { ...scoped(scope, 'locationId'), ...(and.length ? { AND: and } : {}) };
}

/**
 * What the REST item (analytics.serializer.ts locationSessionItem) reads, and only that: not tenantId
 * and deviceId. The item's parameter type is derived from this, so a column it reads but this omits
 * does not compile.
 */
export const locationSessionSelect = {
  id: true,
  guestId: true,
  locationId: true,
  mac: true,
  startedAt: true,
  endedAt: true,
  duration: true,
  visitType: true,
} satisfies PrismaNS.LocationSessionSelect;

export type LocationSessionRow = PrismaNS.LocationSessionGetPayload<{ select: typeof locationSessionSelect }>;

/** REST's list (GraphQL has no such list). */
export async function listLocationSessions(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  const where = await locationSessionWhere(ctx, filters);
  return findManyRows<LocationSessionRow>(ctx.prisma, 'LocationSession', {
    where,
    orderBy: locationSessionOrder,
    ...page,
    select: locationSessionSelect,
  });
}

export async function countLocationSessions(ctx: AppContext, filters: Record<string, unknown>) {
  return countRows(ctx.prisma, 'LocationSession', await locationSessionWhere(ctx, filters));
}

/** The location session with that id (the spec calls the path id "a location id"; it is the session's). */
export async function findLocationSession(
  ctx: AppContext,
  id: string,
  query: Omit<PrismaNS.LocationSessionFindFirstArgs, 'where'> = {},
) {
  const scope = authorize(ctx.principal, 'analytics.read');
  const row = await ctx.prisma.locationSession.findFirst({
    ...query,
    where: { ...scoped(scope, 'locationId'), AND: [{ id }] },
  });
  if (!row) throw new AppError('NOT_FOUND');
  return row;
}

async function locationLogWhere(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<PrismaNS.LocationLogWhereInput> {
  const scope = authorize(ctx.principal, 'analytics.read');
  const f = (await validateFilters(raw, locationLogFilterRules)) as {
    guest_id?: string;
    guest_mac?: string;
    session_id?: string;
    zone_id?: string;
    timestamp?: string;
  };
  const and: PrismaNS.LocationLogWhereInput[] = [];
  if (f.guest_id !== undefined) and.push({ guestId: f.guest_id });
  if (f.guest_mac !== undefined) and.push({ guestMac: { in: macVariants(f.guest_mac) } });
  if (f.session_id !== undefined) and.push({ sessionId: f.session_id });
  if (f.zone_id !== undefined) and.push({ zoneId: f.zone_id });
  if (f.timestamp !== undefined) and.push({ timestamp: { gte: minuteDate(f.timestamp) } });
  return { ...scoped(scope, 'locationId'), ...(and.length ? { AND: and } : {}) };
}

/**
 * What the REST list item (analytics.serializer.ts locationLogItem) reads, and only that: not the
 * row's own id, tenantId and locationId. The item's parameter type is derived from this, so a column
 * it reads but this omits does not compile.
 */
export const locationLogSelect = {
  guestId: true,
  guestMac: true,
  sessionId: true,
  zoneId: true,
  timestamp: true,
  duration: true,
} satisfies PrismaNS.LocationLogSelect;

export type LocationLogRow = PrismaNS.LocationLogGetPayload<{ select: typeof locationLogSelect }>;

/** REST's list (GraphQL has none). */
export async function listLocationLogs(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  const where = await locationLogWhere(ctx, filters);
  return findManyRows<LocationLogRow>(ctx.prisma, 'LocationLog', {
    where,
    orderBy: locationLogOrder,
    ...page,
    select: locationLogSelect,
  });
}

export async function countLocationLogs(ctx: AppContext, filters: Record<string, unknown>) {
  return countRows(ctx.prisma, 'LocationLog', await locationLogWhere(ctx, filters));
}

// ── Real-time presence ────────────────────────────────────────────────────────────────────────

/**
 * The presence changes of one location the caller may see (404 for a location outside its scope).
 * Each change names the devices that arrived, moved, left or changed state there.
 */
export async function watchPresence(
  ctx: AppContext,
  locationId: string,
): Promise<AsyncIterable<PresenceChange>> {
  const scope = authorize(ctx.principal, 'analytics.read');
  const location = await ctx.prisma.location.findFirst({
    where: { ...scoped(scope, 'id'), AND: [{ id: locationId }] },
    select: { id: true },
  });
  if (!location || !ctx.pubsub) throw new AppError('NOT_FOUND');
  return ctx.pubsub.subscribe('presenceChanged', presenceTopic(scope.tenantId, location.id));
}

/** The active sessions a change is about, as the caller may see them now. */
export async function changedSessions(ctx: AppContext, change: PresenceChange): Promise<ActiveSession[]> {
  const scope = authorize(ctx.principal, 'analytics.read');
  return activeSessionsIn(ctx, scope, { location_id: change.locationId }, { macs: change.macs });
}

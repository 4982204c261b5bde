// Location analytics (spec 2.7–2.9, 4.5): active sessions from the current-presence table, and the
// location sessions and logs of the deprecated group. Tenant-scoped, transport-free.
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { AppError } from '../../errors.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import {
  conditionsOf,
  type FilterValues,
  type ListQuery,
  listOperation,
  reader,
} from '../../operations/operation.js';
import { SingleFlight } from '../../shared/single-flight.js';
import { validate } from '../../validation/validator.js';
import { eventFilters } from '../events/events.inputs.js';
import { resumeAfter, resumePoint } from '../events/events.service.js';
import type { PresenceChange } from '../presence/presence.pubsub.js';
import { followPresence } from '../presence/presence.resume.js';
import { activeSessionFilters, locationLogFilters, locationSessionFilters } from './analytics.inputs.js';

/**
 * Every analytics read needs `analytics.read`: named here once. Its own read is one location
 * session by id (REST `GET /locations-analytics/sessions/:id`, GraphQL `locationSession`), whose
 * shape each transport picks.
 */
export const readAnalytics = reader('analytics.read');

export type ActiveSessionFilters = FilterValues<typeof activeSessionFilters>;

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

type Row = Omit<ActiveSession, 'segment'> & { guestLocationId: string | null };

/** Records seen after this instant are active: a record exactly ACTIVE_WINDOW_SECONDS old is not. */
export const activeSince = (now: Date, windowSeconds: number): Date =>
  new Date(now.getTime() - windowSeconds * 1000);

const col = (name: string) => PrismaNS.raw(`cp."${name}"`);

/** The caller's scope (the tenant, a pinned user's location) and the filters' conditions, over `cp`. */
function activeWithin(scope: Scope, conditions: PrismaNS.Sql[]): PrismaNS.Sql {
  // The tenant (and a pinned user's location) from the one scope helper.
  const inScope = Object.entries(scoped(scope, 'locationId')).map(
    ([field, value]) => PrismaNS.sql`${col(field)} = ${value}`,
  );
  return PrismaNS.join([...inScope, ...conditions], ' AND ');
}

/**
 * Active sessions and occupancy (REST `GET /locations-analytics/active-sessions`, GraphQL
 * `activeSessions` and `presenceOccupancy`): the filters' conditions over `CurrentPresence cp`
 * inside the caller's scope; the rows keep their own order.
 */
export const activeSessionsQuery = listOperation({
  action: readAnalytics.action,
  filters: activeSessionFilters,
  within: activeWithin,
  orderBy: () => undefined,
});

export type ActiveSessionQuery = ListQuery<ActiveSessionFilters, PrismaNS.Sql, undefined>;

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
  q: ActiveSessionQuery,
  opts: { now?: Date; macs?: string[] } = {},
): Promise<ActiveSession[]> {
  if (opts.now || opts.macs) return readActiveSessions(ctx, q, opts);
  return activeReads.run(activeSessionsKey(q.scope, q.input), () => readActiveSessions(ctx, q, opts));
}

// Dashboards poll the whole venue at once: identical reads in flight share one statement pair.
const activeReads = new SingleFlight<ActiveSession[]>();

/**
 * The WHERE clause of active sessions over `CurrentPresence cp` joined to the device's guest `g`:
 * the caller's scope and the filters, the window, and the devices asked for (subscriptions).
 */
function activeWhere(q: ActiveSessionQuery, now: Date, windowSeconds: number, macs?: string[]): PrismaNS.Sql {
  const since = activeSince(now, windowSeconds);
  const conditions = [q.where, PrismaNS.sql`cp."seenAt" > ${since}`];
  if (macs) conditions.push(PrismaNS.sql`cp."mac" = ANY(${macs}::text[])`);
  return PrismaNS.join(conditions, ' AND ');
}

async function readActiveSessions(
  ctx: AppContext,
  q: ActiveSessionQuery,
  opts: { now?: Date; macs?: string[] },
): Promise<ActiveSession[]> {
  const { scope } = q;
  const where = activeWhere(q, opts.now ?? new Date(), ctx.config.activeWindowSeconds, opts.macs);

  // The guest is the device's current owner (a device may be registered after it was first seen).
  const rows = await ctx.prisma.$queryRaw<Row[]>`
    SELECT cp."mac", cp."dataType", cp."x", cp."y",
      cp."locationId", l."name" AS "location", cp."buildingId", b."name" AS "building",
      cp."floorId", f."name" AS "floor", cp."zoneId", z."name" AS "zone",
      g."id" AS "guestId", g."locationId" AS "guestLocationId", g."gender", g."nationalityCode", g."residencyCode",
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

  // A device at a pinned caller's location whose guest is at another: its presence shows, the guest's
  // profile (gender, nationality, residency, segment) does not; its id stays, as REST shows ids.
  const shown = (r: Row): boolean =>
    r.guestId !== null && (scope.locationId === null || r.guestLocationId === scope.locationId);
  const guestIds = [...new Set(rows.flatMap((r) => (r.guestId && shown(r) ? [r.guestId] : [])))];
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
  return rows.map((r): ActiveSession => {
    const profile = shown(r);
    return {
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
      gender: profile && r.gender !== null ? Number(r.gender) : null,
      nationalityCode: profile ? r.nationalityCode : null,
      residencyCode: profile ? r.residencyCode : null,
      seenAt: r.seenAt,
      connected: r.connected,
      segment: (profile && r.guestId && byGuest.get(r.guestId)) || [],
    };
  });
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
  q: ActiveSessionQuery,
  opts: { now?: Date } = {},
): Promise<Occupancy> {
  const { scope } = q;
  const where = activeWhere(q, opts.now ?? new Date(), ctx.config.activeWindowSeconds);
  // The device's guest is joined only for the segment filter; names are looked up for the few counted rows.
  const guestJoin =
    q.input.segment_id === undefined
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
    LEFT JOIN "Zone" z ON c."level" = 14 AND z."id" = c."id" AND z."tenantId" = ${scope.tenantId}
    ORDER BY "name" ASC NULLS FIRST, c."id" ASC`;
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
  // Each level keeps the statement's order: by name as the database orders names (its collation, as
  // the hierarchy orders zones; not localeCompare), a missing name first, then id.
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
  return levels;
}

// ── Location sessions and logs (spec 2.7, 2.8) ───────────────────────────────────────────────────

/** Newest first; the id breaks ties. */
export const locationSessionOrder = [
  { startedAt: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.LocationSessionOrderByWithRelationInput[];

export const locationLogOrder = [
  { timestamp: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.LocationLogOrderByWithRelationInput[];

/** The location sessions' list and count (REST only, deprecated): filters → where, newest first. */
export const locationSessionsQuery = listOperation({
  action: readAnalytics.action,
  filters: locationSessionFilters,
  within: (scope: Scope, and: PrismaNS.LocationSessionWhereInput[]): PrismaNS.LocationSessionWhereInput => ({
    ...scoped(scope, 'locationId'),
    ...(and.length ? { AND: and } : {}),
  }),
  orderBy: () => locationSessionOrder,
});

/** What a list reads by: a where clause (inside the caller's scope) and an order. */
interface Query<W, O> {
  where: W;
  orderBy: O;
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
export function listLocationSessions(
  ctx: AppContext,
  q: Query<PrismaNS.LocationSessionWhereInput, typeof locationSessionOrder>,
  page: { skip: number; take: number },
) {
  return findManyRows<LocationSessionRow>(ctx.prisma, 'LocationSession', {
    where: q.where,
    orderBy: q.orderBy,
    ...page,
    select: locationSessionSelect,
  });
}

export function countLocationSessions(
  ctx: AppContext,
  q: Query<PrismaNS.LocationSessionWhereInput, unknown>,
): Promise<number> {
  return countRows(ctx.prisma, 'LocationSession', q.where);
}

/** The location session with that id (the spec calls the path id "a location id"; it is the session's). */
export async function findLocationSession(
  ctx: AppContext,
  id: string,
  query: Omit<PrismaNS.LocationSessionFindFirstArgs, 'where'> = {},
) {
  const scope = readAnalytics.scope(ctx);
  const row = await ctx.prisma.locationSession.findFirst({
    ...query,
    where: { ...scoped(scope, 'locationId'), AND: [{ id }] },
  });
  if (!row) throw new AppError('NOT_FOUND');
  return row;
}

/** The location logs' list and count (REST only, deprecated): filters → where, newest first. */
export const locationLogsQuery = listOperation({
  action: readAnalytics.action,
  filters: locationLogFilters,
  within: (scope: Scope, and: PrismaNS.LocationLogWhereInput[]): PrismaNS.LocationLogWhereInput => ({
    ...scoped(scope, 'locationId'),
    ...(and.length ? { AND: and } : {}),
  }),
  orderBy: () => locationLogOrder,
});

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
export function listLocationLogs(
  ctx: AppContext,
  q: Query<PrismaNS.LocationLogWhereInput, typeof locationLogOrder>,
  page: { skip: number; take: number },
) {
  return findManyRows<LocationLogRow>(ctx.prisma, 'LocationLog', {
    where: q.where,
    orderBy: q.orderBy,
    ...page,
    select: locationLogSelect,
  });
}

export function countLocationLogs(
  ctx: AppContext,
  q: Query<PrismaNS.LocationLogWhereInput, unknown>,
): Promise<number> {
  return countRows(ctx.prisma, 'LocationLog', q.where);
}

// ── Real-time presence ────────────────────────────────────────────────────────────────────────

/**
 * `presenceChanged`: the changes of one location the caller may see (404 for a location outside its
 * scope), each naming the devices that arrived, moved, left or changed state there, in log order;
 * with `after` (or the `Last-Event-ID` a reconnecting SSE client resends), first one change naming
 * the devices that entered or left it after that event id (src/modules/presence/presence.resume.ts).
 */
export async function watchPresence(
  ctx: AppContext,
  locationId: string,
  after?: string | null,
): Promise<AsyncIterable<PresenceChange>> {
  const scope = readAnalytics.scope(ctx);
  const location = await ctx.prisma.location.findFirst({
    where: { ...scoped(scope, 'id'), AND: [{ id: locationId }] },
    select: { id: true },
  });
  if (!location || !ctx.pubsub) throw new AppError('NOT_FOUND');
  const resent = resumeAfter(ctx, after);
  let from: bigint | null = null;
  if (resent !== null) {
    const input = await validate({ after: resent }, { after: eventFilters.after.rules });
    from = await resumePoint(ctx, scope.tenantId, input.after ?? null);
  }
  // Live too, in log order: changes of several instances arrive in any order (probe R).
  return followPresence({
    prisma: ctx.prisma,
    pubsub: ctx.pubsub,
    tenantId: scope.tenantId,
    locationId: location.id,
    after: from,
  });
}

/** The active sessions a change is about, as the caller may see them now. */
export async function changedSessions(ctx: AppContext, change: PresenceChange): Promise<ActiveSession[]> {
  const scope = readAnalytics.scope(ctx);
  const input: ActiveSessionFilters = { location_id: change.locationId };
  const q: ActiveSessionQuery = {
    input,
    scope,
    where: activeWithin(scope, conditionsOf(activeSessionFilters, input, scope)),
    orderBy: undefined,
  };
  return listActiveSessions(ctx, q, { macs: change.macs });
}

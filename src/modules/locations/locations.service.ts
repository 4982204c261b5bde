// Locations: tenant-scoped domain functions used by both REST and GraphQL.
import { authorize } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findFirstRow, findManyRows } from '../../db/raw-rows.js';
import { lockRow } from '../../db/row-lock.js';
import { scoped } from '../../db/scope.js';
import { isUniqueViolation, takenError } from '../../db/unique-violation.js';
import { AppError } from '../../errors.js';
import { type AuditAction, changeEvent } from '../../events/audit.js';
import { type EventLog, writeWithEvents } from '../../events/outbox.js';
import type { Location, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import {
  type InputOf,
  type ListWhere,
  listOperation,
  operation,
  reader,
} from '../../operations/operation.js';
import { hierarchyFilters, locationFilters, locationWriteFields } from './locations.inputs.js';
import { locationDetail } from './locations.serializer.js';

export const locationOrder = [
  { createdAt: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.LocationOrderByWithRelationInput[];

/** A list shows the active locations unless a `status` condition says which. */
const ACTIVE = { isTrashed: false } satisfies PrismaNS.LocationWhereInput;
const choosesTrashed = (conditions: PrismaNS.LocationWhereInput[]): boolean =>
  conditions.some((c) => c.isTrashed !== undefined);

/**
 * The caller's locations (a pinned caller's one), the conditions of the filters given, then the
 * active ones unless `status` chose. The scope stays its own condition: a `location_id` filter only
 * narrows a pinned caller.
 */
function withinScope(scope: Scope, conditions: PrismaNS.LocationWhereInput[]): PrismaNS.LocationWhereInput {
  return { ...scoped(scope, 'id'), AND: choosesTrashed(conditions) ? conditions : [...conditions, ACTIVE] };
}

/** The location list and count (REST `GET /locations[/count]`, GraphQL `locations`). */
export const locationsQuery = listOperation({
  action: 'locations.list',
  filters: locationFilters,
  within: withinScope,
  orderBy: () => locationOrder,
});

/** `GET /locations/hierarchy`: the active locations with buildings, floors and zones. */
export const hierarchyQuery = listOperation({
  action: 'locations.hierarchy',
  filters: hierarchyFilters,
  within: withinScope,
  orderBy: () => locationOrder,
});

/** What the list and its count read by (see ListWhere). */
export type LocationQuery = ListWhere<
  PrismaNS.LocationWhereInput,
  PrismaNS.LocationOrderByWithRelationInput[]
>;

/**
 * The page and what to read of each row: REST's `{ skip, take, select: locationListSelect }`, GraphQL's
 * relay page (`cursor`, `take`, `skip`) with plugin-prisma's include for its selection.
 */
type Page = Omit<PrismaNS.LocationFindManyArgs, 'where' | 'orderBy'>;

/**
 * The list of both transports: one filter set, scope and order; only `page` differs. The rows' type
 * follows from `page` as it does for Prisma's own findMany (a `select` gives just those columns).
 */
export function listLocations<P extends Page>(
  ctx: AppContext,
  q: LocationQuery,
  page: P,
): Promise<PrismaNS.LocationGetPayload<P>[]> {
  return findManyRows<PrismaNS.LocationGetPayload<P>>(ctx.prisma, 'Location', {
    ...page,
    where: q.where,
    orderBy: q.orderBy,
  });
}

export function countLocations(ctx: AppContext, q: LocationQuery): Promise<number> {
  return countRows(ctx.prisma, 'Location', q.where);
}

/**
 * What the REST list item (locations.serializer.ts locationListItem) reads, and only that: 8 of the
 * 22 columns. The item's parameter type is derived from this, so a column it reads but this omits
 * does not compile.
 */
export const locationListSelect = {
  id: true,
  name: true,
  description: true,
  loginPageId: true,
  loginPageName: true,
  postLoginPageId: true,
  postLoginPageName: true,
  isTrashed: true,
} satisfies PrismaNS.LocationSelect;

export type LocationListRow = PrismaNS.LocationGetPayload<{ select: typeof locationListSelect }>;

/** GraphQL `location(id)`: one location in the caller's scope, with the list's action. */
export const viewLocation = reader(locationsQuery.action);

export async function findLocation(
  ctx: AppContext,
  id: string,
  query: Omit<PrismaNS.LocationFindFirstArgs, 'where'> = {},
) {
  const scope = viewLocation.scope(ctx);
  // The pinned location is its own condition: spread after `id` it would replace the requested id.
  return findFirstRow<Location>(ctx.prisma, 'Location', {
    ...query,
    where: { ...scoped(scope, 'id'), AND: [{ id }] },
  });
}

/** The buildings (and their floors and zones) a nested read reaches: a pinned caller's location's. */
export function buildingScopeOf(ctx: AppContext): PrismaNS.BuildingWhereInput {
  return scoped(authorize(ctx.principal, hierarchyQuery.action), 'locationId');
}

/** Locations with buildings, floors and zones, in one statement whatever their number. */
export function locationHierarchy(ctx: AppContext, q: LocationQuery) {
  // Only the columns the hierarchy shows: each level is built as JSON in the database, so every
  // extra column costs on every row (bench/RESULTS.md).
  return findManyRows<PrismaNS.LocationGetPayload<{ select: ReturnType<typeof hierarchySelect> }>>(
    ctx.prisma,
    'Location',
    { where: q.where, orderBy: q.orderBy, select: hierarchySelect(ctx.principal.tenantId) },
  );
}

const hierarchySelect = (tenantId: string) =>
  ({
    id: true,
    name: true,
    lat: true,
    lng: true,
    buildings: {
      where: { tenantId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: {
        id: true,
        name: true,
        lat: true,
        lng: true,
        floors: {
          where: { tenantId },
          orderBy: [{ level: 'asc' }, { id: 'asc' }],
          select: {
            id: true,
            name: true,
            imageUrl: true,
            imageWidth: true,
            imageHeight: true,
            width: true,
            length: true,
            zones: {
              where: { tenantId },
              orderBy: [{ name: 'asc' }, { id: 'asc' }],
              select: { id: true, name: true, coordinates: true },
            },
          },
        },
      },
    },
  }) satisfies PrismaNS.LocationSelect;

export type LocationTree = Awaited<ReturnType<typeof locationHierarchy>>[number];

export type LocationWriteInput = InputOf<ReturnType<typeof locationWriteFields>>;

/** The sent fields under their column names; a field left out is undefined, which leaves its column. */
function toColumns(input: LocationWriteInput) {
  return {
    name: input.name,
    countryCode: input.country_code,
    city: input.city,
    address: input.address,
    postCode: input.post_code,
    description: input.description,
    state: input.state,
    lat: input.lat,
    lng: input.lng,
    timezone: input.timezone,
    smartLogin: input.smart_login,
    smartLoginFrequency: input.smart_login_frequency,
    smartLoginFrequencyType: input.smart_login_frequency_type,
  } satisfies PrismaNS.LocationUncheckedUpdateInput;
}

/** The audit view of a location: its REST detail, and the written fields the detail leaves out. */
function locationView(l: Location) {
  return {
    ...locationDetail(l),
    timezone: l.timezone,
    smart_login: l.smartLogin,
    smart_login_frequency: l.smartLoginFrequency,
    smart_login_frequency_type: l.smartLoginFrequencyType,
  };
}

/** The event and audit entry of a write of a location, in its tenant's log. */
export function locationChange(
  log: EventLog,
  action: AuditAction,
  before: Location | null,
  after: Location,
): void {
  const event = changeEvent({
    type: before ? 'location.updated' : 'location.created',
    resourceType: 'location',
    resourceId: after.id,
    action,
    payload: locationDetail(after),
    before: before && locationView(before),
    after: locationView(after),
  });
  log.record(event && { ...event, tenantId: after.tenantId });
}

/** `POST /locations`, GraphQL `createLocation`. */
export const createLocation = operation({
  action: 'locations.create',
  input: locationWriteFields,
  async run({ ctx, action, scope, input }): Promise<Location> {
    try {
      return await writeWithEvents(ctx, async (tx, log) => {
        const row = await tx.location.create({ data: { ...toColumns(input), tenantId: scope.tenantId } });
        locationChange(log, action, null, row);
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw takenError('name');
      throw err;
    }
  },
});

/** `PUT /locations/:id`, GraphQL `updateLocation`. */
export const updateLocation = operation({
  action: 'locations.update',
  find: async (ctx, scope, id) => {
    const existing = await ctx.prisma.location.findFirst({
      // Not `{ id, ...scoped() }`: a venue user's pinned id would replace the path id, and the update
      // below would then change whichever location of the tenant the path named.
      where: { ...scoped(scope, 'id'), AND: [{ id }] },
      select: { id: true },
    });
    if (!existing) throw new AppError('NOT_FOUND');
    return existing;
  },
  input: locationWriteFields,
  async run({ ctx, action, input, found }): Promise<Location> {
    try {
      return await writeWithEvents(ctx, async (tx, log) => {
        // Concurrent updates take turns: each reads (for its entry's "before") what the one before wrote.
        if (!(await lockRow(tx, 'Location', found.id))) throw new AppError('NOT_FOUND');
        const before = await tx.location.findUniqueOrThrow({ where: { id: found.id } });
        const row = await tx.location.update({ where: { id: found.id }, data: toColumns(input) });
        locationChange(log, action, before, row);
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw takenError('name');
      throw err;
    }
  },
});

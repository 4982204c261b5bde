// Locations: tenant-scoped domain functions used by both REST and GraphQL.
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { renameFields } from '../../db/columns.js';
import { countRows, findFirstRow, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { textSearch } from '../../db/text-search.js';
import { AppError } from '../../errors.js';
import type { Location, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { validate, validateFilters } from '../../validation/validator.js';
import { hierarchyFilterRules, locationFilterRules, locationWriteRules } from './locations.inputs.js';

export const locationOrder = [
  { createdAt: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.LocationOrderByWithRelationInput[];

export interface LocationFilters {
  name?: string;
  /** 0 (default) active, 1 trashed. */
  status?: number;
}

export async function locationWhere(
  ctx: AppContext,
  action: 'locations.list' | 'locations.hierarchy',
  raw: Record<string, unknown>,
): Promise<PrismaNS.LocationWhereInput> {
  const scope = authorize(ctx.principal, action);
  const f = (await validateFilters(
    raw,
    action === 'locations.list' ? locationFilterRules : hierarchyFilterRules,
  )) as {
    name?: string;
    status?: number;
    location_id?: string;
  };
  return {
    ...scoped(scope, 'id'),
    ...(f.location_id !== undefined ? { AND: [{ id: f.location_id }] } : {}),
    isTrashed: f.status === 1,
    ...(f.name ? { name: textSearch(f.name) } : {}),
  };
}

/** Paging and (from GraphQL) the relations the selection needs. */
type Page = Omit<PrismaNS.LocationFindManyArgs, 'where' | 'orderBy'>;

export async function listLocations(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const where = await locationWhere(ctx, 'locations.list', filters);
  return findManyRows<Location>(ctx.prisma, 'Location', { where, orderBy: locationOrder, ...page });
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

/** REST's list (GraphQL's, listLocations, reads what its selection needs). */
export async function listLocationRows(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  const where = await locationWhere(ctx, 'locations.list', filters);
  return findManyRows<LocationListRow>(ctx.prisma, 'Location', {
    where,
    orderBy: locationOrder,
    ...page,
    select: locationListSelect,
  });
}

export async function findLocation(
  ctx: AppContext,
  id: string,
  query: Omit<PrismaNS.LocationFindFirstArgs, 'where'> = {},
) {
  const scope = authorize(ctx.principal, 'locations.list');
  // The pinned location is its own condition: spread after `id` it would replace the requested id.
  return findFirstRow<Location>(ctx.prisma, 'Location', {
    ...query,
    where: { ...scoped(scope, 'id'), AND: [{ id }] },
  });
}

export async function countLocations(ctx: AppContext, filters: Record<string, unknown>): Promise<number> {
  return countRows(ctx.prisma, 'Location', await locationWhere(ctx, 'locations.list', filters));
}

/** Locations with buildings, floors and zones, in one statement whatever their number. */
export async function locationHierarchy(ctx: AppContext, filters: Record<string, unknown>) {
  const where = await locationWhere(ctx, 'locations.hierarchy', filters);
  const tenantId = ctx.principal.tenantId;
  // Only the columns the hierarchy shows: each level is built as JSON in the database, so every
  // extra column costs on every row (bench/RESULTS.md).
  return findManyRows<PrismaNS.LocationGetPayload<{ select: ReturnType<typeof hierarchySelect> }>>(
    ctx.prisma,
    'Location',
    { where, orderBy: locationOrder, select: hierarchySelect(tenantId) },
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

const columns: Record<string, keyof PrismaNS.LocationUncheckedCreateInput> = {
  name: 'name',
  country_code: 'countryCode',
  city: 'city',
  address: 'address',
  post_code: 'postCode',
  description: 'description',
  state: 'state',
  lat: 'lat',
  lng: 'lng',
  timezone: 'timezone',
  smart_login: 'smartLogin',
  smart_login_frequency: 'smartLoginFrequency',
  smart_login_frequency_type: 'smartLoginFrequencyType',
};

function toColumns(valid: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = renameFields(valid, columns);
  // numeric() accepts numeric strings ("41.5"); the columns are floats.
  for (const column of ['lat', 'lng'] as const) {
    if (typeof data[column] === 'string') data[column] = Number(data[column]);
  }
  return data;
}

/** Two requests racing for one name: the unique index decides, and the loser gets the 422. */
function nameTaken(err: unknown): boolean {
  return (err as { code?: string }).code === 'P2002';
}
const takenError = () =>
  new AppError('VALIDATION', { fields: { name: ['The name has already been taken.'] } });

export async function createLocation(ctx: AppContext, input: Record<string, unknown>) {
  const scope = authorize(ctx.principal, 'locations.create');
  const valid = await validate(input, locationWriteRules(ctx.prisma, scope));
  try {
    return await ctx.prisma.location.create({
      data: { ...(toColumns(valid) as { name: string }), tenantId: scope.tenantId },
    });
  } catch (err) {
    if (nameTaken(err)) throw takenError();
    throw err;
  }
}

export async function updateLocation(ctx: AppContext, id: string, input: Record<string, unknown>) {
  const scope = authorize(ctx.principal, 'locations.update');
  const existing = await ctx.prisma.location.findFirst({
    // Not `{ id, ...scoped() }`: a venue user's pinned id would replace the path id, and the update
    // below would then change whichever location of the tenant the path named.
    where: { ...scoped(scope, 'id'), AND: [{ id }] },
    select: { id: true },
  });
  if (!existing) throw new AppError('NOT_FOUND');
  const valid = await validate(input, locationWriteRules(ctx.prisma, scope, id));
  try {
    return await ctx.prisma.location.update({ where: { id }, data: toColumns(valid) });
  } catch (err) {
    if (nameTaken(err)) throw takenError();
    throw err;
  }
}

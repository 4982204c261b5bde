// Service profiles (bandwidth, session duration, data quota): read access for both transports.
// They are tenant-wide, so pinned users read them too (they need an id to generate access codes).
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import type { Prisma as PrismaNS, ServiceProfile } from '../../generated/prisma/client.js';
import { type ListWhere, listOperation } from '../../operations/operation.js';
import { serviceProfileFilters } from './service-profiles.inputs.js';

/** The default profile first, then by name; the id breaks ties. */
export const serviceProfileOrder = [
  { isDefault: 'desc' },
  { name: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.ServiceProfileOrderByWithRelationInput[];

/** The list and count (REST `GET /service-profiles[/count]`, GraphQL `serviceProfiles`). */
export const serviceProfilesQuery = listOperation({
  action: 'serviceProfiles.list',
  filters: serviceProfileFilters,
  // The tenant's, whatever the caller's pinned location.
  within: (scope, conditions): PrismaNS.ServiceProfileWhereInput => ({
    ...scoped<never>(scope),
    AND: conditions,
  }),
  orderBy: () => serviceProfileOrder,
});

/** What the list and its count read by (see ListWhere). */
export type ServiceProfileQuery = ListWhere<
  PrismaNS.ServiceProfileWhereInput,
  PrismaNS.ServiceProfileOrderByWithRelationInput[]
>;

type Page = Omit<PrismaNS.ServiceProfileFindManyArgs, 'where' | 'orderBy'>;

export function listServiceProfiles(ctx: AppContext, q: ServiceProfileQuery, page: Page) {
  return findManyRows<ServiceProfile>(ctx.prisma, 'ServiceProfile', {
    ...page,
    where: q.where,
    orderBy: q.orderBy,
  });
}

export function countServiceProfiles(ctx: AppContext, q: ServiceProfileQuery) {
  return countRows(ctx.prisma, 'ServiceProfile', q.where);
}

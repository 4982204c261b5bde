// Advertisements (spec 4.8): tenant-scoped list and count, used by both REST and GraphQL.
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import type { Advertisement, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { listOperation } from '../../operations/operation.js';
import { ADVERTISEMENT_ORDER_COLUMNS, advertisementFilters } from './advertisements.inputs.js';

type Where = PrismaNS.AdvertisementWhereInput;
type Order = PrismaNS.AdvertisementOrderByWithRelationInput[];

/**
 * The list and count (REST `GET /advertisements[/count]`, GraphQL `advertisements`): the filters'
 * conditions in the tenant, and the order. Every order ends with the unique id in the same direction.
 */
export const advertisementsQuery = listOperation({
  action: 'advertisements.list',
  filters: advertisementFilters,
  // Advertisements belong to the tenant, not to a location.
  within: (scope, conditions): Where => ({
    ...scoped<never>(scope),
    AND: conditions,
  }),
  orderBy: (f): Order => {
    const direction = f.order_direction === 'desc' ? 'desc' : 'asc';
    const column = ADVERTISEMENT_ORDER_COLUMNS.find((c) => c === f.order_by);
    return column
      ? [{ [column]: direction }, { id: direction }]
      : [{ createdAt: direction }, { id: direction }];
  },
});

/** What a list reads by: a where clause (inside the caller's scope) and an order. */
export interface AdvertisementQuery {
  scope: Scope;
  where: Where;
  orderBy: Order;
}

/** Paging and (from GraphQL) the relations the selection needs. */
type Page = Omit<PrismaNS.AdvertisementFindManyArgs, 'where' | 'orderBy'>;

/** The tags of an advertisement, by name. */
const tagsByName = (tenantId: string) =>
  ({
    where: { tenantId },
    orderBy: [{ tag: { name: 'asc' } }, { tagId: 'asc' }],
  }) satisfies PrismaNS.Advertisement$tagsArgs;

const tagColumns = {
  tag: { select: { id: true, name: true, groupName: true } },
} satisfies PrismaNS.AdvertisementTagInclude;

/** The tags as GraphQL's `tags` field loads them. */
export const advertisementTagsInclude = (tenantId: string) =>
  ({ ...tagsByName(tenantId), include: tagColumns }) satisfies PrismaNS.Advertisement$tagsArgs;

/**
 * What the REST list item (advertisements.serializer.ts advertisementItem) reads, and only that: not
 * the url, createdAt and updatedAt, nor the link rows' own columns. The item's parameter type is
 * derived from this, so a column it reads but this omits does not compile.
 */
export const advertisementListSelect = (tenantId: string) =>
  ({
    id: true,
    title: true,
    type: true,
    method: true,
    conditionValue: true,
    impressionCount: true,
    clickCount: true,
    status: true,
    startDate: true,
    endDate: true,
    tags: { ...tagsByName(tenantId), select: tagColumns },
  }) satisfies PrismaNS.AdvertisementSelect;

export type AdvertisementWithTags = PrismaNS.AdvertisementGetPayload<{
  select: ReturnType<typeof advertisementListSelect>;
}>;

/** REST: one statement for the advertisements and their tags. */
export function listAdvertisements(
  ctx: AppContext,
  q: AdvertisementQuery,
  page: { skip: number; take: number },
) {
  return findManyRows<AdvertisementWithTags>(ctx.prisma, 'Advertisement', {
    where: q.where,
    orderBy: q.orderBy,
    ...page,
    select: advertisementListSelect(q.scope.tenantId),
  });
}

/** GraphQL: the selection decides what is loaded. */
export function queryAdvertisements(ctx: AppContext, q: AdvertisementQuery, page: Page) {
  return findManyRows<Advertisement>(ctx.prisma, 'Advertisement', {
    ...page,
    where: q.where,
    orderBy: q.orderBy,
  });
}

export function countAdvertisements(ctx: AppContext, q: AdvertisementQuery) {
  return countRows(ctx.prisma, 'Advertisement', q.where);
}

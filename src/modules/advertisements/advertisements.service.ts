// Advertisements (spec 4.8): tenant-scoped list and count, used by both REST and GraphQL.
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { textSearch } from '../../db/text-search.js';
import type { Advertisement, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { dayStart, nextDayStart } from '../../shared/dates.js';
import { validateFilters } from '../../validation/validator.js';
import { type AdvertisementOrderColumn, advertisementFilterRules } from './advertisements.inputs.js';

interface AdvertisementFilters {
  title?: string;
  url?: string;
  type?: number;
  status?: number;
  tag_id?: string;
  start_date?: string;
  end_date?: string;
  order_by?: AdvertisementOrderColumn;
  order_direction?: 'asc' | 'desc';
}

/** Validated filters → where and order. Every order ends with the unique id in the same direction. */
async function advertisementQuery(ctx: AppContext, raw: Record<string, unknown>) {
  const scope = authorize(ctx.principal, 'advertisements.list');
  const f = (await validateFilters(raw, advertisementFilterRules)) as AdvertisementFilters;
  const where: PrismaNS.AdvertisementWhereInput = {
    // Advertisements belong to the tenant, not to a location.
    ...scoped<never>(scope),
    ...(f.title ? { title: textSearch(f.title) } : {}),
    ...(f.url ? { url: textSearch(f.url) } : {}),
    ...(f.type !== undefined ? { type: f.type } : {}),
    ...(f.status !== undefined ? { status: f.status } : {}),
    // "Text search with the hashed tag id": a tag whose id contains the text (an exact id matches too).
    ...(f.tag_id ? { tags: { some: { tenantId: scope.tenantId, tag: { id: textSearch(f.tag_id) } } } } : {}),
    // Started on or after that day (UTC); ended on or before that day (UTC).
    ...(f.start_date ? { startDate: { gte: dayStart(f.start_date) } } : {}),
    ...(f.end_date ? { endDate: { lt: nextDayStart(f.end_date) } } : {}),
  };
  const direction = f.order_direction ?? 'asc';
  const orderBy: PrismaNS.AdvertisementOrderByWithRelationInput[] = f.order_by
    ? [{ [f.order_by]: direction }, { id: direction }]
    : [{ createdAt: direction }, { id: direction }];
  return { where, orderBy, tenantId: scope.tenantId };
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
export async function listAdvertisements(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  const { where, orderBy, tenantId } = await advertisementQuery(ctx, filters);
  return findManyRows<AdvertisementWithTags>(ctx.prisma, 'Advertisement', {
    where,
    orderBy,
    ...page,
    select: advertisementListSelect(tenantId),
  });
}

/** GraphQL: the selection decides what is loaded. */
export async function queryAdvertisements(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const { where, orderBy } = await advertisementQuery(ctx, filters);
  return findManyRows<Advertisement>(ctx.prisma, 'Advertisement', { ...page, where, orderBy });
}

export async function countAdvertisements(ctx: AppContext, filters: Record<string, unknown>) {
  const { where } = await advertisementQuery(ctx, filters);
  return countRows(ctx.prisma, 'Advertisement', where);
}

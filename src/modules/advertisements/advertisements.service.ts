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

/** The tags of an advertisement, by name, as REST shows them. */
export const advertisementTagsInclude = (tenantId: string) =>
  ({
    where: { tenantId },
    orderBy: [{ tag: { name: 'asc' } }, { tagId: 'asc' }],
    include: { tag: { select: { id: true, name: true, groupName: true } } },
  }) satisfies PrismaNS.Advertisement$tagsArgs;

/** REST: one statement for the advertisements and one for all their tags. */
export async function listAdvertisements(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  const { where, orderBy, tenantId } = await advertisementQuery(ctx, filters);
  const include = { tags: advertisementTagsInclude(tenantId) } satisfies PrismaNS.AdvertisementInclude;
  return findManyRows<PrismaNS.AdvertisementGetPayload<{ include: typeof include }>>(
    ctx.prisma,
    'Advertisement',
    { where, orderBy, ...page, include },
  );
}

export type AdvertisementWithTags = Awaited<ReturnType<typeof listAdvertisements>>[number];

/** GraphQL: the selection decides what is loaded. */
export async function queryAdvertisements(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const { where, orderBy } = await advertisementQuery(ctx, filters);
  return findManyRows<Advertisement>(ctx.prisma, 'Advertisement', { ...page, where, orderBy });
}

export async function countAdvertisements(ctx: AppContext, filters: Record<string, unknown>) {
  const { where } = await advertisementQuery(ctx, filters);
  return countRows(ctx.prisma, 'Advertisement', where);
}

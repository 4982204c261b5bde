// Service profiles (bandwidth, session duration, data quota): read access for both transports.
// They are tenant-wide, so pinned users read them too (they need an id to generate access codes).
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS, ServiceProfile } from '../../generated/prisma/client.js';
import { validateFilters } from '../../validation/validator.js';
import { serviceProfileFilterRules } from './service-profiles.inputs.js';

/** The default profile first, then by name; the id breaks ties. */
export const serviceProfileOrder = [
  { isDefault: 'desc' },
  { name: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.ServiceProfileOrderByWithRelationInput[];

async function serviceProfileWhere(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<PrismaNS.ServiceProfileWhereInput> {
  const scope = authorize(ctx.principal, 'serviceProfiles.list');
  const f = (await validateFilters(raw, serviceProfileFilterRules)) as {
    name?: string;
    is_default?: boolean;
  };
  return {
    ...scoped<never>(scope),
    ...(f.name ? { name: textSearch(f.name) } : {}),
    ...(f.is_default !== undefined ? { isDefault: f.is_default } : {}),
  };
}

type Page = Omit<PrismaNS.ServiceProfileFindManyArgs, 'where' | 'orderBy'>;

export async function listServiceProfiles(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const where = await serviceProfileWhere(ctx, filters);
  return findManyRows<ServiceProfile>(ctx.prisma, 'ServiceProfile', {
    ...page,
    where,
    orderBy: serviceProfileOrder,
  });
}

export async function countServiceProfiles(ctx: AppContext, filters: Record<string, unknown>) {
  return countRows(ctx.prisma, 'ServiceProfile', await serviceProfileWhere(ctx, filters));
}

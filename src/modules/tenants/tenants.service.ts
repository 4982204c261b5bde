// Tenants: the tenants of the caller's tenant group, used by both REST and GraphQL. A tenant is not
// a tenant-scoped row: its scope is the caller's group (`principal.groupId`), applied in `inGroup`.
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { renameFields } from '../../db/columns.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { sameText, textSearch } from '../../db/text-search.js';
import { AppError } from '../../errors.js';
import type { Prisma as PrismaNS, Tenant } from '../../generated/prisma/client.js';
import { validate, validateFilters } from '../../validation/validator.js';
import { tenantFilterRules, tenantStatusRules, tenantWriteRules } from './tenants.inputs.js';

export const tenantOrder = [
  { createdAt: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.TenantOrderByWithRelationInput[];

/** The one scope of tenants: the caller's group. */
const inGroup = (ctx: AppContext) => ({ groupId: ctx.principal.groupId });

export async function tenantWhere(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<PrismaNS.TenantWhereInput> {
  authorize(ctx.principal, 'tenants.list');
  const f = (await validateFilters(raw, tenantFilterRules)) as { name?: string; description?: string };
  return {
    ...inGroup(ctx),
    ...(f.name ? { name: sameText(f.name) } : {}),
    ...(f.description ? { description: textSearch(f.description) } : {}),
  };
}

type Page = Omit<PrismaNS.TenantFindManyArgs, 'where' | 'orderBy'>;

export async function listTenants(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  return findManyRows<Tenant>(ctx.prisma, 'Tenant', {
    where: await tenantWhere(ctx, filters),
    orderBy: tenantOrder,
    ...page,
  });
}

/**
 * What the REST list item (tenants.serializer.ts tenantListItem) reads, and only that: not postCode,
 * createdAt and updatedAt. The item's parameter type is derived from this, so a column it reads but
 * this omits does not compile.
 */
export const tenantListSelect = {
  id: true,
  groupId: true,
  name: true,
  description: true,
  address: true,
  city: true,
  countryCode: true,
  isTrashed: true,
  group: { select: { name: true } },
} satisfies PrismaNS.TenantSelect;

export type TenantListRow = PrismaNS.TenantGetPayload<{ select: typeof tenantListSelect }>;

/** The list with each tenant's group name (REST list items carry `group_name`). */
export async function listTenantsWithGroup(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  return findManyRows<TenantListRow>(ctx.prisma, 'Tenant', {
    where: await tenantWhere(ctx, filters),
    orderBy: tenantOrder,
    select: tenantListSelect,
    ...page,
  });
}

export async function countTenants(ctx: AppContext, filters: Record<string, unknown>): Promise<number> {
  return countRows(ctx.prisma, 'Tenant', await tenantWhere(ctx, filters));
}

/** The caller's current tenant (GraphQL `viewer.tenant`). */
export function currentTenant(ctx: AppContext, query: Omit<PrismaNS.TenantFindUniqueArgs, 'where'> = {}) {
  authorize(ctx.principal, 'viewer.read');
  return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: ctx.principal.tenantId } });
}

/** A tenant of the caller's group, or 404 as if absent. */
async function reachable(ctx: AppContext, id: string) {
  const tenant = await ctx.prisma.tenant.findFirst({
    where: { ...inGroup(ctx), AND: [{ id }] },
    select: { id: true, isTrashed: true },
  });
  if (!tenant) throw new AppError('NOT_FOUND');
  return tenant;
}

const columns: Record<string, keyof PrismaNS.TenantUncheckedCreateInput> = {
  name: 'name',
  country_code: 'countryCode',
  city: 'city',
  address: 'address',
  post_code: 'postCode',
  description: 'description',
};

function toColumns(valid: Record<string, unknown>): Record<string, unknown> {
  return renameFields(valid, columns);
}

/** Location names hold at most 50 characters. */
export const defaultLocationName = (tenantName: string): string => [...tenantName].slice(0, 50).join('');

/**
 * A new tenant in the caller's group, with its default location (named after the tenant) and
 * default service profile, as bootstrap makes them; the caller is moved to it. One transaction.
 */
export async function createTenant(ctx: AppContext, input: Record<string, unknown>) {
  authorize(ctx.principal, 'tenants.create');
  const valid = await validate(input, tenantWriteRules);
  const data = toColumns(valid) as { name: string };
  return ctx.prisma.$transaction(async (tx) => {
    const tenant = await tx.tenant.create({ data: { ...data, groupId: ctx.principal.groupId } });
    await tx.location.create({ data: { tenantId: tenant.id, name: defaultLocationName(tenant.name) } });
    await tx.serviceProfile.create({ data: { tenantId: tenant.id, name: 'Default', isDefault: true } });
    await tx.user.update({
      where: { id: ctx.principal.userId },
      data: { tenantId: tenant.id, locationId: null },
    });
    return tenant;
  });
}

export async function updateTenant(ctx: AppContext, id: string, input: Record<string, unknown>) {
  authorize(ctx.principal, 'tenants.update');
  await reachable(ctx, id);
  const valid = await validate(input, tenantWriteRules);
  return ctx.prisma.tenant.update({ where: { id }, data: toColumns(valid) });
}

/**
 * Deactivate (trashed) or activate a tenant of the group. With `user_status`, the users whose
 * current tenant it is take that status; support users are never changed.
 */
export async function setTenantTrashed(
  ctx: AppContext,
  id: string,
  trashed: boolean,
  input: Record<string, unknown>,
) {
  authorize(ctx.principal, 'tenants.activate');
  await reachable(ctx, id);
  const valid = (await validate(input, tenantStatusRules)) as { user_status?: number };
  return ctx.prisma.$transaction(async (tx) => {
    const tenant = await tx.tenant.update({ where: { id }, data: { isTrashed: trashed } });
    if (valid.user_status !== undefined) {
      await tx.user.updateMany({
        where: { tenantId: id, role: { not: 'support' } },
        data: { status: valid.user_status },
      });
    }
    return tenant;
  });
}

/**
 * Makes `:id` the caller's current tenant. Only tenants of the caller's group (else 404); a trashed
 * tenant only for support users (anyone else would lock themselves out: 403).
 */
export async function switchTenant(ctx: AppContext, id: string) {
  authorize(ctx.principal, 'tenants.switch');
  const tenant = await reachable(ctx, id);
  if (tenant.isTrashed && ctx.principal.role !== 'support') throw new AppError('FORBIDDEN');
  await ctx.prisma.user.update({
    where: { id: ctx.principal.userId },
    data: { tenantId: id, locationId: null },
  });
  return tenant;
}

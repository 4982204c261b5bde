// Dashboard users: the users whose current tenant is the caller's (a venue admin: those pinned to
// its location), used by both REST and GraphQL.
import { hashPassword } from '../../auth/passwords.js';
import { authorize } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { textSearch } from '../../db/text-search.js';
import { AppError } from '../../errors.js';
import type { Prisma as PrismaNS, User } from '../../generated/prisma/client.js';
import { validate, validateFilters } from '../../validation/validator.js';
import { userFilterRules, userWriteRules } from './users.inputs.js';
import { pinnedRoles } from './users.roles.js';

export const userOrder = [
  { createdAt: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.UserOrderByWithRelationInput[];

/** What the REST shape (spec 2.11) reads besides the user's own columns. */
export const userInclude = {
  tenant: { select: { name: true } },
  location: { select: { name: true } },
} satisfies PrismaNS.UserInclude;

export type UserRow = PrismaNS.UserGetPayload<{ include: typeof userInclude }>;

/**
 * What the REST shape (users.serializer.ts userItem) reads, and only that: a page does not read the
 * password hashes, permissions, createdAt and updatedAt. The item's parameter type is derived from
 * this, so a column it reads but this omits does not compile.
 */
export const userItemSelect = {
  id: true,
  userId: true,
  tenantId: true,
  name: true,
  username: true,
  email: true,
  role: true,
  status: true,
  locationId: true,
  locale: true,
  isTrashed: true,
  ...userInclude,
} satisfies PrismaNS.UserSelect;

export type UserItemRow = PrismaNS.UserGetPayload<{ select: typeof userItemSelect }>;

export async function userWhere(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<PrismaNS.UserWhereInput> {
  const scope = authorize(ctx.principal, 'users.list');
  const f = (await validateFilters(raw, userFilterRules)) as { name?: string; email?: string };
  return {
    ...scoped(scope, 'locationId'),
    ...(f.name ? { name: textSearch(f.name) } : {}),
    ...(f.email ? { email: textSearch(f.email) } : {}),
  };
}

type Page = Omit<PrismaNS.UserFindManyArgs, 'where' | 'orderBy'>;

export async function listUsers(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  return findManyRows<User>(ctx.prisma, 'User', {
    where: await userWhere(ctx, filters),
    orderBy: userOrder,
    ...page,
  });
}

/** The list with the tenant and location names the REST shape carries. */
export async function listUsersWithNames(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
): Promise<UserItemRow[]> {
  return findManyRows<UserItemRow>(ctx.prisma, 'User', {
    where: await userWhere(ctx, filters),
    orderBy: userOrder,
    select: userItemSelect,
    ...page,
  });
}

export async function countUsers(ctx: AppContext, filters: Record<string, unknown>): Promise<number> {
  return countRows(ctx.prisma, 'User', await userWhere(ctx, filters));
}

/** The caller itself (GraphQL `viewer`). */
export function viewerUser(ctx: AppContext, query: Omit<PrismaNS.UserFindUniqueArgs, 'where'> = {}) {
  authorize(ctx.principal, 'viewer.read');
  return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: ctx.principal.userId } });
}

/** Roles the caller may give: a venue admin only the roles of its location's staff. */
function assignableRoles(ctx: AppContext): readonly string[] {
  return ctx.principal.role === 'venue' ? pinnedRoles : ['tenant', ...pinnedRoles];
}

/**
 * A user the caller may change: in scope (else 404 as if absent), and not a support user (operator
 * staff are managed by the operator, never through the API: 403).
 */
async function changeable(ctx: AppContext, scope: Scope, id: string) {
  const user = await ctx.prisma.user.findFirst({
    where: { ...scoped(scope, 'locationId'), AND: [{ id }] },
    select: { id: true, role: true },
  });
  if (!user) throw new AppError('NOT_FOUND');
  if (user.role === 'support') throw new AppError('FORBIDDEN');
  return user;
}

function emailTaken(err: unknown): boolean {
  return (err as { code?: string }).code === 'P2002';
}
const takenError = () =>
  new AppError('VALIDATION', { fields: { email: ['The email has already been taken.'] } });

interface ValidUser {
  name: string;
  email: string;
  role: string;
  status: number;
  password?: string | null;
  location_id?: string | null;
}

/** Columns of a valid input; a tenant admin is never pinned to a location. */
async function toColumns(v: ValidUser) {
  return {
    name: v.name,
    email: v.email,
    // The login name is the email.
    username: v.email,
    role: v.role,
    status: v.status,
    locationId: pinnedRoles.includes(v.role) ? (v.location_id ?? null) : null,
    // A blank password (passwords are not trimmed, and blank text meets only `required`) keeps the
    // current one, as Laravel's `$request->filled('password')` would.
    ...(v.password?.trim() ? { passwordHash: await hashPassword(v.password) } : {}),
  };
}

export async function createUser(ctx: AppContext, input: Record<string, unknown>): Promise<UserRow> {
  const scope = authorize(ctx.principal, 'users.create');
  const valid = (await validate(
    input,
    userWriteRules(ctx.prisma, scope, { assignableRoles: assignableRoles(ctx) }),
  )) as unknown as ValidUser;
  try {
    return await ctx.prisma.user.create({
      data: { ...(await toColumns(valid)), tenantId: scope.tenantId },
      include: userInclude,
    });
  } catch (err) {
    if (emailTaken(err)) throw takenError();
    throw err;
  }
}

export async function updateUser(
  ctx: AppContext,
  id: string,
  input: Record<string, unknown>,
): Promise<UserRow> {
  const scope = authorize(ctx.principal, 'users.update');
  await changeable(ctx, scope, id);
  const valid = (await validate(
    input,
    userWriteRules(ctx.prisma, scope, { exceptId: id, assignableRoles: assignableRoles(ctx) }),
  )) as unknown as ValidUser;
  try {
    return await ctx.prisma.user.update({
      where: { id },
      data: await toColumns(valid),
      include: userInclude,
    });
  } catch (err) {
    if (emailTaken(err)) throw takenError();
    throw err;
  }
}

export const PASSIVE = 0;
export const ACTIVE = 1;

/** Deactivate (status 0 Passive: its tokens answer 401 from the next request) or activate (1). */
export async function setUserStatus(ctx: AppContext, id: string, status: typeof PASSIVE | typeof ACTIVE) {
  const scope = authorize(ctx.principal, 'users.activate');
  await changeable(ctx, scope, id);
  return ctx.prisma.user.update({ where: { id }, data: { status }, select: { id: true, status: true } });
}

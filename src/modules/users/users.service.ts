// Dashboard users: the users whose current tenant is the caller's (a venue admin: those pinned to
// its location), used by both REST and GraphQL.
import { hashPassword } from '../../auth/passwords.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { lockRow } from '../../db/row-lock.js';
import { scoped } from '../../db/scope.js';
import { isUniqueViolation, takenError } from '../../db/unique-violation.js';
import { AppError } from '../../errors.js';
import { type AuditAction, changeEvent } from '../../events/audit.js';
import { type EventLog, type Tx, writeWithEvents } from '../../events/outbox.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import {
  type InputOf,
  type ListWhere,
  listOperation,
  operation,
  reader,
} from '../../operations/operation.js';
import { userCreateFields, userFilters, userUpdateFields } from './users.inputs.js';
import { pinnedRoles } from './users.roles.js';
import { userItem } from './users.serializer.js';

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

/** The user list and count (GraphQL `users`, REST `GET /users`, `GET /users/count`): filters → where. */
export const usersQuery = listOperation({
  action: 'users.list',
  filters: userFilters,
  within: (scope: Scope, and: PrismaNS.UserWhereInput[]): PrismaNS.UserWhereInput => ({
    ...scoped(scope, 'locationId'),
    AND: and,
  }),
  orderBy: () => userOrder,
});

/** What the list and its count read by (see ListWhere). */
export type UserQuery = ListWhere<PrismaNS.UserWhereInput, PrismaNS.UserOrderByWithRelationInput[]>;

/** Paging and shape: REST's typed item select, or plugin-prisma's query from the GraphQL selection. */
type PageArgs = Omit<PrismaNS.UserFindManyArgs, 'where' | 'orderBy'>;

/** A page of users for both transports (one raw statement, src/db/raw-rows.ts). */
export function listUsers<A extends PageArgs>(
  ctx: AppContext,
  q: UserQuery,
  args: A,
): Promise<PrismaNS.UserGetPayload<A>[]> {
  return findManyRows(ctx.prisma, 'User', { ...args, where: q.where, orderBy: q.orderBy });
}

export function countUsers(ctx: AppContext, q: UserQuery): Promise<number> {
  return countRows(ctx.prisma, 'User', q.where);
}

/** GraphQL `viewer`: the caller itself. */
export const viewer = reader('viewer.read');

/** The caller itself, in the shape `query` selects. */
export function viewerUser(ctx: AppContext, query: Omit<PrismaNS.UserFindUniqueArgs, 'where'> = {}) {
  viewer.scope(ctx);
  return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: ctx.principal.userId } });
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

/** A valid body of either write (on create the password is there, on update it may be absent). */
type UserWrite = InputOf<ReturnType<typeof userUpdateFields>>;

/** Columns of a valid input; a tenant admin is never pinned to a location. */
async function toColumns(v: UserWrite) {
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

/**
 * The event and audit entry of a write of a user (`users.*`, also a tenant's activation and switch):
 * the REST item as payload; a new password is named in the entry, never its hash. The event goes to
 * the log of the user's current tenant after the write.
 */
export function userChange(log: EventLog, action: AuditAction, before: UserRow | null, after: UserRow): void {
  const event = changeEvent({
    type: before ? 'user.updated' : 'user.created',
    resourceType: 'user',
    resourceId: after.id,
    action,
    payload: userItem(after),
    before: before && userItem(before),
    after: userItem(after),
    secrets: before?.passwordHash !== after.passwordHash && after.passwordHash ? ['password'] : [],
  });
  log.record(event && { ...event, tenantId: after.tenantId });
}

/** The user as the REST item reads it, inside a write's transaction. */
export const userInTx = (tx: Tx, id: string): Promise<UserRow> =>
  tx.user.findUniqueOrThrow({ where: { id }, include: userInclude });

/** `POST /users`, GraphQL `createUser`: a user of the caller's tenant. */
export const createUser = operation({
  action: 'users.create',
  input: userCreateFields,
  async run({ ctx, action, scope, input }): Promise<UserRow> {
    const data = { ...(await toColumns(input)), tenantId: scope.tenantId };
    try {
      return await writeWithEvents(ctx, async (tx, log) => {
        const row = await tx.user.create({ data, include: userInclude });
        userChange(log, action, null, row);
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw takenError('email');
      throw err;
    }
  },
});

/** `PUT /users/:id`, GraphQL `updateUser`. */
export const updateUser = operation({
  action: 'users.update',
  find: changeable,
  input: userUpdateFields,
  async run({ ctx, action, input, found }): Promise<UserRow> {
    const data = await toColumns(input);
    try {
      return await writeWithEvents(ctx, async (tx, log) => {
        if (!(await lockRow(tx, 'User', found.id))) throw new AppError('NOT_FOUND');
        const before = await userInTx(tx, found.id);
        const row = await tx.user.update({ where: { id: found.id }, data, include: userInclude });
        userChange(log, action, before, row);
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw takenError('email');
      throw err;
    }
  },
});

export const PASSIVE = 0;
export const ACTIVE = 1;

/**
 * Deactivate (status 0 Passive: its tokens answer 401 from the next request) or activate (1). The
 * audit entry names which (`users.deactivate`, `users.activate`); both need `users.activate`.
 */
const setStatus = (status: typeof PASSIVE | typeof ACTIVE) =>
  operation({
    action: 'users.activate',
    find: changeable,
    input: {},
    run: ({ ctx, found }) =>
      writeWithEvents(ctx, async (tx, log) => {
        // Concurrent activations take turns: each reads what the one before it wrote.
        if (!(await lockRow(tx, 'User', found.id))) throw new AppError('NOT_FOUND');
        const before = await userInTx(tx, found.id);
        const row = await tx.user.update({ where: { id: found.id }, data: { status }, include: userInclude });
        userChange(log, status === ACTIVE ? 'users.activate' : 'users.deactivate', before, row);
        return { id: row.id, status: row.status };
      }),
  });

/** `PUT /users/:id/deactivate`, GraphQL `deactivateUser`. */
export const deactivateUser = setStatus(PASSIVE);

/** `PUT /users/:id/activate`, GraphQL `activateUser`. */
export const activateUser = setStatus(ACTIVE);

// API keys (beyond the spec): the tokens of the users whose current tenant is the caller's, listed,
// created (the secret shown once, stored as its SHA-256) and revoked, for REST, GraphQL and the CLI.
import { hasPermission } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import { hashToken, newToken } from '../../auth/tokens.js';
import type { AppContext } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { AppError } from '../../errors.js';
import { type AuditAction, changeEvent } from '../../events/audit.js';
import { type EventLog, systemActor, type Tx, writeWithEvents } from '../../events/outbox.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ListWhere, listOperation, operation } from '../../operations/operation.js';
import { isoMicros } from '../../shared/format.js';
import { ValidationError } from '../../validation/validator.js';
import { apiTokenCreateFields, apiTokenFilters } from './api-tokens.inputs.js';
import { apiTokenItem } from './api-tokens.serializer.js';

/** Newest first; the id breaks ties. */
export const apiTokenOrder = [
  { createdAt: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.ApiTokenOrderByWithRelationInput[];

/** The tokens of the users whose current tenant is the scope's (a token has no tenant of its own). */
const inTenant = (tenantId: string): PrismaNS.ApiTokenWhereInput => ({ user: { is: { tenantId } } });

/** The token list and count (REST `GET /api-tokens[/count]`, GraphQL `apiTokens`): filters → where. */
export const apiTokensQuery = listOperation({
  action: 'apiTokens.list',
  filters: apiTokenFilters,
  within: (scope: Scope, and: PrismaNS.ApiTokenWhereInput[]): PrismaNS.ApiTokenWhereInput => ({
    ...inTenant(scope.tenantId),
    AND: and,
  }),
  orderBy: () => apiTokenOrder,
});

/** What the list and its count read by (see ListWhere). */
export type ApiTokenQuery = ListWhere<
  PrismaNS.ApiTokenWhereInput,
  PrismaNS.ApiTokenOrderByWithRelationInput[]
>;

/** Paging and shape: REST's typed item select, or plugin-prisma's query from the GraphQL selection. */
type Page = Omit<PrismaNS.ApiTokenFindManyArgs, 'where' | 'orderBy'>;

/** A page of tokens for both transports. */
export function listApiTokens<P extends Page>(
  ctx: AppContext,
  q: ApiTokenQuery,
  page: P,
): Promise<PrismaNS.ApiTokenGetPayload<P>[]> {
  return findManyRows(ctx.prisma, 'ApiToken', { ...page, where: q.where, orderBy: q.orderBy });
}

export function countApiTokens(ctx: AppContext, q: ApiTokenQuery): Promise<number> {
  return countRows(ctx.prisma, 'ApiToken', q.where);
}

/**
 * What the item (REST, CLI) reads, and only that: never the hash. The item's parameter type is
 * derived from this, so a column it reads but this omits does not compile.
 */
export const apiTokenItemSelect = {
  id: true,
  name: true,
  scopes: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
  user: { select: { id: true, name: true, email: true } },
} satisfies PrismaNS.ApiTokenSelect;

export type ApiTokenItemRow = PrismaNS.ApiTokenGetPayload<{ select: typeof apiTokenItemSelect }>;

/** A support user's token acts as operator staff: only a support caller may issue or revoke one. */
function assertMayManage(ctx: AppContext, ownerRole: string): void {
  if (ownerRole === 'support' && ctx.principal.role !== 'support') throw new AppError('FORBIDDEN');
}

/** The event and audit entry of a token's creation or revocation: the REST item, never the secret. */
function tokenChange(
  log: EventLog,
  action: AuditAction,
  before: ApiTokenItemRow | null,
  after: ApiTokenItemRow,
) {
  log.record(
    changeEvent({
      type: before ? 'api_token.revoked' : 'api_token.created',
      resourceType: 'api_token',
      resourceId: after.id,
      action,
      payload: apiTokenItem(after),
      before: before && apiTokenItem(before),
      after: apiTokenItem(after),
    }),
  );
}

/**
 * Stores a new token (only its secret's hash) with its event and audit entry under `action`: the
 * API's creation and the CLI's `token issue`.
 */
export async function insertToken(
  tx: Tx,
  log: EventLog,
  action: AuditAction,
  data: { userId: string; token: string; scopes: string[]; name?: string | null; expiresAt?: Date | null },
): Promise<ApiTokenItemRow> {
  const created = await tx.apiToken.create({
    data: {
      userId: data.userId,
      tokenHash: hashToken(data.token),
      name: data.name,
      scopes: data.scopes,
      expiresAt: data.expiresAt ?? null,
    },
    select: apiTokenItemSelect,
  });
  tokenChange(log, action, null, created);
  return created;
}

/**
 * Revokes the token `before` shows, with its event and audit entry under `action`, and resolves to
 * it revoked; a token revoked already stays as it was (its first `revokedAt`): no event, null.
 */
async function revokeRecorded(
  tx: Tx,
  log: EventLog,
  action: AuditAction,
  before: ApiTokenItemRow,
): Promise<ApiTokenItemRow | null> {
  const at = new Date();
  if ((await revokeById(tx, before.id, at)).count === 0) return null;
  const after = { ...before, revokedAt: at };
  tokenChange(log, action, before, after);
  return after;
}

/**
 * A token that expires creates none that outlives it, which would leave a token given out for an
 * hour a permanent one behind (probe K): `expires_at` is then required, and at most the caller's.
 */
function assertNotOutliving(callerExpiresAt: Date | null, expiresAt: Date | null | undefined): void {
  if (callerExpiresAt === null) return;
  if (expiresAt == null) throw new ValidationError({ expires_at: ['The expires at field is required.'] });
  if (expiresAt > callerExpiresAt) {
    throw new ValidationError({
      expires_at: [`The expires at field must be a date before or equal to ${isoMicros(callerExpiresAt)}.`],
    });
  }
}

/**
 * `POST /api-tokens`, GraphQL `createApiToken`: a token for `user_id` (default the caller) with the
 * scopes asked, stored as asked; the secret is in the answer once and only its hash is stored.
 */
export const createApiToken = operation({
  action: 'apiTokens.create',
  input: apiTokenCreateFields,
  async run({ ctx, action, input }): Promise<{ row: ApiTokenItemRow; token: string }> {
    // `user_id` was checked to be a user of the tenant; the caller is one too.
    const userId = input.user_id ?? ctx.principal.userId;
    const owner = await ctx.prisma.user.findUniqueOrThrow({
      where: { id: userId },
      select: { role: true, permissions: true },
    });
    assertMayManage(ctx, owner.role);
    // A token acts with its user's rights: one for a user holding a permission the caller lacks
    // (`guests.manage-global`) would hand the caller that permission, under the other's name.
    if (!owner.permissions.every((p) => hasPermission(ctx.principal, p))) throw new AppError('FORBIDDEN');
    assertNotOutliving(ctx.principal.tokenExpiresAt, input.expires_at);
    const token = newToken();
    const row = await writeWithEvents(ctx, (tx, log) =>
      insertToken(tx, log, action, {
        userId,
        token,
        name: input.name,
        scopes: input.scopes,
        expiresAt: input.expires_at,
      }),
    );
    return { row, token };
  },
});

/** A token of a user of the caller's tenant (else 404, as if absent) that the caller may revoke (else 403). */
async function revocable(ctx: AppContext, scope: Scope, id: string) {
  const found = await ctx.prisma.apiToken.findFirst({
    where: { ...inTenant(scope.tenantId), id },
    select: { id: true, user: { select: { role: true } } },
  });
  if (!found) throw new AppError('NOT_FOUND');
  assertMayManage(ctx, found.user.role);
  return found;
}

/**
 * `DELETE /api-tokens/:id`, GraphQL `revokeApiToken`: the token answers 401 from the next request.
 * Revoking a revoked token again changes nothing (its first `revokedAt` stays) and succeeds.
 */
export const revokeApiToken = operation({
  action: 'apiTokens.revoke',
  find: revocable,
  input: {},
  async run({ ctx, action, found }): Promise<{ id: string }> {
    await writeWithEvents(ctx, async (tx, log) => {
      const before = await tx.apiToken.findUniqueOrThrow({
        where: { id: found.id },
        select: apiTokenItemSelect,
      });
      await revokeRecorded(tx, log, action, before);
    });
    return { id: found.id };
  },
});

/** Sets `revokedAt` unless the token is revoked already. */
function revokeById(prisma: Prisma | Tx, id: string, at = new Date()) {
  return prisma.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
}

// ---------------------------------------------------------------------------------------------
// The operator's commands (`admin token list`, `admin token revoke`): any tenant, any token.

/** Every token of the tenant's users, newest first; null when there is no such tenant. */
export async function tenantTokens(prisma: Prisma, tenantId: string): Promise<ApiTokenItemRow[] | null> {
  const tenant = await prisma.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
  if (!tenant) return null;
  return prisma.apiToken.findMany({
    where: inTenant(tenantId),
    orderBy: apiTokenOrder,
    select: apiTokenItemSelect,
  });
}

/**
 * Revokes the token (if it is not revoked yet) and answers it with `wasRevoked` (it was revoked
 * before); null when there is no such token. A revocation is in the tenant's log and audit log as the
 * API's (`api_token.revoked`, action `apiTokens.revoke`), by the service itself (actor `system`).
 */
export async function revokeToken(
  prisma: Prisma,
  id: string,
): Promise<{ row: ApiTokenItemRow; wasRevoked: boolean } | null> {
  const before = await prisma.apiToken.findUnique({
    where: { id },
    select: {
      ...apiTokenItemSelect,
      user: { select: { ...apiTokenItemSelect.user.select, tenantId: true } },
    },
  });
  if (!before) return null;
  const source = { prisma, tenantId: before.user.tenantId, actor: systemActor };
  const row = await writeWithEvents(
    source,
    async (tx, log) =>
      (await revokeRecorded(tx, log, 'apiTokens.revoke', before)) ??
      tx.apiToken.findUniqueOrThrow({ where: { id }, select: apiTokenItemSelect }),
  );
  return { row, wasRevoked: before.revokedAt !== null };
}

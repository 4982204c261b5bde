// Revoke (beyond the spec): withdraw one code, or a batch by ids or by the list's filters.
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { notFound } from '../../errors.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { conditionsOf, type InputOf, operation } from '../../operations/operation.js';
import { ValidationError } from '../../validation/validator.js';
import { accessCodeFilters, revokeBatchFields } from './access-codes.inputs.js';
import { REVOKED } from './access-codes.labels.js';
import { type AccessCodeListRow, accessCodeListInclude, accessCodesWithin } from './access-codes.service.js';

/** The code of the path id in the caller's scope (a pinned caller's location), or 404. */
async function codeInScope(ctx: AppContext, scope: Scope, id: string): Promise<{ id: string }> {
  const row = await ctx.prisma.accessCode.findFirst({
    where: { ...scoped(scope, 'locationId'), AND: [{ id }] },
    select: { id: true },
  });
  if (!row) throw notFound();
  return row;
}

/** One code as the list reads it (after a write). */
async function listRow(ctx: AppContext, id: string): Promise<AccessCodeListRow> {
  const [row] = await findManyRows<AccessCodeListRow>(ctx.prisma, 'AccessCode', {
    where: { id },
    include: accessCodeListInclude,
    take: 1,
  });
  if (!row) throw notFound();
  return row;
}

const revokedNow = (now: Date) => ({ status: REVOKED, revokedAt: now });

/**
 * `PUT /access-codes/:id/revoke`, GraphQL `revokeAccessCode`: status 4 from now on, whatever it was;
 * a revoked code is answered unchanged (its `revoked_at` stays the first revoke's).
 */
export const revokeAccessCode = operation({
  action: 'accessCodes.revoke',
  find: codeInScope,
  input: {},
  async run({ ctx, found }): Promise<AccessCodeListRow> {
    await ctx.prisma.accessCode.updateMany({
      where: { id: found.id, status: { not: REVOKED } },
      data: revokedNow(new Date()),
    });
    return listRow(ctx, found.id);
  },
});

/** What `POST /access-codes/revoke` and `revokeAccessCodes` validate to. */
export type RevokeBatchInput = InputOf<typeof revokeBatchFields>;

/**
 * `POST /access-codes/revoke`, GraphQL `revokeAccessCodes`: the codes named by `ids` (each one in
 * the caller's scope, else a 422 naming it), or else those the list's filters find; resolves to how
 * many were revoked now (codes already revoked are left as they are and not counted).
 */
export const revokeAccessCodes = operation({
  action: 'accessCodes.revoke',
  input: revokeBatchFields,
  async run({ ctx, scope, input }): Promise<number> {
    const ids = input.ids ?? null;
    const entries: [string, unknown][] =
      ids === null ? [] : Array.isArray(ids) ? ids.map((v, i) => [String(i), v]) : Object.entries(ids);
    let where: PrismaNS.AccessCodeWhereInput;
    if (entries.length > 0) {
      where = {
        ...scoped(scope, 'locationId'),
        AND: [{ id: { in: await idsInScope(ctx, scope, entries) } }],
      };
    } else {
      const filters = Object.fromEntries(Object.entries(input).filter(([k, v]) => k !== 'ids' && v !== null));
      where = accessCodesWithin(scope, conditionsOf(accessCodeFilters, filters, scope));
    }
    const { count } = await ctx.prisma.accessCode.updateMany({
      where: { AND: [where, { status: { not: REVOKED } }] },
      data: revokedNow(new Date()),
    });
    return count;
  },
});

/**
 * `ids.*` => `string` and `exists` in the caller's scope, as Laravel words them for each element
 * (`The selected ids.3 is invalid.`): the ids, or a 422 naming every bad one.
 */
async function idsInScope(ctx: AppContext, scope: Scope, entries: [string, unknown][]): Promise<string[]> {
  const ids = entries.flatMap(([, value]) => (typeof value === 'string' ? [value] : []));
  const rows = await ctx.prisma.accessCode.findMany({
    where: { ...scoped(scope, 'locationId'), AND: [{ id: { in: ids } }] },
    select: { id: true },
  });
  const found = new Set(rows.map((r) => r.id));
  const errors: Record<string, string[]> = {};
  for (const [key, value] of entries) {
    if (typeof value !== 'string') errors[`ids.${key}`] = [`The ids.${key} field must be a string.`];
    else if (!found.has(value)) errors[`ids.${key}`] = [`The selected ids.${key} is invalid.`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return ids;
}

// Revoke (beyond the spec): withdraw one code, or a batch by ids or by the list's filters.
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { lockRow } from '../../db/row-lock.js';
import { scoped } from '../../db/scope.js';
import { notFound } from '../../errors.js';
import { writeWithEvents } from '../../events/outbox.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { conditionsOf, type InputOf, operation } from '../../operations/operation.js';
import { accessCodeFilters, revokeBatchFields } from './access-codes.inputs.js';
import { REVOKED } from './access-codes.labels.js';
import {
  type AccessCodeListRow,
  accessCodeChange,
  accessCodeListInclude,
  accessCodesWithin,
} from './access-codes.service.js';

/** The code of the path id in the caller's scope (a pinned caller's location), or 404. */
async function codeInScope(ctx: AppContext, scope: Scope, id: string): Promise<{ id: string }> {
  const row = await ctx.prisma.accessCode.findFirst({
    where: { ...scoped(scope, 'locationId'), AND: [{ id }] },
    select: { id: true },
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
  run: ({ ctx, action, found }) =>
    writeWithEvents(ctx, async (tx, log): Promise<AccessCodeListRow> => {
      // Behind the redeems under way (they lock the code too): its event shows the uses they made.
      if (!(await lockRow(tx, 'AccessCode', found.id))) throw notFound();
      const before = await tx.accessCode.findUnique({
        where: { id: found.id },
        include: accessCodeListInclude,
      });
      if (!before) throw notFound();
      if (before.status === REVOKED) return before;
      const now = new Date();
      const { count } = await tx.accessCode.updateMany({
        where: { id: found.id, status: { not: REVOKED } },
        data: revokedNow(now),
      });
      if (count === 0) {
        // Revoked meanwhile by another request: answered as it is now, that request's event stands.
        return tx.accessCode.findUniqueOrThrow({ where: { id: found.id }, include: accessCodeListInclude });
      }
      const after = { ...before, ...revokedNow(now) };
      accessCodeChange(log, 'access_code.revoked', action, before, after);
      return after;
    }),
});

/** What `POST /access-codes/revoke` and `revokeAccessCodes` validate to. */
export type RevokeBatchInput = InputOf<ReturnType<typeof revokeBatchFields>>;

/**
 * `POST /access-codes/revoke`, GraphQL `revokeAccessCodes`: the codes named by `ids` (each one in
 * the caller's scope, else a 422 naming it), or else those the list's filters find; resolves to how
 * many were revoked now (codes already revoked are left as they are and not counted).
 */
export const revokeAccessCodes = operation({
  action: 'accessCodes.revoke',
  input: revokeBatchFields,
  async run({ ctx, action, scope, input }): Promise<number> {
    // Each a code in the caller's scope (the rules' codesInScope), in a list (list()).
    const ids = Array.isArray(input.ids) ? input.ids.filter((v): v is string => typeof v === 'string') : [];
    let where: PrismaNS.AccessCodeWhereInput;
    if (ids.length > 0) {
      where = { ...scoped(scope, 'locationId'), AND: [{ id: { in: ids } }] };
    } else {
      const filters = Object.fromEntries(Object.entries(input).filter(([k, v]) => k !== 'ids' && v !== null));
      where = accessCodesWithin(scope, conditionsOf(accessCodeFilters, filters, scope));
    }
    return writeWithEvents(ctx, async (tx, log) => {
      const now = new Date();
      const pending = { AND: [where, { status: { not: REVOKED } }] };
      // Behind the redeems under way, as a single revoke: the codes found are locked (in id order, one
      // array parameter however many), so their events show the uses those redeems made.
      const found = await tx.accessCode.findMany({ where: pending, select: { id: true } });
      if (found.length === 0) return 0;
      await tx.$queryRaw`SELECT 1 FROM "AccessCode" WHERE "id" = ANY(${found.map((c) => c.id)}::text[])
        ORDER BY "id" FOR NO KEY UPDATE`;
      // The codes as they were, for their events; only those the update revoked have one. Both
      // statements take the conditions themselves, never a list of ids (a filter may find many).
      const before = await tx.accessCode.findMany({
        where: pending,
        include: accessCodeListInclude,
        orderBy: { id: 'asc' },
      });
      if (before.length === 0) return 0;
      const revoked = await tx.accessCode.updateManyAndReturn({
        where: pending,
        data: revokedNow(now),
        select: { id: true },
      });
      const done = new Set(revoked.map((r) => r.id));
      for (const c of before) {
        if (done.has(c.id))
          accessCodeChange(log, 'access_code.revoked', action, c, { ...c, ...revokedNow(now) });
      }
      return revoked.length;
    });
  },
});

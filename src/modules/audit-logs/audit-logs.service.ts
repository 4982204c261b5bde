// The audit log (beyond the spec): who changed what in the tenant, newest first. Entries are written
// by the writes themselves (src/events/outbox.ts, with their events); here they are only read.
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ListWhere, listOperation } from '../../operations/operation.js';
import { auditLogFilters } from './audit-logs.inputs.js';

/** Newest first; the id breaks ties (the entries of one write share their time). */
export const auditLogOrder = [
  { createdAt: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.AuditLogOrderByWithRelationInput[];

/** The audit log and its count (REST `GET /audit-logs[/count]`, GraphQL `auditLogs`): filters → where. */
export const auditLogsQuery = listOperation({
  action: 'auditLogs.view',
  filters: auditLogFilters,
  within: (scope: Scope, and: PrismaNS.AuditLogWhereInput[]): PrismaNS.AuditLogWhereInput => ({
    tenantId: scope.tenantId,
    AND: and,
  }),
  orderBy: () => auditLogOrder,
});

/** What the list and its count read by (see ListWhere). */
export type AuditLogQuery = ListWhere<
  PrismaNS.AuditLogWhereInput,
  PrismaNS.AuditLogOrderByWithRelationInput[]
>;

/** Paging and shape: REST's item select, or plugin-prisma's query from the GraphQL selection. */
type Page = Omit<PrismaNS.AuditLogFindManyArgs, 'where' | 'orderBy'>;

/** A page of entries for both transports. */
export function listAuditLogs<P extends Page>(
  ctx: AppContext,
  q: AuditLogQuery,
  page: P,
): Promise<PrismaNS.AuditLogGetPayload<P>[]> {
  return findManyRows(ctx.prisma, 'AuditLog', { ...page, where: q.where, orderBy: q.orderBy });
}

export function countAuditLogs(ctx: AppContext, q: AuditLogQuery): Promise<number> {
  return countRows(ctx.prisma, 'AuditLog', q.where);
}

/** What the REST item reads: every column but the tenant's id. */
export const auditLogItemSelect = {
  id: true,
  actorUserId: true,
  actorTokenId: true,
  requestId: true,
  action: true,
  resourceType: true,
  resourceId: true,
  changes: true,
  createdAt: true,
} satisfies PrismaNS.AuditLogSelect;

export type AuditLogItemRow = PrismaNS.AuditLogGetPayload<{ select: typeof auditLogItemSelect }>;

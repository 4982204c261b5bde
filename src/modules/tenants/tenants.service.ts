// Tenants: the tenants of the caller's tenant group, used by both REST and GraphQL. A tenant is not
// a tenant-scoped row: its scope is the caller's group (`principal.groupId`), applied in `inGroup`.
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { lockRow } from '../../db/row-lock.js';
import { AppError } from '../../errors.js';
import { type AuditAction, changeEvent } from '../../events/audit.js';
import { type EventLog, type EventSource, writeWithEvents } from '../../events/outbox.js';
import type { Prisma as PrismaNS, Tenant } from '../../generated/prisma/client.js';
import { type InputOf, type ListWhere, listOperation, operation } from '../../operations/operation.js';
import { locationChange } from '../locations/locations.service.js';
import { userChange, userInclude, userInTx, userOrder } from '../users/users.service.js';
import { tenantFilters, tenantStatusFields, tenantWriteFields } from './tenants.inputs.js';
import { tenantDetail } from './tenants.serializer.js';

export const tenantOrder = [
  { createdAt: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.TenantOrderByWithRelationInput[];

/** The one scope of tenants: the caller's group. */
const inGroup = (ctx: AppContext) => ({ groupId: ctx.principal.groupId });

type TenantOrder = typeof tenantOrder;

/**
 * The tenant list and count (GraphQL `tenants`, REST `GET /tenants`, `GET /tenants/count`): the
 * filters' conditions inside the caller's group.
 */
export const tenantsQuery = listOperation({
  action: 'tenants.list',
  filters: tenantFilters,
  within: (_scope, and: PrismaNS.TenantWhereInput[], ctx): PrismaNS.TenantWhereInput => ({
    ...inGroup(ctx),
    AND: and,
  }),
  orderBy: (): TenantOrder => tenantOrder,
});

/** What the list and its count read by (see ListWhere). */
export type TenantQuery = ListWhere<PrismaNS.TenantWhereInput, PrismaNS.TenantOrderByWithRelationInput[]>;

/** Paging and shape: REST's typed list select, or plugin-prisma's query from the GraphQL selection. */
type PageArgs = Omit<PrismaNS.TenantFindManyArgs, 'where' | 'orderBy'>;

/** A page of tenants for both transports (one raw statement, src/db/raw-rows.ts). */
export function listTenants<A extends PageArgs>(
  ctx: AppContext,
  q: TenantQuery,
  args: A,
): Promise<PrismaNS.TenantGetPayload<A>[]> {
  return findManyRows(ctx.prisma, 'Tenant', { ...args, where: q.where, orderBy: q.orderBy });
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

export function countTenants(ctx: AppContext, q: TenantQuery): Promise<number> {
  return countRows(ctx.prisma, 'Tenant', q.where);
}

/** A tenant of the caller's group, or 404 as if absent. */
async function reachable(ctx: AppContext, _scope: Scope, id: string) {
  const tenant = await ctx.prisma.tenant.findFirst({
    where: { ...inGroup(ctx), AND: [{ id }] },
    select: { id: true, isTrashed: true },
  });
  if (!tenant) throw new AppError('NOT_FOUND');
  return tenant;
}

/** Columns of a valid body: an absent field is `undefined`, which Prisma leaves as it is. */
function toColumns(v: InputOf<typeof tenantWriteFields>) {
  return {
    name: v.name,
    countryCode: v.country_code,
    city: v.city,
    address: v.address,
    postCode: v.post_code,
    description: v.description,
  };
}

/** Location names hold at most 50 characters. */
export const defaultLocationName = (tenantName: string): string => [...tenantName].slice(0, 50).join('');

/** The audit view of a tenant: its REST detail and the written field the detail leaves out. */
const tenantView = (t: Tenant) => ({ ...tenantDetail(t), post_code: t.postCode });

/** The event and audit entry of a write of a tenant, in that tenant's own log. */
export function tenantChange(log: EventLog, action: AuditAction, before: Tenant | null, after: Tenant): void {
  const event = changeEvent({
    type: before ? 'tenant.updated' : 'tenant.created',
    resourceType: 'tenant',
    resourceId: after.id,
    action,
    payload: tenantDetail(after),
    before: before && tenantView(before),
    after: tenantView(after),
  });
  log.record(event && { ...event, tenantId: after.id });
}

/**
 * `POST /tenants`, GraphQL `createTenant`: a new tenant in the caller's group, with its default
 * location (named after the tenant) and default service profile, as bootstrap makes them; the caller
 * is moved to it. One transaction; its events (the tenant, its location, the caller moved) open the
 * new tenant's log.
 */
export const createTenant = operation({
  action: 'tenants.create',
  input: tenantWriteFields,
  run: ({ ctx, action, input }) =>
    writeWithEvents(ctx, async (tx, log) => {
      const tenant = await tx.tenant.create({
        data: { ...toColumns(input), groupId: ctx.principal.groupId },
      });
      const location = await tx.location.create({
        data: { tenantId: tenant.id, name: defaultLocationName(tenant.name) },
      });
      await tx.serviceProfile.create({ data: { tenantId: tenant.id, name: 'Default', isDefault: true } });
      const caller = await userInTx(tx, ctx.principal.userId);
      const moved = await tx.user.update({
        where: { id: ctx.principal.userId },
        data: { tenantId: tenant.id, locationId: null },
        include: userInclude,
      });
      tenantChange(log, action, null, tenant);
      locationChange(log, action, null, location);
      userChange(log, action, caller, moved);
      return tenant;
    }),
});
/** `PUT /tenants/:id`, GraphQL `updateTenant`. */
export const updateTenant = operation({
  action: 'tenants.update',
  find: reachable,
  input: tenantWriteFields,
  run: ({ ctx, action, input, found }) =>
    writeWithEvents(ctx, async (tx, log) => {
      if (!(await lockRow(tx, 'Tenant', found.id))) throw new AppError('NOT_FOUND');
      const before = await tx.tenant.findUniqueOrThrow({ where: { id: found.id } });
      const tenant = await tx.tenant.update({ where: { id: found.id }, data: toColumns(input) });
      tenantChange(log, action, before, tenant);
      return tenant;
    }),
});

/**
 * Deactivates (trashed) or activates the tenant `id`, in one write with its events (in the tenant's
 * own log, by `source`'s actor). With `userStatus`, the users whose current tenant it is take that
 * status; support users are never changed. The audit entries name which (`tenants.deactivate`,
 * `tenants.activate`). The API's deactivate and activate, and the CLI's `tenant activate` (actor
 * `system`), so that both write the same events. Null when there is no such tenant.
 */
export function setTenantTrashed(
  source: EventSource | AppContext,
  id: string,
  trashed: boolean,
  userStatus?: number,
): Promise<Tenant | null> {
  return writeWithEvents(source, async (tx, log) => {
    const action = trashed ? 'tenants.deactivate' : 'tenants.activate';
    // Concurrent (de)activations take turns: each reads what the one before it wrote.
    if (!(await lockRow(tx, 'Tenant', id))) return null;
    const before = await tx.tenant.findUniqueOrThrow({ where: { id } });
    const tenant = await tx.tenant.update({ where: { id }, data: { isTrashed: trashed } });
    tenantChange(log, action, before, tenant);
    if (userStatus !== undefined) {
      // Only the users whose status changes have an event (read before, shown after).
      const users = await tx.user.findMany({
        where: { tenantId: id, role: { not: 'support' }, status: { not: userStatus } },
        include: userInclude,
        orderBy: userOrder,
      });
      await tx.user.updateMany({
        where: { tenantId: id, role: { not: 'support' } },
        data: { status: userStatus },
      });
      for (const u of users) {
        userChange(log, action, u, { ...u, status: userStatus, tenant: { name: tenant.name } });
      }
    }
    return tenant;
  });
}

/**
 * Deactivate (trashed) or activate a tenant of the group (setTenantTrashed); both need
 * `tenants.activate`.
 */
const setTrashed = (trashed: boolean) =>
  operation({
    action: 'tenants.activate',
    find: reachable,
    input: tenantStatusFields,
    run: async ({ ctx, input, found }) => {
      const tenant = await setTenantTrashed(ctx, found.id, trashed, input.user_status);
      if (!tenant) throw new AppError('NOT_FOUND');
      return tenant;
    },
  });

/** `PUT /tenants/:id/deactivate`, GraphQL `deactivateTenant`. */
export const deactivateTenant = setTrashed(true);

/** `PUT /tenants/:id/activate`, GraphQL `activateTenant`. */
export const activateTenant = setTrashed(false);

/**
 * `PUT /tenants/:id/switch`, GraphQL `switchTenant`: makes `:id` the caller's current tenant. Only
 * tenants of the caller's group (else 404); a trashed tenant only for support users (anyone else
 * would lock themselves out: 403). The caller's `user.updated` goes to the log of the tenant it
 * switched to.
 */
export const switchTenant = operation({
  action: 'tenants.switch',
  find: reachable,
  input: {},
  async run({ ctx, action, found: tenant }) {
    const refused = (t: { isTrashed: boolean }) => t.isTrashed && ctx.principal.role !== 'support';
    if (refused(tenant)) throw new AppError('FORBIDDEN');
    await writeWithEvents(ctx, async (tx, log) => {
      // A deactivation of the tenant at the same moment takes turns with this: it comes first (then
      // this is refused) or after (then it gives the caller its user_status too).
      if (!(await lockRow(tx, 'Tenant', tenant.id))) throw new AppError('NOT_FOUND');
      const now = await tx.tenant.findUniqueOrThrow({
        where: { id: tenant.id },
        select: { isTrashed: true },
      });
      if (refused(now)) throw new AppError('FORBIDDEN');
      await lockRow(tx, 'User', ctx.principal.userId);
      const before = await userInTx(tx, ctx.principal.userId);
      const after = await tx.user.update({
        where: { id: ctx.principal.userId },
        data: { tenantId: tenant.id, locationId: null },
        include: userInclude,
      });
      userChange(log, action, before, after);
    });
    return tenant;
  },
});

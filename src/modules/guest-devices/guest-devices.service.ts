// Guest devices (spec 2.4, 4.3): tenant-scoped domain functions used by both REST and GraphQL.
// A venue or front-desk user sees only the devices of guests at their location.

import { authorize } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { inScope, scoped } from '../../db/scope.js';
import type { EventLog, NewEvent, Tx } from '../../events/outbox.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ListWhere, listOperation } from '../../operations/operation.js';
import { deviceFilters, deviceListFilters } from './guest-devices.inputs.js';
import { deviceItem } from './guest-devices.serializer.js';

export const deviceOrder = (newestFirst: boolean): PrismaNS.GuestDeviceOrderByWithRelationInput[] =>
  newestFirst ? [{ createdAt: 'desc' }, { id: 'desc' }] : [{ createdAt: 'asc' }, { id: 'asc' }];

/** The devices a scope reaches: its tenant's, and for a pinned role those of its location's guests. */
export function deviceScope(scope: Scope): PrismaNS.GuestDeviceWhereInput {
  // A device has no location of its own: the pinned location applies through its guest.
  const { tenantId } = scoped(scope);
  return {
    tenantId,
    ...(scope.locationId ? { guest: { locationId: scope.locationId } } : {}),
  };
}

/** The same for a nested read (GraphQL relations), from the caller alone. */
export function deviceScopeOf(ctx: AppContext): PrismaNS.GuestDeviceWhereInput {
  return deviceScope(authorize(ctx.principal, devicesQuery.action));
}

/** Whether a device loaded through a to-one relation is one the caller may see (see deviceScope). */
export function deviceVisible(
  ctx: AppContext,
  d: { tenantId: string; guest: { locationId: string } },
): boolean {
  return inScope(authorize(ctx.principal, devicesQuery.action), d.tenantId, d.guest.locationId);
}

/** The list's action and scope; the count's operation has no order switch. */
const deviceList = {
  action: 'guestDevices.list',
  // A device has no location of its own: the scope (a pinned location through the guest) stays its
  // own condition beside the filters'.
  within: (scope: Scope, and: PrismaNS.GuestDeviceWhereInput[]): PrismaNS.GuestDeviceWhereInput => ({
    ...deviceScope(scope),
    AND: and,
  }),
} as const;

/** The device count (REST `GET /guest-devices/count`, GraphQL `guestDevices.totalCount`): filters → where. */
export const devicesQuery = listOperation({
  ...deviceList,
  filters: deviceFilters,
  orderBy: () => deviceOrder(false),
});

/** The device list (REST `GET /guest-devices`, GraphQL `guestDevices`): the same, with `last_guest_device_first`. */
export const deviceListQuery = listOperation({
  ...deviceList,
  filters: deviceListFilters,
  orderBy: (f) => deviceOrder(f.last_guest_device_first === true),
});

/** What the list and its count read by (see ListWhere). */
export type DeviceQuery = ListWhere<
  PrismaNS.GuestDeviceWhereInput,
  PrismaNS.GuestDeviceOrderByWithRelationInput[]
>;

/**
 * The page and what to read of each row: REST's `{ skip, take, select: deviceListSelect }`, GraphQL's
 * relay page (`cursor`, `take`, `skip`) with plugin-prisma's select or include for its selection.
 */
type Page = Omit<PrismaNS.GuestDeviceFindManyArgs, 'where' | 'orderBy'>;

/**
 * The list of both transports: one filter set, scope and order; only `page` differs. The rows' type
 * follows from `page` as it does for Prisma's own findMany (a `select` gives just those columns).
 */
export function listDevices<P extends Page>(
  ctx: AppContext,
  q: DeviceQuery,
  page: P,
): Promise<PrismaNS.GuestDeviceGetPayload<P>[]> {
  return findManyRows<PrismaNS.GuestDeviceGetPayload<P>>(ctx.prisma, 'GuestDevice', {
    ...page,
    where: q.where,
    orderBy: q.orderBy,
  });
}

/**
 * What the REST list item (guest-devices.serializer.ts deviceItem) reads, and only that: not tenantId
 * and online. The item's parameter type is derived from this, so a column it reads but this omits
 * does not compile.
 */
export const deviceListSelect = {
  id: true,
  guestId: true,
  partnerId: true,
  typeName: true,
  mac: true,
  ip: true,
  userAgent: true,
  description: true,
  platform: true,
  browser: true,
  connectionStatus: true,
  totalDownloadedData: true,
  totalUploadedData: true,
  lastSeenTime: true,
  createdAt: true,
  updatedAt: true,
} satisfies PrismaNS.GuestDeviceSelect;

export type DeviceListRow = PrismaNS.GuestDeviceGetPayload<{ select: typeof deviceListSelect }>;

export function countDevices(ctx: AppContext, q: DeviceQuery): Promise<number> {
  return countRows(ctx.prisma, 'GuestDevice', q.where);
}

/**
 * `device.first_seen` of a device the write created, read when the write is done (its session then
 * has put it online). The devices one write created are read in one statement.
 */
export function recordFirstSeen(tx: Tx, log: EventLog, id: string): void {
  let batch = firstSeenBatches.get(log);
  if (batch === undefined) {
    const created: FirstSeenBatch = { ids: [], rows: undefined };
    firstSeenBatches.set(log, created);
    batch = created;
  }
  const b = batch;
  b.ids.push(id);
  log.recordAtCommit(async () => {
    b.rows ??= tx.guestDevice
      .findMany({ where: { id: { in: b.ids } }, select: deviceListSelect })
      .then((list) => new Map(list.map((d) => [d.id, d])));
    const row = (await b.rows).get(id);
    return row ? deviceFirstSeen(row) : null;
  });
}

/** The devices a write (its log) created, and their rows once read at its end. */
interface FirstSeenBatch {
  ids: string[];
  rows: Promise<Map<string, DeviceListRow>> | undefined;
}
const firstSeenBatches = new WeakMap<EventLog, FirstSeenBatch>();

/** `device.first_seen`: a device the tenant had not seen before, in REST's item shape (no audit entry: traffic). */
export function deviceFirstSeen(d: DeviceListRow): NewEvent {
  return {
    type: 'device.first_seen',
    resourceType: 'guest_device',
    resourceId: d.id,
    payload: deviceItem(d),
  };
}

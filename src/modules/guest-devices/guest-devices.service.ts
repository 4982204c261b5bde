// Guest devices (spec 2.4, 4.3): tenant-scoped domain functions used by both REST and GraphQL.
// A venue or front-desk user sees only the devices of guests at their location.

import { authorize } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { inScope, scoped } from '../../db/scope.js';
import type { GuestDevice, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { dayStart } from '../../shared/dates.js';
import { validateFilters } from '../../validation/validator.js';
import { deviceFilterRules, deviceListRules, normaliseMac } from './guest-devices.inputs.js';

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
  return deviceScope(authorize(ctx.principal, 'guestDevices.list'));
}

/** Whether a device loaded through a to-one relation is one the caller may see (see deviceScope). */
export function deviceVisible(
  ctx: AppContext,
  d: { tenantId: string; guest: { locationId: string } },
): boolean {
  return inScope(authorize(ctx.principal, 'guestDevices.list'), d.tenantId, d.guest.locationId);
}

interface DeviceFilters {
  guest_id?: string;
  mac?: string;
  online?: boolean;
  created_at?: string;
  updated_at?: string;
  partner_id?: string;
  last_guest_device_first?: boolean;
}

async function deviceQuery(
  ctx: AppContext,
  raw: Record<string, unknown>,
  forList: boolean,
): Promise<{
  where: PrismaNS.GuestDeviceWhereInput;
  orderBy: PrismaNS.GuestDeviceOrderByWithRelationInput[];
}> {
  const scope = authorize(ctx.principal, 'guestDevices.list');
  const f = (await validateFilters(raw, forList ? deviceListRules : deviceFilterRules)) as DeviceFilters;
  const and: PrismaNS.GuestDeviceWhereInput[] = [];
  if (f.guest_id !== undefined) and.push({ guestId: f.guest_id });
  if (f.mac !== undefined) and.push({ mac: { equals: normaliseMac(f.mac) ?? '', mode: 'insensitive' } });
  if (f.online !== undefined) and.push({ online: f.online });
  if (f.created_at !== undefined) and.push({ createdAt: { gte: dayStart(f.created_at) } });
  if (f.updated_at !== undefined) and.push({ updatedAt: { gte: dayStart(f.updated_at) } });
  if (f.partner_id !== undefined) and.push({ partnerId: f.partner_id });
  return {
    where: { ...deviceScope(scope), ...(and.length > 0 ? { AND: and } : {}) },
    orderBy: deviceOrder(f.last_guest_device_first === true),
  };
}

/** Paging and (from GraphQL) the relations the selection needs. */
type Page = Omit<PrismaNS.GuestDeviceFindManyArgs, 'where' | 'orderBy'>;

export async function listDevices(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const q = await deviceQuery(ctx, filters, true);
  return findManyRows<GuestDevice>(ctx.prisma, 'GuestDevice', { ...page, ...q });
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

/** REST's list (GraphQL's, listDevices, reads what its selection needs). */
export async function listDeviceRows(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  const q = await deviceQuery(ctx, filters, true);
  return findManyRows<DeviceListRow>(ctx.prisma, 'GuestDevice', { ...page, ...q, select: deviceListSelect });
}

export async function countDevices(ctx: AppContext, filters: Record<string, unknown>): Promise<number> {
  const { where } = await deviceQuery(ctx, filters, false);
  return countRows(ctx.prisma, 'GuestDevice', where);
}

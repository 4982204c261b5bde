// The permission table: for every action, which roles may perform it and over which rows.
// 'tenant' = every row of the current tenant; 'location' = only the caller's pinned location.
// The README carries the same table; test/permissions.test.ts walks it.
import { AppError } from '../errors.js';
import type { Principal, Role, Scope } from './principal.js';

export type Reach = 'tenant' | 'location' | false;

const T = 'tenant' as const;
const L = 'location' as const;

export const permissionTable = {
  'locations.list': { tenant: T, venue: L, 'front-desk': L, support: T },
  'locations.hierarchy': { tenant: T, venue: L, 'front-desk': L, support: T },
  'locations.create': { tenant: T, venue: false, 'front-desk': false, support: T },
  'locations.update': { tenant: T, venue: L, 'front-desk': false, support: T },
  'guests.list': { tenant: T, venue: L, 'front-desk': L, support: T },
  'guests.view': { tenant: T, venue: L, 'front-desk': L, support: T },
  'guests.create': { tenant: T, venue: L, 'front-desk': L, support: T },
  'guests.update': { tenant: T, venue: L, 'front-desk': L, support: T },
  'guestDevices.list': { tenant: T, venue: L, 'front-desk': L, support: T },
  'guestSessions.list': { tenant: T, venue: L, 'front-desk': L, support: T },
  'analytics.read': { tenant: T, venue: L, 'front-desk': L, support: T },
  'tenants.list': { tenant: T, venue: false, 'front-desk': false, support: T },
  'tenants.create': { tenant: T, venue: false, 'front-desk': false, support: T },
  'tenants.update': { tenant: T, venue: false, 'front-desk': false, support: T },
  'tenants.activate': { tenant: T, venue: false, 'front-desk': false, support: T },
  'tenants.switch': { tenant: T, venue: false, 'front-desk': false, support: T },
  'users.list': { tenant: T, venue: L, 'front-desk': false, support: T },
  'users.create': { tenant: T, venue: L, 'front-desk': false, support: T },
  'users.update': { tenant: T, venue: L, 'front-desk': false, support: T },
  'users.activate': { tenant: T, venue: L, 'front-desk': false, support: T },
  'advertisements.list': { tenant: T, venue: T, 'front-desk': false, support: T },
  'serviceProfiles.list': { tenant: T, venue: T, 'front-desk': T, support: T },
  'accessCodes.list': { tenant: T, venue: L, 'front-desk': L, support: T },
  'accessCodes.create': { tenant: T, venue: L, 'front-desk': L, support: T },
} as const satisfies Record<string, Record<Role, Reach>>;

export type Action = keyof typeof permissionTable;

/** The scope the principal may act in for `action`, or 403. */
export function authorize(principal: Principal, action: Action): Scope {
  const reach: Reach = permissionTable[action][principal.role];
  if (!reach || principal.scopes.length > 0) throw new AppError('FORBIDDEN');
  if (reach === 'location') {
    // A pinned role without a location can see nothing; refuse rather than widen to the tenant.
    if (!principal.locationId) throw new AppError('FORBIDDEN');
    return { tenantId: principal.tenantId, locationId: principal.locationId };
  }
  return { tenantId: principal.tenantId, locationId: null };
}

export function hasPermission(principal: Principal, permission: string): boolean {
  return principal.permissions.includes(permission);
}

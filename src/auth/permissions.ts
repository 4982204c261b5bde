// The permission table: for every action, which roles may perform it and over which rows.
// 'tenant' = every row of the current tenant; 'location' = only the caller's pinned location.
// The README carries the same table; test/permissions.test.ts walks it: every REST route declares
// its action (`Endpoint.action`) and every GraphQL root field its action (`requires(action)`).
import { AppError } from '../errors.js';
import type { Principal, Role, Scope } from './principal.js';

export type Reach = 'tenant' | 'location' | false;

const T = 'tenant' as const;
const L = 'location' as const;

export const permissionTable = {
  // Who am I: every role (GraphQL `viewer`).
  'viewer.read': { tenant: T, venue: T, 'front-desk': T, support: T },
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
  'ingest.write': { tenant: T, venue: false, 'front-desk': false, support: T },
  // Tenants are read and changed across the caller's group (the reach column says "tenant": the
  // group's tenants, see the tenants service); venue and front-desk users are pinned to one tenant.
  'tenants.list': { tenant: T, venue: false, 'front-desk': false, support: T },
  'tenants.create': { tenant: T, venue: false, 'front-desk': false, support: T },
  'tenants.update': { tenant: T, venue: false, 'front-desk': false, support: T },
  /** Deactivate and activate. */
  'tenants.activate': { tenant: T, venue: false, 'front-desk': false, support: T },
  'tenants.switch': { tenant: T, venue: false, 'front-desk': false, support: T },
  // Venue admins manage the staff of their own location (venue and front-desk users pinned there);
  // front-desk users may not manage users (decisions, "Tenancy and roles").
  'users.list': { tenant: T, venue: L, 'front-desk': false, support: T },
  'users.create': { tenant: T, venue: L, 'front-desk': false, support: T },
  'users.update': { tenant: T, venue: L, 'front-desk': false, support: T },
  /** Deactivate and activate. */
  'users.activate': { tenant: T, venue: L, 'front-desk': false, support: T },
  'advertisements.list': { tenant: T, venue: T, 'front-desk': false, support: T },
  'serviceProfiles.list': { tenant: T, venue: T, 'front-desk': T, support: T },
  'accessCodes.list': { tenant: T, venue: L, 'front-desk': L, support: T },
  'accessCodes.create': { tenant: T, venue: L, 'front-desk': L, support: T },
} as const satisfies Record<string, Record<Role, Reach>>;

export type Action = keyof typeof permissionTable;

/** The actions a scoped token may perform, with the scope each needs; a scoped token may do nothing else. */
const tokenScopes: Partial<Record<Action, string>> = { 'ingest.write': 'ingest' };

export const actions = Object.keys(permissionTable) as Action[];

/** The reach of `role` for `action` ('tenant', 'location' or false). */
export function reachOf(action: Action, role: Role): Reach {
  return permissionTable[action][role];
}

/** The actions a role may perform (GraphQL `viewer.allowedActions`). */
export function allowedActions(role: Role): Action[] {
  return actions.filter((a) => reachOf(a, role) !== false);
}

/**
 * Field options of a GraphQL root field: the action its resolver authorizes. The permission test
 * reads it from the schema, as it reads `Endpoint.action` from the route table.
 */
export function requires(action: Action): { extensions: { action: Action } } {
  return { extensions: { action } };
}

/** The scope the principal may act in for `action`, or 403. */
export function authorize(principal: Principal, action: Action): Scope {
  const reach: Reach = permissionTable[action][principal.role];
  if (!reach) throw new AppError('FORBIDDEN');
  if (principal.scopes.length > 0) {
    const needed = tokenScopes[action];
    if (!needed || !principal.scopes.includes(needed)) throw new AppError('FORBIDDEN');
  }
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

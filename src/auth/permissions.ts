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
  // A guest's data rights (issue 17): the copy for the venue that holds the guest, the erasure for
  // tenant admins only (it cannot be undone).
  'guests.export': { tenant: T, venue: L, 'front-desk': false, support: T },
  'guests.erase': { tenant: T, venue: false, 'front-desk': false, support: T },
  // Bulk import (issue 17): a manager's act, as revoking codes; each row as a create would be.
  'guests.import': { tenant: T, venue: L, 'front-desk': false, support: T },
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
  // A captive portal (its controller's `ingest` token) or the front desk checks a guest's code.
  'accessCodes.redeem': { tenant: T, venue: L, 'front-desk': L, support: T },
  // Withdrawing codes is a manager's act: not the front desk's.
  'accessCodes.revoke': { tenant: T, venue: L, 'front-desk': false, support: T },
  // API keys: tenant admins (and support) manage the tokens of their tenant's users.
  'apiTokens.list': { tenant: T, venue: false, 'front-desk': false, support: T },
  'apiTokens.create': { tenant: T, venue: false, 'front-desk': false, support: T },
  'apiTokens.revoke': { tenant: T, venue: false, 'front-desk': false, support: T },
  // Data retention (issue 17): how long the tenant keeps guest data is the tenant admin's decision.
  'retention.view': { tenant: T, venue: false, 'front-desk': false, support: T },
  'retention.update': { tenant: T, venue: false, 'front-desk': false, support: T },
  // Webhooks: tenant admins (and support) manage the tenant's endpoints; `list` also reads their
  // delivery attempts; `test` sends a ping, `replay` queues events again, `rotateSecret` gives an
  // endpoint a new signing secret.
  'webhooks.list': { tenant: T, venue: false, 'front-desk': false, support: T },
  'webhooks.create': { tenant: T, venue: false, 'front-desk': false, support: T },
  'webhooks.update': { tenant: T, venue: false, 'front-desk': false, support: T },
  'webhooks.delete': { tenant: T, venue: false, 'front-desk': false, support: T },
  'webhooks.test': { tenant: T, venue: false, 'front-desk': false, support: T },
  'webhooks.replay': { tenant: T, venue: false, 'front-desk': false, support: T },
  'webhooks.rotateSecret': { tenant: T, venue: false, 'front-desk': false, support: T },
  // The audit log (who changed what): tenant admins (and support) read it; nobody writes it.
  'auditLogs.view': { tenant: T, venue: false, 'front-desk': false, support: T },
  // The event log (GET /events, GraphQL `events`, its live subscription): what webhooks receive,
  // for the same people who manage them.
  'events.view': { tenant: T, venue: false, 'front-desk': false, support: T },
} as const satisfies Record<string, Record<Role, Reach>>;

export type Action = keyof typeof permissionTable;

/** The actions a scoped token may perform, with the scope each needs; a scoped token may do nothing else. */
const tokenScopes: Partial<Record<Action, string>> = {
  'ingest.write': 'ingest',
  // Captive-portal controllers hold ingest tokens: they redeem the codes guests type.
  'accessCodes.redeem': 'ingest',
};

export const actions = Object.keys(permissionTable) as Action[];

/**
 * The scopes a token may carry: `read` (the read actions below), `ingest` (the actions `tokenScopes`
 * gives to `ingest`), `full` (the user's rights). A token stored without scopes (`admin token issue`
 * without `--scope`, `bootstrap`) has the user's full rights too, and is shown as `["full"]`.
 */
export const tokenScopeNames = ['read', 'ingest', 'full'] as const;
export type TokenScope = (typeof tokenScopeNames)[number];

export const isTokenScope = (value: unknown): value is TokenScope =>
  tokenScopeNames.some((name) => name === value);

/**
 * The read actions, all that a `read` token may perform: every `*.list`, `*.view`, `*.hierarchy` and
 * `*.export` (a guest's copy), `analytics.read` and `viewer.read`. They are what every GET route and every GraphQL query and
 * subscription declares (test/api-tokens.test.ts checks it against the route table and schema), so
 * a `read` token passes GET and queries and gets 403 on every write.
 */
export const readActions: ReadonlySet<Action> = new Set(
  actions.filter(
    (a) => /\.(list|view|hierarchy|export)$/.test(a) || a === 'analytics.read' || a === 'viewer.read',
  ),
);

/** Whether a token carrying `scope` may perform `action` (the role's own reach is checked apart). */
function scopeAllows(scope: string, action: Action): boolean {
  if (scope === 'full') return true;
  if (scope === 'read') return readActions.has(action);
  return tokenScopes[action] === scope;
}

/** The reach of `role` for `action` ('tenant', 'location' or false). */
export function reachOf(action: Action, role: Role): Reach {
  return permissionTable[action][role];
}

/** The actions a role may perform (GraphQL `viewer.allowedActions`). */
export function allowedActions(role: Role): Action[] {
  return actions.filter((a) => reachOf(a, role) !== false);
}

/**
 * Field options of a GraphQL root field: the action its resolver authorizes, with the field's other
 * extensions (its cost, src/graphql/query-cost.ts). The permission test reads it from the schema, as
 * it reads `Endpoint.action` from the route table.
 */
export function requires<E extends object = object>(
  action: Action,
  more?: E,
): { extensions: E & { action: Action } } {
  return { extensions: { ...(more as E), action } };
}

/** The scope the principal may act in for `action`, or 403. */
export function authorize(principal: Principal, action: Action): Scope {
  const reach: Reach = permissionTable[action][principal.role];
  if (!reach) throw new AppError('FORBIDDEN');
  // A token with scopes may do what any of them allows; without scopes, what the role allows.
  if (principal.scopes.length > 0 && !principal.scopes.some((s) => scopeAllows(s, action))) {
    throw new AppError('FORBIDDEN');
  }
  if (reach === 'location') {
    // A pinned role without a location can see nothing; refuse rather than widen to the tenant.
    if (!principal.locationId) throw new AppError('FORBIDDEN');
    return { tenantId: principal.tenantId, locationId: principal.locationId };
  }
  return { tenantId: principal.tenantId, locationId: null };
}

/** Whether the principal may perform `action` at all: authorize() without the 403. */
export function permits(principal: Principal, action: Action): boolean {
  try {
    authorize(principal, action);
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === 'FORBIDDEN') return false;
    throw err;
  }
}

export function hasPermission(principal: Principal, permission: string): boolean {
  return principal.permissions.includes(permission);
}

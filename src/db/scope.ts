// The one where-helper for tenancy. Every query of a tenant-scoped model starts from it, so a
// request can never read or change another tenant's rows, and a pinned role never leaves its
// location.
import type { Scope } from '../auth/principal.js';

/** `{ tenantId }`, plus the pinned location on `locationField` when the scope has one. */
export function scoped<F extends string = 'locationId'>(
  scope: Scope,
  locationField?: F,
): { tenantId: string } & Partial<Record<F, string>> {
  const where: Record<string, string> = { tenantId: scope.tenantId };
  if (scope.locationId && locationField) where[locationField] = scope.locationId;
  return where as { tenantId: string } & Partial<Record<F, string>>;
}

/**
 * scoped()'s rule as a predicate, for a row already loaded through a to-one relation (where no
 * where-clause can apply): in the scope's tenant and, for a pinned role, at its location.
 */
export function inScope(scope: Scope, tenantId: string, locationId: string | null): boolean {
  return tenantId === scope.tenantId && (!scope.locationId || locationId === scope.locationId);
}

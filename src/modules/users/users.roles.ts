// Dashboard roles as the API names them (decisions, "Resource details": value names).
import type { Role } from '../../auth/principal.js';

export const roleNames: Record<Role, string> = {
  tenant: 'Tenant Admin',
  venue: 'Venue Admin',
  'front-desk': 'Front Desk',
  support: 'Support',
};

/** `user_type`: an integer per role (the spec leaves the values open); `user_type_name` follows the role. */
export const userTypes: Record<Role, number> = {
  tenant: 1,
  venue: 2,
  'front-desk': 3,
  support: 4,
};

export const roleName = (role: string): string => roleNames[role as Role] ?? role;
export const userType = (role: string): number => userTypes[role as Role] ?? 0;

/** Roles pinned to a location. */
export const pinnedRoles: readonly string[] = ['venue', 'front-desk'];

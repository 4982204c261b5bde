// The exact shapes of spec 2.10, keys in the spec's order.
import type { Tenant } from '../../generated/prisma/client.js';
import { countryName } from '../../validation/countries.js';

/** Create and update responses. */
export function tenantDetail(t: Tenant) {
  return {
    id: t.id,
    name: t.name,
    address: t.address,
    city: t.city,
    country_code: t.countryCode,
    country_name: t.countryCode ? countryName(t.countryCode) : null,
    description: t.description,
    is_trashed: t.isTrashed,
  };
}

/** List items add the group. */
export function tenantListItem(t: Tenant & { group: { name: string } }) {
  return { ...tenantDetail(t), group_id: t.groupId, group_name: t.group.name };
}

// The exact shapes of spec 2.10, keys in the spec's order.
import type { Tenant } from '../../generated/prisma/client.js';
import { Bool, Id, Nullable, Obj, Str } from '../../rest/schemas.js';
import { countryName } from '../../validation/countries.js';
import type { TenantListRow } from './tenants.service.js';

/** Create and update responses. */
export function tenantDetail(
  t: Pick<Tenant, 'id' | 'name' | 'address' | 'city' | 'countryCode' | 'description' | 'isTrashed'>,
) {
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
export function tenantListItem(t: TenantListRow) {
  return { ...tenantDetail(t), group_id: t.groupId, group_name: t.group.name };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

const tenantProperties = {
  id: Id(),
  name: Str(),
  address: Nullable(Str()),
  city: Nullable(Str()),
  country_code: Nullable(Str()),
  country_name: Nullable(Str()),
  description: Nullable(Str()),
  is_trashed: Bool(),
};

export const TenantDetailSchema = Obj(tenantProperties, 'TenantDetail');
export const TenantListItemSchema = Obj(
  { ...tenantProperties, group_id: Id(), group_name: Str() },
  'TenantListItem',
);

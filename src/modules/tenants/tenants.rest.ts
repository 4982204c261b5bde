// REST endpoints of spec 4.6: the tenant operations (tenants.service.ts) with REST's paging, status
// and serializers.

import { Type } from '@sinclair/typebox';
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import {
  TenantDetailSchema,
  TenantListItemSchema,
  tenantDetail,
  tenantListItem,
} from './tenants.serializer.js';
import {
  activateTenant,
  countTenants,
  createTenant,
  deactivateTenant,
  listTenants,
  switchTenant,
  tenantListSelect,
  tenantsQuery,
  updateTenant,
} from './tenants.service.js';

export const list = listEndpointOf(tenantsQuery, {
  summary: 'List the tenants of the caller’s group (name, description, page, per_page)',
  item: TenantListItemSchema,
  read: (ctx, q, page) => listTenants(ctx, q, { ...page, select: tenantListSelect }),
  serialize: tenantListItem,
});

export const count = countEndpointOf(tenantsQuery, {
  summary: 'Count the tenants of the caller’s group (name, description)',
  count: countTenants,
});

export const create = endpointOf(createTenant, {
  summary: 'Create a tenant and move the caller to it',
  response: DataBody(TenantDetailSchema),
  answer: (tenant) => ({ data: tenantDetail(tenant) }),
});

export const update = endpointOf(updateTenant, {
  summary: 'Update a tenant',
  response: DataBody(TenantDetailSchema),
  answer: (tenant) => ({ data: tenantDetail(tenant) }),
});

export const deactivate = endpointOf(deactivateTenant, {
  summary: 'Deactivate a tenant (optional user_status for its users)',
  response: Obj({ is_trashed: Type.Literal(true) }),
  answer: (tenant) => ({ is_trashed: tenant.isTrashed }),
});

export const activate = endpointOf(activateTenant, {
  summary: 'Activate a tenant (optional user_status for its users)',
  response: Obj({ is_trashed: Type.Literal(false) }),
  answer: (tenant) => ({ is_trashed: tenant.isTrashed }),
});

export const switchTo = endpointOf(switchTenant, {
  summary: 'Switch the caller to this tenant',
  // No input: the body is not read (nor documented), as before; the query string has no rules either.
  from: 'query',
  response: Obj({ success: Type.Literal(true) }),
  answer: () => ({ success: true }),
});

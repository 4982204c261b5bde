// REST endpoints of spec 4.6: validate paging, call one service function, serialize.

import { Type } from '@sinclair/typebox';
import { countEndpoint, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import { tenantFilterRules, tenantStatusRules, tenantWriteRules } from './tenants.inputs.js';
import {
  TenantDetailSchema,
  TenantListItemSchema,
  tenantDetail,
  tenantListItem,
} from './tenants.serializer.js';
import {
  countTenants,
  createTenant,
  listTenantsWithGroup,
  setTenantTrashed,
  switchTenant,
  updateTenant,
} from './tenants.service.js';

export const list = listEndpoint({
  summary: 'List the tenants of the caller’s group (name, description, page, per_page)',
  action: 'tenants.list',
  item: TenantListItemSchema,
  filters: tenantFilterRules,
  list: listTenantsWithGroup,
  serialize: tenantListItem,
});

export const count = countEndpoint({
  summary: 'Count the tenants of the caller’s group (name, description)',
  action: 'tenants.list',
  filters: tenantFilterRules,
  count: countTenants,
});

export const create: Endpoint = {
  summary: 'Create a tenant and move the caller to it',
  action: 'tenants.create',
  body: tenantWriteRules,
  response: DataBody(TenantDetailSchema),
  async handle({ ctx, body }) {
    return { data: tenantDetail(await createTenant(ctx, body)) };
  },
};

export const update: Endpoint = {
  summary: 'Update a tenant',
  action: 'tenants.update',
  body: tenantWriteRules,
  response: DataBody(TenantDetailSchema),
  async handle({ ctx, params, body }) {
    return { data: tenantDetail(await updateTenant(ctx, params.id ?? '', body)) };
  },
};

export const deactivate: Endpoint = {
  summary: 'Deactivate a tenant (optional user_status for its users)',
  action: 'tenants.activate',
  body: tenantStatusRules,
  response: Obj({ is_trashed: Type.Literal(true) }),
  async handle({ ctx, params, body }) {
    const t = await setTenantTrashed(ctx, params.id ?? '', true, body);
    return { is_trashed: t.isTrashed };
  },
};

export const activate: Endpoint = {
  summary: 'Activate a tenant (optional user_status for its users)',
  action: 'tenants.activate',
  body: tenantStatusRules,
  response: Obj({ is_trashed: Type.Literal(false) }),
  async handle({ ctx, params, body }) {
    const t = await setTenantTrashed(ctx, params.id ?? '', false, body);
    return { is_trashed: t.isTrashed };
  },
};

export const switchTo: Endpoint = {
  summary: 'Switch the caller to this tenant',
  action: 'tenants.switch',
  response: Obj({ success: Type.Literal(true) }),
  async handle({ ctx, params }) {
    await switchTenant(ctx, params.id ?? '');
    return { success: true };
  },
};

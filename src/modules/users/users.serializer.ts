// The exact shape of spec 2.11, keys in the spec's order. The password hash is never written out.

import { Type } from '@sinclair/typebox';
import { Bool, Id, Int, IntEnum, Nullable, Obj, Str } from '../../rest/schemas.js';
import { roleName, userType } from './users.roles.js';
import type { UserItemRow } from './users.service.js';

export function userItem(u: UserItemRow) {
  return {
    id: u.id,
    user_id: u.userId,
    name: u.name,
    username: u.username,
    user_type: userType(u.role),
    user_type_name: roleName(u.role),
    email: u.email,
    role: u.role,
    role_name: roleName(u.role),
    current_tenant_name: u.tenant.name,
    current_tenant_id: u.tenantId,
    location_id: u.locationId,
    location_name: u.location?.name ?? null,
    status: u.status,
    is_trashed: u.isTrashed,
    locale: u.locale,
  };
}

/** Create and update responses add `api_token`, always null (tokens are issued by the operator). */
export function userDetail(u: UserItemRow) {
  return { ...userItem(u), api_token: null };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

const userProperties = {
  id: Id(),
  user_id: Int(),
  name: Str(),
  username: Str(),
  user_type: Int(),
  user_type_name: Str(),
  email: Str(),
  role: Str(),
  role_name: Str(),
  current_tenant_name: Str(),
  current_tenant_id: Id(),
  location_id: Nullable(Id()),
  location_name: Nullable(Str()),
  status: IntEnum([0, 1, 2], '0 Passive, 1 Active, 2 Banned'),
  is_trashed: Bool(),
  locale: Str(),
};

export const UserItemSchema = Obj(userProperties, 'User');
export const UserDetailSchema = Obj(
  {
    ...userProperties,
    api_token: Type.Null({
      description:
        'Always null: a token is issued apart (`POST /api-tokens`, or the operator’s `admin token issue`).',
    }),
  },
  'UserDetail',
);

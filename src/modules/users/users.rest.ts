// REST endpoints of spec 4.7: the user operations (users.service.ts) with REST's paging, status and
// serializers.
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { DataBody } from '../../rest/schemas.js';
import { UserDetailSchema, UserItemSchema, userDetail, userItem } from './users.serializer.js';
import {
  activateUser,
  countUsers,
  createUser,
  deactivateUser,
  listUsers,
  updateUser,
  userItemSelect,
  usersQuery,
} from './users.service.js';

export const list = listEndpointOf(usersQuery, {
  summary: 'List the users of the current tenant (name, email, page, per_page)',
  item: UserItemSchema,
  read: (ctx, q, page) => listUsers(ctx, q, { ...page, select: userItemSelect }),
  serialize: userItem,
});

export const count = countEndpointOf(usersQuery, {
  summary: 'Count the users of the current tenant (name, email)',
  count: countUsers,
});

// The documented body is a tenant admin's (docsOnly's scope is not pinned): a venue admin may give
// only venue and front-desk.
export const create = endpointOf(createUser, {
  summary: 'Create a dashboard user',
  response: DataBody(UserDetailSchema),
  answer: (user) => ({ data: userDetail(user) }),
});

export const update = endpointOf(updateUser, {
  summary: 'Update a dashboard user',
  response: DataBody(UserDetailSchema),
  answer: (user) => ({ data: userDetail(user) }),
});

// No input: the body is not read (nor documented), as before; the query string has no rules either.
export const deactivate = endpointOf(deactivateUser, {
  summary: 'Deactivate a user (status 0 Passive)',
  status: 204,
  from: 'query',
  answer: () => undefined,
});

export const activate = endpointOf(activateUser, {
  summary: 'Activate a user (status 1 Active)',
  status: 204,
  from: 'query',
  answer: () => undefined,
});

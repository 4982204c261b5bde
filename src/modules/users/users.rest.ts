// REST endpoints of spec 4.7: validate paging, call one service function, serialize.
import { countEndpoint, docsOnly, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { DataBody } from '../../rest/schemas.js';
import { userFilterRules, userWriteRules } from './users.inputs.js';
import { pinnedRoles } from './users.roles.js';
import { UserDetailSchema, UserItemSchema, userDetail, userItem } from './users.serializer.js';
import {
  ACTIVE,
  countUsers,
  createUser,
  listUsersWithNames,
  PASSIVE,
  setUserStatus,
  updateUser,
} from './users.service.js';

export const list = listEndpoint({
  summary: 'List the users of the current tenant (name, email, page, per_page)',
  action: 'users.list',
  item: UserItemSchema,
  filters: userFilterRules,
  list: listUsersWithNames,
  serialize: userItem,
});

export const count = countEndpoint({
  summary: 'Count the users of the current tenant (name, email)',
  action: 'users.list',
  filters: userFilterRules,
  count: countUsers,
});

export const create: Endpoint = {
  summary: 'Create a dashboard user',
  action: 'users.create',
  // A tenant admin's choice of roles; a venue admin may give only venue and front-desk.
  body: () =>
    userWriteRules(docsOnly.prisma, docsOnly.scope, { assignableRoles: ['tenant', ...pinnedRoles] }),
  response: DataBody(UserDetailSchema),
  async handle({ ctx, body }) {
    return { data: userDetail(await createUser(ctx, body)) };
  },
};

export const update: Endpoint = {
  summary: 'Update a dashboard user',
  action: 'users.update',
  body: () =>
    userWriteRules(docsOnly.prisma, docsOnly.scope, {
      exceptId: '(docs)',
      assignableRoles: ['tenant', ...pinnedRoles],
    }),
  response: DataBody(UserDetailSchema),
  async handle({ ctx, params, body }) {
    return { data: userDetail(await updateUser(ctx, params.id ?? '', body)) };
  },
};

export const deactivate: Endpoint = {
  summary: 'Deactivate a user (status 0 Passive)',
  action: 'users.activate',
  status: 204,
  async handle({ ctx, params }) {
    await setUserStatus(ctx, params.id ?? '', PASSIVE);
    return undefined;
  },
};

export const activate: Endpoint = {
  summary: 'Activate a user (status 1 Active)',
  action: 'users.activate',
  status: 204,
  async handle({ ctx, params }) {
    await setUserStatus(ctx, params.id ?? '', ACTIVE);
    return undefined;
  },
};

// Dashboard users in the graph: `viewer` (the caller, its tenant, role and allowed actions), the
// `users` connection with the REST filters and a total count, and the create/update/deactivate/
// activate mutations. Resolvers run the same operations as REST (users.service.ts).
import { allowedActions, permits, requires } from '../../auth/permissions.js';
import type { Role } from '../../auth/principal.js';
import { toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import { execute } from '../../operations/operation.js';
import { roleName, userType } from './users.roles.js';
import {
  activateUser,
  countUsers,
  createUser,
  deactivateUser,
  listUsers,
  updateUser,
  usersQuery,
  viewer,
  viewerUser,
} from './users.service.js';

/** As REST's `per_page`. */
const MAX_PAGE_SIZE = 100;

builder.prismaObject('User', {
  description: 'A dashboard user. The password hash is never exposed.',
  fields: (t) => ({
    id: t.exposeID('id'),
    userId: t.exposeInt('userId'),
    name: t.exposeString('name'),
    username: t.exposeString('username'),
    email: t.exposeString('email'),
    userType: t.int({
      description: '1 tenant, 2 venue, 3 front-desk, 4 support',
      resolve: (u) => userType(u.role),
    }),
    userTypeName: t.string({ resolve: (u) => roleName(u.role) }),
    role: t.exposeString('role', { description: '`tenant`, `venue`, `front-desk` or `support`' }),
    roleName: t.string({ resolve: (u) => roleName(u.role) }),
    status: t.exposeInt('status', { description: '0 Passive, 1 Active, 2 Banned' }),
    isTrashed: t.exposeBoolean('isTrashed'),
    locale: t.exposeString('locale'),
    currentTenantId: t.exposeString('tenantId'),
    currentTenant: t.relation('tenant'),
    locationId: t.exposeString('locationId', { nullable: true }),
    location: t.relation('location', { nullable: true }),
    permissions: t.exposeStringList('permissions', { description: 'Extra permissions beyond the role' }),
    allowedActions: t.stringList({
      description:
        'The actions of the permission table this user’s role may perform; for the caller (`viewer`), those its token’s scopes allow too (a `read` token: the reads)',
      // The caller's own: what authorize() lets this token do, so a dashboard shows no button that
      // answers 403 (probe O: a `read` token was listed every write of its role).
      resolve: (u, _args, ctx) =>
        u.id === ctx.principal.userId
          ? allowedActions(u.role as Role).filter((a) => permits(ctx.principal, a))
          : allowedActions(u.role as Role),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

// Written by hand: `passwordConfirmation` is read by the `confirmed` rule of `password`, not a field
// of its own, so the operation's fields would leave it out.
const UserInput = builder.inputType('UserInput', {
  description:
    'Checked by the same rules as REST `POST /users` and `PUT /users/:id` (on update the password is optional).',
  fields: (t) => ({
    name: t.string(),
    email: t.string(),
    role: t.string({ description: '`tenant`, `venue` or `front-desk`' }),
    password: t.string(),
    passwordConfirmation: t.string(),
    status: t.int({ description: '0 Passive, 1 Active, 2 Banned' }),
    locationId: t.string({ description: 'Required when role is `venue` or `front-desk`' }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.prismaField({
    ...requires(viewer.action),
    type: 'User',
    description: 'The caller: its fields, `currentTenant`, `role` and `allowedActions`.',
    resolve: (query, _root, _args, ctx) => viewerUser(ctx, query),
  }),
  users: t.prismaConnection({
    ...listConnection(usersQuery, MAX_PAGE_SIZE),
    type: 'User',
    description: 'Users whose current tenant is the caller’s, oldest first (REST `GET /users`).',
    args: argsOf(usersQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      return listUsers(ctx, await listQueryOf(usersQuery, ctx, args), query);
    },
    totalCount: async (_root, args, ctx) => {
      return countUsers(ctx, await listQueryOf(usersQuery, ctx, args));
    },
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.prismaField({
    ...requires(createUser.action),
    type: 'User',
    args: { input: t.arg({ type: UserInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const created = await execute(createUser, ctx, toRestInput(args.input));
      return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  }),
  updateUser: t.prismaField({
    ...requires(updateUser.action),
    type: 'User',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UserInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const updated = await execute(updateUser, ctx, toRestInput(args.input), String(args.id));
      return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  }),
  deactivateUser: t.prismaField({
    ...requires(deactivateUser.action),
    type: 'User',
    description: 'Status 0 Passive: the user’s tokens answer 401 from the next request.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const user = await execute(deactivateUser, ctx, {}, String(args.id));
      return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: user.id } });
    },
  }),
  activateUser: t.prismaField({
    ...requires(activateUser.action),
    type: 'User',
    description: 'Status 1 Active.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const user = await execute(activateUser, ctx, {}, String(args.id));
      return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: user.id } });
    },
  }),
}));

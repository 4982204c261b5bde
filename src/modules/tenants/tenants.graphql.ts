// Tenants in the graph: the `tenants` connection of the caller's group with the REST filters and a
// total count, and the create/update/deactivate/activate/switch mutations. Resolvers run the same
// operations as REST (tenants.service.ts).
import { requires } from '../../auth/permissions.js';
import { toRestInput } from '../../graphql/args.js';
import { builder, type SchemaTypes } from '../../graphql/builder.js';
import {
  argsOf,
  inputTypeOf,
  listConnection,
  listQueryOf,
  restInputOf,
} from '../../graphql/operation-fields.js';
import { docsOnly, execute, fieldsOf } from '../../operations/operation.js';
import { countryName } from '../../validation/countries.js';
import {
  activateTenant,
  countTenants,
  createTenant,
  deactivateTenant,
  listTenants,
  switchTenant,
  tenantsQuery,
  updateTenant,
} from './tenants.service.js';

/** As REST's `per_page`. */
const MAX_PAGE_SIZE = 100;

export const TenantType = builder.prismaObject('Tenant', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    address: t.exposeString('address', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    postCode: t.exposeString('postCode', { nullable: true }),
    countryCode: t.exposeString('countryCode', { nullable: true }),
    countryName: t.string({
      nullable: true,
      description: 'English short name of `countryCode`',
      resolve: (tenant) => (tenant.countryCode ? countryName(tenant.countryCode) : null),
    }),
    isTrashed: t.exposeBoolean('isTrashed'),
    groupId: t.exposeString('groupId'),
    groupName: t.string({
      select: { group: { select: { name: true } } },
      resolve: (tenant) => tenant.group.name,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const TenantInput = inputTypeOf(
  'TenantInput',
  'Checked by the same rules as REST `POST /tenants` (name is required, at least 5 characters).',
  fieldsOf(createTenant, docsOnly),
);

builder.queryFields((t) => ({
  tenants: t.prismaConnection({
    ...listConnection(tenantsQuery, MAX_PAGE_SIZE),
    type: 'Tenant',
    description: 'Tenants of the caller’s group, oldest first (REST `GET /tenants`).',
    args: argsOf(tenantsQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      return listTenants(ctx, await listQueryOf(tenantsQuery, ctx, args), query);
    },
    totalCount: async (_root, args, ctx) => {
      return countTenants(ctx, await listQueryOf(tenantsQuery, ctx, args));
    },
  }),
}));

/** `deactivateTenant` / `activateTenant`: one shape, the target state differs. */
function trashMutation(
  t: PothosSchemaTypes.MutationFieldBuilder<SchemaTypes, unknown>,
  op: typeof deactivateTenant,
  trashed: boolean,
) {
  const fields = fieldsOf(op, docsOnly);
  return t.prismaField({
    ...requires(op.action),
    type: 'Tenant',
    description: `${trashed ? 'Trashes' : 'Restores'} a tenant; with \`userStatus\` its users (support users excepted) take that status.`,
    args: { id: t.arg.id({ required: true }), ...argsOf(fields) },
    resolve: async (query, _root, args, ctx) => {
      const tenant = await execute(op, ctx, restInputOf(fields, args), String(args.id));
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: tenant.id } });
    },
  });
}

builder.mutationFields((t) => ({
  createTenant: t.prismaField({
    ...requires(createTenant.action),
    type: 'Tenant',
    description: 'Creates a tenant in the caller’s group and moves the caller to it (REST `POST /tenants`).',
    args: { input: t.arg({ type: TenantInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const created = await execute(createTenant, ctx, toRestInput(args.input));
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  }),
  updateTenant: t.prismaField({
    ...requires(updateTenant.action),
    type: 'Tenant',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TenantInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const updated = await execute(updateTenant, ctx, toRestInput(args.input), String(args.id));
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  }),
  deactivateTenant: trashMutation(t, deactivateTenant, true),
  activateTenant: trashMutation(t, activateTenant, false),
  switchTenant: t.prismaField({
    ...requires(switchTenant.action),
    type: 'Tenant',
    description: 'Makes this tenant of the caller’s group the caller’s current tenant; returns it.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const tenant = await execute(switchTenant, ctx, {}, String(args.id));
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: tenant.id } });
    },
  }),
}));

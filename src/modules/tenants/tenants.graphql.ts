// Tenants in the graph: the `tenants` connection of the caller's group with the REST filters and a
// total count, and the create/update/deactivate/activate/switch mutations. Resolvers call the same
// service functions as REST.
import { requires } from '../../auth/permissions.js';
import { assertPageSize, toRestInput } from '../../graphql/args.js';
import { builder, type SchemaTypes } from '../../graphql/builder.js';
import { countryName } from '../../validation/countries.js';
import {
  countTenants,
  createTenant,
  listTenants,
  setTenantTrashed,
  switchTenant,
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

const TenantInput = builder.inputType('TenantInput', {
  description: 'Checked by the same rules as REST `POST /tenants` (name is required, at least 5 characters).',
  fields: (t) => ({
    name: t.string(),
    countryCode: t.string({ description: 'ISO 3166-1 alpha-2, upper case' }),
    city: t.string(),
    address: t.string(),
    postCode: t.string(),
    description: t.string(),
  }),
});

const filters = (args: { name?: string | null; description?: string | null }) =>
  toRestInput({ name: args.name, description: args.description });

builder.queryFields((t) => ({
  tenants: t.prismaConnection({
    ...requires('tenants.list'),
    type: 'Tenant',
    cursor: 'id',
    maxSize: MAX_PAGE_SIZE,
    defaultSize: 10,
    description: 'Tenants of the caller’s group, oldest first (REST `GET /tenants`).',
    args: {
      name: t.arg.string({ description: 'The full name, case-insensitive' }),
      description: t.arg.string({ description: 'Case-insensitive substring of the description' }),
    },
    resolve: (query, _root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return listTenants(ctx, filters(args), query);
    },
    totalCount: (_root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return countTenants(ctx, filters(args));
    },
  }),
}));

/** `deactivateTenant` / `activateTenant`: one shape, the target state differs. */
function trashMutation(t: PothosSchemaTypes.MutationFieldBuilder<SchemaTypes, unknown>, trashed: boolean) {
  return t.prismaField({
    ...requires('tenants.activate'),
    type: 'Tenant',
    description: `${trashed ? 'Trashes' : 'Restores'} a tenant; with \`userStatus\` its users (support users excepted) take that status.`,
    args: {
      id: t.arg.id({ required: true }),
      userStatus: t.arg.int({ description: '0 Passive, 1 Active, 2 Banned' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const tenant = await setTenantTrashed(
        ctx,
        String(args.id),
        trashed,
        toRestInput({ userStatus: args.userStatus }),
      );
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: tenant.id } });
    },
  });
}

builder.mutationFields((t) => ({
  createTenant: t.prismaField({
    ...requires('tenants.create'),
    type: 'Tenant',
    description: 'Creates a tenant in the caller’s group and moves the caller to it (REST `POST /tenants`).',
    args: { input: t.arg({ type: TenantInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const created = await createTenant(ctx, toRestInput(args.input));
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  }),
  updateTenant: t.prismaField({
    ...requires('tenants.update'),
    type: 'Tenant',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TenantInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const updated = await updateTenant(ctx, String(args.id), toRestInput(args.input));
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  }),
  deactivateTenant: trashMutation(t, true),
  activateTenant: trashMutation(t, false),
  switchTenant: t.prismaField({
    ...requires('tenants.switch'),
    type: 'Tenant',
    description: 'Makes this tenant of the caller’s group the caller’s current tenant; returns it.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const tenant = await switchTenant(ctx, String(args.id));
      return ctx.prisma.tenant.findUniqueOrThrow({ ...query, where: { id: tenant.id } });
    },
  }),
}));

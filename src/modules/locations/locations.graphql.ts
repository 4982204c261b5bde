// Locations in the graph: Location → Building → Floor → Zone, the `locations` connection with the
// REST filters and a total count, and the create/update mutations. Resolvers call the same service
// functions as REST.

import { requires } from '../../auth/permissions.js';
import { toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, inputTypeOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import { docsOnly, execute, fieldsOf } from '../../operations/operation.js';
import { scaleFloorDimensions, zonePoints } from './locations.geometry.js';
import {
  buildingScopeOf,
  countLocations,
  createLocation,
  findLocation,
  listLocations,
  locationsQuery,
  updateLocation,
  viewLocation,
} from './locations.service.js';

/** As REST's `per_page`. */
const MAX_PAGE_SIZE = 100;

const Point = builder.objectRef<{ x: number; y: number }>('Point').implement({
  description: 'A vertex of a zone polygon, in floor meters',
  fields: (t) => ({ x: t.exposeFloat('x'), y: t.exposeFloat('y') }),
});

const FloorImage = builder
  .objectRef<{ name: string | null; width: number | null; height: number | null }>('FloorImage')
  .implement({
    fields: (t) => ({
      name: t.exposeString('name', { nullable: true, description: 'URL of the floor-plan image' }),
      width: t.exposeInt('width', { nullable: true }),
      height: t.exposeInt('height', { nullable: true }),
    }),
  });

const Dimensions = builder.objectRef<{ width: number; length: number }>('FloorDimensions').implement({
  description: 'Floor size in meters',
  fields: (t) => ({ width: t.exposeFloat('width'), length: t.exposeFloat('length') }),
});

builder.prismaObject('Zone', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    coordinates: t.field({ type: [Point], resolve: (z) => zonePoints(z.coordinates) }),
  }),
});

builder.prismaObject('Floor', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    level: t.exposeInt('level'),
    image: t.field({
      type: FloorImage,
      resolve: (f) => ({ name: f.imageUrl, width: f.imageWidth, height: f.imageHeight }),
    }),
    dimensions: t.field({
      type: Dimensions,
      args: {
        scaled: t.arg.boolean({ defaultValue: false, description: 'Scale grids over 3000 cells down' }),
      },
      resolve: (f, args) =>
        args.scaled ? scaleFloorDimensions(f.width, f.length) : { width: f.width, length: f.length },
    }),
    zones: t.relation('zones', {
      query: (_args, ctx) => ({
        where: { tenantId: ctx.principal.tenantId },
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
      }),
    }),
  }),
});

builder.prismaObject('Building', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    lat: t.exposeFloat('lat', { nullable: true }),
    lng: t.exposeFloat('lng', { nullable: true }),
    floors: t.relation('floors', {
      query: (_args, ctx) => ({
        where: { tenantId: ctx.principal.tenantId },
        orderBy: [{ level: 'asc' }, { id: 'asc' }],
      }),
    }),
  }),
});

export const LocationType = builder.prismaObject('Location', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    address: t.exposeString('address', { nullable: true }),
    postCode: t.exposeString('postCode', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    state: t.exposeString('state', { nullable: true }),
    countryCode: t.exposeString('countryCode', { nullable: true }),
    lat: t.exposeFloat('lat', { nullable: true }),
    lng: t.exposeFloat('lng', { nullable: true }),
    timezone: t.exposeString('timezone'),
    smartLogin: t.exposeInt('smartLogin', { nullable: true }),
    smartLoginFrequency: t.exposeInt('smartLoginFrequency', { nullable: true }),
    smartLoginFrequencyType: t.exposeInt('smartLoginFrequencyType', { nullable: true }),
    loginPageId: t.exposeString('loginPageId', { nullable: true }),
    loginPageName: t.exposeString('loginPageName', { nullable: true }),
    postLoginPageId: t.exposeString('postLoginPageId', { nullable: true }),
    postLoginPageName: t.exposeString('postLoginPageName', { nullable: true }),
    isTrashed: t.exposeBoolean('isTrashed'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    // Floors and zones hang under the buildings, so the pinned location applies here for all three.
    buildings: t.relation('buildings', {
      query: (_args, ctx) => ({
        where: buildingScopeOf(ctx),
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      }),
    }),
  }),
});

const LocationInput = inputTypeOf(
  'LocationInput',
  'Every field is checked by the same rules as REST `POST /locations` (name is required).',
  fieldsOf(createLocation, docsOnly),
);

builder.queryFields((t) => ({
  locations: t.prismaConnection({
    ...listConnection(locationsQuery, MAX_PAGE_SIZE),
    type: 'Location',
    description: 'Locations of the current tenant, oldest first (REST `GET /locations`).',
    args: argsOf(locationsQuery.filters),
    // Adds `totalCount` to the connection, counted with the same filters.
    resolve: async (query, _root, args, ctx) => {
      return listLocations(ctx, await listQueryOf(locationsQuery, ctx, args), query);
    },
    // Without `edges` in the selection `resolve` does not run, so the page size is checked here too.
    totalCount: async (_root, args, ctx) => {
      return countLocations(ctx, await listQueryOf(locationsQuery, ctx, args));
    },
  }),
  location: t.prismaField({
    ...requires(viewLocation.action),
    type: 'Location',
    nullable: true,
    description: 'One location of the current tenant (active or trashed), or null.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => findLocation(ctx, String(args.id), query),
  }),
}));

builder.mutationFields((t) => ({
  createLocation: t.prismaField({
    ...requires(createLocation.action),
    type: 'Location',
    args: { input: t.arg({ type: LocationInput, required: true }) },
    resolve: async (query, _root, args, ctx, info) => {
      await ctx.fieldGuard?.check('createLocation', ctx.principal.tokenId, info);
      const created = await execute(createLocation, ctx, toRestInput(args.input));
      return ctx.prisma.location.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  }),
  updateLocation: t.prismaField({
    ...requires(updateLocation.action),
    type: 'Location',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: LocationInput, required: true }) },
    resolve: async (query, _root, args, ctx, info) => {
      await ctx.fieldGuard?.check('updateLocation', ctx.principal.tokenId, info);
      const updated = await execute(updateLocation, ctx, toRestInput(args.input), String(args.id));
      return ctx.prisma.location.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  }),
}));

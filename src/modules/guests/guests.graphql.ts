// Guests in the graph: the Guest type (colleagues add `devices` and `sessions` from their own files),
// `Location.guests`, the root `guests` connection with REST's filters and a total count, `guest(id)`
// and the create/update mutations. Resolvers call the same service functions as REST.

import DataLoader from 'dataloader';
import { requires } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { assertPageSize, connectionPage, toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, inputTypeOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import { docsOnly, execute, fieldsOf } from '../../operations/operation.js';
import { dateOnly } from '../../shared/format.js';
import { genderName } from '../../shared/labels.js';
import { avatarUrl } from '../../storage/storage.js';
import { countryName } from '../../validation/countries.js';
import {
  type Beacon,
  countGuests,
  createGuest,
  findGuest,
  guestOrder,
  guestScopeOf,
  guestsQuery,
  latestBeacons,
  listGuests,
  tagsQuery,
  updateGuest,
  viewGuest,
} from './guests.service.js';

/** As REST's `per_page`. */
const MAX_PAGE_SIZE = 100;

const BeaconRef = builder.objectRef<Beacon>('Beacon').implement({
  description: "A guest's latest BLE presence record (REST `withBeacon`)",
  fields: (t) => ({
    macAddress: t.exposeString('mac'),
    locationId: t.exposeString('locationId', { nullable: true }),
    buildingId: t.exposeString('buildingId', { nullable: true }),
    floorId: t.exposeString('floorId', { nullable: true }),
    zoneId: t.exposeString('zoneId', { nullable: true }),
    zone: t.exposeString('zone', { nullable: true }),
    x: t.exposeFloat('x', { nullable: true }),
    y: t.exposeFloat('y', { nullable: true }),
    lastSeen: t.expose('seenAt', { type: 'DateTime' }),
  }),
});

// One loader per request: a page of guests asks for its beacons in one statement.
const beaconLoaders = new WeakMap<AppContext, DataLoader<string, Beacon | null>>();
function beaconOf(ctx: AppContext, guestId: string): Promise<Beacon | null> {
  let loader = beaconLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const found = await latestBeacons(ctx, ids);
      return ids.map((id) => found.get(id) ?? null);
    });
    beaconLoaders.set(ctx, loader);
  }
  return loader.load(guestId);
}

export const GuestType = builder.prismaObject('Guest', {
  // Select mode: a query reads only the columns its fields need (exposed fields select their own
  // column; computed fields declare theirs), not all 47 (see bench/RESULTS.md).
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeInt('type', { description: '1 guest, 2 employee' }),
    username: t.exposeString('username'),
    name: t.exposeString('name'),
    firstName: t.exposeString('firstName', { nullable: true }),
    lastName: t.exposeString('lastName', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    birthDate: t.string({
      nullable: true,
      description: '`yyyy-mm-dd`',
      select: { birthDate: true },
      resolve: (g) => dateOnly(g.birthDate),
    }),
    gender: t.exposeInt('gender', { description: '0 Unknown, 1 Male, 2 Female' }),
    genderName: t.string({ select: { gender: true }, resolve: (g) => genderName(g.gender) }),
    phone: t.exposeString('phone', { nullable: true }),
    passportNo: t.exposeString('passportNo', { nullable: true }),
    nationality: t.string({
      nullable: true,
      description: 'Country name of `nationalityCode`',
      select: { nationalityCode: true },
      resolve: (g) => (g.nationalityCode ? countryName(g.nationalityCode) : null),
    }),
    nationalityCode: t.exposeString('nationalityCode', { nullable: true }),
    residency: t.string({
      nullable: true,
      description: 'Country name of `residencyCode`',
      select: { residencyCode: true },
      resolve: (g) => (g.residencyCode ? countryName(g.residencyCode) : null),
    }),
    residencyCode: t.exposeString('residencyCode', { nullable: true }),
    roomNo: t.exposeString('roomNo', { nullable: true }),
    reservationNo: t.exposeString('reservationNo', { nullable: true }),
    hotelStatus: t.exposeInt('hotelStatus', {
      nullable: true,
      description: 'null N/A, 0 Check-out, 1 Check-in',
    }),
    socialId: t.exposeString('socialId', { nullable: true }),
    partnerId: t.exposeString('partnerId', { nullable: true }),
    customField1: t.exposeString('customField1', { nullable: true }),
    customField2: t.exposeString('customField2', { nullable: true }),
    customField3: t.exposeString('customField3', { nullable: true }),
    customData: t.exposeString('customData', { nullable: true, description: 'JSON text' }),
    online: t.exposeBoolean('online'),
    locationId: t.exposeString('locationId'),
    location: t.relation('location'),
    lastVisitDate: t.expose('lastVisitDate', { type: 'DateTime', nullable: true }),
    lastAttemptTime: t.expose('lastAttemptTime', { type: 'DateTime', nullable: true }),
    visitCount: t.exposeInt('visitCount'),
    receiveMarketing: t.exposeInt('receiveMarketing', { description: '0 opted-out, 1 opted-in' }),
    lastLoginType: t.exposeString('lastLoginType', { nullable: true }),
    connectionStatus: t.exposeInt('connectionStatus'),
    lastConnectionTime: t.expose('lastConnectionTime', { type: 'DateTime', nullable: true }),
    lastSsidName: t.exposeString('lastSsidName', { nullable: true }),
    connectionMethod: t.exposeString('connectionMethod', { nullable: true }),
    totalDownloadedData: t.float({
      description: 'bytes',
      select: { totalDownloadedData: true },
      resolve: (g) => Number(g.totalDownloadedData),
    }),
    totalUploadedData: t.float({
      description: 'bytes',
      select: { totalUploadedData: true },
      resolve: (g) => Number(g.totalUploadedData),
    }),
    directLogin: t.exposeInt('directLogin', { description: '0 disabled, 1 enabled' }),
    vendor: t.exposeString('vendor', { nullable: true }),
    phoneVerifiedAt: t.expose('phoneVerifiedAt', { type: 'DateTime', nullable: true }),
    whatsappVerifiedAt: t.expose('whatsappVerifiedAt', { type: 'DateTime', nullable: true }),
    emailVerifiedAt: t.expose('emailVerifiedAt', { type: 'DateTime', nullable: true }),
    smartLogin: t.exposeString('smartLogin'),
    imageUrl: t.string({
      nullable: true,
      description: 'URL of the avatar',
      select: { imagePath: true },
      resolve: (g, _args, ctx) => avatarUrl(ctx.config, g.imagePath),
    }),
    checkinDate: t.expose('checkinDate', { type: 'DateTime', nullable: true }),
    checkoutDate: t.expose('checkoutDate', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    beacon: t.field({
      type: BeaconRef,
      nullable: true,
      description: 'The latest BLE presence record of any of its devices (REST `withBeacon`)',
      resolve: (g, _args, ctx) => beaconOf(ctx, g.id),
    }),
    // Selected with the guests themselves: one statement for a whole page, never one per guest.
    tags: t.field({
      type: ['String'],
      description: 'Tag names, by name',
      select: (_args, ctx) => ({ tags: tagsQuery(ctx.principal.tenantId) }),
      resolve: (g) => g.tags.map((gt) => gt.tag.name),
    }),
  }),
});

builder.prismaObjectFields('Location', (t) => ({
  guests: t.relatedConnection('guests', {
    ...connectionPage(MAX_PAGE_SIZE),
    description: "The location's guests, oldest first (none for a pinned caller at another location).",
    query: (args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return { where: guestScopeOf(ctx), orderBy: guestOrder(false) };
    },
    totalCount: true,
  }),
}));

builder.queryFields((t) => ({
  guests: t.prismaConnection({
    ...listConnection(guestsQuery, MAX_PAGE_SIZE),
    type: 'Guest',
    description: 'Guests of the current tenant, oldest first (REST `GET /guests`, the same filters).',
    args: argsOf(guestsQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      return listGuests(ctx, await listQueryOf(guestsQuery, ctx, args), query);
    },
    totalCount: async (_root, args, ctx) => {
      return countGuests(ctx, await listQueryOf(guestsQuery, ctx, args));
    },
  }),
  guest: t.prismaField({
    ...requires(viewGuest.action),
    type: 'Guest',
    nullable: true,
    description: 'One guest of the current tenant, or null.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => findGuest(ctx, String(args.id), query),
  }),
}));

export const GuestCreateInput = inputTypeOf(
  'GuestCreateInput',
  'Checked by the same rules as REST `POST /guests`.',
  fieldsOf(createGuest, docsOnly),
);

const GuestUpdateInput = inputTypeOf(
  'GuestUpdateInput',
  'Checked by the same rules as REST `PUT /guests/:id`. Moving the guest to another location needs `guests.manage-global`.',
  fieldsOf(updateGuest, docsOnly),
);

builder.mutationFields((t) => ({
  createGuest: t.prismaField({
    ...requires(createGuest.action),
    type: 'Guest',
    args: { input: t.arg({ type: GuestCreateInput, required: true }) },
    resolve: async (query, _root, args, ctx, info) => {
      await ctx.fieldGuard?.check('createGuest', ctx.principal.tokenId, info);
      const created = await execute(createGuest, ctx, toRestInput(args.input));
      return ctx.prisma.guest.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  }),
  updateGuest: t.prismaField({
    ...requires(updateGuest.action),
    type: 'Guest',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: GuestUpdateInput, required: true }) },
    resolve: async (query, _root, args, ctx, info) => {
      await ctx.fieldGuard?.check('updateGuest', ctx.principal.tokenId, info);
      const updated = await execute(updateGuest, ctx, toRestInput(args.input), String(args.id));
      return ctx.prisma.guest.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  }),
}));

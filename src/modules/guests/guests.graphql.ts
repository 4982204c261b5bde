// Guests in the graph: the Guest type (colleagues add `devices` and `sessions` from their own files),
// `Location.guests`, the root `guests` connection with REST's filters and a total count, `guest(id)`
// and the create/update mutations. Resolvers call the same service functions as REST.

import DataLoader from 'dataloader';
import { requires } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { assertPageSize, relationPage, toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
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
  latestBeacons,
  listGuests,
  tagsQuery,
  updateGuest,
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
    ...relationPage(MAX_PAGE_SIZE),
    description: "The location's guests, oldest first (none for a pinned caller at another location).",
    query: (args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return { where: guestScopeOf(ctx), orderBy: guestOrder(false) };
    },
    totalCount: true,
  }),
}));

const filterArgs = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0]) => ({
  username: t.arg.string({ description: 'Case-insensitive substring' }),
  partnerId: t.arg.string({ description: 'Exact' }),
  name: t.arg.string({ description: 'Case-insensitive substring of the full name' }),
  email: t.arg.string({ description: 'Case-insensitive substring' }),
  birthDate: t.arg.string({ description: '`yyyy-mm-dd`' }),
  locationId: t.arg.string(),
  gender: t.arg.string({ description: '`male` or `female`' }),
  phone: t.arg.string({ description: 'Case-insensitive substring' }),
  passportNo: t.arg.string({ description: 'Exact' }),
  nationality: t.arg.string({ description: 'ISO 3166-1 alpha-2' }),
  roomNo: t.arg.string({ description: 'Exact' }),
  reservationNo: t.arg.string({ description: 'Exact' }),
  customField1: t.arg.string({ description: 'Exact' }),
  customField2: t.arg.string({ description: 'Exact' }),
  customField3: t.arg.string({ description: 'Exact' }),
  online: t.arg.boolean(),
  lastVisitDate: t.arg.string({
    description: '`YYYY-MM-DD` (that day and the six after) or `YYYY-MM-DD,YYYY-MM-DD` (at most one month)',
  }),
  receiveMarketing: t.arg.int({ description: '0 opted-out, 1 opted-in' }),
  createdAt: t.arg.string({ description: 'Created on or after this day, `yyyy-mm-dd`' }),
  updatedAt: t.arg.string({ description: 'Updated on or after this day, `yyyy-mm-dd`' }),
  lastGuestFirst: t.arg.boolean({ description: 'Newest first' }),
  type: t.arg.int({ description: '1 guest, 2 employee; null or omitted: all' }),
});

/** The filter arguments only (not the connection's paging arguments), as REST names. */
function filters(args: object): Record<string, unknown> {
  const { first: _f, last: _l, before: _b, after: _a, ...rest } = args as Record<string, unknown>;
  return toRestInput(rest);
}

builder.queryFields((t) => ({
  guests: t.prismaConnection({
    ...requires('guests.list'),
    type: 'Guest',
    cursor: 'id',
    maxSize: MAX_PAGE_SIZE,
    defaultSize: 10,
    description: 'Guests of the current tenant, oldest first (REST `GET /guests`, the same filters).',
    args: filterArgs(t),
    resolve: (query, _root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return listGuests(ctx, filters(args), query);
    },
    totalCount: (_root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return countGuests(ctx, filters(args));
    },
  }),
  guest: t.prismaField({
    ...requires('guests.view'),
    type: 'Guest',
    nullable: true,
    description: 'One guest of the current tenant, or null.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => findGuest(ctx, String(args.id), query),
  }),
}));

const commonInputFields = {
  locationId: 'Required; a location of the tenant',
  name: 'Full name',
  firstName: null,
  lastName: null,
  email: 'Unique within the tenant',
  birthDate: '`yyyy-mm-dd`',
  birthday: 'Alias of birthDate',
  phone: null,
  passportNo: null,
  nationality: 'ISO 3166-1 alpha-2',
  residency: 'ISO 3166-1 alpha-2',
  reservationNo: null,
  partnerId: null,
  customData: 'JSON text',
  customField1: null,
  customField2: null,
  customField3: null,
  avatar: '`data:image/(png|jpeg|gif|webp);base64,…`, at most 2048 KB (the 1 MiB GraphQL body limit applies)',
} as const;

const GuestCreateInput = builder.inputType('GuestCreateInput', {
  description: 'Checked by the same rules as REST `POST /guests`.',
  fields: (t) => ({
    ...Object.fromEntries(
      Object.entries(commonInputFields).map(([k, d]) => [k, t.string(d ? { description: d } : {})]),
    ),
    gender: t.string({ description: '`male` or `female`' }),
    roomNo: t.string(),
    hotelStatus: t.int({ description: 'null N/A, 0 Check-out, 1 Check-in' }),
    directLogin: t.int({ description: '0 disabled, 1 enabled' }),
    tags: t.stringList({ description: 'Tag names; missing tags are created' }),
    tagType: t.int({ description: 'Type of the tags created' }),
    marketingConsent: t.int({ description: '0 opted-out, 1 opted-in' }),
  }),
});

const GuestUpdateInput = builder.inputType('GuestUpdateInput', {
  description:
    'Checked by the same rules as REST `PUT /guests/:id`. Moving the guest to another location needs `guests.manage-global`.',
  fields: (t) => ({
    ...Object.fromEntries(
      Object.entries(commonInputFields).map(([k, d]) => [k, t.string(d ? { description: d } : {})]),
    ),
    gender: t.int({ description: '0 Unknown, 1 Male, 2 Female' }),
    roomNo: t.int({ description: '1 to 9999' }),
    hotelStatus: t.int({ description: 'null N/A, 0 Check-out, 1 Check-in' }),
    directLogin: t.int({ description: '0 disabled, 1 enabled' }),
    tags: t.stringList({ description: 'Tag names (replace the current ones); missing tags are created' }),
    tagType: t.int({ description: 'Type of the tags created' }),
    marketingConsent: t.int({ description: '0 opted-out, 1 opted-in' }),
  }),
});

builder.mutationFields((t) => ({
  createGuest: t.prismaField({
    ...requires('guests.create'),
    type: 'Guest',
    args: { input: t.arg({ type: GuestCreateInput, required: true }) },
    resolve: async (query, _root, args, ctx, info) => {
      await ctx.fieldGuard?.check('createGuest', ctx.principal.tokenId, info);
      const created = await createGuest(ctx, toRestInput(args.input));
      return ctx.prisma.guest.findUniqueOrThrow({ ...query, where: { id: created.id } });
    },
  }),
  updateGuest: t.prismaField({
    ...requires('guests.update'),
    type: 'Guest',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: GuestUpdateInput, required: true }) },
    resolve: async (query, _root, args, ctx, info) => {
      await ctx.fieldGuard?.check('updateGuest', ctx.principal.tokenId, info);
      const updated = await updateGuest(ctx, String(args.id), toRestInput(args.input));
      return ctx.prisma.guest.findUniqueOrThrow({ ...query, where: { id: updated.id } });
    },
  }),
}));

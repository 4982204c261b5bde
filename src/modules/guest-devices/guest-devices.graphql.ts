// Guest devices in the graph: the GuestDevice type, `Guest.devices`, and the root `guestDevices`
// connection with REST's filters and a total count. Resolvers call the same service functions as
// REST. Byte counts are Floats (exact up to 2^53 bytes, 8 PiB) beside their human-readable text.

import { assertPageSize, connectionPage } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import { humanSize } from '../../shared/format.js';
import { connectionStatusName } from '../../shared/labels.js';
import { sessionOrder, sessionScopeOf } from '../guest-sessions/guest-sessions.service.js';
import { GuestType } from '../guests/guests.graphql.js';
import { guestVisible, guestVisibleSelect } from '../guests/guests.service.js';
import {
  countDevices,
  deviceListQuery,
  deviceOrder,
  deviceScopeOf,
  listDevices,
} from './guest-devices.service.js';

/** As REST's `per_page`. */
const MAX_PAGE_SIZE = 100;

export const GuestDeviceType = builder.prismaObject('GuestDevice', {
  // Select mode: only the columns the query's fields need (see bench/RESULTS.md).
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id'),
    guestId: t.exposeString('guestId'),
    partnerId: t.exposeString('partnerId', { nullable: true }),
    typeName: t.exposeString('typeName'),
    mac: t.exposeString('mac'),
    ip: t.exposeString('ip', { nullable: true }),
    userAgent: t.exposeString('userAgent', { nullable: true }),
    description: t.exposeString('description'),
    platform: t.exposeString('platform'),
    browser: t.exposeString('browser'),
    online: t.exposeBoolean('online'),
    connectionStatus: t.exposeInt('connectionStatus', { description: '0 Offline, 1 Online' }),
    connectionStatusName: t.string({
      description: '`Online` or `Offline`',
      select: { connectionStatus: true },
      resolve: (d) => connectionStatusName(d.connectionStatus),
    }),
    totalDownloadedData: t.float({
      description: 'bytes',
      select: { totalDownloadedData: true },
      resolve: (d) => Number(d.totalDownloadedData),
    }),
    totalUploadedData: t.float({
      description: 'bytes',
      select: { totalUploadedData: true },
      resolve: (d) => Number(d.totalUploadedData),
    }),
    totalDownloadedDataHuman: t.string({
      description: 'As REST shows it: `1.5 MB`',
      select: { totalDownloadedData: true },
      resolve: (d) => humanSize(d.totalDownloadedData),
    }),
    totalUploadedDataHuman: t.string({
      description: 'As REST shows it: `1.5 MB`',
      select: { totalUploadedData: true },
      resolve: (d) => humanSize(d.totalUploadedData),
    }),
    lastSeenTime: t.expose('lastSeenTime', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    // As GuestSession.guest: an erased guest's tombstone is absent here as from every guest read.
    guest: t.field({
      type: GuestType,
      nullable: true,
      description: 'Null when the guest was erased (`eraseGuest`; the device stays, linked by `guestId`)',
      select: (_args, _ctx, nested) => ({
        guest: nested({ select: { id: true, ...guestVisibleSelect } }),
      }),
      resolve: (d, _args, ctx) => (guestVisible(ctx, d.guest) ? d.guest : null),
    }),
    sessions: t.relatedConnection('sessions', {
      ...connectionPage(MAX_PAGE_SIZE),
      totalCount: true,
      description: "The device's sessions, newest first.",
      query: (args, ctx) => {
        assertPageSize(args, MAX_PAGE_SIZE);
        return { where: sessionScopeOf(ctx), orderBy: sessionOrder(true) };
      },
    }),
  }),
});

builder.prismaObjectFields('Guest', (t) => ({
  devices: t.relatedConnection('devices', {
    ...connectionPage(MAX_PAGE_SIZE),
    totalCount: true,
    description: "The guest's devices, oldest first.",
    query: (args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return { where: deviceScopeOf(ctx), orderBy: deviceOrder(false) };
    },
  }),
}));

builder.queryFields((t) => ({
  guestDevices: t.prismaConnection({
    ...listConnection(deviceListQuery, MAX_PAGE_SIZE),
    type: 'GuestDevice',
    description: 'Guest devices of the current tenant, oldest first (REST `GET /guest-devices`).',
    args: argsOf(deviceListQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      return listDevices(ctx, await listQueryOf(deviceListQuery, ctx, args), query);
    },
    totalCount: async (_root, args, ctx) => {
      // The list's query (its filters and more): one validation for the rows and the count.
      return countDevices(ctx, await listQueryOf(deviceListQuery, ctx, args));
    },
  }),
}));

// Guest sessions in the graph: the GuestSession type, `Guest.sessions`, the root `guestSessions`
// connection with REST's filters and a total count, and `sessionsByIp`. Resolvers call the same
// service functions as REST. Byte counts are Floats (exact up to 2^53 bytes, 8 PiB) beside their
// human-readable text.

import { requires } from '../../auth/permissions.js';
import { assertPageSize, connectionPage } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import type { CostExtensions } from '../../graphql/query-cost.js';
import { hms, humanSize, localDisplay } from '../../shared/format.js';
import { connectionStatusName } from '../../shared/labels.js';
import { laravelInput } from '../../validation/laravel-input.js';
import { GuestDeviceType } from '../guest-devices/guest-devices.graphql.js';
import { deviceVisible } from '../guest-devices/guest-devices.service.js';
import { GuestType } from '../guests/guests.graphql.js';
import { guestVisible, guestVisibleSelect } from '../guests/guests.service.js';
import {
  countSessions,
  guestSessionsQuery,
  listSessions,
  type SessionByIp,
  sessionOrder,
  sessionScopeOf,
  sessionSeconds,
  sessionsByIp,
} from './guest-sessions.service.js';

/** As REST's `per_page`. */
const MAX_PAGE_SIZE = 100;

const timezone = { location: { select: { timezone: true } } } as const;
const times = { startTime: true, endTime: true } as const;

export const GuestSessionType = builder.prismaObject('GuestSession', {
  // Select mode: only the columns the query's fields need (see bench/RESULTS.md).
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id'),
    locationId: t.exposeString('locationId'),
    guestId: t.exposeString('guestId'),
    deviceId: t.exposeString('deviceId'),
    ipAddress: t.exposeString('ipAddress'),
    loginType: t.exposeString('loginType'),
    online: t.exposeBoolean('online'),
    connectionStatus: t.exposeInt('connectionStatus', { description: '0 Offline, 1 Online' }),
    connectionStatusName: t.string({
      description: '`Online` or `Offline`',
      select: { connectionStatus: true },
      resolve: (s) => connectionStatusName(s.connectionStatus),
    }),
    downloadedData: t.float({
      description: 'bytes',
      select: { downloadedData: true },
      resolve: (s) => Number(s.downloadedData),
    }),
    uploadedData: t.float({
      description: 'bytes',
      select: { uploadedData: true },
      resolve: (s) => Number(s.uploadedData),
    }),
    downloadedDataHuman: t.string({
      description: 'As REST shows it: `1.5 MB`',
      select: { downloadedData: true },
      resolve: (s) => humanSize(s.downloadedData),
    }),
    uploadedDataHuman: t.string({
      description: 'As REST shows it: `1.5 MB`',
      select: { uploadedData: true },
      resolve: (s) => humanSize(s.uploadedData),
    }),
    startTime: t.expose('startTime', { type: 'DateTime' }),
    endTime: t.expose('endTime', { type: 'DateTime', nullable: true, description: 'null while open' }),
    durationSeconds: t.int({
      description: 'Seconds; an open session counts up to now',
      select: times,
      resolve: (s) => sessionSeconds(s),
    }),
    totalDuration: t.string({
      description: '`HH:MM:SS`, hours past 24 (`49:03:10`); an open session counts up to now',
      select: times,
      resolve: (s) => hms(sessionSeconds(s)),
    }),
    startTimeFormatted: t.string({
      description: '`2026-11-21 9:05 AM` in the location time zone',
      select: { startTime: true, ...timezone },
      resolve: (s) => localDisplay(s.startTime, s.location.timezone) ?? '',
    }),
    endTimeFormatted: t.string({
      nullable: true,
      description: '`2026-11-21 9:05 AM` in the location time zone; null while open',
      select: { endTime: true, ...timezone },
      resolve: (s) => localDisplay(s.endTime, s.location.timezone),
    }),
    accessCode: t.string({
      nullable: true,
      description: 'The code used to log in, if any',
      select: { accessCode: { select: { code: true } } },
      resolve: (s) => s.accessCode?.code ?? null,
    }),
    serviceProfileName: t.string({
      nullable: true,
      select: { serviceProfile: { select: { name: true } } },
      resolve: (s) => s.serviceProfile?.name ?? null,
    }),
    // A session at the caller's location may belong to a guest of another one: a pinned caller
    // gets null there. Loaded in the session's statement, with the columns the check needs.
    device: t.field({
      type: GuestDeviceType,
      nullable: true,
      description: "Null when the device's guest is outside the caller's location",
      select: (_args, _ctx, nested) => ({
        device: nested({ select: { id: true, tenantId: true, guest: { select: { locationId: true } } } }),
      }),
      resolve: (s, _args, ctx) => (deviceVisible(ctx, s.device) ? s.device : null),
    }),
    guest: t.field({
      type: GuestType,
      nullable: true,
      description: "Null when the guest is outside the caller's location, or was erased (`eraseGuest`)",
      select: (_args, _ctx, nested) => ({
        guest: nested({ select: { id: true, ...guestVisibleSelect } }),
      }),
      resolve: (s, _args, ctx) => (guestVisible(ctx, s.guest) ? s.guest : null),
    }),
    location: t.relation('location'),
  }),
});

builder.prismaObjectFields('Guest', (t) => ({
  sessions: t.relatedConnection('sessions', {
    ...connectionPage(MAX_PAGE_SIZE),
    totalCount: true,
    description: "The guest's sessions, newest first.",
    query: (args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return { where: sessionScopeOf(ctx), orderBy: sessionOrder(true) };
    },
  }),
}));

const SessionByIpType = builder.objectRef<SessionByIp>('SessionByIp').implement({
  description: 'The latest session on an IP address, with its guest (REST `GET /sessions/:ip_address`)',
  fields: (t) => ({
    ipAddress: t.exposeString('ip_address'),
    username: t.exposeString('username'),
    name: t.exposeString('name'),
    email: t.exposeString('email', { nullable: true }),
    duration: t.exposeInt('duration', { description: 'Seconds; an open session counts up to now' }),
  }),
});

builder.queryFields((t) => ({
  guestSessions: t.prismaConnection({
    ...listConnection(guestSessionsQuery, MAX_PAGE_SIZE),
    type: 'GuestSession',
    description: 'Guest sessions of the current tenant, oldest first (REST `GET /sessions`).',
    args: argsOf(guestSessionsQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await listQueryOf(guestSessionsQuery, ctx, args);
      return listSessions(ctx, q, query);
    },
    // Without `edges` in the selection `resolve` does not run, so the page size is checked here too.
    totalCount: async (_root, args, ctx) => {
      return countSessions(ctx, await listQueryOf(guestSessionsQuery, ctx, args));
    },
  }),
  sessionsByIp: t.field({
    // One item per address asked, for the cost limit.
    ...requires(guestSessionsQuery.action, {
      costItems: (args) => (Array.isArray(args.ipAddresses) ? args.ipAddresses.length : 1),
    } satisfies CostExtensions),
    type: [SessionByIpType],
    description:
      'For each address (up to 100), the latest session on it with its guest; unknown addresses are left out.',
    args: { ipAddresses: t.arg.stringList({ required: true }) },
    // Trimmed as every GraphQL argument is (TrimStrings; REST's addresses are a path, taken as written).
    resolve: (_root, a, ctx) =>
      sessionsByIp(
        ctx,
        a.ipAddresses.map((ip) => String(laravelInput({ ip }).ip ?? '')),
        { field: 'ip_addresses' },
      ),
  }),
}));

// A guest's data rights in the graph (guests.privacy.ts): `guestExport(id)`, the copy as typed
// fields (each collection one statement, newest first), and `eraseGuest(id)`.
import { authorize, requires } from '../../auth/permissions.js';
import { builder } from '../../graphql/builder.js';
import { execute } from '../../operations/operation.js';
import { accessCodeOrder } from '../access-codes/access-codes.service.js';
import { locationLogOrder, locationSessionOrder } from '../analytics/analytics.service.js';
import { deviceOrder } from '../guest-devices/guest-devices.service.js';
import { sessionOrder } from '../guest-sessions/guest-sessions.service.js';
import {
  type CopySubject,
  eraseGuest,
  exportableGuest,
  exportGuest,
  heldRows,
  macsHeld,
  ownCodes,
  ownRows,
  presenceOrder,
  presenceRecordSelect,
  tagsOf,
  usedCodesWhere,
} from './guests.privacy.js';

type PresenceRow = {
  id: string;
  mac: string;
  dataType: number;
  x: number | null;
  y: number | null;
  locationId: string | null;
  buildingId: string | null;
  floorId: string | null;
  zoneId: string | null;
  connected: boolean;
  seenAt: Date;
};

const GuestPresenceRecord = builder.objectRef<PresenceRow>('GuestPresenceRecord').implement({
  description: 'One detection of one of the guest’s devices (in `guestExport`)',
  fields: (t) => ({
    id: t.exposeID('id'),
    macAddress: t.exposeString('mac'),
    dataType: t.exposeInt('dataType', { description: '1 WiFi, 2 BLE' }),
    x: t.exposeFloat('x', { nullable: true }),
    y: t.exposeFloat('y', { nullable: true }),
    locationId: t.exposeString('locationId', { nullable: true }),
    buildingId: t.exposeString('buildingId', { nullable: true }),
    floorId: t.exposeString('floorId', { nullable: true }),
    zoneId: t.exposeString('zoneId', { nullable: true }),
    connected: t.exposeBoolean('connected'),
    seenAt: t.expose('seenAt', { type: 'DateTime' }),
  }),
});

type LogRow = {
  id: string;
  sessionId: string;
  guestMac: string;
  zoneId: string | null;
  timestamp: Date;
  duration: number;
};

const GuestLocationLog = builder.objectRef<LogRow>('GuestLocationLog').implement({
  description: 'One zone visit of the guest (REST `location_logs` item, in `guestExport`)',
  fields: (t) => ({
    id: t.exposeID('id'),
    sessionId: t.exposeString('sessionId'),
    guestMac: t.exposeString('guestMac'),
    zoneId: t.exposeString('zoneId', { nullable: true }),
    timestamp: t.expose('timestamp', { type: 'DateTime' }),
    duration: t.exposeInt('duration', { description: 'seconds' }),
  }),
});

const GuestExport = builder.objectRef<CopySubject>('GuestExport').implement({
  description:
    'Everything held on one guest (REST `GET /guests/:id/export`): each collection whole, newest first.',
  fields: (t) => ({
    guest: t.prismaField({
      type: 'Guest',
      resolve: (query, g, _args, ctx) =>
        ctx.prisma.guest.findUniqueOrThrow({ ...query, where: { id: g.id } }),
    }),
    tags: t.field({
      type: [
        builder
          .objectRef<{ name: string; type: number | null; groupName: string | null }>('GuestExportTag')
          .implement({
            fields: (f) => ({
              name: f.exposeString('name'),
              type: f.exposeInt('type', { nullable: true }),
              groupName: f.exposeString('groupName', { nullable: true }),
            }),
          }),
      ],
      description: 'By name',
      resolve: (g, _args, ctx) => tagsOf(ctx, g),
    }),
    devices: t.prismaField({
      type: ['GuestDevice'],
      resolve: (query, g, _args, ctx) =>
        ctx.prisma.guestDevice.findMany({
          ...query,
          where: { tenantId: g.tenantId, guestId: g.id },
          orderBy: deviceOrder(true),
        }),
    }),
    sessions: t.prismaField({
      type: ['GuestSession'],
      resolve: (query, g, _args, ctx) =>
        ctx.prisma.guestSession.findMany({
          ...query,
          where: ownRows(g),
          orderBy: sessionOrder(true),
        }),
    }),
    presenceRecords: t.field({
      type: [GuestPresenceRecord],
      resolve: async (g, _args, ctx) =>
        ctx.prisma.presenceRecord.findMany({
          where: heldRows(g, { mac: { in: await macsHeld(ctx, g) } }),
          orderBy: presenceOrder,
          select: presenceRecordSelect,
        }),
    }),
    locationSessions: t.prismaField({
      type: ['LocationSession'],
      resolve: async (query, g, _args, ctx) =>
        ctx.prisma.locationSession.findMany({
          ...query,
          where: heldRows(g, { mac: { in: await macsHeld(ctx, g) } }),
          orderBy: locationSessionOrder,
        }),
    }),
    locationLogs: t.field({
      type: [GuestLocationLog],
      resolve: async (g, _args, ctx) =>
        ctx.prisma.locationLog.findMany({
          where: heldRows(g, { guestMac: { in: await macsHeld(ctx, g) } }),
          orderBy: locationLogOrder,
          select: {
            id: true,
            sessionId: true,
            guestMac: true,
            zoneId: true,
            timestamp: true,
            duration: true,
          },
        }),
    }),
    accessCodes: t.prismaField({
      type: ['AccessCode'],
      description: 'The codes the guest held or logged in with, newest first',
      resolve: async (query, g, _args, ctx) =>
        ownCodes(
          g,
          await ctx.prisma.accessCode.findMany({
            ...query,
            where: usedCodesWhere(g),
            orderBy: accessCodeOrder,
          }),
        ),
    }),
  }),
});

const Erased = builder.objectRef<{ id: string }>('GuestErasure').implement({
  description: 'The answer of `eraseGuest`',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The erased guest (now absent from every read)' }),
    erased: t.boolean({ resolve: () => true }),
  }),
});

builder.queryFields((t) => ({
  guestExport: t.field({
    ...requires(exportGuest.action),
    type: GuestExport,
    nullable: true,
    description:
      'A copy of everything held on one guest of the current tenant (REST `GET /guests/:id/export`), or null.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) =>
      exportableGuest(ctx, authorize(ctx.principal, exportGuest.action), String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  eraseGuest: t.field({
    ...requires(eraseGuest.action),
    type: Erased,
    description:
      'Erases a guest (REST `DELETE /guests/:id`): personal data removed, MACs replaced by stand-ins, counts kept; its devices present now leave (reason `erased`).',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => execute(eraseGuest, ctx, {}, String(args.id)),
  }),
}));

// Location analytics in the graph: active sessions (the REST filters, the same service function),
// occupancy per place, one location session, and `presenceChanged` pushed over Server-Sent Events.
import { requires } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, listQueryOf } from '../../graphql/operation-fields.js';
import { type CostExtensions, PRESENT_DEVICES_COST } from '../../graphql/query-cost.js';
import { genderName } from '../../shared/labels.js';
import type { PresenceChange } from '../presence/presence.pubsub.js';
import {
  type ActiveSession,
  activeSessionsQuery,
  changedSessions,
  findLocationSession,
  listActiveSessions,
  type OccupancyCount,
  presenceOccupancy,
  readAnalytics,
  watchPresence,
} from './analytics.service.js';

const Segment = builder.objectRef<{ id: string; name: string }>('Segment').implement({
  description: 'A guest tag',
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

const ActiveSessionRef = builder.objectRef<ActiveSession>('ActiveSession').implement({
  description: "A device's latest presence record inside the active window (REST 2.9)",
  fields: (t) => ({
    macAddress: t.exposeString('mac'),
    dataType: t.exposeInt('dataType', { description: '1 WiFi, 2 BLE' }),
    x: t.exposeFloat('x', { nullable: true }),
    y: t.exposeFloat('y', { nullable: true }),
    locationId: t.exposeID('locationId', { nullable: true }),
    location: t.exposeString('location', { nullable: true }),
    buildingId: t.exposeID('buildingId', { nullable: true }),
    building: t.exposeString('building', { nullable: true }),
    floorId: t.exposeID('floorId', { nullable: true }),
    floor: t.exposeString('floor', { nullable: true }),
    zoneId: t.exposeID('zoneId', { nullable: true }),
    zone: t.exposeString('zone', { nullable: true }),
    gender: t.string({ nullable: true, resolve: (s) => genderName(s.gender) }),
    nationality: t.exposeString('nationalityCode', { nullable: true }),
    countryOfResidency: t.exposeString('residencyCode', { nullable: true }),
    guestId: t.exposeID('guestId', { nullable: true }),
    segment: t.field({ type: [Segment], resolve: (s) => s.segment }),
    lastSeen: t.expose('seenAt', { type: 'DateTime' }),
    connected: t.exposeBoolean('connected'),
  }),
});

const OccupancyCountRef = builder.objectRef<OccupancyCount>('OccupancyCount').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true }),
    present: t.exposeInt('present', { description: 'Active sessions' }),
    connected: t.exposeInt('connected', { description: 'Active sessions connected to Wi-Fi' }),
  }),
});

const OccupancyRef = builder
  .objectRef<{
    locations: OccupancyCount[];
    buildings: OccupancyCount[];
    floors: OccupancyCount[];
    zones: OccupancyCount[];
  }>('Occupancy')
  .implement({
    fields: (t) => ({
      locations: t.field({ type: [OccupancyCountRef], resolve: (o) => o.locations }),
      buildings: t.field({ type: [OccupancyCountRef], resolve: (o) => o.buildings }),
      floors: t.field({ type: [OccupancyCountRef], resolve: (o) => o.floors }),
      zones: t.field({ type: [OccupancyCountRef], resolve: (o) => o.zones }),
    }),
  });

builder.prismaObject('LocationSession', {
  fields: (t) => ({
    id: t.exposeID('id'),
    guestId: t.exposeID('guestId', { nullable: true }),
    locationId: t.exposeID('locationId'),
    mac: t.exposeString('mac'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    duration: t.exposeInt('duration', { description: 'seconds' }),
    visitType: t.exposeInt('visitType', { description: '1 new visitor, 2 returning visitor' }),
  }),
});

// The filters of REST's active sessions, for the list and for the occupancy counts; the place and
// segment ids are `ID` arguments.
const activeSessionArgs = argsOf(activeSessionsQuery.filters, [
  'location_id',
  'building_id',
  'floor_id',
  'zone_id',
  'segment_id',
]);
const activeQuery = (ctx: AppContext, args: Readonly<Record<string, unknown>>) =>
  listQueryOf(activeSessionsQuery, ctx, args);

builder.queryFields((t) => ({
  activeSessions: t.field({
    // Not paged: the cost limit counts it as a busy venue's present devices.
    ...requires(activeSessionsQuery.action, { costItems: PRESENT_DEVICES_COST } satisfies CostExtensions),
    type: [ActiveSessionRef],
    description: 'Every active session (REST GET /locations-analytics/active-sessions)',
    args: activeSessionArgs,
    resolve: async (_root, args, ctx) => listActiveSessions(ctx, await activeQuery(ctx, args)),
  }),
  presenceOccupancy: t.field({
    ...requires(activeSessionsQuery.action),
    type: OccupancyRef,
    description: 'Present and connected devices per location, building, floor and zone',
    args: activeSessionArgs,
    resolve: async (_root, args, ctx) => presenceOccupancy(ctx, await activeQuery(ctx, args)),
  }),
  locationSession: t.prismaField({
    ...requires(readAnalytics.action),
    type: 'LocationSession',
    description: 'One location session (REST GET /locations-analytics/sessions/:id)',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => findLocationSession(ctx, String(args.id), query),
  }),
}));

const PresenceChangeRef = builder
  .objectRef<{ change: PresenceChange; sessions: ActiveSession[] }>('PresenceChange')
  .implement({
    description: 'Devices that arrived, moved, left or changed state at a location',
    fields: (t) => ({
      locationId: t.id({ resolve: (p) => p.change.locationId }),
      macAddresses: t.stringList({ resolve: (p) => p.change.macs }),
      sessions: t.field({
        type: [ActiveSessionRef],
        description: 'The active sessions of those devices at this location now (left devices are absent)',
        resolve: (p) => p.sessions,
      }),
      at: t.field({ type: 'DateTime', resolve: (p) => new Date(p.change.at) }),
      eventId: t.id({
        nullable: true,
        description:
          'The tenant’s event log position of the change: the highest event id its write recorded (null: it recorded none). Pass it as `after` to resume.',
        resolve: (p) => p.change.eventId,
      }),
    }),
  });

builder.subscriptionField('presenceChanged', (t) =>
  t.field({
    ...requires(readAnalytics.action),
    type: PresenceChangeRef,
    description:
      'Devices that arrive, move, leave or change state at a location, as the ingest (and leave by timeout) write them. With `after` (an event id, e.g. the last `eventId` received; over SSE also the `Last-Event-ID` a reconnecting client resends), first one change naming the devices that entered or left after it.',
    args: {
      locationId: t.arg.id({ required: true }),
      after: t.arg.id({ description: 'Resume after this event id (see `PresenceChange.eventId`)' }),
    },
    subscribe: (_root, args, ctx) =>
      watchPresence(ctx, String(args.locationId), args.after == null ? null : String(args.after)),
    resolve: async (change: PresenceChange, _args, ctx) => {
      // The SSE frame of this change carries its log position (src/graphql/sse-event-ids.ts).
      if (change.eventId !== null) ctx.stream?.sending(change.eventId);
      return { change, sessions: await changedSessions(ctx, change) };
    },
  }),
);

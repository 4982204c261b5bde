// The query filters of spec 4.5, shared by REST and GraphQL: each one's rules (REST name), its
// GraphQL argument's description, and the condition it adds. A new filter is one entry here.
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { filterOf } from '../../operations/operation.js';
import { dateFormat, inList, integer, nullable, textFilter } from '../../validation/validator.js';
import { macVariants } from '../presence/mac.js';

/** Conditions over `CurrentPresence cp` joined to the device's guest `g` (analytics.service.ts). */
const presenceFilter = filterOf<PrismaNS.Sql>();
const sql = PrismaNS.sql;

export const activeSessionFilters = {
  location_id: presenceFilter(textFilter(), { where: (v) => sql`cp."locationId" = ${v}` }),
  building_id: presenceFilter(textFilter(), { where: (v) => sql`cp."buildingId" = ${v}` }),
  floor_id: presenceFilter(textFilter(), { where: (v) => sql`cp."floorId" = ${v}` }),
  zone_id: presenceFilter(textFilter(), { where: (v) => sql`cp."zoneId" = ${v}` }),
  segment_id: presenceFilter(textFilter(), {
    description: 'guest tag',
    // A pinned caller sees the tags of its location's guests only (analytics.service.ts shows no
    // segment for the others): the filter matches no guest whose tags it may not see.
    where: (v, scope) => sql`EXISTS (SELECT 1 FROM "GuestTag" gt
      WHERE gt."tenantId" = cp."tenantId" AND gt."guestId" = g."id" AND gt."tagId" = ${v})${
        scope.locationId === null ? PrismaNS.empty : sql` AND g."locationId" = ${scope.locationId}`
      }`,
  }),
  data_type: presenceFilter([nullable(), integer(), inList([1, 2])], {
    description: '1 WiFi, 2 BLE',
    where: (v) => sql`cp."dataType" = ${v}`,
  }),
  connected: presenceFilter([nullable(), integer(), inList([0, 1])], {
    description: '1 connected only, 0 disconnected only',
    where: (v) => sql`cp."connected" = ${v === 1}`,
  }),
};

/** `yyyy-mm-dd hh:ii`, read as UTC. */
const minuteDate = (s: string): Date => new Date(`${s.replace(' ', 'T')}:00Z`);
const minute = () => dateFormat('Y-m-d H:i');

const locationSessionFilter = filterOf<PrismaNS.LocationSessionWhereInput>();

export const locationSessionFilters = {
  guest_id: locationSessionFilter(textFilter(), { where: (v) => ({ guestId: v }) }),
  // Its own condition: merged into the scope it would replace a pinned user's location.
  location_id: locationSessionFilter(textFilter(), { where: (v) => ({ locationId: v }) }),
  mac: locationSessionFilter(textFilter(), { where: (v) => ({ mac: { in: macVariants(v) } }) }),
  started_at: locationSessionFilter([nullable(), minute()], {
    where: (v) => ({ startedAt: { gte: minuteDate(v) } }),
  }),
  ended_at: locationSessionFilter([nullable(), minute()], {
    where: (v) => ({ endedAt: { lte: minuteDate(v) } }),
  }),
  visit_type: locationSessionFilter([nullable(), integer()], { where: (v) => ({ visitType: v }) }),
};

const locationLogFilter = filterOf<PrismaNS.LocationLogWhereInput>();

export const locationLogFilters = {
  guest_id: locationLogFilter(textFilter(), { where: (v) => ({ guestId: v }) }),
  guest_mac: locationLogFilter(textFilter(), { where: (v) => ({ guestMac: { in: macVariants(v) } }) }),
  session_id: locationLogFilter(textFilter(), { where: (v) => ({ sessionId: v }) }),
  zone_id: locationLogFilter(textFilter(), { where: (v) => ({ zoneId: v }) }),
  timestamp: locationLogFilter([nullable(), minute()], {
    where: (v) => ({ timestamp: { gte: minuteDate(v) } }),
  }),
};

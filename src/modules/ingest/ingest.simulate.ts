// `admin simulate`: a live venue driven through the ingest. Devices arrive, move between zones,
// connect (opening guest sessions for known devices), exchange traffic and leave, until the signal
// aborts. Two ways in: the ingest service functions on the database (PostgreSQL beside the server;
// with REDIS_URL subscribers of every instance see the changes), or the running server's ingest
// endpoints over HTTP (any database, the embedded one included, since the server owns it).
import type { Principal } from '../../auth/principal.js';
import type { Config } from '../../config.js';
import type { AppContext } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { publishCommitted } from '../../events/feed.js';
import { onEventsCommitted } from '../../events/outbox.js';
import { createAppPubSub } from '../../redis/pubsub.js';
import { connectRedis } from '../../redis/redis.js';
import { sleep } from '../../shared/sleep.js';
import type { Random } from '../locations/locations.seed.js';
import { normalizeMac } from '../presence/mac.js';
import { MAX_BATCH } from './ingest.inputs.js';
import { ingestPresence } from './ingest.presence.js';
import { ingestSessions } from './ingest.sessions.js';

/** A simulation that cannot start or go on, said plainly (the CLI prints the message, no stack). */
export class SimulationError extends Error {}

export interface SimulateOptions {
  devices: number;
  intervalMs: number;
  rand: Random;
  signal: AbortSignal;
  progress(line: string): void;
}

/** The venue to drive: its location's zones, and devices the tenant already knows (with their guest). */
export interface Venue {
  tenantId: string | null;
  locationId: string;
  zoneIds: string[];
  known: { mac: string; guestId: string | null }[];
}

/** Where the events go: one batch (at most MAX_BATCH events) per call. */
export interface IngestSink {
  presence(events: Record<string, unknown>[]): Promise<void>;
  sessions(events: Record<string, unknown>[]): Promise<void>;
  close(): Promise<void>;
}

interface SimDevice {
  mac: string;
  guestId: string | null;
  dataType: 1 | 2;
  present: boolean;
  zone: number;
  connected: boolean;
  ip: string;
  up: number;
  down: number;
}

/** The venue from the database: the location of the tenant's first zone, and its first known devices. */
export async function venueFromDatabase(prisma: Prisma, tenantId: string, devices: number): Promise<Venue> {
  const tenant = await prisma.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
  if (!tenant) throw new SimulationError(`No tenant with id "${tenantId}".`);
  const zones = await prisma.zone.findMany({
    where: { tenantId: tenant.id },
    select: { id: true, floor: { select: { building: { select: { locationId: true } } } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  if (zones.length === 0) throw new SimulationError('The tenant has no zones: run `admin seed` first.');
  // One venue: the location with the first zone.
  const locationId = zones[0]?.floor.building.locationId as string;
  const zoneIds = zones.filter((z) => z.floor.building.locationId === locationId).map((z) => z.id);
  const known = await prisma.guestDevice.findMany({
    where: { tenantId: tenant.id },
    select: { mac: true, guestId: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: Math.ceil(devices / 2),
  });
  return { tenantId: tenant.id, locationId, zoneIds, known };
}

/** Events into the ingest service functions, as the tenant (an ingest-scoped principal). */
export async function databaseSink(prisma: Prisma, config: Config, tenantId: string): Promise<IngestSink> {
  const tenant = await prisma.tenant.findUniqueOrThrow({
    where: { id: tenantId },
    select: { id: true, groupId: true },
  });
  const principal: Principal = {
    tokenId: 'simulate',
    tokenExpiresAt: null,
    userId: 'simulate',
    userIntId: 0,
    role: 'tenant',
    tenantId: tenant.id,
    groupId: tenant.groupId,
    locationId: null,
    permissions: [],
    scopes: ['ingest'],
  };
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  const { pubsub } = createAppPubSub(redis);
  // Its events reach the servers' `events` subscribers as their own writes' do (src/events/feed.ts).
  const stopPublishing = onEventsCommitted((events) => publishCommitted(pubsub, events));
  const ctx: AppContext = { prisma, config, principal, requestId: 'simulate', pubsub };
  return {
    presence: async (batch) => {
      await ingestPresence(ctx, { events: batch });
    },
    sessions: async (batch) => {
      await ingestSessions(ctx, { events: batch });
    },
    close: async () => {
      stopPublishing();
      await redis?.close();
    },
  };
}

export async function simulateVenue(venue: Venue, sink: IngestSink, o: SimulateOptions) {
  const { locationId, zoneIds: venueZones, known } = venue;
  const devices: SimDevice[] = Array.from({ length: o.devices }, (_, i) => {
    const k = known[i];
    const hex = (0x5e0000000000 + i).toString(16).toUpperCase().padStart(12, '0');
    return {
      mac: k ? normalizeMac(k.mac) : normalizeMac(hex),
      guestId: k?.guestId ?? null,
      dataType: k || o.rand() < 0.7 ? 1 : 2,
      present: false,
      zone: Math.floor(o.rand() * venueZones.length),
      connected: false,
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      up: 0,
      down: 0,
    };
  });

  const run = `${Date.now().toString(36)}`;
  let seq = 0;
  const eventId = () => `sim-${run}-${++seq}`;
  const totals = { ticks: 0, presence_events: 0, session_events: 0 };
  let lastReport = Date.now();

  try {
    while (!o.signal.aborted) {
      const started = Date.now();
      const now = new Date().toISOString();
      const presence: Record<string, unknown>[] = [];
      const sessions: Record<string, unknown>[] = [];
      const session = (d: SimDevice, kind: 'start' | 'interim' | 'stop') =>
        sessions.push({
          event_id: eventId(),
          kind,
          mac: d.mac,
          ip: d.ip,
          guest_id: d.guestId,
          location_id: locationId,
          bytes_up: d.up,
          bytes_down: d.down,
          login_type: 'Simulated',
          at: now,
        });
      for (const d of devices) {
        if (!d.present) {
          if (o.rand() < 0.1) d.present = true;
          else continue;
        } else if (o.rand() < 0.02) {
          // Leaves: stops being detected; a connected device's session stops.
          d.present = false;
          if (d.connected && d.guestId) session(d, 'stop');
          d.connected = false;
          continue;
        }
        if (o.rand() < 0.2) d.zone = Math.floor(o.rand() * venueZones.length);
        if (d.dataType === 1 && o.rand() < 0.05) {
          d.connected = !d.connected;
          if (d.guestId) {
            if (d.connected) {
              d.up = 0;
              d.down = 0;
              session(d, 'start');
            } else session(d, 'stop');
          }
        } else if (d.connected && d.guestId && totals.ticks % 5 === 0) {
          d.up += Math.floor(o.rand() * 50_000);
          d.down += Math.floor(o.rand() * 500_000);
          session(d, 'interim');
        }
        presence.push({
          event_id: eventId(),
          mac: d.mac,
          data_type: d.dataType,
          x: Math.round(o.rand() * 1000) / 100,
          y: Math.round(o.rand() * 1000) / 100,
          zone_id: venueZones[d.zone],
          connected: d.connected,
          seen_at: now,
        });
      }
      for (let i = 0; i < presence.length; i += MAX_BATCH) {
        await sink.presence(presence.slice(i, i + MAX_BATCH));
      }
      for (let i = 0; i < sessions.length; i += MAX_BATCH) {
        await sink.sessions(sessions.slice(i, i + MAX_BATCH));
      }
      totals.ticks += 1;
      totals.presence_events += presence.length;
      totals.session_events += sessions.length;
      if (Date.now() - lastReport >= 5000 || totals.ticks === 1) {
        lastReport = Date.now();
        const present = devices.filter((d) => d.present).length;
        const connected = devices.filter((d) => d.connected).length;
        o.progress(
          `tick ${totals.ticks}: ${present} present, ${connected} connected; ` +
            `${totals.presence_events} presence and ${totals.session_events} session events so far`,
        );
      }
      const wait = o.intervalMs - (Date.now() - started);
      if (wait > 0 && !o.signal.aborted) {
        await sleep(wait, o.signal);
      }
    }
  } finally {
    await sink.close();
  }
  return {
    ...(venue.tenantId ? { tenant_id: venue.tenantId } : {}),
    location_id: locationId,
    devices: o.devices,
    ...totals,
  };
}

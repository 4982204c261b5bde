// Demo analytics for `admin seed` (after guests and devices): active presence inside the window
// (WiFi and BLE, some connected) for some of the devices this run created and a few anonymous
// beacons, and location sessions with their zone logs over the last four weeks.
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import type { SeededDevice } from '../guest-devices/guest-devices.seed.js';
import { newId } from '../ingest/ingest.batch.js';
import { upsertCurrentPresence } from '../ingest/ingest.presence.js';
import type { Random } from '../locations/locations.seed.js';
import { normalizeMac } from '../presence/mac.js';

const DAY = 86_400_000;

/**
 * Presence and visits for `devices`, the devices this run of the seed created (a second run leaves
 * the tenant's other devices, and their guests, as they are), and the beacons unless the tenant has
 * presence from them already (an earlier run's).
 */
export async function seedPresence(
  prisma: PrismaNS.TransactionClient,
  o: { tenantId: string; rand: Random; devices: readonly SeededDevice[]; progress(message: string): void },
): Promise<Record<string, number>> {
  const { tenantId, rand } = o;
  const zones = await prisma.zone.findMany({
    where: { tenantId, floor: { building: { location: { isTrashed: false } } } },
    select: {
      id: true,
      floorId: true,
      floor: { select: { buildingId: true, building: { select: { locationId: true } } } },
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  if (zones.length === 0)
    return { presence_records: 0, active_sessions: 0, location_sessions: 0, location_logs: 0 };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const { devices } = o;
  const beaconMacs = Array.from({ length: 10 }, (_, i) => normalizeMac((0x5a0000000000 + i).toString(16)));
  const beaconsSeen = await prisma.presenceRecord.findFirst({
    where: { tenantId, guestId: null, mac: { in: beaconMacs } },
    select: { id: true },
  });
  const beacons = beaconsSeen ? [] : beaconMacs.map((mac) => ({ id: null, guestId: null, mac }));
  const now = Date.now();

  // Active presence: about half of the devices, and the beacons.
  const records: PrismaNS.PresenceRecordCreateManyInput[] = [];
  for (const d of [...devices.filter(() => rand() < 0.5), ...beacons]) {
    const z = pick(zones);
    const wifi = d.id !== null && rand() < 0.7;
    records.push({
      id: newId(),
      tenantId,
      mac: normalizeMac(d.mac),
      deviceId: d.id,
      guestId: d.guestId,
      dataType: wifi ? 1 : 2,
      x: Math.round(rand() * 2000) / 100,
      y: Math.round(rand() * 2000) / 100,
      locationId: z.floor.building.locationId,
      buildingId: z.floor.buildingId,
      floorId: z.floorId,
      zoneId: z.id,
      connected: wifi && rand() < 0.6,
      seenAt: new Date(now - Math.floor(rand() * 240_000)),
    });
  }
  await prisma.presenceRecord.createMany({ data: records });
  await upsertCurrentPresence(prisma, records);

  // History: one to four visits per device over the last 28 days, each with one to four zone logs.
  const sessions: PrismaNS.LocationSessionCreateManyInput[] = [];
  const logs: PrismaNS.LocationLogCreateManyInput[] = [];
  for (const d of devices) {
    const visited = new Set<string>();
    const visits = 1 + Math.floor(rand() * 4);
    const starts = Array.from({ length: visits }, () => now - DAY - Math.floor(rand() * 27 * DAY)).sort(
      (a, b) => a - b,
    );
    for (const start of starts) {
      const venueZones = zones.filter(
        (z) => z.floor.building.locationId === pick(zones).floor.building.locationId,
      );
      const locationId = venueZones[0]?.floor.building.locationId as string;
      const duration = 600 + Math.floor(rand() * 10_200);
      const id = newId();
      sessions.push({
        id,
        tenantId,
        locationId,
        guestId: d.guestId,
        deviceId: d.id,
        mac: normalizeMac(d.mac),
        startedAt: new Date(start),
        endedAt: new Date(start + duration * 1000),
        duration,
        visitType: visited.has(locationId) ? 2 : 1,
      });
      visited.add(locationId);
      const parts = 1 + Math.floor(rand() * 4);
      const each = Math.floor(duration / parts);
      for (let p = 0; p < parts; p++) {
        logs.push({
          id: newId(),
          tenantId,
          locationId,
          sessionId: id,
          guestId: d.guestId,
          guestMac: normalizeMac(d.mac),
          zoneId: pick(venueZones).id,
          timestamp: new Date(start + p * each * 1000),
          duration: p === parts - 1 ? duration - each * p : each,
        });
      }
    }
  }
  for (let i = 0; i < sessions.length; i += 1000) {
    await prisma.locationSession.createMany({ data: sessions.slice(i, i + 1000) });
  }
  for (let i = 0; i < logs.length; i += 1000) {
    await prisma.locationLog.createMany({ data: logs.slice(i, i + 1000) });
    o.progress(`  location logs ${Math.min(i + 1000, logs.length)}/${logs.length}`);
  }
  // The devices were seen then: their last-seen time moves forward to their latest detection or
  // visit, as the ingest moves it (probe R: a device present now showed `lastSeenTime` null).
  const seen = new Map<string, Date>();
  const saw = (deviceId: string | null | undefined, at: Date | string | null | undefined) => {
    if (!deviceId || !at) return;
    const when = new Date(at);
    const before = seen.get(deviceId);
    if (!before || before < when) seen.set(deviceId, when);
  };
  for (const r of records) saw(r.deviceId, r.seenAt);
  for (const v of sessions) saw(v.deviceId, v.endedAt);
  const ids = [...seen.keys()];
  if (ids.length > 0) {
    await prisma.$executeRaw`UPDATE "GuestDevice" AS d SET "lastSeenTime" = v."seen"
      FROM (SELECT unnest(${ids}::text[]) AS "id",
                   unnest(${ids.map((id) => seen.get(id)?.toISOString() ?? null)}::timestamptz[]) AS "seen") AS v
      WHERE d."id" = v."id" AND d."tenantId" = ${tenantId}
        AND (d."lastSeenTime" IS NULL OR d."lastSeenTime" < v."seen")`;
  }
  return {
    presence_records: records.length,
    active_sessions: records.length,
    location_sessions: sessions.length,
    location_logs: logs.length,
  };
}

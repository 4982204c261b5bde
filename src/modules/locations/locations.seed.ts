// Demo places for `admin seed`: locations with buildings, floors and zones (with polygons).
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';

export type Random = () => number;

/** A small deterministic PRNG (mulberry32): the same --seed gives the same data. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VENUES = [
  {
    name: 'Harbour Hotel',
    city: 'Dubai',
    countryCode: 'AE',
    lat: 25.2048,
    lng: 55.2708,
    timezone: 'Asia/Dubai',
  },
  {
    name: 'City Mall',
    city: 'London',
    countryCode: 'GB',
    lat: 51.5072,
    lng: -0.1276,
    timezone: 'Europe/London',
  },
  {
    name: 'Arena Stadium',
    city: 'New York',
    countryCode: 'US',
    lat: 40.7128,
    lng: -74.006,
    timezone: 'America/New_York',
  },
  {
    name: 'Airport Lounge',
    city: 'Singapore',
    countryCode: 'SG',
    lat: 1.3644,
    lng: 103.9915,
    timezone: 'Asia/Singapore',
  },
];

export async function seedLocations(
  prisma: PrismaNS.TransactionClient,
  tenantId: string,
  rand: Random,
): Promise<{ locations: number; buildings: number; floors: number; zones: number }> {
  const counts = { locations: 0, buildings: 0, floors: 0, zones: 0 };
  for (const venue of VENUES) {
    const exists = await prisma.location.findFirst({
      // Names are unique regardless of case: a venue renamed in another case is still there.
      where: { tenantId, name: { equals: venue.name, mode: 'insensitive' } },
      select: { id: true },
    });
    if (exists) continue;
    const location = await prisma.location.create({
      data: { tenantId, ...venue, address: `${1 + Math.floor(rand() * 200)} Main Street`, postCode: '00000' },
    });
    counts.locations++;
    for (let b = 1; b <= 2; b++) {
      const building = await prisma.building.create({
        data: { tenantId, locationId: location.id, name: `Building ${b}`, lat: venue.lat, lng: venue.lng },
      });
      counts.buildings++;
      for (let f = 0; f < 3; f++) {
        const width = 20 + Math.round(rand() * 80);
        const length = 20 + Math.round(rand() * 80);
        const floor = await prisma.floor.create({
          data: {
            tenantId,
            buildingId: building.id,
            name: f === 0 ? 'Ground floor' : `Floor ${f}`,
            level: f,
            width,
            length,
            imageUrl: `https://example.com/floor-plans/${location.id}/${b}-${f}.png`,
            imageWidth: width * 10,
            imageHeight: length * 10,
          },
        });
        counts.floors++;
        const zoneWidth = width / 4;
        await prisma.zone.createMany({
          data: ['Lobby', 'Cafe', 'Shops', 'Lounge'].map((name, i) => ({
            tenantId,
            floorId: floor.id,
            name: `${name} ${f}`,
            coordinates: [
              { x: i * zoneWidth, y: 0 },
              { x: (i + 1) * zoneWidth, y: 0 },
              { x: (i + 1) * zoneWidth, y: length },
              { x: i * zoneWidth, y: length },
            ],
          })),
        });
        counts.zones += 4;
      }
    }
  }
  return counts;
}

// What `admin seed` adds to a tenant, resource by resource, in order (later seeders may read what
// earlier ones created). Each seeder is deterministic for the same random source. The command runs
// them all in one transaction: a seed that fails or is interrupted stores nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Prisma as PrismaNS } from '../generated/prisma/client.js';
import { seedAdvertisementsAndAccessCodes } from '../modules/advertisements/advertisements.seed.js';
import { seedPresence } from '../modules/analytics/analytics.seed.js';
import { type SeededDevice, seedDevicesAndSessions } from '../modules/guest-devices/guest-devices.seed.js';
import { seedGuests } from '../modules/guests/guests.seed.js';
import { type Random, seedLocations } from '../modules/locations/locations.seed.js';
import { seedUsers } from '../modules/users/users.seed.js';

export interface SeedOptions {
  tenantId: string;
  rand: Random;
  /** `--guests N` (default 200). */
  guests: number;
  progress(message: string): void;
  /** Called while another seed of the tenant holds its turn (seedTurn): throws to give up (Ctrl-C). */
  waiting?(): void;
}

/**
 * Waits, inside the seed's transaction, until no other seed of the tenant runs: two at once would
 * number the same guests (the unique email refuses the later one at its end, rolling it all back).
 * The turn is a transaction-scoped advisory lock, so it ends with the commit or the rollback; the
 * later run then numbers past what the earlier one committed.
 */
export async function seedTurn(tx: PrismaNS.TransactionClient, opts: SeedOptions): Promise<void> {
  const key = `seed:${opts.tenantId}`;
  const take = async () =>
    (
      await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${key})::bigint) AS ok`
    )[0]?.ok === true;
  if (await take()) return;
  opts.progress('another seed of this tenant is running: waiting for it to end…');
  do {
    opts.waiting?.();
    await sleep(250);
  } while (!(await take()));
}

/**
 * What a run created so far that later seeders build on: devices go to this run's guests only and
 * presence to their devices only, never to guests the API created or erased ones. One per run
 * (newSeedRun), handed to every seeder of it.
 */
export interface SeedRun {
  guestIds: string[];
  devices: SeededDevice[];
}

export const newSeedRun = (): SeedRun => ({ guestIds: [], devices: [] });

export interface Seeder {
  name: string;
  /** Returns counts per resource, merged into the command's output. */
  run(prisma: PrismaNS.TransactionClient, opts: SeedOptions, made: SeedRun): Promise<Record<string, number>>;
}

export const seeders: Seeder[] = [
  {
    name: 'locations, buildings, floors and zones',
    run: (prisma, o) => seedLocations(prisma, o.tenantId, o.rand),
  },
  // After the locations: venue and front-desk users are pinned to them.
  {
    name: 'dashboard users',
    run: (prisma, o) => seedUsers(prisma, o.tenantId, o.rand),
  },
  {
    name: 'advertisements and access codes',
    run: (prisma, o) => seedAdvertisementsAndAccessCodes(prisma, o.tenantId, o.rand),
  },
  {
    name: 'guests and their tags',
    run: async (prisma, o, made) => {
      const { counts, guestIds } = await seedGuests(prisma, o);
      made.guestIds = guestIds;
      return counts;
    },
  },
  // After the guests (it equips those it created) and the access codes (sessions may use them).
  {
    name: 'devices and sessions',
    run: async (prisma, o, made) => {
      const { counts, devices } = await seedDevicesAndSessions(prisma, { ...o, guestIds: made.guestIds });
      made.devices = devices;
      return counts;
    },
  },
  {
    name: 'presence, location sessions and logs',
    run: (prisma, o, made) => seedPresence(prisma, { ...o, devices: made.devices }),
  },
];

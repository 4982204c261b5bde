// What `admin seed` adds to a tenant, resource by resource, in order (later seeders may read what
// earlier ones created). Each seeder is deterministic for the same random source.
import type { Prisma } from '../db/database.js';
import { type Random, seedLocations } from '../modules/locations/locations.seed.js';

export interface SeedOptions {
  tenantId: string;
  rand: Random;
  /** `--guests N` (default 200). */
  guests: number;
  progress(message: string): void;
}

export interface Seeder {
  name: string;
  /** Returns counts per resource, merged into the command's output. */
  run(prisma: Prisma, opts: SeedOptions): Promise<Record<string, number>>;
}

export const seeders: Seeder[] = [
  {
    name: 'locations, buildings, floors and zones',
    run: (prisma, o) => seedLocations(prisma, o.tenantId, o.rand),
  },
];

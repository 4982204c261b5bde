// Every test works in a tenant of its own, so tests run concurrently and never reset the database.
import { randomBytes } from 'node:crypto';
import type { Role } from '../../src/auth/principal.js';
import { hashToken, newToken } from '../../src/auth/tokens.js';
import type { Prisma } from '../../src/db/database.js';
import { type BootstrapResult, bootstrapTenant } from '../../src/modules/tenants/bootstrap.service.js';

export const uniqueName = (prefix: string): string => `${prefix} ${randomBytes(5).toString('hex')}`;

/** A fresh tenant (in a fresh group unless one is given) with a `tenant` API user and its token. */
export function newTenant(
  prisma: Prisma,
  opts: { group?: string; role?: Role } = {},
): Promise<BootstrapResult> {
  return bootstrapTenant(prisma, { tenant: uniqueName('Tenant'), group: opts.group, role: opts.role });
}

/** Another user of the tenant with the given role (pinned to `locationId` for venue/front-desk). */
export async function addUser(
  prisma: Prisma,
  tenantId: string,
  role: Role,
  opts: { locationId?: string; status?: number; permissions?: string[] } = {},
): Promise<{ token: string; userId: string }> {
  const suffix = randomBytes(5).toString('hex');
  const token = newToken();
  const user = await prisma.user.create({
    data: {
      tenantId,
      name: `User ${suffix}`,
      username: `user-${suffix}`,
      email: `user-${suffix}@example.test`,
      role,
      status: opts.status ?? 1,
      locationId: opts.locationId ?? null,
      permissions: opts.permissions ?? [],
      apiTokens: { create: { tokenHash: hashToken(token) } },
    },
  });
  return { token, userId: user.id };
}

/** A location with `buildings` × `floors` × `zones` under it. */
export async function addHierarchy(
  prisma: Prisma,
  tenantId: string,
  shape: { name?: string; buildings: number; floors: number; zones: number },
): Promise<string> {
  const location = await prisma.location.create({
    data: { tenantId, name: shape.name ?? uniqueName('Venue') },
  });
  for (let b = 0; b < shape.buildings; b++) {
    const building = await prisma.building.create({
      data: { tenantId, locationId: location.id, name: `B${b}` },
    });
    for (let f = 0; f < shape.floors; f++) {
      const floor = await prisma.floor.create({
        data: { tenantId, buildingId: building.id, name: `F${f}`, level: f, width: 10, length: 10 },
      });
      if (shape.zones > 0) {
        await prisma.zone.createMany({
          data: Array.from({ length: shape.zones }, (_, z) => ({
            tenantId,
            floorId: floor.id,
            name: `Z${z}`,
            coordinates: [
              { x: 0, y: 0 },
              { x: 1, y: 1 },
            ],
          })),
        });
      }
    }
  }
  return location.id;
}

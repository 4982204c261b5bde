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

// ── Guests, devices and sessions (created directly, for the devices and sessions tests) ───────────

type GuestData = Partial<import('../../src/generated/prisma/models.js').GuestUncheckedCreateInput>;
type DeviceData = Partial<import('../../src/generated/prisma/models.js').GuestDeviceUncheckedCreateInput>;
type SessionData = Partial<import('../../src/generated/prisma/models.js').GuestSessionUncheckedCreateInput>;

/** A guest at `locationId` with a unique username and email. */
export function addGuest(prisma: Prisma, tenantId: string, locationId: string, data: GuestData = {}) {
  const suffix = randomBytes(5).toString('hex');
  return prisma.guest.create({
    data: {
      tenantId,
      locationId,
      username: `guest-${suffix}`,
      name: `Guest ${suffix}`,
      email: `guest-${suffix}@example.test`,
      ...data,
    },
  });
}

/** A random, service-wide unique MAC in upper-case colon form. */
export const randomMac = (): string =>
  [...randomBytes(6)].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');

/** A device of the guest (a random MAC unless given). */
export function addDevice(prisma: Prisma, tenantId: string, guestId: string, data: DeviceData = {}) {
  return prisma.guestDevice.create({
    data: { tenantId, guestId, mac: randomMac(), ...data },
  });
}

/** A session of a device at a location (closed after an hour unless `endTime` is given). */
export function addSession(
  prisma: Prisma,
  tenantId: string,
  at: { guestId: string; deviceId: string; locationId: string },
  data: SessionData = {},
) {
  const startTime = (data.startTime as Date | undefined) ?? new Date(Date.UTC(2026, 0, 10, 8));
  return prisma.guestSession.create({
    data: {
      tenantId,
      ...at,
      ipAddress: '10.0.0.1',
      startTime,
      endTime: new Date(startTime.getTime() + 3_600_000),
      ...data,
    },
  });
}

// Demo devices and sessions for `admin seed`, after the guests: 1–3 devices per guest the run created
// (private, randomised MACs as phones use today), and for guests who visited, closed sessions between
// their first and last visit plus an open one for guests who are online. Bytes follow the duration;
// each device's totals are the sum of its sessions and each guest's totals the sum of its devices.
import { createHash } from 'node:crypto';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import type { Random } from '../locations/locations.seed.js';

const DEVICE_KINDS = [
  {
    typeName: 'Smartphone',
    platform: 'iOS',
    browser: 'Safari',
    description: 'iPhone',
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  },
  {
    typeName: 'Smartphone',
    platform: 'Android',
    browser: 'Chrome',
    description: 'Galaxy S23',
    ua: 'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  },
  {
    typeName: 'Tablet',
    platform: 'iPadOS',
    browser: 'Safari',
    description: 'iPad',
    ua: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  },
  {
    typeName: 'Laptop',
    platform: 'macOS',
    browser: 'Safari',
    description: 'MacBook Air',
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  },
  {
    typeName: 'Laptop',
    platform: 'Windows',
    browser: 'Edge',
    description: 'Surface Laptop',
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
  },
] as const;
const LOGIN_TYPES = ['Email', 'SMS', 'Facebook', 'Access Code', 'Click Through'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const BATCH = 500;

/** A locally administered unicast MAC (randomised, as phones use), unique per guest and slot. */
function deviceMac(guestId: string, slot: number): string {
  const bytes = createHash('sha256').update(`${guestId}:${slot}`).digest().subarray(0, 6);
  bytes[0] = ((bytes[0] ?? 0) & 0xfc) | 0x02;
  return [...bytes].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
}

interface SessionRow {
  tenantId: string;
  locationId: string;
  guestId: string;
  deviceId: string;
  ipAddress: string;
  accessCodeId: string | null;
  loginType: string;
  serviceProfileId: string | null;
  downloadedData: bigint;
  uploadedData: bigint;
  startTime: Date;
  endTime: Date | null;
  online: boolean;
  connectionStatus: number;
}

/** A device the seed created, for the presence seeded after it. */
export interface SeededDevice {
  id: string;
  guestId: string;
  mac: string;
}

/**
 * Equips `guestIds`, the guests this run of the seed created (never a guest the API or an import
 * created, nor an erased one: a second run leaves them as they are). Returns the devices created, in
 * the order created.
 */
export async function seedDevicesAndSessions(
  prisma: PrismaNS.TransactionClient,
  opts: { tenantId: string; rand: Random; guestIds: readonly string[]; progress(message: string): void },
): Promise<{ counts: { guest_devices: number; guest_sessions: number }; devices: SeededDevice[] }> {
  const { tenantId, rand } = opts;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const none = { counts: { guest_devices: 0, guest_sessions: 0 }, devices: [] };
  if (opts.guestIds.length === 0) return none;
  // This run's guests, still without devices and not erased (when the seeders run outside one
  // transaction, something may have come between).
  const guests = await prisma.guest.findMany({
    where: { tenantId, id: { in: [...opts.guestIds] }, erasedAt: null, devices: { none: {} } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      locationId: true,
      partnerId: true,
      online: true,
      lastVisitDate: true,
      lastLoginType: true,
      createdAt: true,
    },
  });
  if (guests.length === 0) return none;
  const profile = await prisma.serviceProfile.findFirst({
    where: { tenantId, isDefault: true },
    select: { id: true },
  });
  const codes = await prisma.accessCode.findMany({
    where: { tenantId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true, locationId: true },
  });
  const locations = await prisma.location.findMany({
    where: { tenantId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  const subnet = new Map(locations.map((l, i) => [l.id, 10 + (i % 240)]));
  const now = Date.now();

  const devices: SeededDevice[] = [];
  let sessions = 0;
  for (let start = 0; start < guests.length; start += BATCH) {
    const batch = guests.slice(start, start + BATCH);
    const deviceRows = [];
    const plans: { guestIndex: number; slot: number; sessions: SessionRow[] }[] = [];
    for (const [gi, g] of batch.entries()) {
      const count = between(1, 3);
      const visitedUntil = g.lastVisitDate ? Math.min(g.lastVisitDate.getTime(), now - 5 * MINUTE) : null;
      for (let slot = 0; slot < count; slot++) {
        const kind = pick(DEVICE_KINDS);
        const planned: SessionRow[] = [];
        if (visitedUntil !== null) {
          const from = Math.min(g.createdAt.getTime(), visitedUntil);
          const n = slot === 0 ? between(2, 8) : between(0, 4);
          for (let s = 0; s < n; s++) {
            // The first device's latest session starts at the guest's last visit.
            const startAt =
              slot === 0 && s === n - 1 ? visitedUntil : from + Math.floor(rand() * (visitedUntil - from));
            const open = slot === 0 && s === n - 1 && g.online;
            // Mostly minutes to hours; now and then a long stay over several days.
            const minutes = rand() < 0.03 ? between(24 * 60, 72 * 60) : between(3, 6 * 60);
            // A closed session ends by now (a long stay begun in the last days is cut there).
            const seconds = open
              ? Math.max(60, Math.floor((now - startAt) / 1000))
              : Math.min(minutes * 60 + between(0, 59), Math.max(0, Math.floor((now - startAt) / 1000)));
            const down = BigInt(Math.floor(seconds * (2_000 + rand() * 400_000)));
            const loginType =
              slot === 0 && s === n - 1 && g.lastLoginType ? g.lastLoginType : pick(LOGIN_TYPES);
            const codesHere = codes.filter((c) => c.locationId === g.locationId);
            const ip =
              rand() < 0.1
                ? `2001:db8:${subnet.get(g.locationId)?.toString(16)}::${between(1, 0xffff).toString(16)}`
                : `10.${subnet.get(g.locationId)}.${between(0, 255)}.${between(2, 254)}`;
            planned.push({
              tenantId,
              locationId: g.locationId,
              guestId: g.id,
              deviceId: '',
              ipAddress: ip,
              accessCodeId: loginType === 'Access Code' && codesHere.length > 0 ? pick(codesHere).id : null,
              loginType,
              serviceProfileId: profile?.id ?? null,
              downloadedData: down,
              uploadedData: (down * BigInt(between(5, 25))) / 100n,
              startTime: new Date(startAt),
              endTime: open ? null : new Date(startAt + seconds * 1000),
              online: open,
              connectionStatus: open ? 1 : 0,
            });
          }
          planned.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
        }
        const last = planned.at(-1);
        const online = last?.online ?? false;
        const createdAt = new Date(
          Math.min(
            g.createdAt.getTime() + slot * between(1, 30) * 24 * HOUR,
            planned[0]?.startTime.getTime() ?? now,
            now,
          ),
        );
        const lastSeen = last ? (last.endTime ?? new Date(now)) : null;
        deviceRows.push({
          tenantId,
          guestId: g.id,
          partnerId: g.partnerId,
          typeName: kind.typeName,
          mac: deviceMac(g.id, slot),
          ip: last?.ipAddress ?? null,
          userAgent: kind.ua,
          description: kind.description,
          platform: kind.platform,
          browser: kind.browser,
          online,
          connectionStatus: online ? 1 : 0,
          totalDownloadedData: planned.reduce((sum, s) => sum + s.downloadedData, 0n),
          totalUploadedData: planned.reduce((sum, s) => sum + s.uploadedData, 0n),
          lastSeenTime: lastSeen,
          createdAt,
          updatedAt: lastSeen ?? createdAt,
        });
        plans.push({ guestIndex: gi, slot, sessions: planned });
      }
    }
    const created = await prisma.guestDevice.createManyAndReturn({
      data: deviceRows,
      select: { id: true, guestId: true, mac: true },
    });
    const sessionRows = plans.flatMap((p, i) =>
      p.sessions.map((s) => ({ ...s, deviceId: created[i]?.id ?? '' })),
    );
    for (let k = 0; k < sessionRows.length; k += 2000) {
      await prisma.guestSession.createMany({ data: sessionRows.slice(k, k + 2000) });
    }
    devices.push(...created);
    sessions += sessionRows.length;
    opts.progress(`devices and sessions: ${Math.min(start + BATCH, guests.length)}/${guests.length} guests`);
  }

  // Each equipped guest's totals are the sum of its devices', its visit count its number of
  // sessions (the tenant's other guests keep theirs).
  const equipped = guests.map((g) => g.id);
  await prisma.$executeRaw`
    UPDATE "Guest" AS g SET
      "totalDownloadedData" = d.down, "totalUploadedData" = d.up, "visitCount" = COALESCE(s.visits, 0)
    FROM (SELECT "guestId", SUM("totalDownloadedData")::bigint AS down, SUM("totalUploadedData")::bigint AS up
          FROM "GuestDevice" WHERE "tenantId" = ${tenantId} AND "guestId" = ANY(${equipped}::text[])
          GROUP BY "guestId") AS d
    LEFT JOIN (SELECT "guestId", COUNT(*)::int AS visits FROM "GuestSession"
               WHERE "tenantId" = ${tenantId} AND "guestId" = ANY(${equipped}::text[])
               GROUP BY "guestId") AS s ON s."guestId" = d."guestId"
    WHERE g."id" = d."guestId" AND g."tenantId" = ${tenantId}`;
  return { counts: { guest_devices: devices.length, guest_sessions: sessions }, devices };
}

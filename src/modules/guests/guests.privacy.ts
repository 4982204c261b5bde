// A guest's data rights (issue 17): the copy of everything held on one guest (`GET /guests/:id/export`,
// GraphQL `guestExport`) and the erasure (`DELETE /guests/:id`, GraphQL `eraseGuest`). The erased row
// stays as an anonymous tombstone (`erasedAt`) so its sessions, devices and presence keep their links
// and every count stays right; guestWhere() (guests.service.ts) hides it from every guest read.
import { createHmac, randomBytes } from 'node:crypto';
import type { Scope } from '../../auth/principal.js';
import type { Config } from '../../config.js';
import type { AppContext } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { AppError } from '../../errors.js';
import { actorOf, type EventActor, forgetDevices, writeWithEvents } from '../../events/outbox.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { operation } from '../../operations/operation.js';
import { avatarStorage } from '../../storage/storage.js';
import { accessCodeNames, accessCodeOrder } from '../access-codes/access-codes.service.js';
import {
  locationLogOrder,
  locationLogSelect,
  locationSessionOrder,
  locationSessionSelect,
} from '../analytics/analytics.service.js';
import { deviceListSelect, deviceOrder } from '../guest-devices/guest-devices.service.js';
import { sessionItemSelect, sessionOrder } from '../guest-sessions/guest-sessions.service.js';
import { lockAllDevices } from '../presence/device-locks.js';
import { macVariants, normalizeMac } from '../presence/mac.js';
import { guestById, guestErased, guestInclude, lockLiveGuest } from './guests.service.js';

/** The guest of the path id in the caller's scope (not erased), or 404. */
async function guestInScope(ctx: AppContext, scope: Scope, id: string) {
  const guest = await ctx.prisma.guest.findFirst({
    where: guestById(scope, id),
    select: { id: true, tenantId: true },
  });
  if (!guest) throw new AppError('NOT_FOUND');
  return guest;
}

/**
 * The guest a copy is about, and the location a pinned caller's copy is cut to: a venue admin's copy
 * holds the sessions, presence, movements and codes at its own location (as every list shows it),
 * the tenant admin's everything.
 */
export interface CopySubject {
  id: string;
  tenantId: string;
  /** The caller's pinned location, if any. */
  at: string | undefined;
}

/** GraphQL `guestExport`: the guest the copy is about, or null (the fields load its collections). */
export async function exportableGuest(
  ctx: AppContext,
  scope: Scope,
  id: string,
): Promise<CopySubject | null> {
  const g = await ctx.prisma.guest.findFirst({
    where: guestById(scope, id),
    select: { id: true, tenantId: true },
  });
  return g && { ...g, at: scope.locationId ?? undefined };
}

/** The rows of a collection that belong to the guest (and, for a pinned caller, to its location). */
export const ownRows = (g: CopySubject) => ({
  tenantId: g.tenantId,
  guestId: g.id,
  ...(g.at ? { locationId: g.at } : {}),
});

/** The MACs of `devices`, in every form a table stores them. */
const macFormsOf = (devices: readonly { mac: string }[]): string[] => [
  ...new Set(devices.flatMap((d) => macVariants(d.mac))),
];

const devicesMacs = new WeakMap<CopySubject, Promise<string[]>>();

/** The MACs of the guest's devices, in every form a table stores them (read once per copy). */
export function macsHeld(ctx: AppContext, g: CopySubject): Promise<string[]> {
  let macs = devicesMacs.get(g);
  if (!macs) {
    macs = ctx.prisma.guestDevice
      .findMany({ where: { tenantId: g.tenantId, guestId: g.id }, select: { mac: true } })
      .then(macFormsOf);
    devicesMacs.set(g, macs);
  }
  return macs;
}

/**
 * The presence rows of the guest: its own, and those of its devices' MACs that no guest held then
 * (the device seen before it was the guest's), which its erasure treats as its own too. `byMac`: the
 * table's MAC column among those MACs. Another guest's rows stay that guest's.
 */
export function heldRows<W extends object>(g: CopySubject, byMac: W) {
  return {
    tenantId: g.tenantId,
    ...(g.at ? { locationId: g.at } : {}),
    OR: [{ guestId: g.id }, { guestId: null, ...byMac }],
  };
}

// ---------------------------------------------------------------------------------------------
// The copy

/** What a presence record shows in the copy. */
export const presenceRecordSelect = {
  id: true,
  mac: true,
  dataType: true,
  x: true,
  y: true,
  locationId: true,
  buildingId: true,
  floorId: true,
  zoneId: true,
  connected: true,
  seenAt: true,
} satisfies PrismaNS.PresenceRecordSelect;

/** Codes the guest holds or logged in with (for a pinned caller, those of its location). */
export const usedCodesWhere = (g: CopySubject): PrismaNS.AccessCodeWhereInput => ({
  tenantId: g.tenantId,
  ...(g.at ? { locationId: g.at } : {}),
  OR: [{ guestId: g.id }, { sessions: { some: { tenantId: g.tenantId, guestId: g.id } } }],
});

/** Newest first, the id breaking ties. */
export const presenceOrder = [
  { seenAt: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.PresenceRecordOrderByWithRelationInput[];

/** The guest's tags (name, type, group), by name. */
export async function tagsOf(ctx: AppContext, g: CopySubject) {
  const rows = await ctx.prisma.guestTag.findMany({
    where: { tenantId: g.tenantId, guestId: g.id },
    orderBy: { tag: { name: 'asc' } },
    select: { tag: { select: { name: true, type: true, groupName: true } } },
  });
  return rows.map((r) => r.tag);
}

/**
 * Everything held on one guest: one query per collection (eight, in parallel; their relations load
 * by id lists, never per row), so the number of statements does not grow with the guest's history.
 * Each collection whole and newest first; the README notes the size.
 */
async function copyOf(ctx: AppContext, g: CopySubject) {
  const { id: guestId, tenantId } = g;
  // Devices have no location of their own: the guest's are all its location's.
  const own = { tenantId, guestId };
  const here = ownRows(g);
  // Read first: their MACs find the presence of the devices from before they were the guest's.
  const devices = await ctx.prisma.guestDevice.findMany({
    where: own,
    orderBy: deviceOrder(true),
    select: deviceListSelect,
  });
  const macs = macFormsOf(devices);
  const [guest, tags, sessions, presenceRecords, locationSessions, locationLogs, accessCodes] =
    await Promise.all([
      ctx.prisma.guest.findUniqueOrThrow({ where: { id: guestId }, include: guestInclude(tenantId) }),
      tagsOf(ctx, g),
      ctx.prisma.guestSession.findMany({
        where: here,
        orderBy: sessionOrder(true),
        select: sessionItemSelect,
      }),
      ctx.prisma.presenceRecord.findMany({
        where: heldRows(g, { mac: { in: macs } }),
        orderBy: presenceOrder,
        select: presenceRecordSelect,
      }),
      ctx.prisma.locationSession.findMany({
        where: heldRows(g, { mac: { in: macs } }),
        orderBy: locationSessionOrder,
        select: locationSessionSelect,
      }),
      ctx.prisma.locationLog.findMany({
        where: heldRows(g, { guestMac: { in: macs } }),
        orderBy: locationLogOrder,
        select: locationLogSelect,
      }),
      ctx.prisma.accessCode.findMany({
        where: usedCodesWhere(g),
        orderBy: accessCodeOrder,
        include: accessCodeNames,
      }),
    ]);
  return {
    guest,
    tags,
    devices,
    sessions,
    presenceRecords,
    locationSessions,
    locationLogs,
    accessCodes,
  };
}

export type GuestCopy = Awaited<ReturnType<typeof copyOf>>;

/** `GET /guests/:id/export`: the copy of everything held on the guest. */
export const exportGuest = operation({
  action: 'guests.export',
  find: guestInScope,
  input: {},
  run: ({ ctx, scope, found }): Promise<GuestCopy> =>
    copyOf(ctx, { id: found.id, tenantId: found.tenantId, at: scope.locationId ?? undefined }),
});

// ---------------------------------------------------------------------------------------------
// The erasure

/** Prisma's 5 s default is short for a guest with a long history on a busy database. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 60_000 };

/**
 * A MAC's stand-in: a locally administered unicast address (`02:` and five bytes of HMAC-SHA256 of
 * the canonical MAC under `salt`). The salt is drawn per erasure and never stored: within one erasure
 * the same MAC always gives the same stand-in (devices, sessions and presence still count as one
 * device), and nobody can recompute it afterwards.
 */
export function macStandIn(mac: string, salt: Buffer): string {
  const digest = createHmac('sha256', salt).update(normalizeMac(mac)).digest();
  const bytes = [0x02, ...digest.subarray(0, 5)];
  return bytes.map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
}

/** The personal columns of a guest, emptied; the username becomes a random, non-personal value. */
function blankGuest(now: Date) {
  return {
    username: `erased-${randomBytes(6).toString('hex')}`,
    name: '',
    firstName: null,
    lastName: null,
    email: null,
    birthDate: null,
    gender: 0,
    phone: null,
    passportNo: null,
    nationalityCode: null,
    residencyCode: null,
    roomNo: null,
    reservationNo: null,
    hotelStatus: null,
    socialId: null,
    partnerId: null,
    customField1: null,
    customField2: null,
    customField3: null,
    customData: null,
    receiveMarketing: 0,
    lastSsidName: null,
    vendor: null,
    phoneVerifiedAt: null,
    whatsappVerifiedAt: null,
    emailVerifiedAt: null,
    imagePath: null,
    checkinDate: null,
    checkoutDate: null,
    online: false,
    connectionStatus: 0,
    erasedAt: now,
  } satisfies PrismaNS.GuestUpdateInput;
}

/** The tables that store a MAC, and its column. */
const MAC_COLUMNS = [
  ['GuestDevice', 'mac'],
  ['PresenceRecord', 'mac'],
  ['CurrentPresence', 'mac'],
  ['LocationSession', 'mac'],
  ['LocationLog', 'guestMac'],
] as const;

export type Tx = PrismaNS.TransactionClient;

/** Every MAC stored for the guest, in whichever table and case (the ingest keeps them upper-case). */
async function macsOf(tx: Tx, tenantId: string, guestId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ mac: string }[]>(PrismaNS.sql`
    SELECT mac FROM "GuestDevice" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
    UNION SELECT mac FROM "PresenceRecord" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
    UNION SELECT mac FROM "CurrentPresence" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
    UNION SELECT mac FROM "LocationSession" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
    UNION SELECT "guestMac" FROM "LocationLog" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}`);
  return rows.map((r) => r.mac);
}

/**
 * Replaces each of the guest's MACs by its stand-in in every table of the tenant that stores one
 * (also rows not linked to the guest: the same device seen before it signed in). Every stored form
 * of a MAC (upper, lower, dashes) maps to the stand-in of its canonical form. Resolves to those forms.
 */
async function replaceMacs(tx: Tx, tenantId: string, macs: string[]): Promise<string[]> {
  if (macs.length === 0) return [];
  const salt = randomBytes(32);
  const from: string[] = [];
  const to: string[] = [];
  for (const mac of new Set(macs)) {
    const canonical = normalizeMac(mac);
    const standIn = macStandIn(canonical, salt);
    const hex = canonical.replaceAll(':', '');
    for (const form of new Set([
      mac,
      canonical,
      canonical.toLowerCase(),
      canonical.replaceAll(':', '-'),
      canonical.replaceAll(':', '-').toLowerCase(),
      hex,
      hex.toLowerCase(),
    ])) {
      from.push(form);
      to.push(standIn);
    }
  }
  for (const [table, column] of MAC_COLUMNS) {
    await tx.$executeRaw(PrismaNS.sql`
      UPDATE ${PrismaNS.raw(`"${table}"`)} AS t SET ${PrismaNS.raw(`"${column}"`)} = m.stand_in
      FROM unnest(${from}::text[], ${to}::text[]) AS m(mac, stand_in)
      WHERE t."tenantId" = ${tenantId} AND t.${PrismaNS.raw(`"${column}"`)} = m.mac`);
  }
  return from;
}

/** What an erasure needs: the database, and the config that says where avatars are stored. */
export interface ErasureDeps {
  prisma: Prisma;
  config: Config;
  /** Who erases (the caller, or the retention sweeper) and the audit entry's action. */
  actor: EventActor;
  action: string;
}

/**
 * The erasure of one guest, the one place for its rule (`DELETE /guests/:id`, GraphQL `eraseGuest`
 * and the retention sweeper's anonymisation of inactive guests all call it): in one transaction, the
 * guest's personal columns are emptied and the row marked erased, its tags unlinked, its devices' MACs
 * replaced by stand-ins everywhere, the devices' addresses and agents and the sessions' IP addresses
 * emptied, and the codes it held let go; then its avatar file is removed from storage. Resolves to
 * false, changing nothing, when the guest is absent or already erased, or when `when` (a condition
 * checked under the row's lock, in the transaction: the sweeper's "still inactive") says no.
 */
export async function eraseGuestData(
  deps: ErasureDeps,
  guest: { id: string; tenantId: string },
  opts: { when?: (tx: Tx) => Promise<boolean> } = {},
): Promise<boolean> {
  const { id: guestId, tenantId } = guest;
  const own = { tenantId, guestId };
  const source = { prisma: deps.prisma, tenantId, actor: deps.actor };
  const avatar = await writeWithEvents(source, TRANSACTION_OPTIONS, async (tx, log) => {
    // Every device of the tenant takes its turn first: a batch writing the guest's MACs is done
    // before this reads them, or waits until this is done (src/modules/presence/device-locks.ts).
    await lockAllDevices(tx, tenantId);
    // Then the guest's row: a concurrent erasure or update of the guest waits on it, then finds it
    // erased; the avatar path read here is the one the erasure empties.
    const row = await lockLiveGuest(tx, tenantId, guestId);
    if (!row || (opts.when && !(await opts.when(tx)))) return undefined;
    await tx.guest.updateMany({ where: { id: guestId, tenantId }, data: blankGuest(new Date()) });
    await tx.guestTag.deleteMany({ where: own });
    const macs = await replaceMacs(tx, tenantId, await macsOf(tx, tenantId, guestId));
    const devices = await tx.guestDevice.findMany({ where: own, select: { id: true } });
    await forgetDevices(tx, tenantId, { macs, deviceIds: devices.map((d) => d.id) });
    await tx.guestDevice.updateMany({
      where: own,
      data: { ip: null, userAgent: null, partnerId: null, description: '' },
    });
    await tx.guestSession.updateMany({ where: own, data: { ipAddress: '0.0.0.0' } });
    await tx.accessCode.updateMany({ where: own, data: { guestId: null } });
    log.record(guestErased(guestId, deps.action));
    return { path: row.imagePath };
  });
  if (!avatar) return false;
  if (avatar.path) await avatarStorage(deps).remove(avatar.path);
  return true;
}

/** `DELETE /guests/:id`, GraphQL `eraseGuest`: the erasure (eraseGuestData) of the guest of the path id. */
export const eraseGuest = operation({
  action: 'guests.erase',
  find: guestInScope,
  input: {},
  async run({ ctx, action, found }): Promise<{ id: string }> {
    const deps = { prisma: ctx.prisma, config: ctx.config, actor: actorOf(ctx), action };
    // Erased meanwhile (a concurrent erasure, the retention sweeper): absent, as a second DELETE.
    if (!(await eraseGuestData(deps, found))) throw new AppError('NOT_FOUND');
    return { id: found.id };
  },
});

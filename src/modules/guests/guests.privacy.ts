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
import type { AuditAction } from '../../events/audit.js';
import {
  actorOf,
  type EventActor,
  type EventLog,
  forgetDevices,
  spanOf,
  writeReturningEvents,
} from '../../events/outbox.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { operation } from '../../operations/operation.js';
import type { AppPubSub } from '../../redis/pubsub.js';
import { markForRemoval, removeMarked } from '../../storage/file-removals.js';
import { accessCodeNames, accessCodeOrder } from '../access-codes/access-codes.service.js';
import {
  locationLogOrder,
  locationLogSelect,
  locationSessionOrder,
  locationSessionSelect,
} from '../analytics/analytics.service.js';
import { deviceListSelect, deviceOrder } from '../guest-devices/guest-devices.service.js';
import { sessionEvent, sessionItemSelect, sessionOrder } from '../guest-sessions/guest-sessions.service.js';
import { closeVisits } from '../ingest/ingest.timeouts.js';
import { lockAllDevices } from '../presence/device-locks.js';
import { macVariants, normalizeMac } from '../presence/mac.js';
import { publishPresence } from '../presence/presence.pubsub.js';
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

/**
 * The codes of a copy: a code the guest only logged in with keeps its holder (another guest) out of
 * the guest's copy, as every other guest's data is.
 */
export const ownCodes = <C extends { guestId: string | null }>(g: CopySubject, codes: C[]): C[] =>
  codes.map((c) => (c.guestId === null || c.guestId === g.id ? c : { ...c, guestId: null, guest: null }));

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
    accessCodes: ownCodes(g, accessCodes),
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

/** The tables that store a MAC, and its column (each also names the row's guest: `guestId`). */
const MAC_COLUMNS = [
  ['GuestDevice', 'mac'],
  ['PresenceRecord', 'mac'],
  ['CurrentPresence', 'mac'],
  ['LocationSession', 'mac'],
  ['LocationLog', 'guestMac'],
] as const;

/** The tables whose rows point at a device (`deviceId`) and name their guest. */
const DEVICE_ROWS = ['GuestSession', 'PresenceRecord', 'CurrentPresence', 'LocationSession'] as const;

export type Tx = PrismaNS.TransactionClient;

/**
 * The MACs in the guest's history whose device is no longer the guest's (it moved to another guest):
 * from its own presence, visit and movement rows and its sessions' devices.
 */
async function macsLeftBehind(tx: Tx, tenantId: string, guestId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ mac: string }[]>(PrismaNS.sql`
    SELECT h.mac FROM (
      SELECT mac FROM "PresenceRecord" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
      UNION SELECT mac FROM "CurrentPresence" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
      UNION SELECT mac FROM "LocationSession" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
      UNION SELECT "guestMac" FROM "LocationLog" WHERE "tenantId" = ${tenantId} AND "guestId" = ${guestId}
      UNION SELECT d.mac FROM "GuestSession" s JOIN "GuestDevice" d ON d."id" = s."deviceId"
        WHERE s."tenantId" = ${tenantId} AND s."guestId" = ${guestId}
    ) h
    WHERE NOT EXISTS (SELECT 1 FROM "GuestDevice" d
      WHERE d."tenantId" = ${tenantId} AND d."guestId" = ${guestId} AND d.mac = h.mac)`);
  return rows.map((r) => r.mac);
}

/** Every stored form of each MAC (upper, lower, dashes, bare), each paired with its stand-in. */
function standIns(macs: readonly string[], salt: Buffer): { from: string[]; to: string[] } {
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
  return { from, to };
}

/**
 * Replaces the guest's MACs by stand-ins. A device that is the guest's takes its stand-in in every
 * table of the tenant (also rows not linked to the guest: the same device seen before it signed in,
 * or while another guest held it: left there, such a row would link the stand-in back to the MAC). A
 * device the guest used that is another guest's now stays that guest's, untouched; the guest's own
 * rows of it take the stand-in and move to a device of the guest's (a copy under the stand-in), so no
 * row of the erased guest points at the live device. Resolves to the forms replaced of the guest's
 * own devices' MACs (the log's copies of the others, in the guest's own events, go with them:
 * MENTIONS in src/events/event-types.ts).
 */
async function replaceMacs(tx: Tx, tenantId: string, guestId: string): Promise<string[]> {
  const owned = (await tx.guestDevice.findMany({ where: { tenantId, guestId }, select: { mac: true } })).map(
    (d) => d.mac,
  );
  const leftBehind = await macsLeftBehind(tx, tenantId, guestId);
  if (owned.length === 0 && leftBehind.length === 0) return [];
  const salt = randomBytes(32);
  const mine = standIns(owned, salt);
  const theirs = standIns(leftBehind, salt);
  if (theirs.from.length > 0) await leaveOpenVisits(tx, tenantId, guestId);
  for (const [table, column] of MAC_COLUMNS) {
    const t = PrismaNS.raw(`"${table}"`);
    const c = PrismaNS.raw(`"${column}"`);
    if (mine.from.length > 0) {
      await tx.$executeRaw(PrismaNS.sql`
        UPDATE ${t} AS t SET ${c} = m.stand_in
        FROM unnest(${mine.from}::text[], ${mine.to}::text[]) AS m(mac, stand_in)
        WHERE t."tenantId" = ${tenantId} AND t.${c} = m.mac`);
    }
    if (theirs.from.length > 0 && table !== 'GuestDevice') {
      await tx.$executeRaw(PrismaNS.sql`
        UPDATE ${t} AS t SET ${c} = m.stand_in
        FROM unnest(${theirs.from}::text[], ${theirs.to}::text[]) AS m(mac, stand_in)
        WHERE t."tenantId" = ${tenantId} AND t."guestId" = ${guestId} AND t.${c} = m.mac`);
    }
  }
  if (theirs.from.length > 0) await moveToCopies(tx, tenantId, guestId, salt);
  return mine.from;
}

/**
 * A visit still open of a device another guest has now goes on (the device is there now): it, its
 * zone visits and the device's current presence are that guest's, and the erasure leaves them be.
 * Rewritten, the next detection found no open visit and entered the device a second time.
 */
async function leaveOpenVisits(tx: Tx, tenantId: string, guestId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE "LocationSession" v SET "guestId" = d."guestId" FROM "GuestDevice" d
    WHERE v."tenantId" = ${tenantId} AND v."guestId" = ${guestId} AND v."endedAt" IS NULL
      AND d."tenantId" = ${tenantId} AND d.mac = v.mac AND d."guestId" <> ${guestId}`;
  await tx.$executeRaw`
    UPDATE "LocationLog" l SET "guestId" = v."guestId" FROM "LocationSession" v
    WHERE l."tenantId" = ${tenantId} AND l."guestId" = ${guestId} AND l."sessionId" = v."id"
      AND v."endedAt" IS NULL AND v."guestId" <> ${guestId}`;
  await tx.$executeRaw`
    UPDATE "CurrentPresence" c SET "guestId" = d."guestId" FROM "GuestDevice" d
    WHERE c."tenantId" = ${tenantId} AND c."guestId" = ${guestId}
      AND d."tenantId" = ${tenantId} AND d.mac = c.mac AND d."guestId" <> ${guestId}`;
}

/**
 * The guest's rows that point at another guest's device: each such device gets a copy of the
 * guest's own (the device's MAC's stand-in as its MAC, nothing else of the device's), and the rows
 * point at it.
 */
async function moveToCopies(tx: Tx, tenantId: string, guestId: string, salt: Buffer): Promise<void> {
  const pointing = DEVICE_ROWS.map(
    (table) =>
      `SELECT "deviceId" FROM "${table}" WHERE "tenantId" = $1 AND "guestId" = $2 AND "deviceId" IS NOT NULL`,
  ).join(' UNION ');
  const foreign = await tx.$queryRawUnsafe<{ id: string; mac: string }[]>(
    `SELECT d."id", d.mac FROM "GuestDevice" d WHERE d."id" IN (${pointing}) AND d."guestId" <> $2`,
    tenantId,
    guestId,
  );
  for (const device of foreign) {
    const copy = await tx.guestDevice.create({
      data: { tenantId, guestId, mac: macStandIn(device.mac, salt) },
      select: { id: true },
    });
    for (const table of DEVICE_ROWS) {
      await tx.$executeRawUnsafe(
        `UPDATE "${table}" SET "deviceId" = $4 WHERE "tenantId" = $1 AND "guestId" = $2 AND "deviceId" = $3`,
        tenantId,
        guestId,
        device.id,
        copy.id,
      );
    }
  }
}

/** What an erasure needs: the database, and the config that says where avatars are stored. */
export interface ErasureDeps {
  prisma: Prisma;
  config: Config;
  /** Who erases (the caller, or the retention sweeper) and the audit entry's action. */
  actor: EventActor;
  action: AuditAction;
  /** Where `presenceChanged` subscribers hear that the guest's devices left (none: not published). */
  pubsub?: AppPubSub | undefined;
}

/**
 * The erasure of one guest, the one place for its rule (`DELETE /guests/:id`, GraphQL `eraseGuest`
 * and the retention sweeper's anonymisation of inactive guests all call it): in one transaction, its
 * MACs are replaced by stand-ins (replaceMacs), the anonymous guests a redeem named after one of its
 * devices' MACs are erased with it (they are that device's), and each erased guest's personal columns
 * are emptied and its row marked erased, its tags unlinked, its devices' addresses and agents and its
 * sessions' IP addresses emptied, its open sessions ended (no controller can name the device again),
 * its devices' presence ended (leavePresence), and the codes it held let go; then the devices that
 * left are published to presence subscribers and the avatar files removed from storage. Resolves to false,
 * changing nothing, when the guest is absent or already erased, or when `when` (a condition checked
 * under the row's lock, in the transaction: the sweeper's "still inactive") says no.
 */
export async function eraseGuestData(
  deps: ErasureDeps,
  guest: { id: string; tenantId: string },
  opts: { when?: (tx: Tx) => Promise<boolean> } = {},
): Promise<boolean> {
  const { id: guestId, tenantId } = guest;
  const source = { prisma: deps.prisma, tenantId, actor: deps.actor };
  const { value: done, events } = await writeReturningEvents(
    source,
    async (tx, log) => {
      // Every device of the tenant takes its turn first: a batch writing the guest's MACs is done
      // before this reads them, or waits until this is done (src/modules/presence/device-locks.ts).
      await lockAllDevices(tx, tenantId);
      // Then the guest's row: a concurrent erasure or update of the guest waits on it, then finds it
      // erased; the avatar path read here is the one the erasure empties.
      const row = await lockLiveGuest(tx, tenantId, guestId);
      if (!row || (opts.when && !(await opts.when(tx)))) return undefined;
      // The anonymous guests a redeem named after one of the guest's devices (name and username its MAC).
      const owned = await tx.guestDevice.findMany({ where: { tenantId, guestId }, select: { mac: true } });
      const namedAfter =
        owned.length === 0
          ? []
          : await tx.guest.findMany({
              where: { tenantId, id: { not: guestId }, erasedAt: null, username: { in: macFormsOf(owned) } },
              select: { id: true, name: true, username: true, imagePath: true },
            });
      const erased = [
        ...namedAfter.filter((g) => g.name === g.username),
        { id: guestId, imagePath: row.imagePath },
      ];
      // Each erased guest's MACs, the anonymous ones' first (the device they share is then the guest's,
      // replaced once). The log loses the erased guests' own devices' MACs in every event
      // (forgetDevices); another guest's device keeps its MAC in that guest's events.
      const forms: string[] = [];
      for (const g of erased) forms.push(...(await replaceMacs(tx, tenantId, g.id)));
      const devices = await tx.guestDevice.findMany({
        where: { tenantId, guestId: { in: erased.map((g) => g.id) } },
        select: { id: true },
      });
      await forgetDevices(tx, tenantId, { macs: forms, deviceIds: devices.map((d) => d.id) });
      const left = await leavePresence(
        tx,
        log,
        tenantId,
        erased.map((g) => g.id),
      );
      // The transaction's time: `erased_at` is then not after the time of the `guest.erased` event
      // and its audit entry, taken as they are appended (a clock read here came a few ms after
      // the transaction's time, which they then carried; probe D).
      const now = new Date(row.now);
      for (const g of erased) await eraseRow(tx, log, tenantId, g.id, deps.action, now);
      const avatars = erased.map((g) => g.imagePath).filter((path): path is string => !!path);
      await markForRemoval(tx, avatars);
      return { left, avatars };
    },
    TRANSACTION_OPTIONS,
  );
  if (!done) return false;
  // Committed: the locations' subscribers hear the devices left, as they hear the sweeper's leaves.
  if (done.left.size > 0) publishPresence(deps.pubsub, tenantId, done.left, spanOf(events));
  // Not served from the commit on; a file the storage cannot remove now is retried by its pass.
  await removeMarked(deps, done.avatars);
  return true;
}

/**
 * The erased guests' devices leave where they are, as their sessions end: no row holds their MACs
 * any more, so a detection under the real MAC could never continue their presence, and both would
 * count. Their open visits close at the last detection (`presence.zone_left` and
 * `presence.location_left`, reason `erased`, naming the device by its stand-in, as the visit's row
 * and a live `presenceChanged` do: a subscriber resuming from the log hears the same leave, and the
 * stand-in tells nothing of the device), and their current presence goes: occupancy and the
 * active sessions stop counting them now, and the next detection counts once, as a new device. The
 * rows are the guests' own (after leaveOpenVisits, none of a device another guest has now) and those
 * under their devices' stand-ins. Resolves to the stand-ins that left, per location.
 */
async function leavePresence(
  tx: Tx,
  log: EventLog,
  tenantId: string,
  guestIds: string[],
): Promise<Map<string, Set<string>>> {
  const theirs = (alias: string) => {
    const a = PrismaNS.raw(alias);
    return PrismaNS.sql`${a}."tenantId" = ${tenantId} AND (${a}."guestId" = ANY(${guestIds}::text[])
      OR ${a}.mac IN (SELECT d.mac FROM "GuestDevice" d
        WHERE d."tenantId" = ${tenantId} AND d."guestId" = ANY(${guestIds}::text[])))`;
  };
  const open = await tx.$queryRaw<{ id: string }[]>(PrismaNS.sql`
    SELECT s."id" FROM "LocationSession" s WHERE ${theirs('s')} AND s."endedAt" IS NULL`);
  const visits = await closeVisits(
    tx,
    log,
    tenantId,
    open.map((v) => v.id),
    { reason: 'erased' },
  );
  const gone = await tx.$queryRaw<{ mac: string; locationId: string | null }[]>(PrismaNS.sql`
    DELETE FROM "CurrentPresence" c WHERE ${theirs('c')} RETURNING c.mac, c."locationId"`);
  const left = new Map<string, Set<string>>();
  for (const { locationId, mac } of [...visits, ...gone]) {
    if (locationId) left.set(locationId, (left.get(locationId) ?? new Set()).add(mac));
  }
  return left;
}

/** One erased guest's own rows (its MACs are replaceMacs'): emptied, its open sessions ended. */
async function eraseRow(
  tx: Tx,
  log: EventLog,
  tenantId: string,
  guestId: string,
  action: AuditAction,
  now: Date,
): Promise<void> {
  const own = { tenantId, guestId };
  await tx.guest.updateMany({ where: { id: guestId, tenantId }, data: blankGuest(now) });
  await tx.guestTag.deleteMany({ where: own });
  await tx.guestDevice.updateMany({
    where: own,
    data: { ip: null, userAgent: null, partnerId: null, description: '', online: false, connectionStatus: 0 },
  });
  await tx.guestSession.updateMany({ where: own, data: { ipAddress: '0.0.0.0' } });
  const open = { ...own, endTime: null };
  const ending = await tx.guestSession.findMany({ where: open, select: { id: true } });
  if (ending.length > 0) {
    const ended = { id: { in: ending.map((e) => e.id) } };
    await tx.guestSession.updateMany({
      where: ended,
      data: { endTime: now, online: false, connectionStatus: 0 },
    });
    for (const s of await tx.guestSession.findMany({ where: ended, select: sessionItemSelect })) {
      log.record(sessionEvent('guest_session.ended', s, now));
    }
  }
  await tx.accessCode.updateMany({ where: own, data: { guestId: null } });
  log.record(guestErased(guestId, action, now));
}

/** `DELETE /guests/:id`, GraphQL `eraseGuest`: the erasure (eraseGuestData) of the guest of the path id. */
export const eraseGuest = operation({
  action: 'guests.erase',
  find: guestInScope,
  input: {},
  async run({ ctx, action, found }): Promise<{ id: string }> {
    const deps = { prisma: ctx.prisma, config: ctx.config, actor: actorOf(ctx), action, pubsub: ctx.pubsub };
    // Erased meanwhile (a concurrent erasure, the retention sweeper): absent, as a second DELETE.
    if (!(await eraseGuestData(deps, found))) throw new AppError('NOT_FOUND');
    return { id: found.id };
  },
});

// Redeem (beyond the spec): a venue's captive portal checks a code a guest typed; the use is counted
// exactly once, the device linked, and the controller gets the service profile's limits.

import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { findManyRows } from '../../db/raw-rows.js';
import { lockRow } from '../../db/row-lock.js';
import { inScope } from '../../db/scope.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { AuditAction } from '../../events/audit.js';
import { type EventLog, writeWithEvents } from '../../events/outbox.js';
import type { AccessCode, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type InputOf, operation } from '../../operations/operation.js';
import { storedIpAddress } from '../../shared/ip-address.js';
import { fill, INVALID_SELECTION } from '../../validation/messages.js';
import { ValidationError } from '../../validation/validator.js';
import { deviceListSelect, recordFirstSeen } from '../guest-devices/guest-devices.service.js';
import {
  endSession,
  lastSeenForward,
  recordVisit,
  sessionEvent,
  sessionItemSelect,
} from '../guest-sessions/guest-sessions.service.js';
import { guestVisibleSelect, recordGuestCreated } from '../guests/guests.service.js';
import { lockDevices } from '../presence/device-locks.js';
import { macVariants, normalizeMac } from '../presence/mac.js';
import { GENERATED, redeemFields } from './access-codes.inputs.js';
import { AVAILABLE, REVOKED, USED } from './access-codes.labels.js';
import { type AccessCodeListRow, accessCodeChange, accessCodeListInclude } from './access-codes.service.js';

/** Why a code is refused, keyed `code` in the 422 (an unknown code is the `exists` rule's message). */
export const REFUSED = {
  unknown: 'The selected code is invalid.',
  location: 'The code is not valid at this location.',
  revoked: 'The code has been revoked.',
  usedUp: 'The code has been used up.',
  expired: 'The code has expired.',
  notYet: 'The code is not valid yet.',
  guest: 'The code belongs to a guest of another location.',
} as const;

const refuse = (message: string) => new ValidationError({ code: [message] });

/** What the redeem judges a code by. */
type Judged = Pick<
  AccessCode,
  'locationId' | 'status' | 'revokedAt' | 'maxUses' | 'useCount' | 'startDate' | 'expiryDate'
>;

/**
 * Why `c` cannot be redeemed at `locationId` now, or null: another location, then revoked, used up,
 * expired, not valid yet (the conditional update in `redeem` checks the same, in one statement).
 */
export function refusalOf(c: Judged, locationId: string, now: Date): string | null {
  if (c.locationId !== locationId) return REFUSED.location;
  if (c.status === REVOKED || c.revokedAt !== null) return REFUSED.revoked;
  if (c.status === USED || (c.maxUses !== null && c.useCount >= c.maxUses)) return REFUSED.usedUp;
  if (c.expiryDate !== null && c.expiryDate.getTime() <= now.getTime()) return REFUSED.expired;
  if (c.startDate !== null && c.startDate.getTime() > now.getTime()) return REFUSED.notYet;
  return null;
}

/** What the redeem reads of the code: the list's item, and its service profile's limits. */
const redeemInclude = {
  ...accessCodeListInclude,
  serviceProfile: {
    select: { name: true, sessionDuration: true, dataQuota: true, bandwidthUp: true, bandwidthDown: true },
  },
} satisfies PrismaNS.AccessCodeInclude;

type RedeemRow = PrismaNS.AccessCodeGetPayload<{ include: typeof redeemInclude }>;

/** The service profile's limits: minutes and kbit/s (0 unlimited), bytes (null unlimited). */
export interface Limits {
  sessionDuration: number;
  dataQuota: bigint | null;
  bandwidthUp: number;
  bandwidthDown: number;
}

export interface Redeemed {
  /** The code after the redeem, as the list reads it. */
  code: AccessCodeListRow;
  limits: Limits;
  /** The guest session opened (`start_session`), or null. */
  sessionId: string | null;
  deviceId: string;
}

/** What `POST /access-codes/redeem` and `redeemAccessCode` validate to. */
export type RedeemInput = InputOf<ReturnType<typeof redeemFields>>;

/** `login_type` of the sessions a redeem opens, and the guest's `last_login_type`. */
export const REDEEM_LOGIN_TYPE = 'Access Code';

/**
 * `POST /access-codes/redeem`, GraphQL `redeemAccessCode`: a guest typed a code at a venue's captive
 * portal. One use is counted exactly once, however many redeem the code at the same time, or the
 * 422 names why not; the device is linked to its guest, a session opened when asked, and the
 * service profile's limits answered for the controller to apply.
 */
export const redeemAccessCode = operation({
  action: 'accessCodes.redeem',
  input: redeemFields,
  run: ({ ctx, action, scope, input }) => redeem(ctx, action, scope, input),
});

async function redeem(
  ctx: AppContext,
  action: AuditAction,
  scope: Scope,
  input: RedeemInput,
): Promise<Redeemed> {
  const now = new Date();
  const [code] = await findManyRows<RedeemRow>(ctx.prisma, 'AccessCode', {
    where: { tenantId: scope.tenantId, code: input.code },
    include: redeemInclude,
    take: 1,
  });
  if (!code) throw refuse(REFUSED.unknown);
  // Most refusals are plain from the row: no transaction for them.
  const refusal = refusalOf(code, input.location_id, now);
  if (refusal) throw refuse(refusal);
  const { sessionDuration, dataQuota, bandwidthUp, bandwidthDown } = code.serviceProfile;
  const limits = { sessionDuration, dataQuota, bandwidthUp, bandwidthDown };
  // Two first redeems from one new MAC both create its device; the index refuses the second, which
  // then finds the device on its second try.
  for (let attempt = 1; ; attempt++) {
    try {
      const done = await writeWithEvents(ctx, REDEEM_TRANSACTION, (tx, log) =>
        redeemIn({ ctx, tx, log, action }, scope, input, code, now),
      );
      return { ...done, limits };
    } catch (err) {
      if (attempt < 2 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

/** A redeem waits for the code's row lock behind concurrent ones; each holds it for a few statements. */
const REDEEM_TRANSACTION = { maxWait: 10_000, timeout: 10_000 };

type Tx = PrismaNS.TransactionClient;

/** A redeem's transaction: the request, the transaction, its events and the audit's action. */
interface Write {
  ctx: AppContext;
  tx: Tx;
  log: EventLog;
  action: AuditAction;
}

const guestNameSelect = { id: true, name: true, ...guestVisibleSelect } as const;
type GuestName = { id: string; name: string; tenantId: string; locationId: string; erasedAt: Date | null };

/**
 * Inside one transaction: link the device, count the use with one conditional UPDATE (it refuses
 * when a concurrent redeem, a revoke or the clock got there first), open the session. A refusal
 * rolls the device's changes back.
 */
async function redeemIn(
  w: Write,
  scope: Scope,
  input: RedeemInput,
  code: RedeemRow,
  now: Date,
): Promise<Omit<Redeemed, 'limits'>> {
  const { tx, log } = w;
  const { tenantId } = scope;
  // The rule let through a MAC in one of Laravel's notations; stored upper-case with colons.
  const mac = normalizeMac(input.mac);
  const address = input.ip_address ? storedIpAddress(input.ip_address) : null;
  // The device takes its turn as an ingest batch's do (src/modules/presence/device-locks.ts).
  await lockDevices(tx, tenantId, [mac]);
  const device = await tx.guestDevice.findFirst({
    where: { tenantId, mac: { in: macVariants(mac) } },
    select: { id: true, guestId: true, guest: { select: guestNameSelect } },
  });
  // A pinned caller changes only its location's devices: the device of another location's guest is
  // not its to move, nor that guest's session its to close, nor that guest its to name (probe S).
  if (device && !inScope(scope, device.guest.tenantId, device.guest.locationId)) {
    throw new ValidationError({ mac: [fill(INVALID_SELECTION, { attribute: 'mac' })] });
  }
  const guest = await guestOf(w, scope, input, code, device, mac);
  let deviceId: string;
  if (!device) {
    const created = await tx.guestDevice.create({
      data: { tenantId, guestId: guest.id, mac, ip: address, lastSeenTime: now },
      select: deviceListSelect,
    });
    recordFirstSeen(tx, log, created.id);
    deviceId = created.id;
  } else {
    deviceId = device.id;
    // The device follows the guest named with it (as the ingest moves it).
    if (device.guestId !== guest.id) {
      await tx.guestDevice.update({ where: { id: device.id }, data: { guestId: guest.id } });
    }
  }

  // Exactly once: the row lock makes concurrent redeems of one code wait, and each re-checks this
  // WHERE on the row the previous one left (PostgreSQL re-evaluates it after the lock).
  const [counted] = await tx.$queryRaw<Pick<AccessCode, 'status' | 'useCount' | 'usedAt' | 'guestId'>[]>`
    UPDATE "AccessCode" SET
      "useCount" = "useCount" + 1,
      "usedAt" = ${now},
      "status" = CASE WHEN "maxUses" IS NOT NULL AND "useCount" + 1 >= "maxUses" THEN ${USED} ELSE "status" END,
      "guestId" = CASE WHEN "guestId" IS NULL AND "type" = ${GENERATED} THEN ${guest.id} ELSE "guestId" END
    WHERE "id" = ${code.id} AND "tenantId" = ${tenantId} AND "locationId" = ${input.location_id}
      AND "status" = ${AVAILABLE} AND "revokedAt" IS NULL
      AND ("maxUses" IS NULL OR "useCount" < "maxUses")
      AND ("startDate" IS NULL OR "startDate" <= ${now})
      AND ("expiryDate" IS NULL OR "expiryDate" > ${now})
    RETURNING "status", "useCount", "usedAt", "guestId"`;
  if (!counted) {
    // Updated nothing: read why now (a concurrent redeem used it up, or it was revoked meanwhile).
    const row = await tx.accessCode.findUniqueOrThrow({ where: { id: code.id } });
    throw refuse(refusalOf(row, input.location_id, new Date()) ?? REFUSED.usedUp);
  }

  const used: AccessCodeListRow = {
    ...code,
    ...counted,
    serviceProfile: { name: code.serviceProfile.name },
    // The code's guest as the use left it: this redeem's, the one read before, or (taken meanwhile
    // by a concurrent first use) read now.
    guest:
      counted.guestId === null
        ? null
        : counted.guestId === guest.id
          ? guest
          : counted.guestId === code.guestId
            ? code.guest
            : await tx.guest.findUnique({ where: { id: counted.guestId }, select: guestNameSelect }),
  };
  accessCodeChange(log, 'access_code.used', w.action, code, used);

  const sessionId =
    input.start_session === true && address
      ? await openSession(w, tenantId, {
          code,
          locationId: input.location_id,
          guestId: guest.id,
          deviceId,
          ip: address,
          now,
        })
      : null;
  return {
    code: used,
    sessionId,
    deviceId,
  };
}

/**
 * The guest the device belongs to: the one named (`guest_id`), else the device's own, else the
 * code's, else a new anonymous guest at the location, named after the MAC.
 */
async function guestOf(
  w: Write,
  scope: Scope,
  input: RedeemInput,
  code: RedeemRow,
  device: { guestId: string; guest: GuestName } | null,
  mac: string,
): Promise<GuestName> {
  const { tx } = w;
  const { tenantId } = scope;
  const named = input.guest_id ?? null;
  // Read under the devices' turn: an erasure that committed meanwhile (it takes every device's turn)
  // left no guest to name, and the code's guest may be gone.
  const live = (id: string) =>
    tx.guest.findFirst({ where: { tenantId, id, erasedAt: null }, select: guestNameSelect });
  if (named !== null) {
    if (device?.guestId === named) return device.guest;
    const guest = await live(named);
    if (!guest) throw new ValidationError({ guest_id: [fill(INVALID_SELECTION, { attribute: 'guest id' })] });
    return guest;
  }
  if (device) return device.guest;
  // A generated code's guest as it is now, under the code's row lock (the use's UPDATE takes it
  // anyway): concurrent first uses of a code without a guest take turns, and the later ones join the
  // guest the first one gave it, rather than each making a guest of its own.
  const holder = code.type === GENERATED ? await lockedHolder(tx, code.id) : code.guestId;
  const held = holder === null ? null : await live(holder);
  // A pinned caller names only its location's guests: nor through the code (probe Z2).
  if (held && !inScope(scope, held.tenantId, held.locationId)) throw refuse(REFUSED.guest);
  if (held) return held;
  const created = await tx.guest.create({
    data: { tenantId, locationId: input.location_id, username: mac, name: mac },
    select: guestNameSelect,
  });
  recordGuestCreated(w.ctx, tx, w.log, w.action, created.id);
  return created;
}

/** The code's guest, read under the code's row lock. */
async function lockedHolder(tx: Tx, codeId: string): Promise<string | null> {
  await lockRow(tx, 'AccessCode', codeId);
  const row = await tx.accessCode.findUnique({ where: { id: codeId }, select: { guestId: true } });
  return row?.guestId ?? null;
}

/**
 * A guest session of the device at the location, on the code and its service profile, from now.
 * A session the device left open is closed first (its guest goes offline unless it has another).
 */
async function openSession(
  w: Write,
  tenantId: string,
  s: { code: RedeemRow; locationId: string; guestId: string; deviceId: string; ip: string; now: Date },
): Promise<string> {
  const { tx, log } = w;
  const { now } = s;
  const open = await tx.guestSession.findMany({
    where: { tenantId, deviceId: s.deviceId, endTime: null },
    select: { id: true, guestId: true, startTime: true },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
  });
  for (const session of open) await endSession(tx, log, tenantId, session, now, s.guestId);
  const session = await tx.guestSession.create({
    data: {
      tenantId,
      locationId: s.locationId,
      guestId: s.guestId,
      deviceId: s.deviceId,
      ipAddress: s.ip,
      accessCodeId: s.code.id,
      loginType: REDEEM_LOGIN_TYPE,
      serviceProfileId: s.code.serviceProfileId,
      startTime: now,
      online: true,
      connectionStatus: 1,
    },
    select: sessionItemSelect,
  });
  log.record(sessionEvent('guest_session.started', session, now));
  await tx.$executeRaw`UPDATE "GuestDevice" SET "ip" = ${s.ip}, ${lastSeenForward(now)}, "online" = true,
      "connectionStatus" = 1, "updatedAt" = ${new Date()}
    WHERE "id" = ${s.deviceId}`;
  await tx.guest.update({ where: { id: s.guestId }, data: { online: true, connectionStatus: 1 } });
  await recordVisit(tx, s.guestId, now, REDEEM_LOGIN_TYPE);
  return session.id;
}

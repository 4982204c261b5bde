// The session accounting pipeline (POST /ingest/sessions): RADIUS-style start / interim / stop events
// from the venue's controllers. A batch checks the ids each event names inside the tenant, claims
// its event ids (ingest.batch.ts), then applies the events in time order to guest sessions, devices
// and guests.
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { scoped } from '../../db/scope.js';
import { actorOf, type EventLog } from '../../events/outbox.js';
import { AVAILABLE, USED } from '../access-codes/access-codes.labels.js';
import { accessCodeChange, accessCodeListInclude } from '../access-codes/access-codes.service.js';
import { deviceListSelect, recordFirstSeen } from '../guest-devices/guest-devices.service.js';
import {
  endSession,
  lastSeenForward,
  recordVisit,
  sessionEvent,
  sessionItemSelect,
  stillOnline,
} from '../guest-sessions/guest-sessions.service.js';
import { lockDevices } from '../presence/device-locks.js';
import { macVariants, normalizeMac } from '../presence/mac.js';
import {
  attr,
  BatchErrors,
  claimEvents,
  distinct,
  type IngestResult,
  idsNamed,
  inBatchOrder,
  invalid,
  onlyFresh,
  type Tx,
  validateEvents,
} from './ingest.batch.js';
import { inTransactionWithEvents } from './ingest.events.js';
import {
  MAX_CLOCK_SKEW_MINUTES,
  readSessionEvent,
  type SessionInput,
  type SessionKind,
  sessionEventRules,
} from './ingest.inputs.js';

/** The batch's permission action, also its audit entries' (a code's use). */
const INGEST_ACTION = 'ingest.write';

export async function ingestSessions(
  ctx: AppContext,
  body: Readonly<Record<string, unknown>>,
): Promise<IngestResult> {
  const scope = authorize(ctx.principal, INGEST_ACTION);
  const errors = new BatchErrors(sessionEventRules);
  const { raw, valid, failed } = await validateEvents(body, sessionEventRules, readSessionEvent, errors);
  const { tenantId } = scoped(scope);
  await inTransactionWithEvents(ctx.prisma, tenantId, actorOf(ctx, 'ingest'), async (tx, log) => {
    // The batch's devices take their turn first (src/modules/presence/device-locks.ts).
    await lockDevices(
      tx,
      tenantId,
      [...valid.values()].map((e) => e.mac),
    );
    // The ledger first: a retry's events applied before are not checked again (their guest may be
    // erased since), so the retry answers as the first delivery did.
    const fresh = await claimEvents(tx, tenantId, 'session', raw, valid, errors);
    const events = await resolveSessionEvents(
      tx,
      tenantId,
      onlyFresh(fresh, valid),
      errors,
      idsNamed(failed, {
        locationId: 'location_id',
        guestId: 'guest_id',
        serviceProfileId: 'service_profile_id',
        accessCode: 'access_code',
      }),
    );
    errors.throwIfAny();
    const apply = inBatchOrder(fresh, events).sort((a, b) => a.at.getTime() - b.at.getTime());
    await applySessions(tx, log, tenantId, apply);
  });
  return { accepted: raw.length };
}

// ── Checking the ids the events name ──────────────────────────────────────────────────────────

/** An accounting event with its access code resolved. */
interface SessionEvent {
  kind: SessionKind;
  mac: string;
  ip: string;
  guestId: string | null;
  locationId: string;
  bytesUp: number;
  bytesDown: number;
  loginType: string;
  accessCodeId: string | null;
  serviceProfileId: string | null;
  at: Date;
}

/** The ids an accounting event names. */
interface SessionIds {
  locationId: string | null;
  guestId: string | null;
  serviceProfileId: string | null;
  accessCode: string | null;
}

/** The locations, guests, service profiles, access codes and devices of the tenant that the batch names. */
async function loadSessionRefs(
  tx: Tx,
  tenantId: string,
  events: Iterable<SessionInput>,
  named: Iterable<SessionIds>,
) {
  const valid = [...events];
  const list: SessionIds[] = [...valid, ...named];
  const macs = distinct(valid, (e) => e.mac);
  const [locations, guests, profiles, codes, devices] = await Promise.all([
    tx.location.findMany({
      where: { tenantId, id: { in: distinct(list, (e) => e.locationId) } },
      select: { id: true },
    }),
    tx.guest.findMany({
      where: { tenantId, erasedAt: null, id: { in: distinct(list, (e) => e.guestId) } },
      select: { id: true },
    }),
    tx.serviceProfile.findMany({
      where: { tenantId, id: { in: distinct(list, (e) => e.serviceProfileId) } },
      select: { id: true },
    }),
    tx.accessCode.findMany({
      where: { tenantId, code: { in: distinct(list, (e) => e.accessCode) } },
      select: { id: true, code: true, serviceProfileId: true },
    }),
    tx.guestDevice.findMany({
      where: { tenantId, mac: { in: macs.flatMap(macVariants) } },
      select: { mac: true },
    }),
  ]);
  const has = (rows: { id: string }[]) => new Set(rows.map((r) => r.id));
  return {
    locationIds: has(locations),
    guestIds: has(guests),
    profileIds: has(profiles),
    codeByText: new Map(codes.map((c) => [c.code, c])),
    deviceMacs: new Set(devices.map((d) => normalizeMac(d.mac))),
  };
}

type SessionRefs = Awaited<ReturnType<typeof loadSessionRefs>>;

/**
 * Event `i` with its access code resolved; null (with errors) when it names an unknown id. `known`:
 * the MAC has a device when the event applies. Only a `start` needs one (or a guest): an `interim`
 * or `stop` of an unknown device without a guest has nothing to update or close (applySessions).
 */
function checkSessionEvent(
  i: number,
  e: SessionInput,
  known: boolean,
  refs: SessionRefs,
  errors: BatchErrors,
): SessionEvent | null {
  const { guestId, accessCode: code, serviceProfileId: profileId } = e;
  checkIds(i, e, refs, errors);
  if (guestId === null && !known && e.kind === 'start') {
    errors.add(
      i,
      'guest_id',
      `The ${attr(i, 'guest_id')} field is required when ${attr(i, 'mac')} is not a known device.`,
    );
  }
  const accessCode = code === null ? undefined : refs.codeByText.get(code);
  if (errors.has(i)) return null;
  return {
    kind: e.kind,
    mac: e.mac,
    ip: e.ip,
    guestId,
    locationId: e.locationId,
    bytesUp: e.bytesUp,
    bytesDown: e.bytesDown,
    loginType: e.loginType,
    accessCodeId: accessCode?.id ?? null,
    serviceProfileId: profileId ?? accessCode?.serviceProfileId ?? null,
    at: e.at,
  };
}

/** Names each id of event `i` the tenant has no record of. */
function checkIds(i: number, e: SessionIds, refs: SessionRefs, errors: BatchErrors): void {
  const unknown = (id: string | null, ids: { has(id: string): boolean }) => id !== null && !ids.has(id);
  if (unknown(e.locationId, refs.locationIds)) errors.add(i, 'location_id', invalid(i, 'location_id'));
  if (unknown(e.guestId, refs.guestIds)) errors.add(i, 'guest_id', invalid(i, 'guest_id'));
  if (unknown(e.serviceProfileId, refs.profileIds)) {
    errors.add(i, 'service_profile_id', invalid(i, 'service_profile_id'));
  }
  if (unknown(e.accessCode, refs.codeByText)) errors.add(i, 'access_code', invalid(i, 'access_code'));
}

async function resolveSessionEvents(
  tx: Tx,
  tenantId: string,
  valid: Map<number, SessionInput>,
  errors: BatchErrors,
  named: ReadonlyMap<number, SessionIds>,
): Promise<Map<number, SessionEvent>> {
  const refs = await loadSessionRefs(tx, tenantId, valid.values(), named.values());
  for (const [i, ids] of named) checkIds(i, ids, refs, errors);
  // In the order the events apply (time, then batch position): a MAC is known from its stored
  // device, or from an earlier event of the batch that names its guest (which gives it a device).
  const known = new Set(refs.deviceMacs);
  const out = new Map<number, SessionEvent>();
  for (const [i, e] of applyOrder(valid)) {
    const event = checkSessionEvent(i, e, known.has(e.mac), refs, errors);
    if (e.guestId !== null) known.add(e.mac);
    if (event) out.set(i, event);
  }
  return out;
}

/** The events by time, then batch position: the order applySessions takes them in. */
const applyOrder = <T extends { at: Date }>(events: ReadonlyMap<number, T>): [number, T][] =>
  [...events].sort(([i, a], [j, b]) => a.at.getTime() - b.at.getTime() || i - j);

// ── Applying the events ───────────────────────────────────────────────────────────────────────

const DEVICE = { id: true, guestId: true, mac: true } as const;
const OPEN_SESSION = {
  id: true,
  deviceId: true,
  guestId: true,
  startTime: true,
  downloadedData: true,
  uploadedData: true,
} as const;

interface Device {
  id: string;
  guestId: string;
  mac: string;
}
interface OpenSession {
  id: string;
  deviceId: string;
  guestId: string;
  startTime: Date;
  downloadedData: bigint;
  uploadedData: bigint;
}

/** When a device's last session began and ended. */
interface Ended {
  start: Date;
  end: Date;
}

/**
 * The batch's devices by MAC, their open sessions by device id, and the last session of each device
 * with none open; all move with the events.
 */
interface SessionBook {
  tx: Tx;
  /** `device.first_seen`, `guest_session.started` / `.ended`, in the events' time order. */
  log: EventLog;
  tenantId: string;
  deviceByMac: Map<string, Device>;
  openByDevice: Map<string, OpenSession>;
  endedByDevice: Map<string, Ended>;
}

/**
 * Whether the event is older than the device's latest session (its open one, though a later one may
 * have closed: a login reported late; else its last one): before its start, or, that session closed,
 * not after its end (a `start` at its very end begins the next one). A `start` naming another guest
 * than the device's is a login all the same (a redeem's session may have begun a moment after the
 * controller's own start): it applies, the session it ends closing no earlier than it began, unless
 * it is older than that session's start by more than the clocks may differ (MAX_CLOCK_SKEW_MINUTES):
 * a login replayed long after, which would end the current guest's session and take its device.
 */
function isLate(book: SessionBook, device: Device, e: SessionEvent): boolean {
  const open = book.openByDevice.get(device.id);
  const ended = book.endedByDevice.get(device.id);
  if (e.kind === 'start' && e.guestId !== null && e.guestId !== device.guestId) {
    const start = open?.startTime ?? ended?.start;
    return start !== undefined && e.at.getTime() < start.getTime() - MAX_CLOCK_SKEW_MINUTES * 60_000;
  }
  if (open) return e.at < open.startTime;
  if (!ended) return false;
  if (e.at < ended.start) return true;
  return e.kind === 'start' ? e.at < ended.end : e.at <= ended.end;
}

/**
 * Session accounting, event by event in time order. `bytes_up`/`bytes_down` are the session's
 * running totals (as RADIUS accounting sends them): the session keeps the largest value seen and
 * the device and guest totals grow by the difference. `start` opens a session (closing a
 * forgotten open one of the device), `interim` updates it, `stop` closes it; an `interim` or `stop`
 * without an open session opens one at its time. An unknown MAC with a guest gets a device; without
 * one (an erased guest's real MAC, a session older than the service) its event changes nothing.
 * An event older than the device's latest session (isLate) counts its bytes on the session it falls
 * in (accountLate) and changes nothing else: no session opened or closed, no device moved.
 */
async function applySessions(tx: Tx, log: EventLog, tenantId: string, events: SessionEvent[]): Promise<void> {
  if (events.length === 0) return;
  const macs = distinct(events, (e) => e.mac);
  const book = await loadSessionBook(tx, log, tenantId, macs);
  for (const e of events) {
    const known = book.deviceByMac.get(e.mac);
    if (known && isLate(book, known, e)) {
      await accountLate(book, e, known);
      continue;
    }
    const device = await deviceOf(book, e);
    if (!device) continue;
    let session = book.openByDevice.get(device.id);
    if (session && (e.kind === 'start' || session.guestId !== device.guestId)) {
      await closeSession(book, session, e.at);
      session = undefined;
    }
    const opened = !session;
    session ??= await openSession(book, e, device);
    await account(book, e, device, session, opened);
  }
}

async function loadSessionBook(
  tx: Tx,
  log: EventLog,
  tenantId: string,
  macs: string[],
): Promise<SessionBook> {
  const devices = await tx.guestDevice.findMany({
    where: { tenantId, mac: { in: macs.flatMap(macVariants) } },
    select: DEVICE,
  });
  // Each device's current session: its open one (the latest begun, should there be several), though
  // a later one may have closed (a login reported late); else the last one begun.
  const current = await tx.$queryRaw<(OpenSession & { endTime: Date | null })[]>`
    SELECT DISTINCT ON (s."deviceId") s."id", s."deviceId", s."guestId", s."startTime", s."endTime",
      s."downloadedData", s."uploadedData"
    FROM "GuestSession" s
    WHERE s."tenantId" = ${tenantId} AND s."deviceId" = ANY(${devices.map((d) => d.id)}::text[])
    ORDER BY s."deviceId", (s."endTime" IS NULL) DESC, s."startTime" DESC, s."id" DESC`;
  const openByDevice = new Map<string, OpenSession>();
  const endedByDevice = new Map<string, Ended>();
  for (const { endTime, ...s } of current) {
    if (endTime === null) openByDevice.set(s.deviceId, s);
    else endedByDevice.set(s.deviceId, { start: s.startTime, end: endTime });
  }
  return {
    tx,
    log,
    tenantId,
    deviceByMac: new Map(devices.map((d) => [normalizeMac(d.mac), d])),
    openByDevice,
    endedByDevice,
  };
}

/**
 * The event's device: created for an unknown MAC, moved to the guest who logs in with it; null for an
 * unknown MAC without a guest (no guest to give it to).
 */
async function deviceOf(
  { tx, log, tenantId, deviceByMac }: SessionBook,
  e: SessionEvent,
): Promise<Device | null> {
  let device: Device | undefined = deviceByMac.get(e.mac);
  if (!device) {
    if (e.guestId === null) return null;
    const created = await tx.guestDevice.create({
      data: { tenantId, guestId: e.guestId, mac: e.mac, ip: e.ip, lastSeenTime: e.at },
      select: deviceListSelect,
    });
    recordFirstSeen(tx, log, created.id);
    device = { id: created.id, guestId: created.guestId, mac: created.mac };
    deviceByMac.set(e.mac, device);
  } else if (e.guestId !== null && device.guestId !== e.guestId) {
    // The device follows the guest who logs in with it.
    device = await tx.guestDevice.update({
      where: { id: device.id },
      data: { guestId: e.guestId },
      select: DEVICE,
    });
    deviceByMac.set(e.mac, device);
  }
  return device;
}

/**
 * Closes a session at `at`, or at its start if that is later (a login reported a moment before it);
 * its device goes offline, and its guest too unless another session is open.
 */
async function closeSession(
  { tx, log, tenantId, openByDevice, endedByDevice }: SessionBook,
  s: { id: string; guestId: string; deviceId: string; startTime: Date },
  when: Date,
): Promise<void> {
  openByDevice.delete(s.deviceId);
  endedByDevice.set(s.deviceId, await endSession(tx, log, tenantId, s, when));
  await tx.guestDevice.update({ where: { id: s.deviceId }, data: { online: false, connectionStatus: 0 } });
}

/** Opens a session of the device's guest at the event's time; a `start`'s access code counts a use. */
async function openSession(
  { tx, log, tenantId, openByDevice }: SessionBook,
  e: SessionEvent,
  device: Device,
): Promise<OpenSession> {
  const session = await tx.guestSession.create({
    data: {
      tenantId,
      locationId: e.locationId,
      guestId: device.guestId,
      deviceId: device.id,
      ipAddress: e.ip,
      accessCodeId: e.accessCodeId,
      loginType: e.loginType,
      serviceProfileId: e.serviceProfileId,
      startTime: e.at,
      online: true,
      connectionStatus: 1,
      // The opening event's totals, so that `guest_session.started` carries the session as it stood
      // then (it read 0 B: the totals were written after the event was recorded; probe W).
      downloadedData: BigInt(e.bytesDown),
      uploadedData: BigInt(e.bytesUp),
    },
    select: { ...OPEN_SESSION, ...sessionItemSelect },
  });
  log.record(sessionEvent('guest_session.started', session, e.at));
  // For account(): the totals before this event, none, so that the device and guest gain them.
  const opened = { ...session, downloadedData: 0n, uploadedData: 0n };
  openByDevice.set(device.id, opened);
  // A login uses the code; an `interim` or `stop` that opens the session reports one already made.
  if (e.accessCodeId && e.kind === 'start') {
    // Accounting reports what happened: the use counts whatever the code's state, and an available
    // code whose uses reach its `max_uses` becomes 2 Used, as a redeem would leave it; the use is an
    // `access_code.used`, as a redeem's is.
    const code = { where: { id: e.accessCodeId }, include: accessCodeListInclude };
    const before = await tx.accessCode.findUniqueOrThrow(code);
    await tx.$executeRaw`UPDATE "AccessCode" SET "useCount" = "useCount" + 1, "usedAt" = ${e.at},
      "status" = CASE WHEN "status" = ${AVAILABLE} AND "maxUses" IS NOT NULL AND "useCount" + 1 >= "maxUses"
        THEN ${USED} ELSE "status" END
      WHERE "id" = ${e.accessCodeId}`;
    accessCodeChange(
      log,
      'access_code.used',
      INGEST_ACTION,
      before,
      await tx.accessCode.findUniqueOrThrow(code),
    );
  }
  return opened;
}

/**
 * The event's running totals on the session (closing it on `stop`), the difference added to the
 * device's and the guest's totals, and their online flags and last-visit fields.
 */
async function account(
  { tx, log, tenantId, openByDevice, endedByDevice }: SessionBook,
  e: SessionEvent,
  device: Device,
  session: OpenSession,
  opened: boolean,
): Promise<void> {
  const guestId = device.guestId;
  const down = BigInt(e.bytesDown) > session.downloadedData ? BigInt(e.bytesDown) : session.downloadedData;
  const up = BigInt(e.bytesUp) > session.uploadedData ? BigInt(e.bytesUp) : session.uploadedData;
  const dDown = down - session.downloadedData;
  const dUp = up - session.uploadedData;
  const stop = e.kind === 'stop';
  const data = { downloadedData: down, uploadedData: up, ipAddress: e.ip };
  if (stop) {
    const ended = await tx.guestSession.update({
      where: { id: session.id },
      data: { ...data, endTime: e.at, online: false, connectionStatus: 0 },
      select: sessionItemSelect,
    });
    openByDevice.delete(device.id);
    endedByDevice.set(device.id, { start: ended.startTime, end: e.at });
    log.record(sessionEvent('guest_session.ended', ended, e.at));
  } else {
    const updated = await tx.guestSession.update({ where: { id: session.id }, data, select: OPEN_SESSION });
    openByDevice.set(device.id, updated);
  }
  await tx.$executeRaw`UPDATE "GuestDevice" SET "ip" = ${e.ip}, ${lastSeenForward(e.at)},
      "online" = ${!stop}, "connectionStatus" = ${stop ? 0 : 1},
      "totalDownloadedData" = "totalDownloadedData" + ${dDown},
      "totalUploadedData" = "totalUploadedData" + ${dUp}, "updatedAt" = ${new Date()}
    WHERE "id" = ${device.id}`;
  const online = stop ? await stillOnline(tx, tenantId, guestId) : true;
  await tx.guest.update({
    where: { id: guestId },
    data: {
      online,
      connectionStatus: online ? 1 : 0,
      totalDownloadedData: { increment: dDown },
      totalUploadedData: { increment: dUp },
    },
  });
  if (opened) await recordVisit(tx, guestId, e.at, e.loginType);
}

/**
 * A late event (isLate): its running totals count on the device's session it falls in, the session
 * keeping the largest value seen and the device's and that session's guest's totals growing by the
 * difference; nothing else changes. Outside every session of the device, it changes nothing.
 */
async function accountLate({ tx, tenantId }: SessionBook, e: SessionEvent, device: Device): Promise<void> {
  const [s] = await tx.$queryRaw<
    { id: string; guestId: string; downloadedData: bigint; uploadedData: bigint }[]
  >`SELECT s."id", s."guestId", s."downloadedData", s."uploadedData" FROM "GuestSession" s
    WHERE s."tenantId" = ${tenantId} AND s."deviceId" = ${device.id} AND s."startTime" <= ${e.at}
      AND (s."endTime" IS NULL OR s."endTime" >= ${e.at})
    ORDER BY s."startTime" DESC, s."id" DESC LIMIT 1`;
  if (!s) return;
  const down = BigInt(e.bytesDown) > s.downloadedData ? BigInt(e.bytesDown) : s.downloadedData;
  const up = BigInt(e.bytesUp) > s.uploadedData ? BigInt(e.bytesUp) : s.uploadedData;
  const dDown = down - s.downloadedData;
  const dUp = up - s.uploadedData;
  if (dDown === 0n && dUp === 0n) return;
  // Never the open session: a late event is older than its start (isLate).
  await tx.guestSession.update({ where: { id: s.id }, data: { downloadedData: down, uploadedData: up } });
  const grown = { totalDownloadedData: { increment: dDown }, totalUploadedData: { increment: dUp } };
  await tx.guestDevice.update({ where: { id: device.id }, data: grown });
  await tx.guest.update({ where: { id: s.guestId }, data: grown });
}

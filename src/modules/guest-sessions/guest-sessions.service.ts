// Guest sessions (spec 2.5, 2.6, 4.4): tenant-scoped domain functions used by both REST and GraphQL.
// A venue or front-desk user sees only the sessions at their location.

import { authorize } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { lockRow } from '../../db/row-lock.js';
import { scoped } from '../../db/scope.js';
import type { EventLog, NewEvent } from '../../events/outbox.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ListWhere, listOperation } from '../../operations/operation.js';
import { storedIpAddress } from '../../shared/ip-address.js';
import { guestVisibleSelect } from '../guests/guests.service.js';
import { checkIpAddresses, sessionFilters } from './guest-sessions.inputs.js';
import { sessionItem } from './guest-sessions.serializer.js';

export const sessionOrder = (newestFirst: boolean): PrismaNS.GuestSessionOrderByWithRelationInput[] =>
  newestFirst ? [{ startTime: 'desc' }, { id: 'desc' }] : [{ startTime: 'asc' }, { id: 'asc' }];

/** The sessions a scope reaches: its tenant's, and for a pinned role those at its location. */
export function sessionScope(scope: Scope): PrismaNS.GuestSessionWhereInput {
  return scoped(scope, 'locationId');
}

/** The same for a nested read (GraphQL relations), from the caller alone. */
export function sessionScopeOf(ctx: AppContext): PrismaNS.GuestSessionWhereInput {
  return sessionScope(authorize(ctx.principal, guestSessionsQuery.action));
}

/**
 * Seconds from start to end, between the whole seconds the session shows (`start_time` and `end_time`
 * are written to the second): 06:59:00.500 to 07:01:00.499 is shown 06:59:00 to 07:01:00, and lasts
 * 120 s, not 119 (probe T). An open session counts up to `now`.
 */
export function sessionSeconds(s: { startTime: Date; endTime: Date | null }, now = new Date()): number {
  const second = (d: Date): number => Math.floor(d.getTime() / 1000);
  return Math.max(0, second(s.endTime ?? now) - second(s.startTime));
}

/** The session list and count of both transports (REST `GET /sessions`, GraphQL `guestSessions`). */
export const guestSessionsQuery = listOperation({
  action: 'guestSessions.list',
  filters: sessionFilters,
  within: (scope: Scope, and: PrismaNS.GuestSessionWhereInput[]): PrismaNS.GuestSessionWhereInput => ({
    ...sessionScope(scope),
    ...(and.length > 0 ? { AND: and } : {}),
  }),
  orderBy: (f) => sessionOrder(f.last_session_first === true),
});

/** What the list and its count read by (see ListWhere). */
export type SessionQuery = ListWhere<
  PrismaNS.GuestSessionWhereInput,
  PrismaNS.GuestSessionOrderByWithRelationInput[]
>;

/**
 * The page and what to read of each row: REST's `{ skip, take, select: sessionItemSelect }`, GraphQL's
 * relay page (`cursor`, `take`, `skip`) with plugin-prisma's select or include for its selection.
 */
type Page = Omit<PrismaNS.GuestSessionFindManyArgs, 'where' | 'orderBy'>;

/**
 * The list of both transports: one filter set, scope and order; only `page` differs. The rows' type
 * follows from `page` as it does for Prisma's own findMany (a `select` gives just those columns).
 */
export function listSessions<P extends Page>(
  ctx: AppContext,
  q: SessionQuery,
  page: P,
): Promise<PrismaNS.GuestSessionGetPayload<P>[]> {
  // One raw statement (src/db/raw-rows.ts): the page is cut before the relations are built.
  return findManyRows<PrismaNS.GuestSessionGetPayload<P>>(ctx.prisma, 'GuestSession', {
    ...page,
    where: q.where,
    orderBy: q.orderBy,
  });
}

/**
 * What the REST list item (guest-sessions.serializer.ts sessionItem) reads, and only that: not the
 * ids of the device, code and profile, nor the two timestamps. Its relations load in the same
 * statement. The item's parameter type is derived from this, so a column it reads but this omits
 * does not compile.
 */
export const sessionItemSelect = {
  id: true,
  locationId: true,
  guestId: true,
  ipAddress: true,
  loginType: true,
  downloadedData: true,
  uploadedData: true,
  startTime: true,
  endTime: true,
  connectionStatus: true,
  location: { select: { name: true, timezone: true } },
  // tenantId and the guest's location: deviceVisible() decides whether the MAC and description are
  // shown, guestVisible() whether the partner id is (see .rest.ts).
  device: {
    select: { description: true, mac: true, tenantId: true, guest: { select: { locationId: true } } },
  },
  guest: { select: { partnerId: true, ...guestVisibleSelect } },
  accessCode: { select: { code: true } },
  serviceProfile: { select: { name: true } },
} satisfies PrismaNS.GuestSessionSelect;

export type SessionItemRow = PrismaNS.GuestSessionGetPayload<{ select: typeof sessionItemSelect }>;

export function countSessions(ctx: AppContext, q: SessionQuery): Promise<number> {
  return countRows(ctx.prisma, 'GuestSession', q.where);
}

export interface SessionByIp {
  ip_address: string;
  username: string;
  name: string;
  email: string | null;
  duration: number;
}

/**
 * For each address, the latest session on it (by start time, then id) with its guest: two
 * statements whatever the number of addresses. Unknown addresses are left out; the result keeps
 * the order of `addresses` (duplicates once).
 */
export async function sessionsByIp(
  ctx: AppContext,
  addresses: readonly string[],
  opts: { field?: string } = {},
): Promise<SessionByIp[]> {
  // The list's action: whoever may list sessions may look them up by address.
  const scope = authorize(ctx.principal, guestSessionsQuery.action);
  checkIpAddresses(addresses, opts.field);
  const wanted = [...new Set(addresses.map(storedIpAddress))];
  const where = sessionScope(scope);
  // The latest row per address is picked in the database (DISTINCT ON), not by loading every
  // session of every address. An erased guest's sessions (their address `0.0.0.0`) answer no lookup:
  // the guest is absent from every read.
  const latest = await ctx.prisma.$queryRaw<{ id: string }[]>`
    SELECT DISTINCT ON (s."ipAddress") s."id" FROM "GuestSession" s
    JOIN "Guest" g ON g."id" = s."guestId" AND g."erasedAt" IS NULL
    WHERE s."tenantId" = ${scope.tenantId}
      AND (${scope.locationId}::text IS NULL OR s."locationId" = ${scope.locationId})
      AND s."ipAddress" = ANY(${wanted}::text[])
    ORDER BY s."ipAddress", s."startTime" DESC, s."id" DESC`;
  if (latest.length === 0) return [];
  const select = {
    ipAddress: true,
    startTime: true,
    endTime: true,
    guest: { select: { username: true, name: true, email: true, locationId: true } },
  } satisfies PrismaNS.GuestSessionSelect;
  const rows = await findManyRows<PrismaNS.GuestSessionGetPayload<{ select: typeof select }>>(
    ctx.prisma,
    'GuestSession',
    { where: { ...where, AND: [{ id: { in: latest.map((r) => r.id) } }] }, select },
  );
  const byIp = new Map(rows.map((r) => [r.ipAddress, r]));
  const now = new Date();
  return wanted.flatMap((ip) => {
    const r = byIp.get(ip);
    if (!r) return [];
    // A session at a pinned caller's location of a guest now at another: the guest is not shown
    // (as AccessCode.guestName is "" there).
    const shown = scope.locationId === null || r.guest.locationId === scope.locationId;
    return [
      {
        ip_address: r.ipAddress,
        username: shown ? r.guest.username : '',
        name: shown ? r.guest.name : '',
        email: shown ? r.guest.email : null,
        duration: sessionSeconds(r, now),
      },
    ];
  });
}

/**
 * A session's `guest_session.started` or `.ended`, in REST's item shape (partner id shown unless its
 * guest was erased; no audit entry: traffic).
 */
export function sessionEvent(
  type: 'guest_session.started' | 'guest_session.ended',
  s: SessionItemRow,
  now = new Date(),
): NewEvent {
  return {
    type,
    resourceType: 'guest_session',
    resourceId: s.id,
    payload: sessionItem(s, { device: true, guest: s.guest.erasedAt === null }, now),
  };
}

/**
 * Whether the guest still has an open session, counted once its row is locked (held to the end of
 * the transaction): two writes ending two of its sessions at once take turns, and the later one's
 * count sees the earlier one's end. Counted before the lock, each saw the other's session still
 * open, and the guest stayed online with none.
 */
export async function stillOnline(
  tx: PrismaNS.TransactionClient,
  tenantId: string,
  guestId: string,
): Promise<boolean> {
  await lockRow(tx, 'Guest', guestId);
  return (await tx.guestSession.count({ where: { tenantId, guestId, endTime: null } })) > 0;
}

/**
 * Ends an open session at `when`, no earlier than it began (a clock a moment behind the one that
 * opened it: a redeem beside the controller's start), records its `guest_session.ended`, and takes
 * its guest offline unless it has another open session or is `stayingOnline` (about to open one).
 * The device is the caller's to update. Returns the ended session's times.
 */
export async function endSession(
  tx: PrismaNS.TransactionClient,
  log: EventLog,
  tenantId: string,
  s: { id: string; guestId: string; startTime: Date },
  when: Date,
  stayingOnline?: string,
): Promise<{ start: Date; end: Date }> {
  const end = when < s.startTime ? s.startTime : when;
  const ended = await tx.guestSession.update({
    where: { id: s.id },
    data: { endTime: end, online: false, connectionStatus: 0 },
    select: sessionItemSelect,
  });
  log.record(sessionEvent('guest_session.ended', ended, end));
  if (s.guestId !== stayingOnline && !(await stillOnline(tx, tenantId, s.guestId))) {
    await tx.guest.update({ where: { id: s.guestId }, data: { online: false, connectionStatus: 0 } });
  }
  return { start: ended.startTime, end };
}

/**
 * Moves a device's last-seen time forward to `at` (never back: another writer may have seen it
 * later), as a SET clause of an UPDATE of "GuestDevice".
 */
export const lastSeenForward = (at: Date): PrismaNS.Sql =>
  PrismaNS.sql`"lastSeenTime" = GREATEST(coalesce("lastSeenTime", ${at}), ${at})`;

// Raw updates stamp "updatedAt" with the app's clock, as Prisma stamps createdAt: the transaction's
// now() is its start, earlier than the rows it created since.

/**
 * A visit of the guest begun at `at` by `loginType` (a session opened: the ingest's, a redeem's):
 * its visit count grows, and its last-visit fields move forward only (another device of the guest may
 * have begun a later visit; the login type is the latest visit's, read from the row as it was).
 */
export async function recordVisit(
  tx: PrismaNS.TransactionClient,
  guestId: string,
  at: Date,
  loginType: string,
): Promise<void> {
  await tx.$executeRaw`UPDATE "Guest" SET "visitCount" = "visitCount" + 1,
      "lastLoginType" = CASE WHEN "lastVisitDate" IS NULL OR "lastVisitDate" <= ${at}
        THEN ${loginType} ELSE "lastLoginType" END,
      "lastVisitDate" = GREATEST(coalesce("lastVisitDate", ${at}), ${at}),
      "lastAttemptTime" = GREATEST(coalesce("lastAttemptTime", ${at}), ${at}),
      "lastConnectionTime" = GREATEST(coalesce("lastConnectionTime", ${at}), ${at}),
      "updatedAt" = ${new Date()}
    WHERE "id" = ${guestId}`;
}

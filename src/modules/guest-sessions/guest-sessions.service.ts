// Guest sessions (spec 2.5, 2.6, 4.4): tenant-scoped domain functions used by both REST and GraphQL.
// A venue or front-desk user sees only the sessions at their location.

import { authorize } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import type { GuestSession, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { dayStart, nextDayStart } from '../../shared/dates.js';
import { validateFilters } from '../../validation/validator.js';
import { normaliseMac } from '../guest-devices/guest-devices.inputs.js';
import { guestVisible } from '../guests/guests.service.js';
import { checkIpAddresses, sessionFilterRules } from './guest-sessions.inputs.js';

export const sessionOrder = (newestFirst: boolean): PrismaNS.GuestSessionOrderByWithRelationInput[] =>
  newestFirst ? [{ startTime: 'desc' }, { id: 'desc' }] : [{ startTime: 'asc' }, { id: 'asc' }];

/** The sessions a scope reaches: its tenant's, and for a pinned role those at its location. */
export function sessionScope(scope: Scope): PrismaNS.GuestSessionWhereInput {
  return scoped(scope, 'locationId');
}

/** The same for a nested read (GraphQL relations), from the caller alone. */
export function sessionScopeOf(ctx: AppContext): PrismaNS.GuestSessionWhereInput {
  return sessionScope(authorize(ctx.principal, 'guestSessions.list'));
}

/** Seconds from start to end; an open session counts up to `now`. */
export function sessionSeconds(s: { startTime: Date; endTime: Date | null }, now = new Date()): number {
  const end = s.endTime ?? now;
  return Math.max(0, Math.floor((end.getTime() - s.startTime.getTime()) / 1000));
}

interface SessionFilters {
  guest_id?: string;
  location_id?: string;
  guest_device_mac?: string;
  start_time?: string;
  end_time?: string;
  partner_id?: string;
  online?: boolean;
  last_session_first?: boolean;
}

async function sessionQuery(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<{
  where: PrismaNS.GuestSessionWhereInput;
  orderBy: PrismaNS.GuestSessionOrderByWithRelationInput[];
}> {
  const scope = authorize(ctx.principal, 'guestSessions.list');
  const f = (await validateFilters(raw, sessionFilterRules)) as SessionFilters;
  const and: PrismaNS.GuestSessionWhereInput[] = [];
  if (f.guest_id !== undefined) and.push({ guestId: f.guest_id });
  // Its own condition: merged into the scope it would replace a pinned user's location.
  if (f.location_id !== undefined) and.push({ locationId: f.location_id });
  if (f.guest_device_mac !== undefined) {
    and.push({ device: { mac: { equals: normaliseMac(f.guest_device_mac) ?? '', mode: 'insensitive' } } });
  }
  if (f.start_time !== undefined) and.push({ startTime: { gte: dayStart(f.start_time) } });
  if (f.end_time !== undefined) and.push({ endTime: { lt: nextDayStart(f.end_time) } });
  if (f.partner_id !== undefined) and.push({ guest: { partnerId: f.partner_id } });
  if (f.online !== undefined) and.push({ online: f.online });
  return {
    where: { ...sessionScope(scope), ...(and.length > 0 ? { AND: and } : {}) },
    orderBy: sessionOrder(f.last_session_first === true),
  };
}

/** Paging and (from GraphQL) the relations the selection needs. */
type Page = Omit<PrismaNS.GuestSessionFindManyArgs, 'where' | 'orderBy'>;

export async function listSessions(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const q = await sessionQuery(ctx, filters);
  return findManyRows<GuestSession>(ctx.prisma, 'GuestSession', { ...page, ...q });
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
  device: { select: { description: true, mac: true } },
  // tenantId and locationId: guestVisible() decides whether the partner id is shown.
  guest: { select: { partnerId: true, tenantId: true, locationId: true } },
  accessCode: { select: { code: true } },
  serviceProfile: { select: { name: true } },
} satisfies PrismaNS.GuestSessionSelect;

export type SessionItemRow = PrismaNS.GuestSessionGetPayload<{ select: typeof sessionItemSelect }>;

export async function listSessionItems(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
): Promise<SessionItemRow[]> {
  const q = await sessionQuery(ctx, filters);
  // One raw statement (src/db/raw-rows.ts): the page is cut before the relations are built.
  const rows = await findManyRows<SessionItemRow>(ctx.prisma, 'GuestSession', {
    ...q,
    ...page,
    select: sessionItemSelect,
  });
  // A session at a pinned caller's location may be a guest's of another one: no partner id then.
  return rows.map((s) => (guestVisible(ctx, s.guest) ? s : { ...s, guest: { ...s.guest, partnerId: null } }));
}

export async function countSessions(ctx: AppContext, filters: Record<string, unknown>): Promise<number> {
  const { where } = await sessionQuery(ctx, filters);
  return countRows(ctx.prisma, 'GuestSession', where);
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
  const scope = authorize(ctx.principal, 'guestSessions.list');
  checkIpAddresses(addresses, opts.field);
  // IPv6 text is stored in lower case.
  const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))];
  const where = sessionScope(scope);
  // The latest row per address is picked in the database (DISTINCT ON), not by loading every
  // session of every address.
  const latest = await ctx.prisma.$queryRaw<{ id: string }[]>`
    SELECT DISTINCT ON ("ipAddress") "id" FROM "GuestSession"
    WHERE "tenantId" = ${scope.tenantId}
      AND (${scope.locationId}::text IS NULL OR "locationId" = ${scope.locationId})
      AND "ipAddress" = ANY(${wanted}::text[])
    ORDER BY "ipAddress", "startTime" DESC, "id" DESC`;
  if (latest.length === 0) return [];
  const select = {
    ipAddress: true,
    startTime: true,
    endTime: true,
    guest: { select: { username: true, name: true, email: true } },
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
    return [
      {
        ip_address: r.ipAddress,
        username: r.guest.username,
        name: r.guest.name,
        email: r.guest.email,
        duration: sessionSeconds(r, now),
      },
    ];
  });
}

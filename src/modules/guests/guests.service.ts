// Guests: tenant-scoped domain functions used by both REST and GraphQL.
import { randomBytes } from 'node:crypto';
import { authorize, hasPermission } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { renameFields } from '../../db/columns.js';
import { countRows, findFirstRow, findManyRows } from '../../db/raw-rows.js';
import { inScope, scoped } from '../../db/scope.js';
import { textSearch } from '../../db/text-search.js';
import { AppError } from '../../errors.js';
import type { Guest } from '../../generated/prisma/client.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { dayStart } from '../../shared/dates.js';
import { genderOfWord } from '../../shared/labels.js';
import { avatarStorage } from '../../storage/storage.js';
import { type Rules, validate, validateFilters } from '../../validation/validator.js';
import {
  type Avatar,
  guestFilterRules,
  guestListRules,
  guestWriteRules,
  type VisitWindow,
} from './guests.inputs.js';

export const MANAGE_GLOBAL = 'guests.manage-global';

/** The guests a nested read (GraphQL relations) reaches: the tenant's, for a pinned role those at its location. */
export function guestScopeOf(ctx: AppContext): PrismaNS.GuestWhereInput {
  return scoped(authorize(ctx.principal, 'guests.list'), 'locationId');
}

/** Whether a guest loaded through a to-one relation is one the caller may see (see guestScopeOf). */
export function guestVisible(ctx: AppContext, g: { tenantId: string; locationId: string }): boolean {
  return inScope(authorize(ctx.principal, 'guests.list'), g.tenantId, g.locationId);
}

/** Oldest first by default; `last_guest_first` turns it around. The id breaks ties either way. */
export function guestOrder(lastFirst: boolean): PrismaNS.GuestOrderByWithRelationInput[] {
  const dir = lastFirst ? 'desc' : 'asc';
  return [{ createdAt: dir }, { id: dir }];
}

/** Tags of a guest as names, by name: loaded with the guests in one statement, whatever their number. */
export const tagsQuery = (tenantId: string) =>
  ({
    where: { tenantId },
    orderBy: { tag: { name: 'asc' } },
    select: { tag: { select: { name: true } } },
  }) satisfies PrismaNS.Guest$tagsArgs;

/** What both REST shapes need beside the guest's own columns. */
export const guestInclude = (tenantId: string) =>
  ({
    location: { select: { name: true } },
    tags: tagsQuery(tenantId),
  }) satisfies PrismaNS.GuestInclude;

export type GuestRow = PrismaNS.GuestGetPayload<{ include: ReturnType<typeof guestInclude> }>;

interface FilterValues {
  username?: string;
  partner_id?: string;
  name?: string;
  email?: string;
  birth_date?: string;
  location_id?: string;
  gender?: string;
  phone?: string;
  passport_no?: string;
  nationality?: string;
  room_no?: string;
  reservation_no?: string;
  custom_field_1?: string;
  custom_field_2?: string;
  custom_field_3?: string;
  online?: boolean;
  last_visit_date?: VisitWindow;
  receive_marketing?: number;
  created_at?: string;
  updated_at?: string;
  last_guest_first?: boolean;
  type?: number;
  withBeacon?: boolean;
}

/** The validated filters as a where clause, inside the caller's scope. */
async function guestQuery(
  ctx: AppContext,
  raw: Record<string, unknown>,
  rules: Rules,
): Promise<{ where: PrismaNS.GuestWhereInput; f: FilterValues }> {
  const scope = authorize(ctx.principal, 'guests.list');
  const f = (await validateFilters(raw, rules)) as FilterValues;
  const and: PrismaNS.GuestWhereInput[] = [];
  // The pinned location is its own condition, so a `location_id` filter can only narrow it.
  if (f.location_id !== undefined) and.push({ locationId: f.location_id });
  if (f.username) and.push({ username: textSearch(f.username) });
  if (f.name) and.push({ name: textSearch(f.name) });
  if (f.email) and.push({ email: textSearch(f.email) });
  if (f.phone) and.push({ phone: textSearch(f.phone) });
  if (f.partner_id !== undefined) and.push({ partnerId: f.partner_id });
  if (f.passport_no !== undefined) and.push({ passportNo: f.passport_no });
  if (f.nationality !== undefined) and.push({ nationalityCode: f.nationality.toUpperCase() });
  if (f.room_no !== undefined) and.push({ roomNo: f.room_no });
  if (f.reservation_no !== undefined) and.push({ reservationNo: f.reservation_no });
  if (f.custom_field_1 !== undefined) and.push({ customField1: f.custom_field_1 });
  if (f.custom_field_2 !== undefined) and.push({ customField2: f.custom_field_2 });
  if (f.custom_field_3 !== undefined) and.push({ customField3: f.custom_field_3 });
  if (f.birth_date !== undefined) and.push({ birthDate: dayStart(f.birth_date) });
  if (f.gender !== undefined) and.push({ gender: genderOfWord(f.gender) });
  if (f.online !== undefined) and.push({ online: f.online });
  if (f.last_visit_date !== undefined)
    and.push({ lastVisitDate: { gte: f.last_visit_date.from, lt: f.last_visit_date.to } });
  if (f.receive_marketing !== undefined) and.push({ receiveMarketing: f.receive_marketing });
  if (f.created_at !== undefined) and.push({ createdAt: { gte: dayStart(f.created_at) } });
  if (f.updated_at !== undefined) and.push({ updatedAt: { gte: dayStart(f.updated_at) } });
  if (f.type !== undefined) and.push({ type: f.type });
  return { where: { ...scoped(scope, 'locationId'), AND: and }, f };
}

/** Paging and (from GraphQL) the relations the selection needs. */
type Page = Omit<PrismaNS.GuestFindManyArgs, 'where' | 'orderBy'>;

export async function listGuests(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const { where, f } = await guestQuery(ctx, filters, guestFilterRules);
  return findManyRows<Guest>(ctx.prisma, 'Guest', {
    ...page,
    where,
    orderBy: guestOrder(f.last_guest_first === true),
  });
}

export async function countGuests(ctx: AppContext, filters: Record<string, unknown>): Promise<number> {
  const { where } = await guestQuery(ctx, filters, guestFilterRules);
  return countRows(ctx.prisma, 'Guest', where);
}

export interface Beacon {
  mac: string;
  locationId: string | null;
  buildingId: string | null;
  floorId: string | null;
  zoneId: string | null;
  zone: string | null;
  x: number | null;
  y: number | null;
  seenAt: Date;
}

/**
 * The columns the REST list item reads (guests.serializer.ts guestListItem), and only those: a page
 * of 100 guests decodes a third fewer values. The item's parameter type is derived from this, so a
 * column the serializer reads but this omits does not compile.
 */
export const guestListSelect = (tenantId: string) =>
  ({
    id: true,
    username: true,
    name: true,
    email: true,
    birthDate: true,
    gender: true,
    phone: true,
    passportNo: true,
    nationalityCode: true,
    residencyCode: true,
    roomNo: true,
    reservationNo: true,
    hotelStatus: true,
    socialId: true,
    partnerId: true,
    customField1: true,
    customField2: true,
    customField3: true,
    online: true,
    locationId: true,
    lastVisitDate: true,
    lastAttemptTime: true,
    visitCount: true,
    receiveMarketing: true,
    lastLoginType: true,
    connectionStatus: true,
    lastConnectionTime: true,
    lastSsidName: true,
    createdAt: true,
    updatedAt: true,
    type: true,
    checkinDate: true,
    checkoutDate: true,
    ...guestInclude(tenantId),
  }) satisfies PrismaNS.GuestSelect;

export type GuestListRow = PrismaNS.GuestGetPayload<{ select: ReturnType<typeof guestListSelect> }> & {
  beacon?: Beacon | null;
};

/** REST's list: the rows both shapes need, and with `withBeacon` each guest's latest BLE record. */
export async function listGuestRows(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
): Promise<GuestListRow[]> {
  const { where, f } = await guestQuery(ctx, filters, guestListRules);
  // One raw statement (src/db/raw-rows.ts): the page is cut before the relations are built, so a
  // deep page does not join the rows it skips.
  const rows = await findManyRows<GuestListRow>(ctx.prisma, 'Guest', {
    where,
    orderBy: guestOrder(f.last_guest_first === true),
    ...page,
    select: guestListSelect(ctx.principal.tenantId),
  });
  if (f.withBeacon !== true) return rows;
  const beacons = await latestBeacons(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, beacon: beacons.get(r.id) ?? null }));
}

/** One statement for a whole page: the latest BLE presence record (data type 2) of each guest. */
export async function latestBeacons(
  ctx: AppContext,
  guestIds: readonly string[],
): Promise<Map<string, Beacon>> {
  if (guestIds.length === 0) return new Map();
  const rows = await ctx.prisma.$queryRaw<(Beacon & { guestId: string })[]>(PrismaNS.sql`
    SELECT g.id AS "guestId", p.mac, p."locationId", p."buildingId", p."floorId", p."zoneId",
           z.name AS zone, p.x, p.y, p."seenAt"
    FROM unnest(${guestIds}::text[]) AS g(id)
    CROSS JOIN LATERAL (
      SELECT r.* FROM "PresenceRecord" r
      WHERE r."tenantId" = ${ctx.principal.tenantId} AND r."guestId" = g.id AND r."dataType" = 2
      ORDER BY r."seenAt" DESC, r.id DESC
      LIMIT 1
    ) p
    LEFT JOIN "Zone" z ON z.id = p."zoneId" AND z."tenantId" = p."tenantId"`);
  return new Map(rows.map((r) => [r.guestId, r]));
}

export async function findGuest(
  ctx: AppContext,
  id: string,
  query: Omit<PrismaNS.GuestFindFirstArgs, 'where'> = {},
) {
  const scope = authorize(ctx.principal, 'guests.view');
  // The pinned location is its own condition: spread after `id` it would replace the requested id.
  return findFirstRow<Guest>(ctx.prisma, 'Guest', {
    ...query,
    where: { ...scoped(scope, 'locationId'), AND: [{ id }] },
  });
}

/** REST's detail: the guest with its location name and tags, or 404. */
export async function guestDetail(ctx: AppContext, id: string): Promise<GuestRow> {
  const guest = await findGuest(ctx, id, { include: guestInclude(ctx.principal.tenantId) });
  if (!guest) throw new AppError('NOT_FOUND');
  return guest as GuestRow;
}

/** `settings` of the detail response: what the gateway supports for every guest today. */
export const GUEST_SETTINGS = {
  /** The gateway has no disconnect operation yet. */
  disconnect_enabled: false,
  /** 0: free text; the name is optional (and at least 5 characters when updated). */
  name_registration_rule: 0,
} as const;

// ---------------------------------------------------------------------------------------------
// Writes

const columns: Record<string, keyof PrismaNS.GuestUncheckedCreateInput> = {
  phone: 'phone',
  passport_no: 'passportNo',
  nationality: 'nationalityCode',
  residency: 'residencyCode',
  reservation_no: 'reservationNo',
  partner_id: 'partnerId',
  hotel_status: 'hotelStatus',
  custom_field_1: 'customField1',
  custom_field_2: 'customField2',
  custom_field_3: 'customField3',
  direct_login: 'directLogin',
  marketing_consent: 'receiveMarketing',
};

function splitName(name: string): { firstName: string | null; lastName: string | null } {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return { firstName: words[0] ?? null, lastName: words.length > 1 ? words.slice(1).join(' ') : null };
}

const joinName = (first: string | null | undefined, last: string | null | undefined): string =>
  [first, last].filter((s): s is string => !!s).join(' ');

/** The validated input as columns (tags, avatar and location handled by the caller). */
function toColumns(
  valid: Record<string, unknown>,
  existing: { firstName: string | null; lastName: string | null } | null,
): Record<string, unknown> {
  const data: Record<string, unknown> = renameFields(valid, columns);
  if ('email' in valid) data.email = valid.email;
  if ('birth_date' in valid || 'birthday' in valid) {
    const d = ('birth_date' in valid ? valid.birth_date : valid.birthday) as string | null;
    data.birthDate = d === null ? null : dayStart(d);
  }
  if ('gender' in valid) {
    const g = valid.gender;
    data.gender = typeof g === 'number' ? g : typeof g === 'string' ? genderOfWord(g) : 0;
  }
  if ('room_no' in valid) data.roomNo = valid.room_no === null ? null : String(valid.room_no);
  if ('custom_data' in valid) {
    const c = valid.custom_data;
    data.customData = c === null || typeof c === 'string' ? c : JSON.stringify(c);
  }
  // The full name and its parts stay in step: whichever side is sent, the other follows.
  const hasFirst = 'first_name' in valid;
  const hasLast = 'last_name' in valid;
  if (typeof valid.name === 'string') {
    data.name = valid.name;
    const parts = splitName(valid.name);
    data.firstName = hasFirst ? valid.first_name : parts.firstName;
    data.lastName = hasLast ? valid.last_name : parts.lastName;
  } else if (hasFirst || hasLast) {
    data.firstName = hasFirst ? valid.first_name : (existing?.firstName ?? null);
    data.lastName = hasLast ? valid.last_name : (existing?.lastName ?? null);
    data.name = joinName(data.firstName as string | null, data.lastName as string | null);
  }
  return data;
}

type Tx = PrismaNS.TransactionClient;

/** Replaces the guest's tags with `names`, creating the missing tags of the tenant (with `tagType`). */
async function syncTags(
  tx: Tx,
  tenantId: string,
  guestId: string,
  names: string[],
  tagType: number | null,
): Promise<void> {
  await tx.guestTag.deleteMany({ where: { tenantId, guestId } });
  if (names.length === 0) return;
  await tx.tag.createMany({
    data: names.map((name) => ({ tenantId, name, type: tagType })),
    skipDuplicates: true,
  });
  const tags = await tx.tag.findMany({ where: { tenantId, name: { in: names } }, select: { id: true } });
  await tx.guestTag.createMany({ data: tags.map((t) => ({ tenantId, guestId, tagId: t.id })) });
}

const emailTaken = (err: unknown): boolean => {
  const e = err as { code?: string; meta?: { target?: unknown } };
  return e.code === 'P2002';
};
const takenError = () =>
  new AppError('VALIDATION', { fields: { email: ['The email has already been taken.'] } });

/** Stores a new avatar first; the caller removes it again when the database write fails. */
async function storeAvatar(
  ctx: AppContext,
  valid: Record<string, unknown>,
): Promise<string | null | undefined> {
  if (!('avatar' in valid)) return undefined;
  const avatar = valid.avatar as Avatar | null;
  return avatar === null ? null : avatarStorage(ctx).put('avatar', avatar.bytes, avatar.ext);
}

async function withAvatar<T>(
  ctx: AppContext,
  valid: Record<string, unknown>,
  write: (imagePath: string | null | undefined) => Promise<T>,
): Promise<T> {
  const stored = await storeAvatar(ctx, valid);
  try {
    return await write(stored);
  } catch (err) {
    if (stored) await avatarStorage(ctx).remove(stored);
    if (emailTaken(err)) throw takenError();
    throw err;
  }
}

export async function createGuest(ctx: AppContext, input: Record<string, unknown>): Promise<GuestRow> {
  const scope = authorize(ctx.principal, 'guests.create');
  const valid = await validate(input, guestWriteRules({ prisma: ctx.prisma, scope, mode: 'create' }));
  const locationId = String(valid.location_id);
  // A venue or front-desk user works in its own location only.
  if (scope.locationId && locationId !== scope.locationId) throw new AppError('FORBIDDEN');
  const data = toColumns(valid, null);
  const email = (valid.email as string | null | undefined) ?? null;
  const id = await withAvatar(ctx, valid, (imagePath) =>
    ctx.prisma.$transaction(async (tx) => {
      const guest = await tx.guest.create({
        data: {
          name: '',
          ...data,
          tenantId: scope.tenantId,
          locationId,
          username: email ?? `guest-${randomBytes(5).toString('hex')}`,
          ...(imagePath !== undefined ? { imagePath } : {}),
        },
        select: { id: true },
      });
      if (Array.isArray(valid.tags)) {
        await syncTags(
          tx,
          scope.tenantId,
          guest.id,
          valid.tags as string[],
          (valid.tag_type as number) ?? null,
        );
      }
      return guest.id;
    }),
  );
  return guestDetail(ctx, id);
}

export async function updateGuest(
  ctx: AppContext,
  id: string,
  input: Record<string, unknown>,
): Promise<GuestRow> {
  const scope = authorize(ctx.principal, 'guests.update');
  const existing = await ctx.prisma.guest.findFirst({
    // Not `{ id, ...scoped() }`: the pinned location must not replace the path id.
    where: { ...scoped(scope, 'locationId'), AND: [{ id }] },
    select: { id: true, locationId: true, firstName: true, lastName: true, imagePath: true },
  });
  if (!existing) throw new AppError('NOT_FOUND');
  const valid = await validate(
    input,
    guestWriteRules({ prisma: ctx.prisma, scope, exceptId: id, mode: 'update' }),
  );
  const locationId = String(valid.location_id);
  if (locationId !== existing.locationId) {
    // Moving a guest to another location of the tenant needs `guests.manage-global`; a pinned
    // user never moves a guest out of its own location.
    if (!hasPermission(ctx.principal, MANAGE_GLOBAL) || scope.locationId) throw new AppError('FORBIDDEN');
  }
  const data = toColumns(valid, existing);
  await withAvatar(ctx, valid, (imagePath) =>
    ctx.prisma.$transaction(async (tx) => {
      await tx.guest.update({
        where: { id },
        data: { ...data, locationId, ...(imagePath !== undefined ? { imagePath } : {}) },
      });
      if ('tags' in valid) {
        const names = Array.isArray(valid.tags) ? (valid.tags as string[]) : [];
        await syncTags(tx, scope.tenantId, id, names, (valid.tag_type as number) ?? null);
      }
    }),
  );
  if ('avatar' in valid && existing.imagePath) await avatarStorage(ctx).remove(existing.imagePath);
  return guestDetail(ctx, id);
}

// Guests: tenant-scoped domain functions used by both REST and GraphQL.
import { randomBytes } from 'node:crypto';
import { authorize, hasPermission } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { Config } from '../../config.js';
import type { AppContext } from '../../context.js';
import { countRows, findFirstRow, findManyRows } from '../../db/raw-rows.js';
import { inScope, scoped } from '../../db/scope.js';
import { isUniqueViolation, takenError } from '../../db/unique-violation.js';
import { AppError } from '../../errors.js';
import { type AuditAction, changed, changeEvent, changesOf } from '../../events/audit.js';
import { type EventLog, type NewEvent, writeWithEvents } from '../../events/outbox.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import {
  type InputOf,
  type ListWhere,
  listOperation,
  operation,
  reader,
} from '../../operations/operation.js';
import { dayStart } from '../../shared/dates.js';
import { isoMicros } from '../../shared/format.js';
import { genderOfWord } from '../../shared/labels.js';
import { markForRemoval, removeMarked, removeUncommitted } from '../../storage/file-removals.js';
import { avatarStorage } from '../../storage/storage.js';
import { validate } from '../../validation/validator.js';
import { guestFilters, guestListFilters, guestWriteFields, UPDATED_NAME } from './guests.inputs.js';
import { guestDetailItem } from './guests.serializer.js';

export const MANAGE_GLOBAL = 'guests.manage-global';

/**
 * The one where-clause every guest read starts from: the scope's tenant, for a pinned role its
 * location, and never an erased guest (guests.privacy.ts keeps the row as an anonymous tombstone).
 * The pinned location and the tombstone are their own conditions: a caller's `AND: [{ id }]` or
 * filters never replace them.
 */
export function guestWhere(scope: Scope): { tenantId: string; locationId?: string; erasedAt: null } {
  return { ...scoped(scope, 'locationId'), erasedAt: null };
}

/** One guest by id in the caller's scope: the scope's conditions stay their own (see guestWhere). */
export function guestById(scope: Scope, id: string): PrismaNS.GuestWhereInput {
  return { ...guestWhere(scope), AND: [{ id }] };
}

/** The guests a nested read (GraphQL relations) reaches: the tenant's, for a pinned role those at its location. */
export function guestScopeOf(ctx: AppContext): PrismaNS.GuestWhereInput {
  return guestWhere(authorize(ctx.principal, guestsQuery.action));
}

/** Whether a guest loaded through a to-one relation is one the caller may see (see guestWhere). */
export function guestVisible(
  ctx: AppContext,
  g: { tenantId: string; locationId: string; erasedAt: Date | null },
): boolean {
  return (
    g.erasedAt === null && inScope(authorize(ctx.principal, guestsQuery.action), g.tenantId, g.locationId)
  );
}

/** What guestVisible() reads of a guest loaded through a relation. */
export const guestVisibleSelect = { tenantId: true, locationId: true, erasedAt: true } as const;

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

/** The list's action, scope and order; the two list operations differ only by `withBeacon`. */
const guestList = {
  action: 'guests.list',
  within: (scope: Scope, and: PrismaNS.GuestWhereInput[]): PrismaNS.GuestWhereInput => ({
    ...guestWhere(scope),
    AND: and,
  }),
  orderBy: (f: { last_guest_first?: boolean }) => guestOrder(f.last_guest_first === true),
} as const;

/** The guest list and count (GraphQL `guests`, REST `GET /guests/count`): filters → where and order. */
export const guestsQuery = listOperation({ ...guestList, filters: guestFilters });

/** REST's `GET /guests`: the same, with `withBeacon`. */
export const guestListQuery = listOperation({ ...guestList, filters: guestListFilters });

/** What the list and its count read by (see ListWhere). */
export type GuestQuery = ListWhere<PrismaNS.GuestWhereInput, PrismaNS.GuestOrderByWithRelationInput[]>;

/** Paging and shape: REST's typed list select, or plugin-prisma's query from the GraphQL selection. */
type PageArgs = Omit<PrismaNS.GuestFindManyArgs, 'where' | 'orderBy'>;

/**
 * A page of guests for both transports. One raw statement (src/db/raw-rows.ts): the page is cut
 * before the relations are built, so a deep page does not join the rows it skips.
 */
export function listGuests<A extends PageArgs>(
  ctx: AppContext,
  q: GuestQuery,
  args: A,
): Promise<PrismaNS.GuestGetPayload<A>[]> {
  return findManyRows(ctx.prisma, 'Guest', { ...args, where: q.where, orderBy: q.orderBy });
}

export function countGuests(ctx: AppContext, q: GuestQuery): Promise<number> {
  return countRows(ctx.prisma, 'Guest', q.where);
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

/** REST's `withBeacon`: each guest of the page with its latest BLE record (one statement). */
export async function withBeacons<R extends { id: string }>(
  ctx: AppContext,
  rows: R[],
): Promise<(R & { beacon: Beacon | null })[]> {
  const beacons = await latestBeacons(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, beacon: beacons.get(r.id) ?? null }));
}

/**
 * One statement for a whole page: the latest BLE presence record (data type 2) of each guest; for a
 * pinned caller, the latest at its location (a record elsewhere is another location's presence).
 */
export async function latestBeacons(
  ctx: AppContext,
  guestIds: readonly string[],
): Promise<Map<string, Beacon>> {
  if (guestIds.length === 0) return new Map();
  const pinned = viewGuest.scope(ctx).locationId;
  const atPinned = pinned ? PrismaNS.sql`AND r."locationId" = ${pinned}` : PrismaNS.empty;
  const rows = await ctx.prisma.$queryRaw<(Beacon & { guestId: string })[]>(PrismaNS.sql`
    SELECT g.id AS "guestId", p.mac, p."locationId", p."buildingId", p."floorId", p."zoneId",
           z.name AS zone, p.x, p.y, p."seenAt"
    FROM unnest(${guestIds}::text[]) AS g(id)
    CROSS JOIN LATERAL (
      SELECT r.* FROM "PresenceRecord" r
      WHERE r."tenantId" = ${ctx.principal.tenantId} AND r."guestId" = g.id AND r."dataType" = 2 ${atPinned}
      ORDER BY r."seenAt" DESC, r.id DESC
      LIMIT 1
    ) p
    LEFT JOIN "Zone" z ON z.id = p."zoneId" AND z."tenantId" = p."tenantId"`);
  return new Map(rows.map((r) => [r.guestId, r]));
}

/** `GET /guests/:id`, GraphQL `guest(id)`: one guest in the caller's scope. */
export const viewGuest = reader('guests.view');

/** One guest in the shape `args` selects, or null. */
export function findGuest<A extends Omit<PrismaNS.GuestFindFirstArgs, 'where'>>(
  ctx: AppContext,
  id: string,
  args: A,
): Promise<PrismaNS.GuestGetPayload<A> | null> {
  const scope = viewGuest.scope(ctx);
  return findFirstRow(ctx.prisma, 'Guest', { ...args, where: guestById(scope, id) });
}

/** REST's detail: the guest with its location name and tags, or 404. */
export async function guestDetail(ctx: AppContext, id: string): Promise<GuestRow> {
  const guest = await findGuest(ctx, id, { include: guestInclude(ctx.principal.tenantId) });
  if (!guest) throw new AppError('NOT_FOUND');
  return guest;
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

function splitName(name: string): { firstName: string | null; lastName: string | null } {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return { firstName: words[0] ?? null, lastName: words.length > 1 ? words.slice(1).join(' ') : null };
}

const joinName = (first: string | null | undefined, last: string | null | undefined): string =>
  [first, last].filter((s): s is string => !!s).join(' ');

/** What `POST /guests` and `PUT /guests/:id` validate to (gender a word on create, a number on update). */
export type GuestWriteInput = InputOf<ReturnType<typeof guestWriteFields>>;

/**
 * The validated input as columns (tags, avatar and location handled by the caller): a field left out
 * is undefined, which leaves its column as it is.
 */
export function toColumns(
  valid: GuestWriteInput,
  existing: { firstName: string | null; lastName: string | null } | null,
) {
  const birth = valid.birth_date !== undefined ? valid.birth_date : valid.birthday;
  const g = valid.gender;
  const c = valid.custom_data;
  return {
    phone: valid.phone,
    passportNo: valid.passport_no,
    nationalityCode: valid.nationality,
    residencyCode: valid.residency,
    reservationNo: valid.reservation_no,
    partnerId: valid.partner_id,
    hotelStatus: valid.hotel_status,
    customField1: valid.custom_field_1,
    customField2: valid.custom_field_2,
    customField3: valid.custom_field_3,
    directLogin: valid.direct_login,
    receiveMarketing: valid.marketing_consent,
    email: valid.email,
    birthDate: birth === undefined ? undefined : birth === null ? null : dayStart(birth),
    gender:
      g === undefined ? undefined : typeof g === 'number' ? g : typeof g === 'string' ? genderOfWord(g) : 0,
    roomNo: valid.room_no == null ? valid.room_no : String(valid.room_no),
    customData: c == null || typeof c === 'string' ? c : JSON.stringify(c),
    ...nameColumns(valid, existing),
  } satisfies PrismaNS.GuestUncheckedUpdateInput;
}

/** The full name and its parts stay in step: whichever side is sent, the other follows. */
function nameColumns(
  valid: Pick<GuestWriteInput, 'name' | 'first_name' | 'last_name'>,
  existing: { firstName: string | null; lastName: string | null } | null,
): { name?: string; firstName?: string | null; lastName?: string | null } {
  const hasFirst = 'first_name' in valid;
  const hasLast = 'last_name' in valid;
  if (typeof valid.name === 'string') {
    const parts = splitName(valid.name);
    return {
      name: valid.name,
      firstName: hasFirst ? valid.first_name : parts.firstName,
      lastName: hasLast ? valid.last_name : parts.lastName,
    };
  }
  if (!hasFirst && !hasLast) return {};
  const firstName = hasFirst ? (valid.first_name ?? null) : (existing?.firstName ?? null);
  const lastName = hasLast ? (valid.last_name ?? null) : (existing?.lastName ?? null);
  return { firstName, lastName, name: joinName(firstName, lastName) };
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

/** Stores a new avatar first; the caller removes it again when the database write fails. */
async function storeAvatar(ctx: AppContext, valid: GuestWriteInput): Promise<string | null | undefined> {
  if (valid.avatar === undefined) return undefined;
  return valid.avatar === null
    ? null
    : avatarStorage(ctx).put('avatar', valid.avatar.bytes, valid.avatar.ext);
}

async function withAvatar<T>(
  ctx: AppContext,
  valid: GuestWriteInput,
  write: (imagePath: string | null | undefined) => Promise<T>,
): Promise<T> {
  const stored = await storeAvatar(ctx, valid);
  try {
    return await write(stored);
  } catch (err) {
    if (stored) await removeUncommitted(ctx, stored);
    if (isUniqueViolation(err)) throw takenError('email');
    throw err;
  }
}

/**
 * The event and audit entry of a write of a guest: the REST detail as payload; the audit view adds
 * `custom_data` (written, shown in GraphQL only). The avatar is its URL, never its bytes.
 */
function guestChange(
  ctx: AppContext,
  log: EventLog,
  action: AuditAction,
  before: GuestRow | null,
  after: GuestRow,
): void {
  log.record(guestChangeEvent(ctx, action, before, after));
}

/** A guest's audit view: the REST detail and `custom_data` (written, shown in GraphQL only). */
export const guestAuditView = (g: GuestRow, config: Pick<Config, 'appUrl'>) => ({
  ...guestDetailItem(g, config),
  custom_data: g.customData,
});

/**
 * Whether a write takes the guest from `before` to `after`: its audit view differs. An update that
 * changes nothing records no event (changeEvent); the import does not even write it.
 */
export const guestChanged = (before: GuestRow, after: GuestRow, config: Pick<Config, 'appUrl'>): boolean =>
  changed(changesOf(guestAuditView(before, config), guestAuditView(after, config)));

function guestChangeEvent(ctx: AppContext, action: AuditAction, before: GuestRow | null, after: GuestRow) {
  const view = (g: GuestRow) => guestAuditView(g, ctx.config);
  return changeEvent({
    type: before ? 'guest.updated' : 'guest.created',
    resourceType: 'guest',
    resourceId: after.id,
    action,
    payload: guestDetailItem(after, ctx.config),
    before: before && view(before),
    after: view(after),
  });
}

/**
 * The event of a guest's erasure (`DELETE /guests/:id`), recorded in its transaction: the payload is
 * `{id, erased_at}`, and the guest's earlier events and audit entries lose its personal data too
 * (NewEvent.erases).
 */
export function guestErased(guestId: string, action: AuditAction, at = new Date()): NewEvent {
  const erasedAt = isoMicros(at);
  return {
    type: 'guest.erased',
    resourceType: 'guest',
    resourceId: guestId,
    payload: { id: guestId, erased_at: erasedAt },
    audit: { action, changes: { erased_at: { old: null, new: erasedAt } } },
    erases: true,
  };
}

/** The guest as REST's detail reads it, inside a write's transaction. */
const guestInTx = (tx: Tx, tenantId: string, id: string): Promise<GuestRow> =>
  tx.guest.findUniqueOrThrow({ where: { id }, include: guestInclude(tenantId) });

/**
 * Locks the guest's row for the caller's write, if it is not erased (its avatar's path, read under
 * the lock); null when it is absent or erased. Every write of a guest (its update, its erasure)
 * takes it first: an update waiting on an erasure then finds the guest erased (404), never writing
 * its values back onto the erased row.
 */
export async function lockLiveGuest(tx: Tx, tenantId: string, id: string): Promise<LockedGuest | null> {
  const [row] = await tx.$queryRaw<LockedGuest[]>`
    SELECT "imagePath", "locationId", "firstName", "lastName", date_trunc('milliseconds', now()) AS "now"
    FROM "Guest"
    WHERE "id" = ${id} AND "tenantId" = ${tenantId} AND "erasedAt" IS NULL FOR UPDATE`;
  return row ?? null;
}

/** A guest as its writer locked it: what the write is judged against. */
export interface LockedGuest {
  imagePath: string | null;
  locationId: string;
  firstName: string | null;
  lastName: string | null;
  /** The transaction's time. */
  now: Date;
}

/**
 * `guest.created` for a guest another write made (a redeem's anonymous guest), read in its transaction
 * when that write is done (it puts the guest online).
 */
export function recordGuestCreated(
  ctx: AppContext,
  tx: Tx,
  log: EventLog,
  action: AuditAction,
  id: string,
): void {
  log.recordAtCommit(async () =>
    guestChangeEvent(ctx, action, null, await guestInTx(tx, ctx.principal.tenantId, id)),
  );
}

/** `POST /guests`, GraphQL `createGuest`. */
export const createGuest = operation({
  action: 'guests.create',
  input: (env) => guestWriteFields({ ...env, mode: 'create' }),
  async run({ ctx, action, scope, input }): Promise<GuestRow> {
    const locationId = input.location_id;
    // A venue or front-desk user works in its own location only.
    if (scope.locationId && locationId !== scope.locationId) throw new AppError('FORBIDDEN');
    const data = toColumns(input, null);
    const email = input.email ?? null;
    return withAvatar(ctx, input, (imagePath) =>
      writeWithEvents(ctx, async (tx, log) => {
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
        if (Array.isArray(input.tags)) {
          await syncTags(tx, scope.tenantId, guest.id, input.tags, input.tag_type ?? null);
        }
        const created = await guestInTx(tx, scope.tenantId, guest.id);
        guestChange(ctx, log, action, null, created);
        return created;
      }),
    );
  },
});

/**
 * An update's columns, judged on the guest as it stands (`current`): a guest moved out of a pinned
 * caller's location is absent to it (404); moving one to another location needs
 * `guests.manage-global`, and a pinned user never moves one out of its own location (403); a name
 * rebuilt from parts sent without it meets the rule a sent one meets (probe P: `null` parts made it
 * "", two long ones 511 characters).
 */
async function columnsOfUpdate(
  ctx: AppContext,
  scope: Scope,
  input: GuestWriteInput,
  current: { locationId: string; firstName: string | null; lastName: string | null },
): Promise<ReturnType<typeof toColumns>> {
  if (!inScope(scope, scope.tenantId, current.locationId)) throw new AppError('NOT_FOUND');
  if (input.location_id !== current.locationId) {
    if (!hasPermission(ctx.principal, MANAGE_GLOBAL) || scope.locationId) throw new AppError('FORBIDDEN');
  }
  const data = toColumns(input, current);
  if (!('name' in input) && data.name !== undefined)
    await validate({ name: data.name }, { name: UPDATED_NAME });
  return data;
}

/** `PUT /guests/:id`, GraphQL `updateGuest`. */
export const updateGuest = operation({
  action: 'guests.update',
  find: async (ctx, scope, id) => {
    const existing = await ctx.prisma.guest.findFirst({
      where: guestById(scope, id),
      select: { id: true, locationId: true, firstName: true, lastName: true, imagePath: true },
    });
    if (!existing) throw new AppError('NOT_FOUND');
    return existing;
  },
  input: (env) => guestWriteFields({ ...env, exceptId: env.id, mode: 'update' }),
  async run({ ctx, action, scope, input, found: existing }): Promise<GuestRow> {
    const locationId = input.location_id;
    // Judged first on the guest as read (nothing is stored for a refused write, an avatar included),
    // then again on the guest as locked: a concurrent write may have moved it, or changed the name
    // parts the columns are built from (probe L: a rebuilt name wrote back a part another PUT had
    // just changed, and a venue user moved back a guest an admin had just moved away).
    await columnsOfUpdate(ctx, scope, input, existing);
    // The avatar this write replaces: the one read under the row's lock (a concurrent update may have
    // replaced the one `existing` shows; removing that one again would leave this one's file behind).
    const old: { imagePath: string | null } = { imagePath: null };
    const updated = await withAvatar(ctx, input, (imagePath) =>
      writeWithEvents(ctx, async (tx, log) => {
        // Erased meanwhile (a concurrent erasure): absent, as after it.
        const locked = await lockLiveGuest(tx, scope.tenantId, existing.id);
        if (!locked) throw new AppError('NOT_FOUND');
        const data = await columnsOfUpdate(ctx, scope, input, locked);
        old.imagePath = locked.imagePath;
        if ('avatar' in input && old.imagePath) await markForRemoval(tx, [old.imagePath]);
        const before = await guestInTx(tx, scope.tenantId, existing.id);
        await tx.guest.update({
          where: { id: existing.id },
          data: { ...data, locationId, ...(imagePath !== undefined ? { imagePath } : {}) },
        });
        if ('tags' in input) {
          const names = input.tags ?? [];
          await syncTags(tx, scope.tenantId, existing.id, names, input.tag_type ?? null);
        }
        const after = await guestInTx(tx, scope.tenantId, existing.id);
        // No event: nothing changed, and `updated_at` stays, as Eloquent's save() of a clean model leaves it.
        const event = guestChangeEvent(ctx, action, before, after);
        if (!event) {
          await tx.guest.update({ where: { id: existing.id }, data: { updatedAt: before.updatedAt } });
          return { ...after, updatedAt: before.updatedAt };
        }
        log.record(event);
        return after;
      }),
    );
    if ('avatar' in input && old.imagePath) await removeMarked(ctx, [old.imagePath]);
    return updated;
  },
});

// Access codes (spec 4.9, and beyond it the list): tenant-scoped domain functions for REST and
// GraphQL. Redeem and revoke have rooms of their own (access-codes.redeem.ts, access-codes.revoke.ts).
import { randomInt } from 'node:crypto';
import { permits } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { isUniqueViolation, takenError } from '../../db/unique-violation.js';
import { AppError } from '../../errors.js';
import { type AuditAction, changeEvent } from '../../events/audit.js';
import type { EventType } from '../../events/event-types.js';
import { type EventLog, writeWithEvents } from '../../events/outbox.js';
import type { AccessCode, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type InputOf, type ListWhere, listOperation, operation } from '../../operations/operation.js';
import { dayStart } from '../../shared/dates.js';
import { guestsQuery, guestVisible, guestVisibleSelect } from '../guests/guests.service.js';
import { accessCodeFilters, accessCodeWriteFields, GENERATED, SHARED } from './access-codes.inputs.js';
import { accessCodeItem } from './access-codes.serializer.js';

/** No look-alikes: no 0/O, no 1/I/L. 31 characters, so 31^8 ≈ 8.5 × 10^11 codes of 8. */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 8;

/** A random code from CODE_ALPHABET, drawn with the CSPRNG. */
export function randomCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** Newest first; codes of one request share a creation time, so the id breaks ties. */
export const accessCodeOrder = [
  { createdAt: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.AccessCodeOrderByWithRelationInput[];

/** What the 2.13 shape needs besides the row. */
export const accessCodeNames = {
  location: { select: { name: true } },
  serviceProfile: { select: { name: true } },
  guest: { select: { name: true } },
} satisfies PrismaNS.AccessCodeInclude;

/** The access-code list and count (REST `GET /access-codes[/count]`, GraphQL `accessCodes`): filters → where. */
/**
 * The list's conditions inside the caller's scope. The scope is its own condition: a `location_id`
 * filter spread beside the pinned location would replace it.
 */
export const accessCodesWithin = (
  scope: Scope,
  and: PrismaNS.AccessCodeWhereInput[],
): PrismaNS.AccessCodeWhereInput => ({
  ...scoped(scope, 'locationId'),
  AND: and,
});

export const accessCodesQuery = listOperation({
  action: 'accessCodes.list',
  filters: accessCodeFilters,
  within: accessCodesWithin,
  orderBy: () => accessCodeOrder,
});

/** What the list and its count read by (see ListWhere). */
export type AccessCodeQuery = ListWhere<
  PrismaNS.AccessCodeWhereInput,
  PrismaNS.AccessCodeOrderByWithRelationInput[]
>;

/**
 * The page and what to read of each row: REST's `{ skip, take, include: accessCodeListInclude }`,
 * GraphQL's relay page (`cursor`, `take`, `skip`) with plugin-prisma's include for its selection.
 */
type Page = Omit<PrismaNS.AccessCodeFindManyArgs, 'where' | 'orderBy'>;

/**
 * The list of both transports: one filter set, scope and order; only `page` differs. The rows' type
 * follows from `page` as it does for Prisma's own findMany.
 */
export function listAccessCodes<P extends Page>(
  ctx: AppContext,
  q: AccessCodeQuery,
  page: P,
): Promise<PrismaNS.AccessCodeGetPayload<P>[]> {
  return findManyRows<PrismaNS.AccessCodeGetPayload<P>>(ctx.prisma, 'AccessCode', {
    ...page,
    where: q.where,
    orderBy: q.orderBy,
  });
}

/**
 * What REST's list item reads besides the code's own columns, loaded in the codes' statement. The
 * guest's tenant and location decide whether its name is shown (see access-codes.rest.ts).
 */
export const accessCodeListInclude = {
  ...accessCodeNames,
  guest: { select: { name: true, ...guestVisibleSelect } },
} satisfies PrismaNS.AccessCodeInclude;

/** A code as the list reads it (REST's item, with what decides whether its guest's name is shown). */
export type AccessCodeListRow = PrismaNS.AccessCodeGetPayload<{ include: typeof accessCodeListInclude }>;

/**
 * Whether the caller sees a code's guest (REST `guest_name`, GraphQL `guest` and `guestName`): a
 * guest it may read. A pinned caller's code may name a guest of another location; a token that may
 * not read guests (a controller's `ingest` token redeeming) sees none.
 */
export function codeGuestShown(
  ctx: AppContext,
  g: { tenantId: string; locationId: string; erasedAt: Date | null } | null,
): boolean {
  return g !== null && permits(ctx.principal, guestsQuery.action) && guestVisible(ctx, g);
}

/** A code with the names REST's item (access-codes.serializer.ts) shows: listed or just created. */
export type AccessCodeWithNames = PrismaNS.AccessCodeGetPayload<{ include: typeof accessCodeNames }>;

export function countAccessCodes(ctx: AppContext, q: AccessCodeQuery): Promise<number> {
  return countRows(ctx.prisma, 'AccessCode', q.where);
}

// ---------------------------------------------------------------------------------------------
// Generation

/** Whole-request attempts when the unique index refuses a batch (a code taken by a concurrent request). */
const MAX_ATTEMPTS = 3;
/** Rounds of replacing codes that already exist, inside one attempt. */
const MAX_ROUNDS = 10;

/** Prisma's 5 s default would abort a batch of 1000 on a busy embedded database. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

const notCreated = (cause?: unknown) => new AppError('ACCESS_CODES_NOT_CREATED', { cause });

export interface GenerateOptions {
  /** The code source; `randomCode` unless a caller (the seeder, a test) brings its own. */
  nextCode?: () => string;
}

type Db = Pick<AppContext['prisma'], 'accessCode'>;

/** `quantity` distinct codes none of which exists in the tenant: one look-up per round. */
async function freshCodes(db: Db, tenantId: string, quantity: number, next: () => string): Promise<string[]> {
  const codes = new Set<string>();
  let guard = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    while (codes.size < quantity && guard++ < quantity * 100) codes.add(next());
    const taken = await db.accessCode.findMany({
      where: { tenantId, code: { in: [...codes] } },
      select: { code: true },
    });
    if (taken.length === 0 && codes.size === quantity) return [...codes];
    for (const t of taken) codes.delete(t.code);
  }
  throw notCreated(new Error(`no ${quantity} free codes after ${MAX_ROUNDS} rounds`));
}

/**
 * The event and audit entry of a write of a code: REST's item as payload, its guest's name shown
 * (receivers are the tenant's admins) unless the guest was erased.
 */
export function accessCodeChange(
  log: EventLog,
  type: EventType,
  action: AuditAction,
  before: AccessCodeWithNames | null,
  after: AccessCodeWithNames,
): void {
  const item = (c: AccessCodeWithNames) =>
    accessCodeItem(c, c.guest !== null && !('erasedAt' in c.guest && c.guest.erasedAt));
  log.record(
    changeEvent({
      type,
      resourceType: 'access_code',
      resourceId: after.id,
      action,
      payload: item(after),
      before: before && item(before),
      after: item(after),
    }),
  );
}

type CodeNames = Pick<AccessCodeWithNames, 'location' | 'serviceProfile' | 'guest'>;

/** The names the 2.13 shape shows for one batch (one location, profile and guest). */
async function namesOf(
  ctx: AppContext,
  ids: { tenantId: string; locationId: string; serviceProfileId: string; guestId: string | null },
): Promise<CodeNames> {
  const { tenantId } = ids;
  const name = { select: { name: true } } as const;
  const [location, serviceProfile, guest] = await Promise.all([
    ctx.prisma.location.findFirstOrThrow({ where: { tenantId, id: ids.locationId }, ...name }),
    ctx.prisma.serviceProfile.findFirstOrThrow({ where: { tenantId, id: ids.serviceProfileId }, ...name }),
    ids.guestId
      ? ctx.prisma.guest.findFirst({ where: { tenantId, id: ids.guestId, erasedAt: null }, ...name })
      : null,
  ]);
  return { location, serviceProfile, guest };
}

/** What `POST /access-codes` and `generateAccessCodes` validate to. */
export type GenerateInput = InputOf<ReturnType<typeof accessCodeWriteFields>>;

/**
 * Spec 4.9 (`POST /access-codes`, GraphQL `generateAccessCodes`) with a code source of its own (see
 * GenerateOptions): one shared code (type 1) or `quantity` generated codes (type 2), all created in one
 * transaction or none. Invalid input is a VALIDATION error; a batch that cannot be stored (codes that
 * keep colliding, any database failure) is ACCESS_CODES_NOT_CREATED, with nothing created.
 */
export function generateAccessCodesWith(opts: GenerateOptions) {
  return operation({
    action: 'accessCodes.create',
    input: accessCodeWriteFields,
    run: ({ ctx, action, scope, input }) => storeCodes(ctx, action, scope, input, opts),
  });
}

/** Spec 4.9 with random codes (see generateAccessCodesWith). */
export const generateAccessCodes = generateAccessCodesWith({});

async function storeCodes(
  ctx: AppContext,
  action: AuditAction,
  scope: Scope,
  valid: GenerateInput,
  opts: GenerateOptions,
): Promise<AccessCodeWithNames[]> {
  const day = (ymd: string | null | undefined) => (ymd ? dayStart(ymd) : null);
  const base = {
    tenantId: scope.tenantId,
    locationId: valid.location_id,
    serviceProfileId: valid.service_profile_id,
    guestId: valid.guest_id ?? null,
    type: valid.type,
    description: valid.description ?? null,
    startDate: day(valid.start_date),
    expiryDate: day(valid.expiry_date),
    // A shared code is for everyone: unlimited unless said; a generated code is one guest's.
    maxUses: valid.max_uses ?? (valid.type === GENERATED ? 1 : null),
  };
  const next = opts.nextCode ?? randomCode;
  const quantity = valid.type === GENERATED ? (valid.quantity ?? 1) : 1;

  // Every code of the batch shows the same names: read once, before the transaction (its events
  // carry them).
  const names = await namesOf(ctx, base);
  for (let attempt = 1; ; attempt++) {
    try {
      return await writeWithEvents(ctx, TRANSACTION_OPTIONS, async (tx, log) => {
        const codes =
          valid.type === SHARED ? [String(valid.code)] : await freshCodes(tx, scope.tenantId, quantity, next);
        // No `include` here: Prisma would load the relations concurrently on the transaction's one
        // connection. Every row shares them (read once above).
        const created = await tx.accessCode.createManyAndReturn({
          data: codes.map((code) => ({ ...base, code })),
        });
        const rows = created.map((row: AccessCode) => ({ ...row, ...names }));
        for (const row of rows) accessCodeChange(log, 'access_code.created', action, null, row);
        return rows;
      });
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (isUniqueViolation(err)) {
        // A concurrent request took the shared code between the check and the insert.
        if (valid.type === SHARED) {
          throw takenError('code');
        }
        if (attempt < MAX_ATTEMPTS) continue;
      }
      throw notCreated(err);
    }
  }
}

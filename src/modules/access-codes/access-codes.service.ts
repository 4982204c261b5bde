// Access codes (spec 4.9, and a list beyond it): tenant-scoped domain functions for REST and GraphQL.
import { randomInt } from 'node:crypto';
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { countRows, findManyRows } from '../../db/raw-rows.js';
import { scoped } from '../../db/scope.js';
import { textSearch } from '../../db/text-search.js';
import { AppError } from '../../errors.js';
import type { AccessCode, Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { dayStart } from '../../shared/dates.js';
import { validate, validateFilters } from '../../validation/validator.js';
import { guestVisible } from '../guests/guests.service.js';
import { accessCodeFilterRules, accessCodeWriteRules, GENERATED, SHARED } from './access-codes.inputs.js';

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

interface AccessCodeFilters {
  location_id?: string;
  type?: number;
  status?: number;
  code?: string;
  guest_id?: string;
}

async function accessCodeWhere(
  ctx: AppContext,
  raw: Record<string, unknown>,
): Promise<PrismaNS.AccessCodeWhereInput> {
  const scope = authorize(ctx.principal, 'accessCodes.list');
  const f = (await validateFilters(raw, accessCodeFilterRules)) as AccessCodeFilters;
  const and: PrismaNS.AccessCodeWhereInput[] = [];
  // Its own condition: spread beside the pinned location it would replace it.
  if (f.location_id !== undefined) and.push({ locationId: f.location_id });
  return {
    ...scoped(scope, 'locationId'),
    ...(and.length > 0 ? { AND: and } : {}),
    ...(f.type !== undefined ? { type: f.type } : {}),
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.code ? { code: textSearch(f.code) } : {}),
    ...(f.guest_id !== undefined ? { guestId: f.guest_id } : {}),
  };
}

type Page = Omit<PrismaNS.AccessCodeFindManyArgs, 'where' | 'orderBy'>;

/** REST: the codes with their location, profile and guest names (one statement per relation). */
export async function listAccessCodes(
  ctx: AppContext,
  filters: Record<string, unknown>,
  page: { skip: number; take: number },
) {
  const where = await accessCodeWhere(ctx, filters);
  const include = {
    ...accessCodeNames,
    guest: { select: { name: true, tenantId: true, locationId: true } },
  } satisfies PrismaNS.AccessCodeInclude;
  const rows = await findManyRows<PrismaNS.AccessCodeGetPayload<{ include: typeof include }>>(
    ctx.prisma,
    'AccessCode',
    { where, orderBy: accessCodeOrder, ...page, include },
  );
  // A code at a pinned caller's location may name a guest of another one: no name then (as GraphQL).
  return rows.map(({ guest, ...c }) => ({
    ...c,
    guest: guest && guestVisible(ctx, guest) ? { name: guest.name } : null,
  }));
}

export type AccessCodeWithNames = Awaited<ReturnType<typeof listAccessCodes>>[number];

/** GraphQL: the selection decides what is loaded. */
export async function queryAccessCodes(ctx: AppContext, filters: Record<string, unknown>, page: Page) {
  const where = await accessCodeWhere(ctx, filters);
  return findManyRows<AccessCode>(ctx.prisma, 'AccessCode', { ...page, where, orderBy: accessCodeOrder });
}

export async function countAccessCodes(ctx: AppContext, filters: Record<string, unknown>) {
  return countRows(ctx.prisma, 'AccessCode', await accessCodeWhere(ctx, filters));
}

// ---------------------------------------------------------------------------------------------
// Generation

/** Whole-request attempts when the unique index refuses a batch (a code taken by a concurrent request). */
const MAX_ATTEMPTS = 3;
/** Rounds of replacing codes that already exist, inside one attempt. */
const MAX_ROUNDS = 10;

/** Prisma's 5 s default would abort a batch of 1000 on a busy embedded database. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

const uniqueViolation = (err: unknown): boolean => (err as { code?: string }).code === 'P2002';
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

/** The rows of one batch with the names the 2.13 shape shows (one location, profile and guest). */
async function withNames(
  ctx: AppContext,
  rows: AccessCode[],
  ids: { tenantId: string; locationId: string; serviceProfileId: string; guestId: string | null },
): Promise<AccessCodeWithNames[]> {
  const { tenantId } = ids;
  const name = { select: { name: true } } as const;
  const [location, serviceProfile, guest] = await Promise.all([
    ctx.prisma.location.findFirstOrThrow({ where: { tenantId, id: ids.locationId }, ...name }),
    ctx.prisma.serviceProfile.findFirstOrThrow({ where: { tenantId, id: ids.serviceProfileId }, ...name }),
    ids.guestId ? ctx.prisma.guest.findFirst({ where: { tenantId, id: ids.guestId }, ...name }) : null,
  ]);
  return rows.map((row) => ({ ...row, location, serviceProfile, guest }));
}

/**
 * Spec 4.9: one shared code (type 1) or `quantity` generated codes (type 2), all created in one
 * transaction or none. Invalid input is a VALIDATION error; a batch that cannot be stored (codes that
 * keep colliding, any database failure) is ACCESS_CODES_NOT_CREATED, with nothing created.
 */
export async function generateAccessCodes(
  ctx: AppContext,
  input: Record<string, unknown>,
  opts: GenerateOptions = {},
): Promise<AccessCodeWithNames[]> {
  const scope = authorize(ctx.principal, 'accessCodes.create');
  const valid = (await validate(input, accessCodeWriteRules(ctx.prisma, scope, input))) as {
    location_id: string;
    service_profile_id: string;
    guest_id?: string | null;
    type: number;
    code?: string;
    quantity?: number | null;
    start_date?: string | null;
    expiry_date?: string | null;
    description?: string | null;
  };
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
  };
  const next = opts.nextCode ?? randomCode;
  const quantity = valid.type === GENERATED ? (valid.quantity ?? 1) : 1;

  for (let attempt = 1; ; attempt++) {
    let rows: AccessCode[];
    try {
      rows = await ctx.prisma.$transaction(async (tx) => {
        const codes =
          valid.type === SHARED ? [String(valid.code)] : await freshCodes(tx, scope.tenantId, quantity, next);
        // No `include` here: Prisma would load the relations concurrently on the transaction's one
        // connection. Every row shares them, so they are read once below.
        return tx.accessCode.createManyAndReturn({ data: codes.map((code) => ({ ...base, code })) });
      }, TRANSACTION_OPTIONS);
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (uniqueViolation(err)) {
        // A concurrent request took the shared code between the check and the insert.
        if (valid.type === SHARED) {
          throw new AppError('VALIDATION', { fields: { code: ['The code has already been taken.'] } });
        }
        if (attempt < MAX_ATTEMPTS) continue;
      }
      throw notCreated(err);
    }
    // Committed: from here on a failure is an ordinary error, not "nothing created".
    return withNames(ctx, rows, base);
  }
}

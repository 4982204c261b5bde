// The rules of spec 4.9 (and the filters of the list, redeem and revoke beyond the spec), shared by
// REST and GraphQL.
import type { Scope } from '../../auth/principal.js';
import type { Prisma } from '../../db/database.js';
import { scoped } from '../../db/scope.js';
import { textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { field, filterOf, type InputEnv } from '../../operations/operation.js';
import {
  afterOrEqual,
  array,
  boolean,
  dateFormat,
  elementErrors,
  exists,
  inList,
  integer,
  ip,
  type Keep,
  list,
  max,
  min,
  nullable,
  type Rule,
  required,
  requiredIf,
  requiredWithoutAll,
  string,
  textFilter,
  unique,
} from '../../validation/validator.js';
import { macAddress } from '../guest-devices/guest-devices.inputs.js';
import { guestById } from '../guests/guests.service.js';
import { AVAILABLE, EXPIRED, REVOKED, USED } from './access-codes.labels.js';

export const SHARED = 1;
export const GENERATED = 2;
export const MAX_QUANTITY = 1000;
/** The largest `max_uses` a code takes. */
export const MAX_USES = 1_000_000;
/** Codes one `POST /access-codes/revoke` names by id. */
export const MAX_REVOKE_IDS = 1000;

// ---------------------------------------------------------------------------------------------
// Filters

const accessCodeFilter = filterOf<PrismaNS.AccessCodeWhereInput>();

/**
 * The filters of the access-code list and count, on both transports: each one's rules (REST name),
 * its GraphQL argument's description, and the condition it adds. A new filter is one entry here.
 */
export const accessCodeFilters = {
  location_id: accessCodeFilter(textFilter(), { where: (v) => ({ locationId: v }) }),
  type: accessCodeFilter([nullable(), integer(), inList([SHARED, GENERATED])], {
    description: '1 Shared, 2 Access Code',
    where: (v) => ({ type: v }),
  }),
  status: accessCodeFilter([nullable(), integer(), inList([AVAILABLE, USED, EXPIRED, REVOKED])], {
    description: 'The status shown: 1 Available, 2 Used, 3 Expired (expiry date come), 4 Revoked',
    where: (v) => statusWhere(v, new Date()),
  }),
  // A shared code is at most 64 characters (the write rule).
  code: accessCodeFilter(textFilter(64), {
    description: 'Case-insensitive substring of the code',
    where: (v) => ({ code: textSearch(v) }),
  }),
  guest_id: accessCodeFilter(textFilter(), { where: (v) => ({ guestId: v }) }),
};

/**
 * The codes showing `status` at `now` (see shownStatus): stored 4 is revoked and stored 2 used up,
 * whatever their dates; a stored 1 is Expired once its expiry date has come, Available before.
 */
export function statusWhere(status: number, now: Date): PrismaNS.AccessCodeWhereInput {
  switch (status) {
    case AVAILABLE:
      return { status: AVAILABLE, OR: [{ expiryDate: null }, { expiryDate: { gt: now } }] };
    case EXPIRED:
      return { status: AVAILABLE, expiryDate: { lte: now } };
    default:
      return { status };
  }
}

// ---------------------------------------------------------------------------------------------
// Generation

/**
 * `unique` for a shared code only: a type 2 request ignores `code`, so it is never looked up then.
 * The type is read as the rules read it (trimmed), so ` 1 ` is a shared code here too.
 */
function uniqueSharedCode(taken: (code: unknown) => Promise<boolean>): Rule<Keep> {
  const rule = unique(taken);
  return {
    ...rule,
    check: (value, ctx) => (String(ctx.input.type) === String(SHARED) ? rule.check(value, ctx) : null),
  };
}

/**
 * `exists`: a location of the caller's scope; with `active`, not trashed (codes are made for active
 * ones; a trashed one's codes may still be withdrawn).
 */
const locationIn = (prisma: Prisma, scope: Scope, { active }: { active: boolean }): Rule<Keep> =>
  exists(async (id) => {
    const row = await prisma.location.findFirst({
      where: { ...scoped(scope, 'id'), AND: [{ id: String(id) }], ...(active ? { isTrashed: false } : {}) },
      select: { id: true },
    });
    return row !== null;
  });

/** `exists`: a guest the caller may see (not erased). */
const guestIn = (prisma: Prisma, scope: Scope): Rule<Keep> =>
  exists(async (id) => {
    const row = await prisma.guest.findFirst({ where: guestById(scope, String(id)), select: { id: true } });
    return row !== null;
  });

/** Whether the tenant has a code spelled exactly so (codes are unique per tenant, case-sensitive). */
async function codeInTenant(prisma: Prisma, tenantId: string, code: unknown): Promise<boolean> {
  const row = await prisma.accessCode.findFirst({
    where: { tenantId, code: String(code) },
    select: { id: true },
  });
  return row !== null;
}

/**
 * The body of `POST /access-codes` (GraphQL GenerateAccessCodesInput). `location_id`,
 * `service_profile_id` and `guest_id` must name rows of the caller's tenant; a pinned (venue,
 * front-desk) user may only name their own location, and only guests of it.
 */
export function accessCodeWriteFields({ prisma, scope }: InputEnv) {
  return {
    location_id: field([required(), string(), locationIn(prisma, scope, { active: true })]),
    service_profile_id: field([
      required(),
      string(),
      exists(async (id) => {
        const row = await prisma.serviceProfile.findFirst({
          where: { tenantId: scope.tenantId, id: String(id) },
          select: { id: true },
        });
        return row !== null;
      }),
    ]),
    guest_id: field([nullable(), string(), guestIn(prisma, scope)]),
    type: field(
      [required(), integer(), inList([SHARED, GENERATED])],
      '1 Shared (needs `code`), 2 Access Code (generates `quantity`)',
    ),
    code: field(
      [
        // Only type 1 needs it: for type 2 a null (or empty) code is accepted and ignored.
        requiredIf('type', SHARED),
        nullable(),
        string(),
        max(64),
        // Only a shared code is stored as sent.
        uniqueSharedCode((code) => codeInTenant(prisma, scope.tenantId, code)),
      ],
      'The shared code (type 1)',
    ),
    quantity: field(
      [nullable(), integer(), min(1), max(MAX_QUANTITY)],
      `Type 2: 1 to ${MAX_QUANTITY}, default 1`,
    ),
    start_date: field([nullable(), dateFormat('Y-m-d')], '`YYYY-MM-DD`'),
    expiry_date: field(
      [nullable(), dateFormat('Y-m-d'), afterOrEqual('start_date')],
      '`YYYY-MM-DD`, not before startDate',
    ),
    // Bounded: each of up to MAX_QUANTITY codes stores and answers it (probe K).
    description: field([nullable(), string(), max(255)], 'At most 255 characters'),
    max_uses: field(
      [nullable(), integer(), min(1), max(MAX_USES)],
      `Redemptions allowed (1 to ${MAX_USES}); default unlimited for type 1, 1 for type 2`,
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Redeem

/**
 * The body of `POST /access-codes/redeem` (GraphQL RedeemAccessCodeInput). `location_id` is where
 * the guest is (a pinned caller's own location); `guest_id` a guest the caller may see. The code
 * itself is judged by the service, which names why it refuses one.
 */
export function redeemFields({ prisma, scope }: InputEnv) {
  return {
    code: field(
      [
        required(),
        string(),
        max(64),
        // Laravel's `exists`, so an unknown code is named beside the other bad fields; the service
        // judges a code that exists (and reads it again with what it needs).
        exists((code) => codeInTenant(prisma, scope.tenantId, code)),
      ],
      'The code the guest typed, exactly (case-sensitive)',
    ),
    location_id: field(
      [required(), string(), locationIn(prisma, scope, { active: true })],
      'The location the guest connects at: the code must belong to it',
    ),
    mac: field([required(), string(), macAddress()], "The guest device's MAC address"),
    guest_id: field(
      [nullable(), string(), guestIn(prisma, scope)],
      'The guest the device belongs to (the device moves to this guest)',
    ),
    start_session: field(
      [nullable(), boolean()],
      'Also open a guest session for the device (the IP address is then required)',
    ),
    ip_address: field(
      [requiredIf('start_session', [true, 1]), nullable(), string(), ip()],
      "The device's address, for the session",
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Revoke

/**
 * `ids.*` => `string` and `exists` in the caller's scope, as Laravel words them for each element
 * (`The selected ids.3 is invalid.`). A rule of the field, so a bad filter beside them is named in the
 * same 422 (the service checked them after the rules, and a bad filter hid them; probe G).
 */
function codesInScope(prisma: Prisma, scope: Scope): Rule<Keep> {
  return {
    name: 'codesInScope',
    doc: { description: "Each the id of a code in the caller's reach." },
    deferred: true,
    check: async (value, ctx) => {
      if (!Array.isArray(value)) return null;
      const ids = value.filter((v): v is string => typeof v === 'string');
      const rows = await prisma.accessCode.findMany({
        where: { ...scoped(scope, 'locationId'), AND: [{ id: { in: ids } }] },
        select: { id: true },
      });
      const found = new Set(rows.map((r) => r.id));
      return elementErrors(value, (v, i) =>
        typeof v !== 'string'
          ? [`The ${ctx.attribute}.${i} field must be a string.`]
          : found.has(v)
            ? []
            : [`The selected ${ctx.attribute}.${i} is invalid.`],
      );
    },
  };
}

/**
 * The body of `POST /access-codes/revoke` (GraphQL `revokeAccessCodes`): `ids`, or else the list's
 * filters (at least one of them) choose the codes.
 */
export function revokeBatchFields({ prisma, scope }: InputEnv) {
  const { location_id, guest_id } = accessCodeFilters;
  return {
    ids: field(
      [
        requiredWithoutAll(...Object.keys(accessCodeFilters)),
        nullable(),
        array(),
        list(),
        max(MAX_REVOKE_IDS),
        codesInScope(prisma, scope),
      ],
      `Ids of the codes to revoke (up to ${MAX_REVOKE_IDS}); without it, the list filters choose them`,
    ),
    ...accessCodeFilters,
    // In a write's body an id outside the caller's reach is a 422 (decisions.md), not a filter that
    // matches nothing: a revoke of "0 codes" would hide the mistake.
    location_id: {
      ...location_id,
      rules: [...location_id.rules, locationIn(prisma, scope, { active: false })] as const,
    },
    guest_id: { ...guest_id, rules: [...guest_id.rules, guestIn(prisma, scope)] as const },
  };
}

// The rules of spec 4.9 (and the filters of the list beyond the spec), shared by REST and GraphQL.
import type { Scope } from '../../auth/principal.js';
import type { Prisma } from '../../db/database.js';
import { scoped } from '../../db/scope.js';
import {
  afterOrEqual,
  dateFormat,
  exists,
  inList,
  integer,
  laravelInput,
  max,
  min,
  nullable,
  type Rules,
  required,
  requiredIf,
  string,
  textFilter,
  unique,
} from '../../validation/validator.js';

export const SHARED = 1;
export const GENERATED = 2;
export const MAX_QUANTITY = 1000;

export const accessCodeFilterRules: Rules = {
  location_id: textFilter(),
  type: [nullable(), integer(), inList([SHARED, GENERATED])],
  status: [nullable(), integer()],
  // A shared code is at most 64 characters (the write rule).
  code: textFilter(64),
  guest_id: textFilter(),
};

/**
 * `location_id`, `service_profile_id` and `guest_id` must name rows of the caller's tenant; a pinned
 * (venue, front-desk) user may only name their own location, and only guests of it.
 */
export function accessCodeWriteRules(
  prisma: Prisma,
  scope: Scope,
  input: Readonly<Record<string, unknown>>,
): Rules {
  // Read as the rules read it (trimmed), so ` 1 ` is a shared code here too.
  const isShared = String(laravelInput(input).type) === String(SHARED);
  return {
    location_id: [
      required(),
      string(),
      exists(async (id) => {
        const row = await prisma.location.findFirst({
          where: { ...scoped(scope, 'id'), AND: [{ id: String(id) }], isTrashed: false },
          select: { id: true },
        });
        return row !== null;
      }),
    ],
    service_profile_id: [
      required(),
      string(),
      exists(async (id) => {
        const row = await prisma.serviceProfile.findFirst({
          where: { tenantId: scope.tenantId, id: String(id) },
          select: { id: true },
        });
        return row !== null;
      }),
    ],
    guest_id: [
      nullable(),
      string(),
      exists(async (id) => {
        const row = await prisma.guest.findFirst({
          where: { ...scoped(scope, 'locationId'), AND: [{ id: String(id) }] },
          select: { id: true },
        });
        return row !== null;
      }),
    ],
    type: [required(), integer(), inList([SHARED, GENERATED])],
    code: [
      // Only type 1 needs it: for type 2 a null (or empty) code is accepted and ignored.
      requiredIf('type', SHARED),
      nullable(),
      string(),
      max(64),
      // Only a shared code is stored as sent; for type 2 the field is ignored.
      unique(async (code) => {
        if (!isShared) return false;
        const row = await prisma.accessCode.findFirst({
          where: { tenantId: scope.tenantId, code: String(code) },
          select: { id: true },
        });
        return row !== null;
      }),
    ],
    quantity: [nullable(), integer(), min(1), max(MAX_QUANTITY)],
    start_date: [nullable(), dateFormat('Y-m-d')],
    expiry_date: [nullable(), dateFormat('Y-m-d'), afterOrEqual('start_date')],
    description: [nullable(), string()],
  };
}

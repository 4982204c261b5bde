// The rules of the API keys (beyond the spec), shared by REST and GraphQL.
import { isTokenScope, type TokenScope, tokenScopeNames } from '../../auth/permissions.js';
import { textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { field, filterOf, type InputEnv } from '../../operations/operation.js';
import {
  afterNow,
  array,
  date,
  duplicatedIndexes,
  duplicateMessage,
  elementErrors,
  exists,
  inList,
  list,
  max,
  nullable,
  type Rule,
  required,
  string,
  textFilter,
} from '../../validation/validator.js';

// ---------------------------------------------------------------------------------------------
// Filters

/** A token's state: `active` (neither revoked nor expired), `revoked`, `expired` (and not revoked). */
export const TOKEN_STATUSES = ['active', 'revoked', 'expired'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

/** The condition of each status, at the moment of the request. */
function statusWhere(status: string): PrismaNS.ApiTokenWhereInput {
  const now = new Date();
  if (status === 'revoked') return { revokedAt: { not: null } };
  if (status === 'expired') return { revokedAt: null, expiresAt: { lte: now } };
  return { revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
}

const apiTokenFilter = filterOf<PrismaNS.ApiTokenWhereInput>();

/**
 * The filters of the token list and count, on both transports: each one's rules (REST name), its
 * GraphQL argument's description, and the condition it adds. A new filter is one entry here.
 */
export const apiTokenFilters = {
  user_id: apiTokenFilter(textFilter(), {
    description: "The tokens of that user (another tenant's user matches nothing)",
    where: (v) => ({ userId: v }),
  }),
  name: apiTokenFilter(textFilter(), {
    description: 'Case-insensitive substring of the name',
    where: (v) => ({ name: textSearch(v) }),
  }),
  status: apiTokenFilter([nullable(), string(), inList(TOKEN_STATUSES)], {
    description: '`active` (neither revoked nor expired), `revoked`, or `expired` (expired, not revoked)',
    where: statusWhere,
  }),
};

// ---------------------------------------------------------------------------------------------
// Creation

/**
 * Laravel's `distinct` on `scopes.*`: every element a later or earlier one repeats is keyed as Laravel
 * keys it (`scopes.0`, `scopes.2`: `The scopes.2 field has a duplicate value.`). The output is the
 * list of scope names.
 */
const distinctScopes: Rule<TokenScope[]> = {
  name: 'distinctScopes',
  doc: { description: 'Each at most once.', uniqueItems: true },
  check: (value, ctx) => {
    if (!Array.isArray(value)) return null;
    const duplicated = duplicatedIndexes(value);
    return elementErrors(value, (_, i) =>
      duplicated.has(i) ? [duplicateMessage(`${ctx.attribute}.${i}`)] : [],
    );
  },
  // The output counts only when `array` and `in` passed too: then a list of scope names.
  coerce: (value): TokenScope[] => (Array.isArray(value) ? value.filter(isTokenScope) : []),
};

/**
 * The body of `POST /api-tokens` (GraphQL CreateApiTokenInput). `user_id` must name a user whose
 * current tenant is the caller's; without it the token is the caller's own.
 */
export function apiTokenCreateFields({ prisma, scope }: InputEnv) {
  return {
    name: field([required(), string(), max(255)], 'What the token is for; at most 255 characters'),
    scopes: field(
      [required(), array(), list(), inList(tokenScopeNames), distinctScopes],
      '`read` (GET and GraphQL queries only), `ingest` (the ingest), `full` (the user’s rights); one or more',
    ),
    expires_at: field(
      [nullable(), date(), afterNow()],
      'A date-time in the future (ISO 8601; without a zone: UTC); null or absent: never expires (required, and at most its own expiry, when the caller’s token expires)',
    ),
    user_id: field(
      [
        nullable(),
        string(),
        exists(async (id) => {
          const row = await prisma.user.findFirst({
            where: { tenantId: scope.tenantId, id: String(id) },
            select: { id: true },
          });
          return row !== null;
        }),
      ],
      'The user the token acts as: a user of the current tenant; default the caller',
    ),
  };
}

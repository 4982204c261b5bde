// Text matching as decided: filters are case-insensitive substrings, matched literally; some names
// are unique regardless of case.
import { Prisma as PrismaNS } from '../generated/prisma/client.js';
import type { Prisma } from './database.js';

/**
 * Prisma writes `contains` and insensitive `equals` as ILIKE without escaping the pattern, so a
 * `%` or `_` in user text would match anything. Escaped, the text is matched literally.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * `{ contains, mode: 'insensitive' }` for a filter value, or undefined when there is none. Prisma
 * writes it as `col ILIKE '%' || $1 || '%'`, which the trigram (gin_trgm_ops) indexes of
 * schema.prisma serve.
 */
export function textSearch(text: string | undefined | null) {
  return text ? { contains: likeLiteral(text), mode: 'insensitive' as const } : undefined;
}

/** Case-insensitive equality for a filter (uniqueness rules use `takenIgnoringCase`). */
export function sameText(text: string) {
  return { equals: likeLiteral(text), mode: 'insensitive' as const };
}

interface CaseInsensitiveUnique {
  /** The unique index on (scope…, lower(column)) that enforces it. */
  index: string;
  table: string;
  column: string;
  /** Unique within a tenant (else across the service). */
  perTenant: boolean;
}

/**
 * The values unique regardless of case. Each is enforced by a unique index on lower(column), which
 * schema.prisma cannot declare: prisma/migrations/20261121200000_text_indexes writes them by hand,
 * and test/migrations.test.ts checks that exactly these exist.
 */
export const CASE_INSENSITIVE_UNIQUE = {
  guestEmail: { index: 'Guest_tenantId_lower_email_key', table: 'Guest', column: 'email', perTenant: true },
  locationName: {
    index: 'Location_tenantId_lower_name_key',
    table: 'Location',
    column: 'name',
    perTenant: true,
  },
  userEmail: { index: 'User_lower_email_key', table: 'User', column: 'email', perTenant: false },
} as const satisfies Record<string, CaseInsensitiveUnique>;

const ident = (name: string) => PrismaNS.raw(`"${name}"`);

/**
 * Whether `value` is taken under `rule`, other than by row `exceptId`. Written as the index reads it
 * (`lower(col) = lower($1)`, `col IS NOT NULL` for a partial index): one index probe. The index
 * itself still refuses the write when a concurrent request took the value after this check.
 */
export async function takenIgnoringCase(
  prisma: Prisma,
  rule: CaseInsensitiveUnique,
  value: string,
  opts: { tenantId?: string; exceptId?: string | undefined },
): Promise<boolean> {
  const col = ident(rule.column);
  const conditions = [PrismaNS.sql`${col} IS NOT NULL`, PrismaNS.sql`lower(${col}) = lower(${value}::text)`];
  if (rule.perTenant) {
    if (opts.tenantId === undefined) throw new Error(`${rule.index} is per tenant: tenantId is required`);
    conditions.push(PrismaNS.sql`"tenantId" = ${opts.tenantId}`);
  }
  if (opts.exceptId !== undefined) conditions.push(PrismaNS.sql`"id" <> ${opts.exceptId}`);
  const rows = await prisma.$queryRaw<unknown[]>`
    SELECT 1 FROM ${ident(rule.table)} WHERE ${PrismaNS.join(conditions, ' AND ')} LIMIT 1`;
  return rows.length > 0;
}

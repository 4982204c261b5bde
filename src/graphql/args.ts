// GraphQL arguments are camelCase; the shared rules speak the REST field names. Converting here
// keeps one set of rules and identical messages on both transports.
import { AppError } from '../errors.js';

// `customField1` → `custom_field_1`, as the spec spells digit-suffixed fields.
const snake = (s: string): string =>
  s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/([a-z])(\d)/g, '$1_$2');
const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** `{ countryCode: 'US' }` → `{ country_code: 'US' }`; undefined members are dropped. */
export function toRestInput(input: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) out[snake(k)] = v;
  return out;
}

export function toGraphqlFieldName(restField: string): string {
  return camel(restField);
}

/**
 * plugin-relay's `maxSize` silently clamps `first`/`last` to the maximum; refuse instead, with the
 * message REST gives for `per_page` over its maximum.
 */
export function assertPageSize(args: { first?: number | null; last?: number | null }, max: number): void {
  const fields: Record<string, string[]> = {};
  for (const key of ['first', 'last'] as const) {
    const value = args[key];
    if (value != null && value > max) fields[key] = [`The ${key} field must not be greater than ${max}.`];
  }
  if (Object.keys(fields).length > 0) throw new AppError('VALIDATION', { fields });
}

/**
 * A relation connection's paging (plugin-prisma's relatedConnection options): by id, 10 rows unless
 * `first` says otherwise, at most `maxSize`. The figures also travel in the field's extensions,
 * where src/graphql/compiled-execution.ts reads them to answer a loaded page itself.
 */
export function relationPage(maxSize: number) {
  const page = { cursor: 'id', maxSize, defaultSize: 10 } as const;
  return { ...page, extensions: { relationPage: page } };
}

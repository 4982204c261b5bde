// GraphQL arguments are camelCase; the shared rules speak the REST field names. Converting here
// keeps one set of rules and identical messages on both transports.
const snake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
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

// Text search as decided: a case-insensitive substring, matched literally.

/**
 * Prisma writes `contains` and insensitive `equals` as ILIKE without escaping the pattern, so a
 * `%` or `_` in user text would match anything. Escaped, the text is matched literally.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `{ contains, mode: 'insensitive' }` for a filter value, or undefined when there is none. */
export function textSearch(text: string | undefined | null) {
  return text ? { contains: likeLiteral(text), mode: 'insensitive' as const } : undefined;
}

/** Case-insensitive equality (names that must be unique regardless of case). */
export function sameText(text: string) {
  return { equals: likeLiteral(text), mode: 'insensitive' as const };
}

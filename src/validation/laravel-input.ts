// The input as Laravel's default global middleware (TrimStrings, ConvertEmptyStringsToNull) hand it to
// a controller: `validate` reads it so before any rule runs.
import { isPhpArray } from './php-values.js';

/**
 * TrimStrings' characters (Laravel 11's Str::trim): PCRE's `\s` under `/u`, which is JavaScript's
 * plus NEL (U+0085) and the Mongolian vowel separator (U+180E; probe Q), then BOM, zero-width space,
 * LRM, NUL.
 */
const EDGE_SPACE = /^[\s\u0085\u180E\u200B\u200E\0]+|[\s\u0085\u180E\u200B\u200E\0]+$/g;
/** Top-level keys TrimStrings leaves as sent (its default `$except`). */
const NEVER_TRIM = new Set(['current_password', 'password', 'password_confirmation']);

/**
 * The input as Laravel's default global middleware hand it to a controller, for query strings and
 * bodies alike: TrimStrings trims every string (at any depth, except the top-level password fields),
 * then ConvertEmptyStringsToNull turns every `''` into null.
 */
export function laravelInput(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const clean = (value: unknown, trim: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => clean(v, true));
    if (isPhpArray(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v, true)]));
    }
    if (typeof value !== 'string') return value;
    const text = trim ? value.replace(EDGE_SPACE, '') : value;
    return text === '' ? null : text;
  };
  return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, clean(v, !NEVER_TRIM.has(k))]));
}

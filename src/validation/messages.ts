// Message wording: `:attribute` display names, `:value` display, filling a template's placeholders, and
// the lines several rules share (the size rules' three wordings, an invalid selection).
import { isPhpArray, phpString } from './php-values.js';

// Field names come from the rule tables, a bounded set: each is worked out once.
const displayNames = new Map<string, string>();

/**
 * Laravel's display name of a field of a list's element (`events.3.seen_at`, from a wildcard rule
 * `events.*.seen_at`): getDisplayableAttribute shows such an implicit attribute raw, underscores kept;
 * only a top-level field is spaced (displayName).
 */
export const elementAttribute = (element: string, field: string): string => `${element}.${field}`;

/** Laravel's getDisplayableAttribute(): Str::snake, then underscores to spaces. */
export function displayName(field: string): string {
  let shown = displayNames.get(field);
  if (shown === undefined) {
    shown = snakeDisplayName(field);
    if (displayNames.size < 10_000) displayNames.set(field, shown);
  }
  return shown;
}

function snakeDisplayName(field: string): string {
  let name = field;
  if (!/^[a-z]+$/.test(name)) {
    name = name
      .replace(/(^|\s)(\S)/g, (_m, space: string, first: string) => space + first.toUpperCase())
      .replace(/\s+/g, '')
      .replace(/(.)(?=[A-Z])/g, '$1_')
      .toLowerCase();
  }
  return name.replaceAll('_', ' ');
}

/** Laravel's getDisplayableValue() for `:value`. */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (isPhpArray(value)) return 'array';
  return phpString(value) ?? String(value);
}

/** Fills a template's `:name` placeholders from `params`; an unknown one stays as written. */
export function fill(template: string, params: Record<string, string>): string {
  return template.replace(/:([a-z]+)/g, (match, key: string) => params[key] ?? match);
}

/** What a size rule measures, as the field's type rule says: characters, value or items. */
export type SizeKind = 'string' | 'numeric' | 'array' | 'file';
export type SizedMessages = Record<SizeKind, string>;

export const MIN: SizedMessages = {
  string: 'The :attribute field must be at least :min characters.',
  numeric: 'The :attribute field must be at least :min.',
  array: 'The :attribute field must have at least :min items.',
  file: 'The :attribute field must be at least :min kilobytes.',
};
export const MAX: SizedMessages = {
  string: 'The :attribute field must not be greater than :max characters.',
  numeric: 'The :attribute field must not be greater than :max.',
  array: 'The :attribute field must not have more than :max items.',
  file: 'The :attribute field must not be greater than :max kilobytes.',
};
export const BETWEEN: SizedMessages = {
  string: 'The :attribute field must be between :min and :max characters.',
  numeric: 'The :attribute field must be between :min and :max.',
  array: 'The :attribute field must have between :min and :max items.',
  file: 'The :attribute field must be between :min and :max kilobytes.',
};
export const SIZE: SizedMessages = {
  string: 'The :attribute field must be :size characters.',
  numeric: 'The :attribute field must be :size.',
  array: 'The :attribute field must contain :size items.',
  file: 'The :attribute field must be :size kilobytes.',
};
export const INVALID_SELECTION = 'The selected :attribute is invalid.';
/** Laravel's `distinct`. */
export const DUPLICATE_VALUE = 'The :attribute field has a duplicate value.';

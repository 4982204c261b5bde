// Size rules (min, max, between, size) measure characters, value or items by the field's type rule;
// textFilter is the bounded free-text filter of a list.
import type { Keep, NullableRule, Rule, RuleDoc, ValueType } from '../engine.js';
import { BETWEEN, fill, MAX, MIN, SIZE, type SizedMessages, type SizeKind } from '../messages.js';
import { count, isNumeric, isPhpArray, phpString, UploadedFile } from '../php-values.js';
import { nullable } from './presence.js';
import { string } from './types.js';

// Like Laravel's getSize(), the field's type rule (wherever it sits in the list) picks the measure,
// whatever the value turned out to be (null measures 0); without one, numbers count by value rather
// than Laravel's string length.
function measure(value: unknown, valueType: ValueType | undefined): { kind: SizeKind; size: number } {
  const declared: SizeKind | undefined =
    valueType === 'integer' || valueType === 'numeric'
      ? 'numeric'
      : valueType === 'string' || valueType === 'array'
        ? valueType
        : undefined;
  if (isPhpArray(value)) return { kind: declared ?? 'array', size: count(value) };
  // A file part in a field that reads none: its size in kilobytes, said so unless a numeric or
  // array rule names the field's type (Laravel's getSize() and getAttributeType()).
  if (value instanceof UploadedFile)
    return {
      kind: declared === 'string' || declared === undefined ? 'file' : declared,
      size: value.bytes.length / 1024,
    };
  // A JSON number beyond a double (`1e400`) is PHP's INF, measured as such (`max` refuses it).
  const byValue =
    declared === 'numeric'
      ? isNumeric(value) || (typeof value === 'number' && !Number.isNaN(value))
      : declared === undefined && typeof value === 'number';
  if (byValue) return { kind: declared ?? 'numeric', size: Number(value) };
  // Characters are code points, as mb_strlen counts them.
  return { kind: declared ?? 'string', size: [...(phpString(value) ?? '')].length };
}

function sized(
  name: string,
  messages: SizedMessages,
  params: Record<string, number>,
  passes: (size: number) => boolean,
): Rule<Keep> {
  const shown = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const doc: RuleDoc =
    params.size !== undefined ? { min: params.size, max: params.size } : { min: params.min, max: params.max };
  return {
    name,
    doc,
    check: (value, ctx) => {
      const measured = measure(value, ctx.valueType);
      return passes(measured.size)
        ? null
        : fill(messages[measured.kind], { ...shown, attribute: ctx.attribute });
    },
  };
}

export function min(n: number): Rule<Keep> {
  return sized('min', MIN, { min: n }, (size) => size >= n);
}

export function max(n: number): Rule<Keep> {
  return sized('max', MAX, { max: n }, (size) => size <= n);
}

/** Longest text a list filter takes by default (Laravel's usual `max:255` for names and emails). */
export const FILTER_MAX_LENGTH = 255;

/**
 * A free-text filter of a list or count: optional, a string, and bounded so that no caller can send
 * a pattern of hundreds of kilobytes to the database.
 */
export function textFilter(
  maxLength: number = FILTER_MAX_LENGTH,
): readonly [NullableRule, Rule<string>, Rule<Keep>] {
  return [nullable(), string(), max(maxLength)];
}

export function between(low: number, high: number): Rule<Keep> {
  return sized('between', BETWEEN, { min: low, max: high }, (size) => size >= low && size <= high);
}

export function size(n: number): Rule<Keep> {
  return sized('size', SIZE, { size: n }, (s) => s === n);
}

/**
 * Laravel's `gte:other_field` between two integers: the value must be at least the other field's
 * (`The until event id field must be greater than or equal to 5.`). It passes when the other field is
 * empty or no integer (its own rules say so), as `after_or_equal` here does.
 */
export function gteField(other: string): Rule<Keep> {
  return {
    name: 'gte',
    doc: { description: `At least ${other}.` },
    check: (value, ctx) => {
      const theirs = ctx.input[other];
      if (!isNumeric(value) || !isNumeric(theirs) || !Number.isInteger(Number(theirs))) return null;
      if (Number(value) >= Number(theirs)) return null;
      return fill('The :attribute field must be greater than or equal to :value.', {
        attribute: ctx.attribute,
        value: String(theirs),
      });
    },
  };
}

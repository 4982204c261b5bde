// Type rules: each says what the value is (size rules measure by it) and may coerce it (integer → number).
import type { Keep, Rule } from '../engine.js';
import { isNumeric, isPhpArray } from '../php-values.js';
import { simple } from './simple.js';

export function string(): Rule<string> {
  return simple<string>('string', 'The :attribute field must be a string.', (v) => typeof v === 'string', {
    type: 'string',
  });
}

/**
 * Integer text as PHP's FILTER_VALIDATE_INT (Laravel's `integer`) reads it: an optional sign, then 0
 * or digits without a leading zero (`+50` is one, `007` is not).
 */
const PHP_INT = /^[+-]?(?:0|[1-9]\d*)$/;

/**
 * JS integers and PHP integer strings within the safe range (coerced to numbers), and `true`, which
 * PHP's filter reads as "1" (probe P: Laravel takes `"status": true` as 1). Integers past 2^53 are
 * refused: JSON.parse has already changed their digits.
 */
export function integer(): Rule<number> {
  return simple<number>(
    'integer',
    'The :attribute field must be an integer.',
    (v) =>
      v === true ||
      (typeof v === 'number' && Number.isSafeInteger(v)) ||
      (typeof v === 'string' && PHP_INT.test(v) && Number.isSafeInteger(Number(v))),
    // `+ 0`: PHP's integers have no negative zero (`-0` is 0).
    { type: 'integer', coerce: (v) => Number(v) + 0 },
  );
}

/** Finite numbers and PHP numeric strings (coerced to numbers). */
export function numeric(): Rule<number> {
  return simple<number>('numeric', 'The :attribute field must be a number.', isNumeric, {
    type: 'numeric',
    coerce: Number,
  });
}

/** What Laravel's `boolean` takes: `true`, `false`, `1`, `0`, `"1"`, `"0"` (not the words as text). */
const BOOLEANS = new Map<unknown, boolean>([
  [true, true],
  [false, false],
  [1, true],
  [0, false],
  ['1', true],
  ['0', false],
]);

/** A query string's booleans (decisions.md): Laravel's, and the words `true` and `false` as well. */
const QUERY_BOOLEANS = new Map<unknown, boolean>([...BOOLEANS, ['true', true], ['false', false]]);

const booleanOf = (taken: ReadonlyMap<unknown, boolean>): Rule<boolean> =>
  simple<boolean>('boolean', 'The :attribute field must be true or false.', (v) => taken.has(v), {
    type: 'boolean',
    coerce: (v) => taken.get(v),
  });

/** Laravel's `boolean`, for bodies: `"true"` is no boolean (probe Z). */
export function boolean(): Rule<boolean> {
  return booleanOf(BOOLEANS);
}

/** A list filter's boolean, read from a query string: the words `true`/`false` too (decisions.md). */
export function queryBoolean(): Rule<boolean> {
  return booleanOf(QUERY_BOOLEANS);
}

/**
 * A list, not a map: beside array(), which passes a JSON object (a PHP associative array), such a
 * value (or a query string's `ids[a]=…`) is refused with the same message, as every list field
 * refuses one (README; `scopes` and `ids` took a map for a list: probe V). Anything else is array()'s
 * to judge.
 */
export function list(): Rule<Keep> {
  return simple('list', 'The :attribute field must be an array.', (v) => !isPhpArray(v) || Array.isArray(v));
}

/** Lists, and plain objects (a PHP associative array is an array). */
export function array(): Rule<unknown[] | Record<string, unknown>> {
  return simple<unknown[] | Record<string, unknown>>(
    'array',
    'The :attribute field must be an array.',
    isPhpArray,
    { type: 'array' },
  );
}

// `confirmed`: the field equals its `<field>_confirmation` twin.
import type { Keep, Rule } from '../engine.js';
import { simple } from './simple.js';

/**
 * Strictly equal to `<field>_confirmation` in the input, as Laravel's `same` compares (an absent
 * confirmation reads as null, so a null field passes without one).
 */
export function confirmed(): Rule<Keep> {
  return simple(
    'confirmed',
    'The :attribute field confirmation does not match.',
    (_v, ctx) => (ctx.input[ctx.field] ?? null) === (ctx.input[`${ctx.field}_confirmation`] ?? null),
    { doc: { description: 'Must equal the same field with the `_confirmation` suffix.' } },
  );
}

// Database rules: exists and unique, deferred until the field's other rules passed.
import type { Keep, Rule, RuleDoc } from '../engine.js';
import { displayName, fill, INVALID_SELECTION } from '../messages.js';

const TAKEN = 'The :attribute has already been taken.';

/**
 * `check` resolves true when the value exists. Deferred: runs only after the field's other rules
 * passed. Null names no record (Laravel's `where col = null` counts none), so `check` never sees it.
 */
export function exists(check: (value: unknown) => Promise<boolean>, doc?: RuleDoc): Rule<Keep> {
  return {
    name: 'exists',
    doc: doc ?? { description: "Must name a record of the caller's tenant." },
    deferred: true,
    check: async (value, ctx) =>
      value !== null && (await check(value)) ? null : fill(INVALID_SELECTION, { attribute: ctx.attribute }),
  };
}

/** `check` resolves true when the value is already taken. Deferred like `exists`; null is never looked up. */
export function unique(check: (value: unknown) => Promise<boolean>, doc?: RuleDoc): Rule<Keep> {
  return {
    name: 'unique',
    doc: doc ?? { description: 'Must not be taken yet.' },
    deferred: true,
    check: async (value, ctx) =>
      value !== null && (await check(value)) ? fill(TAKEN, { attribute: ctx.attribute }) : null,
  };
}

/** The `unique` rule's message for `field`, for a write the unique index refused after the rule passed. */
export function takenMessage(field: string): string {
  return fill(TAKEN, { attribute: displayName(field) });
}

// `custom`: a one-off check a service writes inline.
import type { Keep, Rule, RuleDoc } from '../engine.js';
import { fill } from '../messages.js';

type Check = (
  value: unknown,
  input: Readonly<Record<string, unknown>>,
) => string | null | Promise<string | null>;

/**
 * A one-off rule: `fn` returns the message (`:attribute` is filled in) or null. Runs in order, not
 * deferred. With `coerce`, a value that passed is output as `coerce` gives it (and typed so).
 */
export function custom(fn: Check, doc?: RuleDoc): Rule<Keep>;
export function custom<T>(fn: Check, doc: RuleDoc | undefined, coerce: (value: unknown) => T): Rule<T>;
export function custom<T>(fn: Check, doc?: RuleDoc, coerce?: (value: unknown) => T): Rule<T | Keep> {
  return {
    name: 'custom',
    ...(doc ? { doc } : {}),
    ...(coerce ? { coerce } : {}),
    check: async (value, ctx) => {
      const message = await fn(value, ctx.input);
      return message === null ? null : fill(message, { attribute: ctx.attribute });
    },
  };
}

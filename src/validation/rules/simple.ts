// The common shape of a rule: one yes/no test and one message.
import type { Keep, Rule, RuleContext } from '../engine.js';
import { fill } from '../messages.js';

/** A rule failing with `template` (`:attribute` filled in) when `passes` says no. */
export function simple<T = Keep>(
  name: string,
  template: string,
  passes: (value: unknown, ctx: RuleContext) => boolean,
  extra: Partial<Pick<Rule, 'type' | 'coerce' | 'doc'>> = {},
): Rule<T> {
  return {
    name,
    ...extra,
    check: (value, ctx) => (passes(value, ctx) ? null : fill(template, { attribute: ctx.attribute })),
  };
}

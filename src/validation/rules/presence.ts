// Presence rules: required, requiredIf, requiredWith, requiredWithoutAll (implicit: they run on absent and empty fields too)
// and nullable.
import type { Keep, NullableRule, RequiredRule, Rule } from '../engine.js';
import { displayValue, fill } from '../messages.js';
import { isFilled, isPhpArray, phpString, phpStringsEqual } from '../php-values.js';
import { simple } from './simple.js';

export function required(): RequiredRule {
  return {
    ...simple('required', 'The :attribute field is required.', isFilled),
    implicit: true,
    required: true,
  };
}

/**
 * Laravel's `sometimes|required`, a partial update's field: left out, it passes (and stays as it is);
 * sent, it must be filled (null, blank text or `[]` is "required", and stops the field).
 */
export function requiredWhenPresent(): Rule<Keep> {
  return {
    ...simple(
      'requiredWhenPresent',
      'The :attribute field is required.',
      (v) => v === undefined || isFilled(v),
    ),
    implicit: true,
  };
}

export interface RequiredIfOptions {
  /** Replaces the other field's value in `:value` (Laravel's `validation.values` lines). */
  displayValue?: string;
}

/**
 * Required when `other` is (one of) `values`. Like Laravel: not required when `other` is absent;
 * a boolean or null `other` only matches true/false/null (or 'true'/'false'/'null'); anything else
 * compares loosely, so `"1"` matches 1.
 */
export function requiredIf(
  other: string,
  values: string | number | boolean | readonly (string | number | boolean)[],
  options: RequiredIfOptions = {},
): Rule<Keep> {
  const params = (Array.isArray(values) ? values : [values]).map((v) =>
    typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v),
  );
  const matches = (actual: unknown): boolean => {
    if (typeof actual === 'boolean') return params.includes(actual ? 'true' : 'false');
    if (actual === null) return params.includes('null');
    const text = isPhpArray(actual) ? null : phpString(actual);
    return text !== null && params.some((p) => phpStringsEqual(text, p));
  };
  return {
    name: 'requiredIf',
    implicit: true,
    doc: { description: `Required when ${other} is ${params.join(' or ')}.` },
    check: (value, ctx) => {
      if (!Object.hasOwn(ctx.input, other)) return null;
      const actual = ctx.input[other];
      if (actual === undefined || !matches(actual) || isFilled(value)) return null;
      return fill('The :attribute field is required when :other is :value.', {
        attribute: ctx.attribute,
        other: ctx.attributeOf(other),
        value: options.displayValue ?? displayValue(actual),
      });
    },
  };
}

/** Required when any of `others` is filled. */
export function requiredWith(...others: string[]): Rule<Keep> {
  return {
    name: 'requiredWith',
    implicit: true,
    doc: { description: `Required when ${others.join(' or ')} is present.` },
    check: (value, ctx) => {
      if (isFilled(value) || !others.some((o) => isFilled(ctx.input[o]))) return null;
      return fill('The :attribute field is required when :values is present.', {
        attribute: ctx.attribute,
        values: others.map(ctx.attributeOf).join(' / '),
      });
    },
  };
}

/** Laravel's `required_without_all`: required when none of `others` is filled. */
export function requiredWithoutAll(...others: string[]): Rule<Keep> {
  return {
    name: 'requiredWithoutAll',
    implicit: true,
    doc: { description: `Required when none of ${others.join(', ')} is present.` },
    check: (value, ctx) =>
      isFilled(value) || others.some((o) => isFilled(ctx.input[o]))
        ? null
        : fill('The :attribute field is required when none of :values are present.', {
            attribute: ctx.attribute,
            values: others.map(ctx.attributeOf).join(' / '),
          }),
  };
}

export function nullable(): NullableRule {
  return { name: 'nullable', nullable: true, check: () => null };
}

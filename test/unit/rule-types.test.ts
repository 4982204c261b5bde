// The output types `validate` infers from rules: what a service reads without a cast.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  boolean,
  custom,
  type Infer,
  type InferFilters,
  inList,
  integer,
  max,
  nullable,
  type Rule,
  type Rules,
  required,
  rules,
  string,
  textFilter,
  validate,
  type validateFilters,
} from '../../src/validation/validator.js';

const window: Rule<{ from: Date; to: Date }> = {
  name: 'window',
  check: () => null,
  coerce: (v) => ({ from: new Date(String(v)), to: new Date(String(v)) }),
};

const sample = rules({
  name: [required(), string(), max(255)],
  note: [nullable(), string()],
  count: [nullable(), integer(), inList([1, 2])],
  flag: [boolean()],
  text: textFilter(),
  range: [nullable(), window],
  free: [max(3)],
});

describe('rule output types', () => {
  it('a required field is present and not null; the others optional, null when nullable', () => {
    expectTypeOf<Infer<typeof sample>>().toEqualTypeOf<
      { name: string } & {
        note?: string | null;
        count?: number | null;
        flag?: boolean;
        text?: string | null;
        range?: { from: Date; to: Date } | null;
        free?: unknown;
      }
    >();
  });

  it('filters drop nulls', () => {
    expectTypeOf<InferFilters<typeof sample>['note']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<InferFilters<typeof sample>['range']>().toEqualTypeOf<
      { from: Date; to: Date } | undefined
    >();
  });

  it('rules typed only as Rules give a plain record', () => {
    expectTypeOf<ReturnType<typeof validate<Rules>>>().resolves.toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<ReturnType<typeof validateFilters<typeof sample>>>().resolves.toEqualTypeOf<
      InferFilters<typeof sample>
    >();
  });
});

describe('custom rules with a coercion', () => {
  const upper = rules({
    code: [
      required(),
      string(),
      custom(
        (v) =>
          typeof v === 'string' && /^[a-z]+$/i.test(v) ? null : 'The :attribute field must be letters.',
        undefined,
        (v) => ({ upper: String(v).toUpperCase() }),
      ),
    ],
    plain: [nullable(), custom(() => null)],
  });

  it('output what the coercion gives, typed so; a custom rule without one keeps the type', async () => {
    expectTypeOf<Infer<typeof upper>>().toEqualTypeOf<{ code: { upper: string } } & { plain?: unknown }>();
    await expect(validate({ code: 'abc', plain: 1 }, upper)).resolves.toEqual({
      code: { upper: 'ABC' },
      plain: 1,
    });
  });

  it('fail with their message, the value left as sent', async () => {
    await expect(validate({ code: 'a1' }, upper)).rejects.toMatchObject({
      errors: { code: ['The code field must be letters.'] },
    });
  });
});

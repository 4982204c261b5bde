// The operation declaration's pieces that need no database: filter conditions, the rules the
// validator gets, and the types a condition and a service function receive.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { conditionsOf, field, filterOf, type InputOf, rulesOf } from '../../src/operations/operation.js';
import {
  integer,
  nullable,
  queryBoolean,
  required,
  string,
  textFilter,
  validateFilters,
} from '../../src/validation/validator.js';

interface Where {
  name?: string;
  age?: number;
  AND?: Where[];
}
const filter = filterOf<Where>();
const scope = { tenantId: 't1', locationId: null };
const filters = {
  name: filter(textFilter(), { description: 'Exact', where: (v) => ({ name: v }) }),
  age: filter([nullable(), integer()], { where: (v) => ({ age: v }) }),
  newest_first: filter([nullable(), queryBoolean()], { description: 'An option, no condition' }),
};

describe('filters', () => {
  it('add the conditions of the filters given, in declaration order, and none for options', async () => {
    const values = await validateFilters({ newest_first: 'true', age: '42', name: 'Ann' }, rulesOf(filters));
    expect(values).toEqual({ name: 'Ann', age: 42, newest_first: true });
    expect(conditionsOf(filters, values, scope)).toEqual([{ name: 'Ann' }, { age: 42 }]);
  });

  it('leave out empty filters, as REST reads `?age=`', async () => {
    const values = await validateFilters({ age: '', name: null }, rulesOf(filters));
    expect(conditionsOf(filters, values, scope)).toEqual([]);
  });

  it('give the validator each field’s own rules, built once', () => {
    expect(rulesOf(filters)).toBe(rulesOf(filters));
    expect(rulesOf(filters).age).toBe(filters.age.rules);
  });

  it('type a condition’s value from the rules, so a misread does not compile', () => {
    // @ts-expect-error: `v` is a number after integer(), and Where.name is a string.
    filter([nullable(), integer()], { where: (v) => ({ name: v }) });
    filter([nullable(), integer()], { where: (v) => ({ age: v }) });
  });
});

describe('input types', () => {
  it('a service function reads required fields as present and the others as optional', () => {
    const input = { name: field([required(), string()]), age: field([nullable(), integer()], 'Years') };
    expectTypeOf<InputOf<typeof input>>().toEqualTypeOf<{ name: string } & { age?: number | null }>();
  });
});

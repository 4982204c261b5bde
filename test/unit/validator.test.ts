import { describe, expect, it } from 'vitest';
import { countryName } from '../../src/validation/countries.js';
import {
  afterOrEqual,
  array,
  between,
  boolean,
  confirmed,
  countryCode,
  custom,
  dateFormat,
  email,
  exists,
  type FieldErrors,
  inList,
  integer,
  json,
  max,
  min,
  nullable,
  numeric,
  type Rule,
  type Rules,
  regex,
  required,
  requiredIf,
  requiredWith,
  size,
  string,
  summarize,
  unique,
  ValidationError,
  validate,
} from '../../src/validation/validator.js';

/** The errors `validate` throws, or null when it passes. */
async function errorsOf(
  input: Record<string, unknown>,
  rules: Rules,
  attributes?: Record<string, string>,
): Promise<FieldErrors | null> {
  try {
    await validate(input, rules, { attributes });
    return null;
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
}

/** Messages for a single field `f` validated with `rules`. */
async function messages(value: unknown, ...rules: Rule[]): Promise<string[]> {
  const errors = await errorsOf({ f: value }, { f: rules });
  return errors?.f ?? [];
}

describe('summarize', () => {
  it('is the first message alone when it is the only one', () => {
    expect(summarize({ name: ['The name field is required.'] })).toBe('The name field is required.');
  });

  it('counts one more error in the singular', () => {
    expect(summarize({ name: ['A.'], email: ['B.'] })).toBe('A. (and 1 more error)');
  });

  it('counts every further message of every field in the plural', () => {
    expect(summarize({ name: ['The name field is required.'], email: ['B.', 'C.'] })).toBe(
      'The name field is required. (and 2 more errors)',
    );
  });

  it("falls back to Laravel's generic line without messages", () => {
    expect(summarize({})).toBe('The given data was invalid.');
  });

  it('is the ValidationError message', async () => {
    const error = await validate({}, { name: [required()], email: [required()] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe('The name field is required. (and 1 more error)');
    expect((error as ValidationError).errors).toEqual({
      name: ['The name field is required.'],
      email: ['The email field is required.'],
    });
  });
});

describe('messages', () => {
  it('names attributes with spaces for underscores, unless overridden', async () => {
    expect(await errorsOf({}, { country_code: [required()], per_page: [required()] })).toEqual({
      country_code: ['The country code field is required.'],
      per_page: ['The per page field is required.'],
    });
    expect(await errorsOf({}, { ssid: [required()] }, { ssid: 'network name' })).toEqual({
      ssid: ['The network name field is required.'],
    });
  });

  it.each<[string, unknown, Rule[], string]>([
    ['required', '', [required()], 'The f field is required.'],
    ['string', 5, [string()], 'The f field must be a string.'],
    ['integer', 'x', [integer()], 'The f field must be an integer.'],
    ['numeric', 'x', [numeric()], 'The f field must be a number.'],
    ['boolean', 'yes', [boolean()], 'The f field must be true or false.'],
    ['array', 'x', [array()], 'The f field must be an array.'],
    ['min string', 'ab', [string(), min(3)], 'The f field must be at least 3 characters.'],
    ['min numeric', 2, [integer(), min(3)], 'The f field must be at least 3.'],
    ['min array', [1], [array(), min(2)], 'The f field must have at least 2 items.'],
    ['max string', 'abcd', [string(), max(3)], 'The f field must not be greater than 3 characters.'],
    ['max numeric', 4, [numeric(), max(3)], 'The f field must not be greater than 3.'],
    ['max array', [1, 2, 3], [array(), max(2)], 'The f field must not have more than 2 items.'],
    ['between string', 'a', [string(), between(2, 4)], 'The f field must be between 2 and 4 characters.'],
    ['between numeric', 5, [integer(), between(2, 4)], 'The f field must be between 2 and 4.'],
    ['size string', 'abc', [string(), size(2)], 'The f field must be 2 characters.'],
    ['size numeric', 3, [integer(), size(2)], 'The f field must be 2.'],
    ['in', 'c', [inList(['a', 'b'])], 'The selected f is invalid.'],
    ['email', 'not-an-email', [email()], 'The f field must be a valid email address.'],
    ['date_format', '2026-13-01', [dateFormat('Y-m-d')], 'The f field must match the format Y-m-d.'],
    ['regex', 'abc', [regex(/^\d+$/)], 'The f field format is invalid.'],
    ['json', '{bad', [json()], 'The f field must be a valid JSON string.'],
    ['country code', 'XX', [countryCode()], 'The selected f is invalid.'],
  ])('%s', async (_name, value, rules, expected) => {
    expect(await messages(value, ...rules)).toEqual([expected]);
  });

  it('required_if names the other field and its value as given', async () => {
    expect(
      await errorsOf({ role: 'venue' }, { role: [string()], location_id: [requiredIf('role', 'venue')] }),
    ).toEqual({ location_id: ['The location id field is required when role is venue.'] });
    expect(
      await errorsOf(
        { smart_login: '1' },
        { smart_login: [boolean()], smart_login_frequency: [requiredIf('smart_login', 1)] },
      ),
    ).toEqual({
      smart_login_frequency: ['The smart login frequency field is required when smart login is 1.'],
    });
  });

  it('required_with lists the other fields', async () => {
    expect(await errorsOf({ a: 'x' }, { b: [requiredWith('a', 'c_d')] })).toEqual({
      b: ['The b field is required when a / c d is present.'],
    });
  });

  it("after_or_equal names the other field's attribute", async () => {
    const rules: Rules = {
      starts_at: [dateFormat('Y-m-d H:i')],
      ends_at: [dateFormat('Y-m-d H:i'), afterOrEqual('starts_at')],
    };
    expect(await errorsOf({ starts_at: '2026-03-02 10:00', ends_at: '2026-03-02 09:59' }, rules)).toEqual({
      ends_at: ['The ends at field must be a date after or equal to starts at.'],
    });
    expect(await errorsOf({ starts_at: '2026-03-02 10:00', ends_at: '2026-03-02 10:00' }, rules)).toBeNull();
    expect(await errorsOf({ ends_at: '2026-03-02 10:00' }, rules)).toBeNull();
  });

  it('confirmed compares with <field>_confirmation', async () => {
    const rules: Rules = { password: [string(), confirmed()] };
    expect(await errorsOf({ password: 'secret1', password_confirmation: 'secret2' }, rules)).toEqual({
      password: ['The password field confirmation does not match.'],
    });
    expect(await errorsOf({ password: 'secret1' }, rules)).toEqual({
      password: ['The password field confirmation does not match.'],
    });
    await expect(validate({ password: 'secret1', password_confirmation: 'secret1' }, rules)).resolves.toEqual(
      {
        password: 'secret1',
      },
    );
  });

  it('unique and exists', async () => {
    expect(
      await messages(
        'taken',
        unique(async () => true),
      ),
    ).toEqual(['The f has already been taken.']);
    expect(
      await messages(
        9,
        exists(async () => false),
      ),
    ).toEqual(['The selected f is invalid.']);
    expect(
      await messages(
        'free',
        unique(async () => false),
      ),
    ).toEqual([]);
  });

  it('custom fills in :attribute', async () => {
    const even = custom((v) => (Number(v) % 2 === 0 ? null : 'The :attribute field must be even.'));
    expect(await errorsOf({ per_page: 3 }, { per_page: [integer(), even] })).toEqual({
      per_page: ['The per page field must be even.'],
    });
  });
});

describe('empty fields', () => {
  it('only meet implicit rules', async () => {
    const rules: Rules = { name: [string(), min(3)], email: [required(), email()] };
    for (const empty of [undefined, null, '', '   ']) {
      expect(await errorsOf({ name: empty, email: empty }, rules)).toEqual({
        email: ['The email field is required.'],
      });
    }
  });

  it('treats null without nullable() as absent, and keeps it with nullable()', async () => {
    const rules: Rules = { bio: [string()], note: [nullable(), string()] };
    await expect(validate({ bio: null, note: null }, rules)).resolves.toEqual({ note: null });
    await expect(validate({ bio: '', note: '' }, rules)).resolves.toEqual({ note: null });
    await expect(validate({}, rules)).resolves.toEqual({});
  });

  it('fails required on an empty list', async () => {
    expect(await messages([], required(), array())).toEqual(['The f field is required.']);
  });
});

describe('rule order and stopping', () => {
  it('stops a field after a type failure', async () => {
    expect(await messages(12345, string(), max(3), email())).toEqual(['The f field must be a string.']);
    expect(await messages([1, 2, 3, 4], integer(), max(3))).toEqual(['The f field must be an integer.']);
  });

  it('accumulates other failures in rule order', async () => {
    expect(await messages('abcd', string(), max(3), email(), regex(/^\d+$/))).toEqual([
      'The f field must not be greater than 3 characters.',
      'The f field must be a valid email address.',
      'The f field format is invalid.',
    ]);
  });

  it('drops a repeated message for the same field, as Laravel does', async () => {
    expect(await messages('us', countryCode(), inList(['US']))).toEqual(['The selected f is invalid.']);
  });

  it('reports every field', async () => {
    expect(await errorsOf({ a: 'x' }, { a: [integer()], b: [required()], c: [numeric()] })).toEqual({
      a: ['The a field must be an integer.'],
      b: ['The b field is required.'],
    });
  });
});

describe('requiredIf', () => {
  const rules = (value: string | number | boolean | (string | number)[]): Rules => ({
    f: [requiredIf('other', value)],
  });

  it('compares loosely: "1" matches 1 and 1 matches "1"', async () => {
    expect(await errorsOf({ other: '1' }, rules(1))).not.toBeNull();
    expect(await errorsOf({ other: 1 }, rules('1'))).not.toBeNull();
    expect(await errorsOf({ other: '1.0' }, rules(1))).not.toBeNull();
    expect(await errorsOf({ other: '2' }, rules(1))).toBeNull();
  });

  it('accepts a list of values', async () => {
    expect(await errorsOf({ other: 'b' }, rules(['a', 'b']))).not.toBeNull();
    expect(await errorsOf({ other: 'c' }, rules(['a', 'b']))).toBeNull();
  });

  it('matches a boolean other only against true/false, printing it as true', async () => {
    expect(await errorsOf({ other: true }, rules(true))).toEqual({
      f: ['The f field is required when other is true.'],
    });
    expect(await errorsOf({ other: true }, rules(1))).toBeNull();
  });

  it('is not required when the other field is absent, or when filled', async () => {
    expect(await errorsOf({}, rules(1))).toBeNull();
    expect(await errorsOf({ other: 1, f: 'x' }, rules(1))).toBeNull();
  });

  it('can override the displayed value', async () => {
    const errors = await errorsOf({ other: 1 }, { f: [requiredIf('other', 1, { displayValue: 'on' })] });
    expect(errors).toEqual({ f: ['The f field is required when other is on.'] });
  });
});

describe('types and coercion', () => {
  it('coerces an integer string and returns only validated, present fields', async () => {
    const out = await validate(
      { page: '5', per_page: 10, flag: 'true', n: '1.5e1', extra: 'dropped', name: 'x' },
      { page: [integer()], per_page: [integer()], flag: [boolean()], n: [numeric()], absent: [string()] },
    );
    expect(out).toEqual({ page: 5, per_page: 10, flag: true, n: 15 });
  });

  it.each([1.5, '1.5', true, 'abc', [1], { a: 1 }])('integer rejects %j', async (value) => {
    expect(await messages(value, integer())).toEqual(['The f field must be an integer.']);
  });

  it('integer accepts negative strings', async () => {
    await expect(validate({ f: '-12' }, { f: [integer()] })).resolves.toEqual({ f: -12 });
  });

  it('boolean accepts Laravel values and "true"/"false", coercing', async () => {
    const cases: [unknown, boolean][] = [
      [true, true],
      [false, false],
      [1, true],
      [0, false],
      ['1', true],
      ['0', false],
      ['true', true],
      ['false', false],
    ];
    for (const [input, expected] of cases) {
      await expect(validate({ f: input }, { f: [boolean()] })).resolves.toEqual({ f: expected });
    }
    expect(await messages(2, boolean())).toEqual(['The f field must be true or false.']);
  });

  it('numeric accepts PHP numeric strings only', async () => {
    expect(await messages('0x1A', numeric())).toEqual(['The f field must be a number.']);
    expect(await messages('1e3', numeric())).toEqual([]);
  });

  it('array accepts lists and objects', async () => {
    expect(await messages({ a: 1 }, array())).toEqual([]);
    expect(await messages({ a: 1, b: 2 }, array(), max(1))).toEqual([
      'The f field must not have more than 1 items.',
    ]);
  });
});

describe('size rules measure by type', () => {
  it('counts a numeric string as characters after string()', async () => {
    expect(await messages('12345', string(), max(3))).toEqual([
      'The f field must not be greater than 3 characters.',
    ]);
  });

  it('measures a number by value after integer()', async () => {
    expect(await messages(5, integer(), max(3))).toEqual(['The f field must not be greater than 3.']);
    expect(await messages('5', integer(), max(3))).toEqual(['The f field must not be greater than 3.']);
    expect(await messages(3, integer(), max(3))).toEqual([]);
  });

  it('without a type rule, measures strings by length and numbers by value', async () => {
    expect(await messages('1234', max(3))).toEqual(['The f field must not be greater than 3 characters.']);
    expect(await messages(1234, max(3))).toEqual(['The f field must not be greater than 3.']);
  });

  it('counts characters, not bytes or UTF-16 units', async () => {
    expect(await messages('é'.repeat(50), string(), max(50))).toEqual([]);
    expect(await messages('😀'.repeat(50), string(), max(50))).toEqual([]);
    expect(await messages('é'.repeat(51), string(), max(50))).toEqual([
      'The f field must not be greater than 50 characters.',
    ]);
  });
});

describe('dateFormat', () => {
  it.each(['2026-02-28', '2024-02-29'])('accepts %s', async (value) => {
    expect(await messages(value, dateFormat('Y-m-d'))).toEqual([]);
  });

  it.each(['2026-02-30', '2026-02-29', '2026-1-5', '2026-01-05 10:00', 20260105])(
    'rejects %j',
    async (value) => {
      expect(await messages(value, dateFormat('Y-m-d'))).toEqual([
        'The f field must match the format Y-m-d.',
      ]);
    },
  );

  it('checks times', async () => {
    expect(await messages('2026-01-05 23:59', dateFormat('Y-m-d H:i'))).toEqual([]);
    expect(await messages('2026-01-05 24:00', dateFormat('Y-m-d H:i'))).toEqual([
      'The f field must match the format Y-m-d H:i.',
    ]);
    expect(await messages('2026-01-05 9:00', dateFormat('Y-m-d H:i'))).toHaveLength(1);
  });

  it('refuses format characters it does not implement', () => {
    expect(() => dateFormat('D, d M Y')).toThrow(/unsupported/);
  });
});

describe('async rules', () => {
  it('only run once the sync rules passed', async () => {
    let calls = 0;
    const check = async (): Promise<boolean> => {
      calls++;
      return false;
    };
    const rules = (): Rule[] => [unique(check), string(), max(5), email()];

    expect(await messages('not an email at all', ...rules())).toHaveLength(2);
    expect(await messages(42, ...rules())).toEqual(['The f field must be a string.']);
    expect(await messages(undefined, ...rules())).toEqual([]);
    expect(calls).toBe(0);

    expect(await messages('a@b.c', ...rules())).toEqual([]);
    expect(calls).toBe(1);
  });

  it('see the coerced value and stop after the first failure', async () => {
    const seen: unknown[] = [];
    const lookup = exists(async (v) => {
      seen.push(v);
      return false;
    });
    const taken = unique(async () => true);
    expect(await messages('7', integer(), lookup, taken)).toEqual(['The selected f is invalid.']);
    expect(seen).toEqual([7]);
  });
});

describe('other rules', () => {
  it('countryCode takes upper-case alpha-2 only', async () => {
    expect(await messages('US', countryCode())).toEqual([]);
    expect(await messages('us', countryCode())).toEqual(['The selected f is invalid.']);
    expect(await messages('XX', countryCode())).toEqual(['The selected f is invalid.']);
    expect(await messages('USA', countryCode())).toEqual(['The selected f is invalid.']);
  });

  it('countryName gives the English name', () => {
    expect(countryName('US')).toBe('United States of America');
    expect(countryName('FR')).toBe('France');
    expect(countryName('us')).toBeNull();
    expect(countryName('XX')).toBeNull();
  });

  it('inList compares numbers and numeric strings loosely', async () => {
    expect(await messages('10', inList([10, 20]))).toEqual([]);
    expect(await messages(20, inList(['10', '20']))).toEqual([]);
    expect(await messages(30, inList(['10', '20']))).toEqual(['The selected f is invalid.']);
    expect(await messages(['a', 'b'], array(), inList(['a', 'b']))).toEqual([]);
    expect(await messages(['a', 'z'], array(), inList(['a', 'b']))).toEqual(['The selected f is invalid.']);
  });

  it.each(['user@example.com', 'first.last+tag@sub.example.co', 'user@localhost', 'é@exämple.de'])(
    'email accepts %s',
    async (value) => {
      expect(await messages(value, email())).toEqual([]);
    },
  );

  it.each(['plain', 'a@', '@b.c', 'a..b@c.d', 'a.@c.d', 'a@-b.c', 'a@b..c', 'a b@c.d'])(
    'email rejects %s',
    async (value) => {
      expect(await messages(value, email())).toEqual(['The f field must be a valid email address.']);
    },
  );

  it('json accepts any JSON text', async () => {
    expect(await messages('{"a":[1,2]}', json())).toEqual([]);
    expect(await messages('"x"', json())).toEqual([]);
    expect(await messages({ a: 1 }, json())).toEqual(['The f field must be a valid JSON string.']);
  });

  it('regex is stateless with /g', async () => {
    const rule = regex(/^a/g);
    expect(await messages('abc', rule)).toEqual([]);
    expect(await messages('abc', rule)).toEqual([]);
  });
});

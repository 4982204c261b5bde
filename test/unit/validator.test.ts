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
  date,
  dateFormat,
  email,
  exists,
  type FieldErrors,
  inList,
  integer,
  ip,
  json,
  laravelInput,
  max,
  min,
  nullable,
  numeric,
  queryBoolean,
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
  validateFilters,
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

  it('date() keeps a fraction to the millisecond, to the last instant a database holds', async () => {
    const at = async (v: string) => ((await validate({ v }, { v: [date()] })) as { v: Date }).v.toISOString();
    expect(await at('2026-11-28T19:30:00.5Z')).toBe('2026-11-28T19:30:00.500Z');
    expect(await at('2026-11-28T19:30:00.2009+01:00')).toBe('2026-11-28T18:30:00.200Z');
    // An offset of hours alone, as ISO 8601 and PHP take it.
    expect(await at('2026-01-05T05:07:08+05')).toBe('2026-01-05T00:07:08.000Z');
    expect(await at('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    expect(await at('9999-12-31T23:59:59.9999Z')).toBe('9999-12-31T23:59:59.999Z');
    expect(await at('1969-12-31T23:59:59.9995Z')).toBe('1969-12-31T23:59:59.999Z');
    // The last instants of 9999, to the digit (a float of microseconds rounded them past it).
    expect(await at('9999-12-31T23:59:59.99999Z')).toBe('9999-12-31T23:59:59.999Z');
    expect(await at('9999-12-31T23:59:59.999999999Z')).toBe('9999-12-31T23:59:59.999Z');
    // A microsecond before the first storable instant is no date.
    const early = await validate({ v: '0001-01-01T00:00:59.9999999+00:01' }, { v: [date()] }).catch(
      (e: unknown) => e,
    );
    expect(early).toBeInstanceOf(ValidationError);
  });

  it('date() reads the numeric shapes PHP’s parser reads, on a real calendar day (d-m-Y was refused; probe W)', async () => {
    const at = async (v: string) => ((await validate({ v }, { v: [date()] })) as { v: Date }).v.toISOString();
    for (const v of [
      '2026-11-29',
      '2026/11/29',
      '11/29/2026',
      '29-11-2026',
      '29.11.2026',
      '29.11.2026 00:00',
    ])
      expect(await at(v), v).toBe('2026-11-29T00:00:00.000Z');
    expect(await at('29-11-2026 10:05:07.25+01:00')).toBe('2026-11-29T09:05:07.250Z');
    expect(await at('02/03/2026')).toBe('2026-02-03T00:00:00.000Z');
    expect(await at('02-03-2026')).toBe('2026-03-02T00:00:00.000Z');
    // RFC 3339's `t` and `z` in either case.
    expect(await at('2026-12-01t10:00:00z')).toBe('2026-12-01T10:00:00.000Z');
    // A space before the zone, as PHP's parser reads it (and Ruby's Time#to_s writes it).
    expect(await at('2027-01-05 10:00:00 +01:00')).toBe('2027-01-05T09:00:00.000Z');
    expect(await at('2027-01-05 10:00:00 Z')).toBe('2027-01-05T10:00:00.000Z');
    // An offset no clock has was read as another (`+05:99` as +06:39; probe T).
    for (const v of ['2026-12-10T10:00:00+05:99', '2026-12-10T10:00:00+99:00', '2026-12-10T10:00:00-24:00'])
      expect(await errorsOf({ f: v }, { f: [date()] }), v).toEqual({
        f: ['The f field must be a valid date.'],
      });
    expect(await at('2026-12-10T10:00:00-23:59')).toBe('2026-12-11T09:59:00.000Z');
    for (const v of ['30.02.2026', '13/01/2026', '2026-11/29', '29/11-2026', '29-11-26', 'now', '2026.11.29'])
      expect(await errorsOf({ f: v }, { f: [date()] }), v).toEqual({
        f: ['The f field must be a valid date.'],
      });
  });

  it('after_or_equal compares fractions of a second to the microsecond, as Carbon does', async () => {
    const rules: Rules = { since: [date()], until: [date(), afterOrEqual('since')] };
    const refused = { until: ['The until field must be a date after or equal to since.'] };
    expect(
      await errorsOf({ since: '2026-11-28T19:30:00.5Z', until: '2026-11-28T19:30:00.2Z' }, rules),
    ).toEqual(refused);
    expect(
      await errorsOf({ since: '2026-11-28T19:30:00.2005Z', until: '2026-11-28T19:30:00.2001Z' }, rules),
    ).toEqual(refused);
    expect(
      await errorsOf({ since: '2026-11-28T19:30:00.2001Z', until: '2026-11-28T19:30:00.2009Z' }, rules),
    ).toBeNull();
    // Past the microsecond, digits do not count.
    expect(
      await errorsOf({ since: '2026-11-28T19:30:00.2000009Z', until: '2026-11-28T19:30:00.2Z' }, rules),
    ).toBeNull();
  });

  it('after_or_equal reads dates as PHP does even when their format rule failed', async () => {
    const rules: Rules = {
      starts_at: [dateFormat('Y-m-d')],
      ends_at: [dateFormat('Y-m-d'), afterOrEqual('starts_at')],
    };
    // 2026-02-30 rolls over to March 2, and 01/12/2026 is January 12: only the format messages.
    expect(await errorsOf({ starts_at: '01/12/2026', ends_at: '2026-02-30' }, rules)).toEqual({
      starts_at: ['The starts at field must match the format Y-m-d.'],
      ends_at: ['The ends at field must match the format Y-m-d.'],
    });
    expect(await errorsOf({ starts_at: '2026-03-03', ends_at: '2026-02-30' }, rules)).toEqual({
      ends_at: [
        'The ends at field must match the format Y-m-d.',
        'The ends at field must be a date after or equal to starts at.',
      ],
    });
    // What is no date at all fails both.
    expect(await errorsOf({ starts_at: '2026-03-01', ends_at: 'soon' }, rules)).toEqual({
      ends_at: [
        'The ends at field must match the format Y-m-d.',
        'The ends at field must be a date after or equal to starts at.',
      ],
    });
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

describe('input as Laravel middleware leaves it', () => {
  it('trims strings at every depth, then reads empty ones as null (TrimStrings, ConvertEmptyStringsToNull)', () => {
    expect(
      laravelInput({
        name: '  Ann  ',
        blank: '   ',
        empty: '',
        tags: [' vip ', '', { note: ' x ' }],
        n: 5,
        off: false,
        none: null,
      }),
    ).toEqual({
      name: 'Ann',
      blank: null,
      empty: null,
      tags: ['vip', null, { note: 'x' }],
      n: 5,
      off: false,
      none: null,
    });
  });

  it("trims Laravel's set: Unicode white space, BOM, zero-width space, LRM and NUL, not inner spaces", () => {
    expect(laravelInput({ a: '\u00a0\u3000\ufeff\u200b\u200eA  B\t\n\0' })).toEqual({ a: 'A  B' });
    // PCRE's \s under /u holds NEL and U+180E, which JavaScript's does not (probe Q: `per_page=%C2%855` was a 422).
    expect(laravelInput({ a: '\u0085\u180e5\u180e\u0085', b: '\u0085' })).toEqual({ a: '5', b: null });
  });

  it('leaves the password fields untrimmed, though empty ones still become null', () => {
    expect(
      laravelInput({ password: ' Secret1! ', password_confirmation: ' Secret1! ', current_password: '' }),
    ).toEqual({ password: ' Secret1! ', password_confirmation: ' Secret1! ', current_password: null });
  });

  it('is what the rules and the output see', async () => {
    await expect(validate({ name: '  Ann  ' }, { name: [string(), max(3)] })).resolves.toEqual({
      name: 'Ann',
    });
    expect(await messages('  abc  ', string(), min(5))).toEqual([
      'The f field must be at least 5 characters.',
    ]);
    expect(await messages('   ', required(), string())).toEqual(['The f field is required.']);
  });
});

describe('absent, null and empty fields', () => {
  it('an absent field meets only implicit rules, and is left out of the output', async () => {
    const rules: Rules = { name: [string(), min(3)], email: [required(), email()] };
    expect(await errorsOf({}, rules)).toEqual({ email: ['The email field is required.'] });
    await expect(validate({ email: 'a@b.c' }, rules)).resolves.toEqual({ email: 'a@b.c' });
  });

  it('a present null without nullable() meets every rule', async () => {
    for (const empty of [null, '', '   ']) {
      expect(await errorsOf({ bio: empty }, { bio: [string(), min(3), max(5)] })).toEqual({
        bio: ['The bio field must be a string.', 'The bio field must be at least 3 characters.'],
      });
    }
  });

  it('a null (or empty) nullable field skips its other rules and is output as null', async () => {
    const rules: Rules = { note: [nullable(), string(), min(3)], other: [nullable(), integer()] };
    await expect(validate({ note: null }, rules)).resolves.toEqual({ note: null });
    await expect(validate({ note: '', other: ' ' }, rules)).resolves.toEqual({ note: null, other: null });
    await expect(validate({}, rules)).resolves.toEqual({});
  });

  it('implicit rules still run on a null nullable field', async () => {
    expect(await messages(null, required(), nullable(), string())).toEqual(['The f field is required.']);
    const rules: Rules = {
      role: [string()],
      location_id: [requiredIf('role', 'venue'), nullable(), string()],
    };
    expect(await errorsOf({ role: 'venue', location_id: null }, rules)).toEqual({
      location_id: ['The location id field is required when role is venue.'],
    });
    await expect(validate({ role: 'tenant', location_id: null }, rules)).resolves.toEqual({
      role: 'tenant',
      location_id: null,
    });
  });

  it.each<[string, Rule[], string[]]>([
    ['string', [string()], ['The f field must be a string.']],
    ['integer', [integer()], ['The f field must be an integer.']],
    ['numeric', [numeric()], ['The f field must be a number.']],
    ['boolean', [boolean()], ['The f field must be true or false.']],
    ['array', [array()], ['The f field must be an array.']],
    ['email', [email()], ['The f field must be a valid email address.']],
    ['date_format', [dateFormat('Y-m-d')], ['The f field must match the format Y-m-d.']],
    ['in', [inList(['a', 'b'])], ['The selected f is invalid.']],
    ['regex', [regex(/.*/)], ['The f field format is invalid.']],
    ['json', [json()], ['The f field must be a valid JSON string.']],
    ['country code', [countryCode()], ['The selected f is invalid.']],
    [
      'min (size 0)',
      [string(), min(5)],
      ['The f field must be a string.', 'The f field must be at least 5 characters.'],
    ],
    ['max (size 0)', [string(), max(5)], ['The f field must be a string.']],
    ['size', [string(), size(2)], ['The f field must be a string.', 'The f field must be 2 characters.']],
    [
      'numeric min',
      [integer(), min(1)],
      ['The f field must be an integer.', 'The f field must be at least 1.'],
    ],
    [
      'between',
      [integer(), between(1, 5)],
      ['The f field must be an integer.', 'The f field must be between 1 and 5.'],
    ],
  ])('null fails %s as Laravel judges it', async (_name, rules, expected) => {
    expect(await messages(null, ...rules)).toEqual(expected);
  });

  it("null passes `in` when '' is listed (it compares as '')", async () => {
    expect(await messages(null, inList(['', 'a']))).toEqual([]);
  });

  it('null fails exists and passes unique, without a look-up', async () => {
    let lookups = 0;
    const lookup = async (): Promise<boolean> => {
      lookups++;
      return true;
    };
    expect(await messages(null, exists(lookup))).toEqual(['The selected f is invalid.']);
    expect(await messages(null, unique(lookup))).toEqual([]);
    expect(lookups).toBe(0);
  });

  it('null passes confirmed without a confirmation, and fails after_or_equal', async () => {
    expect(await messages(null, confirmed())).toEqual([]);
    expect(await errorsOf({ f: null, f_confirmation: 'x' }, { f: [confirmed()] })).toEqual({
      f: ['The f field confirmation does not match.'],
    });
    expect(await errorsOf({ f: null }, { f: [afterOrEqual('g')] })).toEqual({
      f: ['The f field must be a date after or equal to g.'],
    });
  });

  it('fails required on an empty list', async () => {
    expect(await messages([], required(), array())).toEqual(['The f field is required.']);
  });

  it('a blank untrimmed password meets only implicit rules, and is output as sent', async () => {
    const rules: Rules = { password: [nullable(), string(), min(8)] };
    await expect(validate({ password: '   ' }, rules)).resolves.toEqual({ password: '   ' });
    expect(await errorsOf({ password: '   ' }, { password: [required(), string()] })).toEqual({
      password: ['The password field is required.'],
    });
  });

  it('validateFilters leaves out the filters that came empty', async () => {
    const rules: Rules = { name: [nullable(), string()], type: [nullable(), integer(), inList([1, 2])] };
    await expect(validateFilters({ name: '', type: '2' }, rules)).resolves.toEqual({ type: 2 });
    await expect(validateFilters({ name: null, type: null }, rules)).resolves.toEqual({});
    await expect(validateFilters({ type: 'x' }, rules)).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('rule order and stopping', () => {
  it('goes on after a failed type rule, as Laravel does without bail', async () => {
    expect(await messages(12345, string(), max(3), email())).toEqual([
      'The f field must be a string.',
      'The f field must not be greater than 3 characters.',
      'The f field must be a valid email address.',
    ]);
    expect(await messages([1, 2, 3, 4], integer(), max(3))).toEqual([
      'The f field must be an integer.',
      'The f field must not be greater than 3.',
    ]);
    expect(await messages('x', integer(), inList([0, 1]))).toEqual([
      'The f field must be an integer.',
      'The selected f is invalid.',
    ]);
  });

  it('takes true as the integer 1, as PHP\'s FILTER_VALIDATE_INT reads it (Laravel accepts "status": true); false is no integer (probe P)', async () => {
    await expect(validate({ f: true }, { f: [integer(), inList([0, 1, 2])] })).resolves.toEqual({ f: 1 });
    expect(await messages(false, integer())).toEqual(['The f field must be an integer.']);
    // Past 2^53 JSON.parse has changed the digits: refused, not stored wrong.
    expect(await messages(2 ** 53, integer())).toEqual(['The f field must be an integer.']);
  });

  it('stops a field after a failed implicit rule', async () => {
    expect(await messages(undefined, required(), string(), min(3))).toEqual(['The f field is required.']);
    expect(await messages([], required(), string(), min(3))).toEqual(['The f field is required.']);
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
      { page: '5', per_page: 10, flag: '1', n: '1.5e1', extra: 'dropped', name: 'x' },
      { page: [integer()], per_page: [integer()], flag: [boolean()], n: [numeric()], absent: [string()] },
    );
    expect(out).toEqual({ page: 5, per_page: 10, flag: true, n: 15 });
  });

  it.each([1.5, '1.5', false, 'abc', [1], { a: 1 }, '007', '-01', '+', '1 2', '0x1A'])(
    'integer rejects %j',
    async (value) => {
      expect(await messages(value, integer())).toEqual(['The f field must be an integer.']);
    },
  );

  it('integer accepts negative strings', async () => {
    await expect(validate({ f: '-12' }, { f: [integer()] })).resolves.toEqual({ f: -12 });
  });

  it('measures a JSON number beyond a double as PHP’s INF: an integer no more, and too large', async () => {
    const rules = [nullable(), integer(), min(1), max(3650)];
    expect(await messages(JSON.parse('1e400'), ...rules)).toEqual([
      'The f field must be an integer.',
      'The f field must not be greater than 3650.',
    ]);
    expect(await messages(JSON.parse('-1e400'), ...rules)).toEqual([
      'The f field must be an integer.',
      'The f field must be at least 1.',
    ]);
  });

  it.each(['0001-01-01', '0099-12-31', '2024-02-29', '9999-12-31'])(
    'date_format Y-m-d takes %s, as PHP’s createFromFormat does',
    async (text) => {
      expect(await messages(text, dateFormat('Y-m-d'))).toEqual([]);
    },
  );

  it.each([
    '0001-01-01',
    '0050-06-15 12:00:00',
    '2026-11-28T05:00:00+04:00',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:59:59+14:00',
  ])('date takes %s', async (text) => {
    expect(await messages(text, date())).toEqual([]);
  });

  // PostgreSQL has no year 0, and no driver writes year 10000: such moments are no dates here.
  it.each(['0000-01-01', '0001-01-01T00:00:00+14:00', '9999-12-31T23:59:59-14:00', '2026-02-30'])(
    'date refuses %s',
    async (text) => {
      expect(await messages(text, date())).toEqual(['The f field must be a valid date.']);
    },
  );

  it.each(['0000-01-01', '0099-02-29', '2026-02-29', '1-01-01', '2026-1-01'])(
    'date_format Y-m-d refuses %s',
    async (text) => {
      expect(await messages(text, dateFormat('Y-m-d'))).toEqual(['The f field must match the format Y-m-d.']);
    },
  );

  it.each([
    ['+50', 50],
    ['0', 0],
    ['-0', 0],
    ['+0', 0],
  ])('integer accepts %j as PHP’s FILTER_VALIDATE_INT does', async (text, value) => {
    await expect(validate({ f: text }, { f: [integer()] })).resolves.toEqual({ f: value });
  });

  it('boolean accepts Laravel’s values, coercing; a query string’s boolean the words "true"/"false" too', async () => {
    const cases: [unknown, boolean][] = [
      [true, true],
      [false, false],
      [1, true],
      [0, false],
      ['1', true],
      ['0', false],
    ];
    for (const [input, expected] of cases) {
      await expect(validate({ f: input }, { f: [boolean()] })).resolves.toEqual({ f: expected });
      await expect(validate({ f: input }, { f: [queryBoolean()] })).resolves.toEqual({ f: expected });
    }
    for (const word of ['true', 'false', 2, 'yes', 'on'])
      expect(await messages(word, boolean()), String(word)).toEqual(['The f field must be true or false.']);
    await expect(validate({ f: 'true' }, { f: [queryBoolean()] })).resolves.toEqual({ f: true });
    await expect(validate({ f: 'false' }, { f: [queryBoolean()] })).resolves.toEqual({ f: false });
    expect(await messages('yes', queryBoolean())).toEqual(['The f field must be true or false.']);
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
    expect(await messages(42, ...rules())).toEqual([
      'The f field must be a string.',
      'The f field must be a valid email address.',
    ]);
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

  it('ip accepts IPv4 and IPv6 addresses only', async () => {
    for (const ok of ['10.0.0.1', '255.255.255.255', '::1', '2001:db8::8a2e:370:7334', '::ffff:10.0.0.1']) {
      expect(await messages(ok, ip()), ok).toEqual([]);
    }
    for (const bad of ['256.1.1.1', '1.2.3', ':::::', '2001:db8::g', 'localhost', 1234]) {
      expect(await messages(bad, ip()), String(bad)).toEqual(['The f field must be a valid IP address.']);
    }
  });
});

// One rule engine for both transports: REST renders ValidationError as Laravel's 422 body
// ({ message, errors }), GraphQL as field errors. Messages are Laravel 10+'s default English lines.
import { isCountryCode } from './countries.js';

export type FieldErrors = Record<string, string[]>;

/** What a type rule says the value is; size rules read it to pick characters, value or count. */
export type ValueType = 'string' | 'integer' | 'numeric' | 'boolean' | 'array' | 'date';

export interface RuleContext {
  readonly field: string;
  /** `:attribute` for this field. */
  readonly attribute: string;
  /** The raw input, as given (before any coercion). */
  readonly input: Readonly<Record<string, unknown>>;
  /** From the field's type rule, if it has one. */
  readonly valueType: ValueType | undefined;
  /** `:attribute`-style display name of any field. */
  attributeOf(field: string): string;
}

/**
 * What a rule says about the accepted values, for the OpenAPI document (src/rest/openapi.ts): the
 * document reads bounds and choices from the same rule objects that enforce them.
 */
export interface RuleDoc {
  /** Size bounds, measured by the field's type (characters, value or items), as `min`/`max` do. */
  readonly min?: number;
  readonly max?: number;
  /** The accepted values (`in`). */
  readonly enum?: readonly (string | number)[];
  /** A JSON Schema format (`date`, `email`, …). */
  readonly format?: string;
  /** A regular expression the value matches (ECMA-262). */
  readonly pattern?: string;
  /** A sentence for rules no keyword expresses (`required_if`, `exists`, custom checks). */
  readonly description?: string;
  /** The value the code uses when the field is absent. */
  readonly default?: string | number | boolean;
}

export interface Rule {
  readonly name: string;
  /** OpenAPI metadata; absent on rules that say nothing beyond their name. */
  readonly doc?: RuleDoc;
  /** Runs even on an absent or empty field (required, requiredIf...); its failure stops the field. */
  readonly implicit?: boolean;
  /** A null value skips the field's other (non-implicit) rules and is output as null. */
  readonly nullable?: boolean;
  /** A type rule: size rules measure by it (characters, value or items). */
  readonly type?: ValueType;
  /** Runs only once every non-deferred rule of the field passed (database look-ups). */
  readonly deferred?: boolean;
  /** The failure message, or null when the value passes. */
  check(value: unknown, ctx: RuleContext): string | null | Promise<string | null>;
  /** The value later rules and the output see, once `check` passed. */
  coerce?(value: unknown): unknown;
}

export type Rules = Record<string, readonly Rule[]>;

export interface ValidateOptions {
  /** Display names overriding `country_code` -> `country code`. */
  attributes?: Record<string, string>;
}

/** Laravel's ValidationException::summarize(). */
export function summarize(errors: FieldErrors): string {
  const [first, ...rest] = Object.values(errors).flat();
  if (first === undefined) return 'The given data was invalid.';
  if (rest.length === 0) return first;
  return `${first} (and ${rest.length} more ${rest.length === 1 ? 'error' : 'errors'})`;
}

export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(readonly errors: FieldErrors) {
    super(summarize(errors));
  }
}

/**
 * Validates `input` against `rules` as Laravel does behind its default global middleware, collecting
 * every field's errors, and resolves to Laravel's `validated()`: the fields that have rules and are
 * present (null included), with type rules' coercions applied.
 *
 * - The input is first read as TrimStrings and ConvertEmptyStringsToNull leave a request
 *   (`laravelInput`): strings trimmed, then `''` as null. This is the one place that decides emptiness.
 * - Implicit rules (required, requiredIf, ...) always run; a failing one stops the field.
 * - The other rules run when the field is present, null included (`string()` fails on null with
 *   "The :attribute field must be a string."), except on a null field marked `nullable()`. An absent
 *   field meets implicit rules only; so does a blank string, which only the untrimmed password fields
 *   can still hold (Laravel's isValidatable: presentOrRuleIsImplicit, isNotNullIfMarkedAsNullable).
 * - Nothing else stops a field: after a failing type rule the next rules still run and may add their
 *   own messages, as Laravel's do without `bail`.
 */
export async function validate(
  input: Readonly<Record<string, unknown>>,
  rules: Rules,
  options: ValidateOptions = {},
): Promise<Record<string, unknown>> {
  const data = laravelInput(input);
  const attributeOf = (field: string): string => options.attributes?.[field] ?? displayName(field);
  const checked: Promise<[string, FieldResult]>[] = [];
  for (const field in rules) {
    const list = rules[field] as readonly Rule[];
    // An absent field meets only implicit rules (required…): a list's thirty filters mostly skip here.
    if ((!Object.hasOwn(data, field) || data[field] === undefined) && !hasImplicit(list)) continue;
    checked.push(validateField(field, list, data, attributeOf));
  }
  const results = await Promise.all(checked);

  const errors: FieldErrors = {};
  const output: Record<string, unknown> = {};
  for (const [field, result] of results) {
    if (result.messages.length > 0) errors[field] = result.messages;
    else if (result.present) output[field] = result.value;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return output;
}

/**
 * Filters of a list: `validate`, then without the filters that came empty (`?type=`, a GraphQL null),
 * which their `nullable()` rules let through and which mean "no filter".
 */
export async function validateFilters(
  input: Readonly<Record<string, unknown>>,
  rules: Rules,
): Promise<Record<string, unknown>> {
  const valid = await validate(input, rules);
  return Object.fromEntries(Object.entries(valid).filter(([, value]) => value !== null));
}

/** TrimStrings' characters (Laravel 11's Str::trim): Unicode white space, BOM, zero-width space, LRM, NUL. */
const EDGE_SPACE = /^[\s\u200B\u200E\0]+|[\s\u200B\u200E\0]+$/g;
/** Top-level keys TrimStrings leaves as sent (its default `$except`). */
const NEVER_TRIM = new Set(['current_password', 'password', 'password_confirmation']);

/**
 * The input as Laravel's default global middleware hand it to a controller, for query strings and
 * bodies alike: TrimStrings trims every string (at any depth, except the top-level password fields),
 * then ConvertEmptyStringsToNull turns every `''` into null.
 */
export function laravelInput(input: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const clean = (value: unknown, trim: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => clean(v, true));
    if (isPhpArray(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v, true)]));
    }
    if (typeof value !== 'string') return value;
    const text = trim ? value.replace(EDGE_SPACE, '') : value;
    return text === '' ? null : text;
  };
  return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, clean(v, !NEVER_TRIM.has(k))]));
}

const implicitLists = new WeakMap<readonly Rule[], boolean>();
function hasImplicit(list: readonly Rule[]): boolean {
  let has = implicitLists.get(list);
  if (has === undefined) {
    has = list.some((rule) => rule.implicit);
    implicitLists.set(list, has);
  }
  return has;
}

interface FieldResult {
  messages: string[];
  present: boolean;
  value: unknown;
}

async function validateField(
  field: string,
  list: readonly Rule[],
  data: Readonly<Record<string, unknown>>,
  attributeOf: (field: string) => string,
): Promise<[string, FieldResult]> {
  const raw = Object.hasOwn(data, field) ? data[field] : undefined;
  const present = raw !== undefined;
  // Laravel's isValidatable for a rule that is not implicit.
  const validatable = present && !isBlankString(raw) && !(raw === null && list.some((rule) => rule.nullable));
  const ctx: RuleContext = {
    field,
    attribute: attributeOf(field),
    input: data,
    valueType: list.find((rule) => rule.type !== undefined)?.type,
    attributeOf,
  };
  const messages: string[] = [];
  // Laravel's MessageBag drops a field's duplicate messages.
  const add = (message: string): void => {
    if (!messages.includes(message)) messages.push(message);
  };

  // PostgreSQL cannot store U+0000 (Laravel on MySQL would): named here, before any rule or lookup.
  if (validatable && hasNul(raw)) {
    const message = fill('The :attribute field must not contain NUL characters.', {
      attribute: ctx.attribute,
    });
    return [field, { messages: [message], present, value: raw }];
  }

  let value = raw;
  for (const rule of list) {
    if (rule.deferred || !(rule.implicit || validatable)) continue;
    const message = await rule.check(value, ctx);
    if (message === null) {
      if (rule.coerce) value = rule.coerce(value);
      continue;
    }
    add(message);
    // Laravel's shouldStopValidating: only a failed implicit rule ends the field.
    if (rule.implicit) break;
  }

  // Like Laravel skipping unique/exists after an earlier failure, so bad values never reach the database.
  if (messages.length === 0 && validatable) {
    for (const rule of list) {
      if (!rule.deferred) continue;
      const message = await rule.check(value, ctx);
      if (message !== null) {
        add(message);
        break;
      }
    }
  }

  return [field, { messages, present, value }];
}

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(hasNul);
  if (isPhpArray(value)) return Object.entries(value).some(([k, v]) => k.includes('\0') || hasNul(v));
  return false;
}

// ---------------------------------------------------------------------------------------------
// PHP-flavoured helpers

/** PHP's trim() character set; Laravel's emptiness checks use it, not Unicode whitespace. */
function phpTrim(s: string): string {
  return s.replace(/^[ \t\n\r\0\v]+|[ \t\n\r\0\v]+$/g, '');
}

function isBlankString(value: unknown): boolean {
  return typeof value === 'string' && phpTrim(value) === '';
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || isBlankString(value);
}

/** PHP arrays are lists and maps alike, so a JSON object is an "array" too. */
function isPhpArray(value: unknown): value is unknown[] | Record<string, unknown> {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function count(value: unknown[] | Record<string, unknown>): number {
  return Array.isArray(value) ? value.length : Object.keys(value).length;
}

/** Laravel's validateRequired(). */
function isFilled(value: unknown): boolean {
  if (isEmpty(value)) return false;
  return isPhpArray(value) ? count(value) > 0 : true;
}

const NUMERIC_STRING = /^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

/** PHP 8's is_numeric(). */
function isNumeric(value: unknown): value is number | string {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && NUMERIC_STRING.test(value) && Number.isFinite(Number(value));
}

/** PHP's string cast, for rules that compare or match text. */
function phpString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'boolean') return value ? '1' : '';
  return null;
}

/** PHP 8 `==` between two strings: numerically when both are numeric. */
function phpStringsEqual(a: string, b: string): boolean {
  return isNumeric(a) && isNumeric(b) ? Number(a) === Number(b) : a === b;
}

// Field names come from the rule tables, a bounded set: each is worked out once.
const displayNames = new Map<string, string>();

/** Laravel's getDisplayableAttribute(): Str::snake, then underscores to spaces. */
function displayName(field: string): string {
  let shown = displayNames.get(field);
  if (shown === undefined) {
    shown = snakeDisplayName(field);
    if (displayNames.size < 10_000) displayNames.set(field, shown);
  }
  return shown;
}

function snakeDisplayName(field: string): string {
  let name = field;
  if (!/^[a-z]+$/.test(name)) {
    name = name
      .replace(/(^|\s)(\S)/g, (_m, space: string, first: string) => space + first.toUpperCase())
      .replace(/\s+/g, '')
      .replace(/(.)(?=[A-Z])/g, '$1_')
      .toLowerCase();
  }
  return name.replaceAll('_', ' ');
}

/** Laravel's getDisplayableValue() for `:value`. */
function displayValue(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (isPhpArray(value)) return 'array';
  return phpString(value) ?? String(value);
}

function fill(template: string, params: Record<string, string>): string {
  return template.replace(/:([a-z]+)/g, (match, key: string) => params[key] ?? match);
}

// ---------------------------------------------------------------------------------------------
// Rules

type SizeKind = 'string' | 'numeric' | 'array';
type SizedMessages = Record<SizeKind, string>;

const MIN: SizedMessages = {
  string: 'The :attribute field must be at least :min characters.',
  numeric: 'The :attribute field must be at least :min.',
  array: 'The :attribute field must have at least :min items.',
};
const MAX: SizedMessages = {
  string: 'The :attribute field must not be greater than :max characters.',
  numeric: 'The :attribute field must not be greater than :max.',
  array: 'The :attribute field must not have more than :max items.',
};
const BETWEEN: SizedMessages = {
  string: 'The :attribute field must be between :min and :max characters.',
  numeric: 'The :attribute field must be between :min and :max.',
  array: 'The :attribute field must have between :min and :max items.',
};
const SIZE: SizedMessages = {
  string: 'The :attribute field must be :size characters.',
  numeric: 'The :attribute field must be :size.',
  array: 'The :attribute field must contain :size items.',
};
const INVALID_SELECTION = 'The selected :attribute is invalid.';

function simple(
  name: string,
  template: string,
  passes: (value: unknown, ctx: RuleContext) => boolean,
  extra: Partial<Pick<Rule, 'type' | 'coerce' | 'doc'>> = {},
): Rule {
  return {
    name,
    ...extra,
    check: (value, ctx) => (passes(value, ctx) ? null : fill(template, { attribute: ctx.attribute })),
  };
}

// Like Laravel's getSize(), the field's type rule (wherever it sits in the list) picks the measure,
// whatever the value turned out to be (null measures 0); without one, numbers count by value rather
// than Laravel's string length.
function measure(value: unknown, valueType: ValueType | undefined): { kind: SizeKind; size: number } {
  const declared: SizeKind | undefined =
    valueType === 'integer' || valueType === 'numeric'
      ? 'numeric'
      : valueType === 'string' || valueType === 'array'
        ? valueType
        : undefined;
  if (isPhpArray(value)) return { kind: declared ?? 'array', size: count(value) };
  const byValue =
    declared === 'numeric' ? isNumeric(value) : declared === undefined && typeof value === 'number';
  if (byValue) return { kind: declared ?? 'numeric', size: Number(value) };
  // Characters are code points, as mb_strlen counts them.
  return { kind: declared ?? 'string', size: [...(phpString(value) ?? '')].length };
}

function sized(
  name: string,
  messages: SizedMessages,
  params: Record<string, number>,
  passes: (size: number) => boolean,
): Rule {
  const shown = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const doc: RuleDoc =
    params.size !== undefined ? { min: params.size, max: params.size } : { min: params.min, max: params.max };
  return {
    name,
    doc,
    check: (value, ctx) => {
      const measured = measure(value, ctx.valueType);
      return passes(measured.size)
        ? null
        : fill(messages[measured.kind], { ...shown, attribute: ctx.attribute });
    },
  };
}

export function required(): Rule {
  return { ...simple('required', 'The :attribute field is required.', isFilled), implicit: true };
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
): Rule {
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
export function requiredWith(...others: string[]): Rule {
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

export function nullable(): Rule {
  return { name: 'nullable', nullable: true, check: () => null };
}

export function string(): Rule {
  return simple('string', 'The :attribute field must be a string.', (v) => typeof v === 'string', {
    type: 'string',
  });
}

/** JS integers and `/^-?\d+$/` strings within the safe range (coerced to numbers). */
export function integer(): Rule {
  return simple(
    'integer',
    'The :attribute field must be an integer.',
    (v) =>
      (typeof v === 'number' && Number.isSafeInteger(v)) ||
      (typeof v === 'string' && /^-?\d+$/.test(v) && Number.isSafeInteger(Number(v))),
    { type: 'integer', coerce: Number },
  );
}

/** Finite numbers and PHP numeric strings (coerced to numbers). */
export function numeric(): Rule {
  return simple('numeric', 'The :attribute field must be a number.', isNumeric, {
    type: 'numeric',
    coerce: Number,
  });
}

const BOOLEANS = new Map<unknown, boolean>([
  [true, true],
  [false, false],
  [1, true],
  [0, false],
  ['1', true],
  ['0', false],
  ['true', true],
  ['false', false],
]);

export function boolean(): Rule {
  return simple('boolean', 'The :attribute field must be true or false.', (v) => BOOLEANS.has(v), {
    type: 'boolean',
    coerce: (v) => BOOLEANS.get(v),
  });
}

/** Lists, and plain objects (a PHP associative array is an array). */
export function array(): Rule {
  return simple('array', 'The :attribute field must be an array.', isPhpArray, { type: 'array' });
}

export function min(n: number): Rule {
  return sized('min', MIN, { min: n }, (size) => size >= n);
}

export function max(n: number): Rule {
  return sized('max', MAX, { max: n }, (size) => size <= n);
}

/** Longest text a list filter takes by default (Laravel's usual `max:255` for names and emails). */
export const FILTER_MAX_LENGTH = 255;

/**
 * A free-text filter of a list or count: optional, a string, and bounded so that no caller can send
 * a pattern of hundreds of kilobytes to the database.
 */
export function textFilter(maxLength: number = FILTER_MAX_LENGTH): Rule[] {
  return [nullable(), string(), max(maxLength)];
}

export function between(low: number, high: number): Rule {
  return sized('between', BETWEEN, { min: low, max: high }, (size) => size >= low && size <= high);
}

export function size(n: number): Rule {
  return sized('size', SIZE, { size: n }, (s) => s === n);
}

/**
 * Laravel's `in`: compares the value's string form, numerically when both sides are numeric (null
 * reads as `''`).
 */
export function inList(values: readonly (string | number)[]): Rule {
  const allowed = values.map(String);
  const one = (v: unknown): boolean => {
    const text = v === null ? '' : isPhpArray(v) ? null : phpString(v);
    return text !== null && allowed.some((a) => phpStringsEqual(text, a));
  };
  return simple(
    'in',
    INVALID_SELECTION,
    (v, ctx) =>
      // With array(), Laravel checks every element instead.
      ctx.valueType === 'array' && Array.isArray(v) ? v.every(one) : one(v),
    { doc: { enum: values } },
  );
}

// An approximation of egulias/email-validator's RFCValidation (Laravel's default `email`):
// dot-atom or quoted local part; dotted domain labels (Unicode allowed, no edge hyphens) or an IPv4 literal.
const EMAIL =
  /^(?:[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*|"(?:[^"\\\r\n]|\\.)*")@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*|\[\d{1,3}(?:\.\d{1,3}){3}\])$/u;

export function email(): Rule {
  return simple(
    'email',
    'The :attribute field must be a valid email address.',
    (v) => typeof v === 'string' && EMAIL.test(v),
    { doc: { format: 'email' } },
  );
}

const FORMAT_TOKENS: Record<string, { pattern: string; unit: DatePart }> = {
  Y: { pattern: '(\\d{4})', unit: 'year' },
  m: { pattern: '(\\d{2})', unit: 'month' },
  d: { pattern: '(\\d{2})', unit: 'day' },
  H: { pattern: '(\\d{2})', unit: 'hour' },
  i: { pattern: '(\\d{2})', unit: 'minute' },
  s: { pattern: '(\\d{2})', unit: 'second' },
};
type DatePart = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

/** Epoch ms (UTC) of a real calendar date/time, or null. */
function toEpoch(parts: Partial<Record<DatePart, number>>): number | null {
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const epoch = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls 2026-02-30 over into March; a real date survives the round trip.
  const date = new Date(epoch);
  const realDay = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1;
  return realDay && date.getUTCDate() === day ? epoch : null;
}

/**
 * Laravel's `date_format`, strict as PHP's round trip (zero-padded, real dates).
 * Supports the Y m d H i s tokens; anything else is rejected up front rather than half-implemented.
 */
export function dateFormat(format: string): Rule {
  const units: DatePart[] = [];
  let source = '';
  for (const ch of format) {
    const token = FORMAT_TOKENS[ch];
    if (token) {
      units.push(token.unit);
      source += token.pattern;
    } else if (/[a-zA-Z\\]/.test(ch)) {
      throw new Error(`dateFormat: unsupported format character '${ch}' in '${format}'`);
    } else {
      source += ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    }
  }
  const pattern = new RegExp(`^${source}$`);
  const parses = (v: unknown): boolean => {
    const match = typeof v === 'string' ? pattern.exec(v) : null;
    if (!match) return false;
    const parts: Partial<Record<DatePart, number>> = {};
    units.forEach((unit, i) => {
      parts[unit] = Number(match[i + 1]);
    });
    return toEpoch(parts) !== null;
  };
  return {
    name: 'dateFormat',
    type: 'date',
    doc:
      format === 'Y-m-d'
        ? { format: 'date' }
        : { pattern: `^${source}$`, description: `Format \`${format}\`.` },
    check: (value, ctx) =>
      parses(value)
        ? null
        : fill('The :attribute field must match the format :format.', { attribute: ctx.attribute, format }),
  };
}

const DATE_TIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/**
 * A date as Laravel's date comparison reads one (DateTime::createFromFormat, then Carbon::parse), in
 * the shapes clients send: `Y-m-d` with an optional time and zone, digits with or without leading
 * zeros, a day past the month's end rolling over as PHP's does (2026-02-30 is March 2), and `m/d/Y`.
 * Naive values are read as UTC so two naive values compare. Anything else is no date.
 */
function parseDate(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const us = US_DATE.exec(value);
  const m = us ? [value, us[3], us[1], us[2]] : DATE_TIME.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, zone] = m;
  const [month = 0, day = 0, hour = 0, minute = 0, second = 0] = [mo, d, h, mi, s].map((part) =>
    Number(part ?? 0),
  );
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const epoch = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  if (zone === undefined || zone === 'Z') return epoch;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.replace(/[+:-]/g, '');
  return epoch - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

/**
 * Laravel's `after_or_equal:other_field`: a value that is no text fails; it passes when the other
 * field is empty, as Laravel does.
 */
export function afterOrEqual(other: string): Rule {
  const fail = (ctx: RuleContext): string =>
    fill('The :attribute field must be a date after or equal to :date.', {
      attribute: ctx.attribute,
      date: ctx.attributeOf(other),
    });
  return {
    name: 'afterOrEqual',
    doc: { description: `A date after or equal to ${other}.` },
    check: (value, ctx) => {
      if (typeof value !== 'string' && !isNumeric(value)) return fail(ctx);
      const otherValue = ctx.input[other];
      if (isEmpty(otherValue)) return null;
      const mine = parseDate(value);
      const theirs = parseDate(otherValue);
      if (mine !== null && theirs !== null && mine >= theirs) return null;
      return fail(ctx);
    },
  };
}

/**
 * Strictly equal to `<field>_confirmation` in the input, as Laravel's `same` compares (an absent
 * confirmation reads as null, so a null field passes without one).
 */
export function confirmed(): Rule {
  return simple(
    'confirmed',
    'The :attribute field confirmation does not match.',
    (_v, ctx) => (ctx.input[ctx.field] ?? null) === (ctx.input[`${ctx.field}_confirmation`] ?? null),
    { doc: { description: 'Must equal the same field with the `_confirmation` suffix.' } },
  );
}

export function regex(re: RegExp): Rule {
  return simple(
    'regex',
    'The :attribute field format is invalid.',
    (v) => {
      const text = typeof v === 'boolean' ? null : phpString(v);
      // search() ignores a /g regex's lastIndex, so the rule is stateless.
      return text !== null && text.search(re) !== -1;
    },
    { doc: { pattern: re.source } },
  );
}

/** A string that parses as JSON; numbers and `true` pass too, as PHP casts them to JSON text. */
export function json(): Rule {
  return simple('json', 'The :attribute field must be a valid JSON string.', jsonText, {
    doc: { description: 'A JSON text.' },
  });
}

function jsonText(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
}

/** Upper-case ISO 3166-1 alpha-2. */
export function countryCode(): Rule {
  return simple('countryCode', INVALID_SELECTION, (v) => typeof v === 'string' && isCountryCode(v), {
    doc: { pattern: '^[A-Z]{2}$', description: 'An ISO 3166-1 alpha-2 country code.' },
  });
}

/**
 * `check` resolves true when the value exists. Deferred: runs only after the field's other rules
 * passed. Null names no record (Laravel's `where col = null` counts none), so `check` never sees it.
 */
export function exists(check: (value: unknown) => Promise<boolean>, doc?: RuleDoc): Rule {
  return {
    name: 'exists',
    doc: doc ?? { description: "Must name a record of the caller's tenant." },
    deferred: true,
    check: async (value, ctx) =>
      value !== null && (await check(value)) ? null : fill(INVALID_SELECTION, { attribute: ctx.attribute }),
  };
}

/** `check` resolves true when the value is already taken. Deferred like `exists`; null is never looked up. */
export function unique(check: (value: unknown) => Promise<boolean>, doc?: RuleDoc): Rule {
  return {
    name: 'unique',
    doc: doc ?? { description: 'Must not be taken yet.' },
    deferred: true,
    check: async (value, ctx) =>
      value !== null && (await check(value))
        ? fill('The :attribute has already been taken.', { attribute: ctx.attribute })
        : null,
  };
}

/** A one-off rule: `fn` returns the message (`:attribute` is filled in) or null. Runs in order, not deferred. */
export function custom(
  fn: (value: unknown, input: Readonly<Record<string, unknown>>) => string | null | Promise<string | null>,
  doc?: RuleDoc,
): Rule {
  return {
    name: 'custom',
    ...(doc ? { doc } : {}),
    check: async (value, ctx) => {
      const message = await fn(value, ctx.input);
      return message === null ? null : fill(message, { attribute: ctx.attribute });
    },
  };
}

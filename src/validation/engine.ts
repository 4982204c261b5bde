// The rule engine: what a rule is (Rule, RuleContext, RuleDoc), the output types `validate` infers from
// a field's rules (Infer), and `validate` itself, which runs every field's rules and throws one
// ValidationError naming them all. The rule constructors live in ./rules/; this file imports none.
import { laravelInput } from './laravel-input.js';
import { displayName, elementAttribute, fill } from './messages.js';
import { isBlankString, isPhpArray } from './php-values.js';

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
  /** An array's elements are all different (`distinct`). */
  readonly uniqueItems?: boolean;
  /** A regular expression the value matches (ECMA-262). */
  readonly pattern?: string;
  /** A sentence for rules no keyword expresses (`required_if`, `exists`, custom checks). */
  readonly description?: string;
  /** The value the code uses when the field is absent. */
  readonly default?: string | number | boolean;
}

/** Marks a rule's phantom output type; never present at run time. */
declare const OUTPUT: unique symbol;
/** The output of a rule that leaves the value's type as the rules before it made it (min, in, exists…). */
declare const KEEP: unique symbol;
export interface Keep {
  readonly [KEEP]: true;
}

/**
 * One rule of a field. `T` is what a value that passed it is (`string()` → string, `integer()` →
 * number, a custom rule → what its `coerce` returns); `Keep` for rules that only check. The output
 * type of a field is the last such `T` of its list (see `Infer`).
 */
export interface Rule<T = unknown> {
  readonly [OUTPUT]?: T;
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
  /**
   * The failure message, or null when the value passes; or, for a rule on a list's elements
   * (Laravel's `field.*`), the messages of the elements that fail (`elementErrors`).
   */
  check(
    value: unknown,
    ctx: RuleContext,
  ): string | null | ElementErrors | Promise<string | null | ElementErrors>;
  /** The value later rules and the output see, once `check` passed. */
  coerce?(value: unknown): unknown;
}

export type Rules = Record<string, readonly Rule[]>;

/**
 * What a rule on a list's elements answers: each failing element's messages by its key (`0`, `3`);
 * the errors are keyed `field.0`, `field.3` after the field's own, as Laravel keys `field.*`'s.
 */
export interface ElementErrors {
  readonly elements: ReadonlyMap<string, readonly string[]>;
}

/** The elements' errors of a list (null when every element passed), each element's messages in order. */
export function elementErrors(
  list: readonly unknown[],
  messagesOf: (item: unknown, index: number) => readonly string[],
): ElementErrors | null {
  const elements = new Map<string, readonly string[]>();
  list.forEach((item, i) => {
    const messages = messagesOf(item, i);
    if (messages.length > 0) elements.set(String(i), messages);
  });
  return elements.size > 0 ? { elements } : null;
}

/** `nullable()`: a null value passes and is output as null. */
export interface NullableRule extends Rule<Keep> {
  readonly nullable: true;
}
/** `required()`: the field is present and filled in the output. */
export interface RequiredRule extends Rule<Keep> {
  readonly required: true;
}

type OutputOf<R> = R extends { readonly [OUTPUT]?: infer T } ? T : unknown;
/** The last output type a list's rules set (`unknown` when none does). */
type ListOutput<L, Acc = unknown> = L extends readonly [infer Head, ...infer Tail]
  ? ListOutput<Tail, [OutputOf<Head>] extends [Keep] ? Acc : OutputOf<Head>>
  : L extends readonly []
    ? Acc
    : unknown;
type HasRule<L extends readonly Rule[], R> = Extract<L[number], R> extends never ? false : true;

/** What a field with these rules holds once validated (null included when it is nullable). */
export type FieldOutput<L extends readonly Rule[]> =
  | ListOutput<L>
  | (HasRule<L, NullableRule> extends true ? null : never);

type RequiredKeys<R extends Rules> = {
  [K in keyof R]: HasRule<R[K], RequiredRule> extends true ? K : never;
}[keyof R];

/**
 * What `validate(input, rules)` resolves to: required fields present, the others optional, each of
 * its rules' output type. Rules typed only as `Rules` give `Record<string, unknown>`.
 */
export type Infer<R extends Rules> = string extends keyof R
  ? Record<string, unknown>
  : {
      [K in RequiredKeys<R>]: Exclude<FieldOutput<R[K]>, null>;
    } & {
      [K in Exclude<keyof R, RequiredKeys<R>>]?: FieldOutput<R[K]>;
    };

/** What `validateFilters` resolves to: every filter optional, empty ones (null) dropped. */
export type InferFilters<R extends Rules> = string extends keyof R
  ? Record<string, unknown>
  : { [K in keyof R]?: Exclude<FieldOutput<R[K]>, null> };

/**
 * Declares a field → rules record keeping each list's rules as a tuple, so `Infer` can read the
 * field's output type. (`const x: Rules = {…}` would widen every list to `Rule[]`.)
 */
export function rules<const R extends Rules>(r: R): R {
  return r;
}

export interface ValidateOptions {
  /** Display names overriding `country_code` -> `country code`. */
  attributes?: Record<string, string>;
  /**
   * The input is the element of a list at this path (`events.3`): its fields are named as Laravel
   * names a wildcard rule's (`events.3.seen_at`, raw; elementAttribute).
   */
  element?: string;
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
export async function validate<R extends Rules>(
  input: Readonly<Record<string, unknown>>,
  rules: R,
  options: ValidateOptions = {},
): Promise<Infer<R>> {
  const data = laravelInput(input);
  const { attributes, element } = options;
  const attributeOf = (field: string): string =>
    attributes?.[field] ?? (element === undefined ? displayName(field) : elementAttribute(element, field));
  // Laravel shows a nested key (`events.3.mac`) raw, underscores kept: the field's name unspaced.
  const rawAttributeOf = (field: string): string =>
    attributes?.[field] ?? (element === undefined ? field : elementAttribute(element, field));
  const checked: Promise<[string, FieldResult]>[] = [];
  for (const field in rules) {
    const list = rules[field] as readonly Rule[];
    // An absent field meets only implicit rules (required…): a list's thirty filters mostly skip here.
    if ((!Object.hasOwn(data, field) || data[field] === undefined) && !hasImplicit(list)) continue;
    checked.push(validateField(field, list, data, attributeOf, rawAttributeOf));
  }
  const results = await Promise.all(checked);

  const errors: FieldErrors = {};
  const output: Record<string, unknown> = {};
  for (const [field, result] of results) {
    if (result.messages.length > 0) errors[field] = result.messages;
    for (const [key, messages] of result.elements) errors[`${field}.${key}`] = messages;
    if (result.messages.length === 0 && result.elements.size === 0 && result.present)
      output[field] = result.value;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  // The output holds exactly the present fields, each after its rules' coercions (what Infer states).
  return output as Infer<R>;
}

/**
 * Filters of a list: `validate`, then without the filters that came empty (`?type=`, a GraphQL null),
 * which their `nullable()` rules let through and which mean "no filter".
 */
export async function validateFilters<R extends Rules>(
  input: Readonly<Record<string, unknown>>,
  rules: R,
): Promise<InferFilters<R>> {
  const valid: Record<string, unknown> = await validate(input, rules);
  // Without the nulls: what InferFilters states.
  return Object.fromEntries(Object.entries(valid).filter(([, value]) => value !== null)) as InferFilters<R>;
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
  /** Messages of the list's elements, by element key (ElementErrors). */
  elements: Map<string, string[]>;
  present: boolean;
  value: unknown;
}

async function validateField(
  field: string,
  list: readonly Rule[],
  data: Readonly<Record<string, unknown>>,
  attributeOf: (field: string) => string,
  rawAttributeOf: (field: string) => string,
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
  const elements = new Map<string, string[]>();
  // Laravel's MessageBag drops a field's duplicate messages.
  const add = (answer: string | ElementErrors): void => {
    if (typeof answer !== 'string') {
      for (const [key, list] of answer.elements) {
        const known = elements.get(key) ?? [];
        for (const m of list) if (!known.includes(m)) known.push(m);
        elements.set(key, known);
      }
    } else if (!messages.includes(answer)) messages.push(answer);
  };

  // PostgreSQL cannot store U+0000 (Laravel on MySQL would): named here, before any rule or lookup,
  // at the innermost element holding it (`events.3.mac`), so a batch's sender finds it.
  const nulAt = validatable ? nulPath(raw) : null;
  if (nulAt !== null) {
    const key = nulAt.join('.');
    const attribute = key === '' ? ctx.attribute : elementAttribute(rawAttributeOf(field), key);
    const message = fill('The :attribute field must not contain NUL characters.', { attribute });
    if (key === '') return [field, { messages: [message], elements, present, value: raw }];
    return [field, { messages, elements: new Map([[key, [message]]]), present, value: raw }];
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
  if (messages.length === 0 && elements.size === 0 && validatable) {
    for (const rule of list) {
      if (!rule.deferred) continue;
      const message = await rule.check(value, ctx);
      if (message !== null) {
        add(message);
        break;
      }
    }
  }

  return [field, { messages, elements, present, value }];
}

/**
 * Where the value holds a NUL character: `[]` for itself (or a key of it), `['3', 'mac']` for an
 * element's; null for nowhere.
 */
function nulPath(value: unknown): string[] | null {
  if (typeof value === 'string') return value.includes('\0') ? [] : null;
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : isPhpArray(value)
      ? Object.entries(value)
      : [];
  // A key with one cannot be named: the list itself is.
  if (entries.some(([k]) => k.includes('\0'))) return [];
  for (const [k, v] of entries) {
    const inner = nulPath(v);
    if (inner !== null) return [k, ...inner];
  }
  return null;
}

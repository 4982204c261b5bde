// Query strings and form bodies read as PHP's parse_str reads them (php_default_treat_data and
// php_register_variable_ex in main/php_variables.c), so filters and fields judge the values Laravel's
// would. `qs` cannot: it renumbers explicit indexes, keeps a list when a plain value follows it and
// leaves a whole value undecoded for one bad escape. What PHP does, and this does:
// - `a=1&a=2` is "2": the last assignment wins, whatever it replaces (`a[]=x&a=y` is "y"), in the
//   place the key first took;
// - `a[]=x` appends at the largest integer key + 1 (PHP 8.3), `a[k]=x` sets key k; an integer key is
//   canonical decimal text in the 64-bit range (`5`, `-3`; `05` is the string "05");
// - escapes are decoded byte by byte (`+` is a space, `%XX` a byte, a `%` without two hex digits is
//   itself), then each name and value is read as UTF-8, a byte that is none as U+FFFD (as a multipart
//   field's and a form body's raw bytes are read; PHP would keep the byte, which its JSON answer could
//   not encode);
// - a name is cut at a NUL, loses its leading spaces; a name nested deeper than 64 brackets drops its
//   variable, and only the first 1000 variables count (PHP's max_input_nesting_level, max_input_vars).
// Unlike PHP, dots and spaces in names are not turned into underscores (README, "REST conventions").
//
// An array whose keys are all integers is a JS array of its values in PHP's order (`a[5]=x&a[]=y`
// is ["x","y"]; `types[0]=a&types[2]=b`, what http_build_query writes of an array_filter'ed list, is
// a list as Laravel's `array` rule takes it, its elements then named by position); any other is a
// plain object, as a JSON object is (a JS object lists integer keys first, in ascending order).

const MAX_INPUT_VARS = 1000;
const MAX_NESTING_LEVEL = 64;
const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);
const CANONICAL_INTEGER = /^(?:0|-?[1-9]\d{0,18})$/;

/** The integer a key is to PHP (`"5"`, `"-3"`), or null for a string key (`"05"`, `"-0"`, `"x"`). */
function integerKey(key: string): bigint | null {
  if (!CANONICAL_INTEGER.test(key)) return null;
  const n = BigInt(key);
  return n >= LONG_MIN && n <= LONG_MAX ? n : null;
}

/**
 * A PHP array as parse_str fills it: keys in the order they were first set (an integer key by its
 * decimal text: PHP has no string key "5" beside the integer 5), and the next key `[]` takes.
 */
export class PhpArray {
  readonly #items = new Map<string, unknown>();
  /** PHP's nNextFreeElement: null until an integer key is set (then `[]` starts at 0). */
  #next: bigint | null = null;

  get(key: string): unknown {
    return this.#items.get(key);
  }

  /** Sets `key` (in its place when it is there already). */
  set(key: string, value: unknown): void {
    this.#items.set(key, value);
    const n = integerKey(key);
    if (n !== null && (this.#next === null || n >= this.#next)) this.#next = n < LONG_MAX ? n + 1n : LONG_MAX;
  }

  /** `[]`: the next integer key; false (nothing set) when that key is taken (past PHP_INT_MAX). */
  append(value: unknown): boolean {
    const key = String(this.#next ?? 0n);
    if (this.#items.has(key)) return false;
    this.set(key, value);
    return true;
  }

  delete(key: string): void {
    this.#items.delete(key);
  }

  /** array_replace_recursive($this, $other): PHP's `$request->all()` lays the files over the fields so. */
  replaceRecursive(other: PhpArray): void {
    for (const [key, value] of other.#items) {
      const mine = this.#items.get(key);
      if (value instanceof PhpArray && mine instanceof PhpArray) mine.replaceRecursive(value);
      else this.set(key, value);
    }
  }

  /** The top level of the input: an object whatever its keys (`__proto__` is a key like any other). */
  toRecord(): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, value] of this.#items) out[key] = jsValue(value);
    return out;
  }

  #integerKeys(): boolean {
    for (const key of this.#items.keys()) if (integerKey(key) === null) return false;
    return true;
  }

  toJs(): unknown[] | Record<string, unknown> {
    return this.#integerKeys() ? [...this.#items.values()].map(jsValue) : this.toRecord();
  }
}

const jsValue = (value: unknown): unknown => (value instanceof PhpArray ? value.toJs() : value);

/**
 * How many arrays one input may make (PHP has no such bound, but it builds them in C): 1000 names
 * nested 64 deep make 64 000, a quarter of a second of this code for a 200 KB body. Past it, the
 * rest of the input is dropped, as variables past max_input_vars are.
 */
export const MAX_ARRAYS = 10_000;

/** What one input (a query string, a form body, a multipart form) has made so far. */
export interface ParseBudget {
  arrays: number;
}

/**
 * The array `[]` or `[key]` leads to from `table`, made (over any plain value there) when missing;
 * null when `[]` finds no free key or the budget is spent.
 */
function child(table: PhpArray, key: string | null, budget: ParseBudget): PhpArray | null {
  if (key !== null) {
    const found = table.get(key);
    if (found instanceof PhpArray) return found;
  }
  if (++budget.arrays > MAX_ARRAYS) return null;
  const fresh = new PhpArray();
  if (key === null) return table.append(fresh) ? fresh : null;
  table.set(key, fresh);
  return fresh;
}

/** `[` as `_`, byte-wise (it is ASCII): `replaceAll` took 140 ms on a name of 1 MB of `[`. */
function underscored(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x5b) bytes[i] = 0x5f;
  return bytes.toString('utf8');
}

/** A variable's name as PHP reads it: up to a NUL, leading spaces dropped. */
function variableText(name: string): string {
  const nul = name.indexOf('\0');
  return (nul < 0 ? name : name.slice(0, nul)).replace(/^ +/, '');
}

/**
 * php_register_variable_ex: assigns `value` to the variable `name` names in `into`: `a`, `a[k]`,
 * `a[]`, `a[k][]`… (`a[ ]` appends too; text after a `]` not followed by `[` is ignored). A bracket
 * that never closes is no index: at the first level the name is then the whole text with `_` for `[`,
 * deeper the value goes to the key before it.
 */
export function assignPhpVariable(
  into: PhpArray,
  name: string,
  value: unknown,
  budget: ParseBudget = { arrays: 0 },
): void {
  const text = variableText(name);
  const open = text.indexOf('[');
  const base = open < 0 ? text : text.slice(0, open);
  if (base === '') return;
  if (open < 0) {
    into.set(base, value);
    return;
  }
  let table = into;
  let key: string | null = base;
  let at = open;
  for (let level = 1; ; level++) {
    if (level > MAX_NESTING_LEVEL) {
      into.delete(base);
      return;
    }
    const start = at + 1;
    const inner = text[start] === ' ' ? start + 1 : start;
    let next: string | null = null;
    let close = inner;
    if (text[inner] !== ']') {
      close = text.indexOf(']', inner);
      if (close < 0) {
        if (level === 1) into.set(`${base}_${underscored(text.slice(start))}`, value);
        else if (key === null) table.append(value);
        else table.set(key, value);
        return;
      }
      next = text.slice(start, close);
    }
    const found = child(table, key, budget);
    if (found === null) return;
    table = found;
    key = next;
    at = close + 1;
    if (text[at] !== '[') break;
  }
  if (key === null) table.append(value);
  else table.set(key, value);
}

/** PHP's urldecode: `+` a space, `%XX` a byte, anything else as it is; then read as UTF-8. */
function urldecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  const bytes = Buffer.from(text, 'utf8');
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b === 0x2b) bytes[n++] = 0x20;
    else if (b === 0x25 && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      bytes[n++] = Number.parseInt(bytes.toString('latin1', i + 1, i + 3), 16);
      i += 2;
    } else bytes[n++] = b;
  }
  return bytes.toString('utf8', 0, n);
}

function isHex(b: number | undefined): boolean {
  return (
    b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66))
  );
}

/** parse_str($text): a query string, or a form body (`application/x-www-form-urlencoded`). */
export function parsePhpQuery(text: string): Record<string, unknown> {
  const into = new PhpArray();
  const budget: ParseBudget = { arrays: 0 };
  let count = 0;
  for (const pair of text.split('&')) {
    // Empty pieces (`a=1&&b=2`) are no variable and do not count.
    if (pair === '') continue;
    if (++count > MAX_INPUT_VARS || budget.arrays > MAX_ARRAYS) break;
    const eq = pair.indexOf('=');
    assignPhpVariable(
      into,
      urldecode(eq < 0 ? pair : pair.slice(0, eq)),
      eq < 0 ? '' : urldecode(pair.slice(eq + 1)),
      budget,
    );
  }
  return into.toRecord();
}

/** Query parameters whose value is a secret (Laravel's token guard reads `api_token`): never logged. */
const SECRET_PARAMETERS = new Set(['api_token', 'access_token', 'token']);

/**
 * `url` with the value of every secret query parameter written `[redacted]`, its name read as PHP
 * reads it (percent-decoded, `api_token[]` and `api_token[x]` the same variable, leading spaces
 * dropped, `.` and ` ` as `_`, in any case): what a Laravel backend would take for a token is never
 * logged, however it is spelled.
 */
export function redactSecretQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url.slice(q + 1).split('&');
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    // As assignPhpVariable names it: `a[…]` is `a`, and a bracket that never closes is no index
    // (`api[token` is `api_token`); ` ` and `.` are `_`, as PHP makes them.
    const name = variableText(urldecode(part.slice(0, eq)));
    const open = name.indexOf('[');
    const indexed = open >= 0 && name.indexOf(']', open) >= 0;
    const base = (indexed ? name.slice(0, open) : name).replace(/[. []/g, '_').toLowerCase();
    if (!SECRET_PARAMETERS.has(base)) continue;
    parts[i] = `${part.slice(0, eq)}=[redacted]`;
    changed = true;
  }
  return changed ? `${url.slice(0, q + 1)}${parts.join('&')}` : url;
}

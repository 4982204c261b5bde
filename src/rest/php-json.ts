/**
 * JSON writer byte-compatible with PHP's json_encode() as used by the legacy Laravel service.
 *
 * JS has one number type, PHP has int and float: plain numbers are treated as ints and
 * float-typed fields must be wrapped in PhpFloat so whole values keep their `.0`.
 */

export class PhpFloat {
  constructor(readonly value: number) {}

  /**
   * Used by the fast path of phpJsonEncode (JSON.stringify): a float whose JS text is PHP's is
   * written as a number; any other (whole, or in PHP's exponent range) as a placeholder string that
   * the post-pass replaces with PHP's text. Outside an encode it is the plain number.
   */
  toJSON(): number | string {
    const n = this.value;
    if (!fastEncoding || (!Number.isInteger(n) && inFixedRange(n))) return n;
    placeholders++;
    return `${PLACEHOLDER}${encodeFloat(n, true)}`;
  }
}

// State of the fast path while one JSON.stringify runs (synchronous: never shared between calls).
let fastEncoding = false;
let placeholders = 0;
/** Starts a placeholder: a control character and a per-process random tag no real text carries. */
const PLACEHOLDER = `\u0000php-float-${Math.random().toString(36).slice(2, 12)}:`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER).slice(1, -1);

/** Where JS and PHP write a float's digits alike: from 1e-4 up to (not including) 1e17. */
const inFixedRange = (n: number): boolean => {
  const abs = Math.abs(n);
  return abs >= 1e-4 && abs < 1e17;
};

export function phpFloat(n: number | null | undefined): PhpFloat | null {
  return n === null || n === undefined ? null : new PhpFloat(n);
}

// Printable ASCII except `"` and `\`: such strings skip JSON.stringify (the common case).
const NEEDS_STRINGIFY = /[^\u0020\u0021\u0023-\u005b\u005d-\u007f]/;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

// Benchmarked: indexOf/charCode loops that copy slices between escapes are 2-3x faster
// than regex replace with a callback; the per-string regex test above is cheap.
function escapeSlashes(s: string): string {
  let i = s.indexOf('/');
  if (i < 0) return s;
  let out = '';
  let last = 0;
  while (i >= 0) {
    out += `${s.slice(last, i)}\\/`;
    last = i + 1;
    i = s.indexOf('/', last);
  }
  return out + s.slice(last);
}

// Escapes what JSON.stringify leaves raw but PHP does not: `/` and non-ASCII. Works per
// UTF-16 code unit, so astral characters become PHP's surrogate pairs (lowercase hex).
function escapeSlashesAndNonAscii(s: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2f) {
      out += `${s.slice(last, i)}\\/`;
      last = i + 1;
    } else if (c > 0x7f) {
      out += `${s.slice(last, i)}\\u${HEX[c >> 8]}${HEX[c & 0xff]}`;
      last = i + 1;
    }
  }
  return last === 0 ? s : out + s.slice(last);
}

function encodeString(s: string): string {
  if (!NEEDS_STRINGIFY.test(s)) return `"${escapeSlashes(s)}"`;
  // JSON.stringify already matches PHP for quotes, backslash, control chars (lowercase
  // \u00XX) and lone surrogates, and never writes `\/`, so every `/` left is literal.
  return escapeSlashesAndNonAscii(JSON.stringify(s));
}

/** PHP's php_gcvt() with serialize_precision = -1 (shortest round-trip digits). */
function encodeFloat(n: number, forceFraction: boolean): string {
  if (!Number.isFinite(n)) throw new Error(`phpJsonEncode: cannot encode non-finite float ${n}`);
  const abs = Math.abs(n);
  let out: string;
  // PHP switches to exponent form when the decimal point position is < -3 or > 17,
  // i.e. below 1e-4 or from 1e17; inside that range its digits match String(n).
  if (abs === 0) {
    out = Object.is(n, -0) ? '-0' : '0';
  } else if (abs >= 1e-4 && abs < 1e17) {
    out = `${n}`;
  } else {
    // toExponential() without an argument gives the same shortest digits.
    const exp = n.toExponential();
    const e = exp.indexOf('e');
    let mantissa = exp.slice(0, e);
    if (!mantissa.includes('.')) mantissa += '.0';
    out = `${mantissa}e${exp.slice(e + 1)}`;
  }
  if (forceFraction && !out.includes('.')) out += '.0';
  return out;
}

function encodeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return encodeString(value);
    case 'number':
      return Number.isInteger(value) ? `${value}` : encodeFloat(value, false);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? 'null' : encodeObject(value);
    default:
      throw new Error(`phpJsonEncode: cannot encode value of type ${typeof value}`);
  }
}

function encodeObject(value: object): string {
  if (value instanceof PhpFloat) return encodeFloat(value.value, true);
  if (Array.isArray(value)) {
    const len = value.length;
    if (len === 0) return '[]';
    let out = '[';
    for (let i = 0; i < len; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += item === undefined ? 'null' : encodeValue(item);
    }
    return `${out}]`;
  }
  if (value instanceof Date) {
    throw new Error('phpJsonEncode: Date reached the encoder; format dates to strings in the serializer');
  }
  // These would silently become {} with the generic path below.
  if (value instanceof Map || value instanceof Set) {
    throw new Error('phpJsonEncode: cannot encode Map or Set; convert to an object or array first');
  }
  const toJSON: unknown = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return encodeValue(toJSON.call(value));

  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${encodeString(key)}:${encodeValue(item)}`;
  }
  return `${out}}`;
}

/**
 * Whether JSON.stringify writes `value` as PHP would once `/`, non-ASCII and PhpFloats are fixed
 * up afterwards: only plain objects, arrays, strings, booleans, null, integers, floats JS prints
 * like PHP, and PhpFloats. Anything else (Date, Map, bigint, other toJSON, …) takes the exact path,
 * which encodes it or throws as documented.
 */
function fastSafe(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return true;
    case 'number':
      return Number.isInteger(value) || (Number.isFinite(value) && inFixedRange(value));
    case 'object': {
      if (value === null) return true;
      if (value instanceof PhpFloat) return Number.isFinite(value.value);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!fastSafe(value[i])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      const record = value as Record<string, unknown>;
      if ('toJSON' in record) return false;
      for (const key in record) if (!fastSafe(record[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

const HEX4 = (c: number): string => `\\u${HEX[c >> 8]}${HEX[c & 0xff]}`;
const placeholderPattern = new RegExp(
  `"${PLACEHOLDER_JSON.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}([^"]*)"`,
  'g',
);

const SLASH_OR_NON_ASCII = /[/\u0080-\uffff]/g;
const phpEscape = (c: string): string => (c === '/' ? '\\/' : HEX4(c.charCodeAt(0)));

/**
 * JSON.stringify's text with PHP's escapes: `/` as `\/`, every non-ASCII code unit as `\uXXXX`.
 * One native scan: a page's text is copied once, not once per kind of escape.
 */
function phpEscapes(json: string): string {
  return json.replace(SLASH_OR_NON_ASCII, phpEscape);
}

/** A body already written by `phpJsonEncode`, sent as is (one answer shared by several requests). */
export class EncodedJson {
  constructor(readonly text: string) {}
}

/** Encodes like PHP's json_encode($value) with default flags (plus `.0` on whole PhpFloats). */
export function phpJsonEncode(value: unknown): string {
  if (value instanceof EncodedJson) return value.text;
  if (value === undefined) throw new Error('phpJsonEncode: cannot encode undefined');
  // Fast path: the native JSON.stringify, then PHP's escapes in one pass over the text.
  if (typeof value === 'object' && value !== null && fastSafe(value)) {
    fastEncoding = true;
    placeholders = 0;
    let json: string;
    try {
      json = JSON.stringify(value);
    } finally {
      fastEncoding = false;
    }
    if (placeholders > 0) json = json.replace(placeholderPattern, (_m, text: string) => text);
    return phpEscapes(json);
  }
  return encodeValue(value);
}

/** The exact encoder alone, without the fast path (tests compare the two). */
export function phpJsonEncodeExact(value: unknown): string {
  if (value === undefined) throw new Error('phpJsonEncode: cannot encode undefined');
  return encodeValue(value);
}

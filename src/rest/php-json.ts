/**
 * JSON writer byte-compatible with PHP's json_encode() as used by the legacy Laravel service.
 *
 * JS has one number type, PHP has int and float: plain numbers are treated as ints and
 * float-typed fields must be wrapped in PhpFloat so whole values keep their `.0`.
 */

export class PhpFloat {
  constructor(readonly value: number) {}
}

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

/** Encodes like PHP's json_encode($value) with default flags (plus `.0` on whole PhpFloats). */
export function phpJsonEncode(value: unknown): string {
  if (value === undefined) throw new Error('phpJsonEncode: cannot encode undefined');
  return encodeValue(value);
}

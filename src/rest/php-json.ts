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

// Printable ASCII except `"` and `\`: such strings need no JSON.stringify (the common case).
const NEEDS_STRINGIFY = /[^\u0020\u0021\u0023-\u005b\u005d-\u007f]/;
// JSON.stringify leaves non-ASCII raw but PHP escapes it. Without the `u` flag astral
// characters match as two code units, which gives PHP's surrogate pairs.
const NON_ASCII = /[\u0080-\uffff]/g;

function escapeNonAscii(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function encodeString(s: string): string {
  // JSON.stringify never writes `\/`, so every `/` in its output is a literal slash.
  if (!NEEDS_STRINGIFY.test(s)) return s.includes('/') ? `"${s.replaceAll('/', '\\/')}"` : `"${s}"`;
  // JSON.stringify already matches PHP for quotes, backslash, control chars (lowercase
  // \u00XX) and lone surrogates; only `/` and non-ASCII are left to do.
  let out = JSON.stringify(s);
  if (out.includes('/')) out = out.replaceAll('/', '\\/');
  return out.replace(NON_ASCII, escapeNonAscii);
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
    out = String(n);
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
      return Number.isInteger(value) ? String(value) : encodeFloat(value, false);
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

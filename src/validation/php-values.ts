// PHP's value semantics the rules reproduce: emptiness, arrays, numeric strings, the string cast and `==`.

/** PHP's trim() character set; Laravel's emptiness checks use it, not Unicode whitespace. */
function phpTrim(s: string): string {
  return s.replace(/^[ \t\n\r\0\v]+|[ \t\n\r\0\v]+$/g, '');
}

export function isBlankString(value: unknown): boolean {
  return typeof value === 'string' && phpTrim(value) === '';
}

export function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || isBlankString(value);
}

/** PHP arrays are lists and maps alike, so a JSON object is an "array" too. */
export function isPhpArray(value: unknown): value is unknown[] | Record<string, unknown> {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A multipart file part as received (src/http/multipart.ts): for routes with `rawFileParts`, and in
 * any field that reads no file, where rules see it as Laravel's see an UploadedFile (no text; sized
 * in kilobytes).
 */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly mimetype: string,
    readonly bytes: Buffer,
  ) {}
}

export function count(value: unknown[] | Record<string, unknown>): number {
  return Array.isArray(value) ? value.length : Object.keys(value).length;
}

/** Laravel's validateRequired(). */
export function isFilled(value: unknown): boolean {
  if (isEmpty(value)) return false;
  return isPhpArray(value) ? count(value) > 0 : true;
}

const NUMERIC_STRING = /^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

/** PHP 8's is_numeric(). */
export function isNumeric(value: unknown): value is number | string {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && NUMERIC_STRING.test(value) && Number.isFinite(Number(value));
}

/** PHP's string cast, for rules that compare or match text. */
export function phpString(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'boolean') return value ? '1' : '';
  return null;
}

/** PHP 8 `==` between two strings: numerically when both are numeric. */
export function phpStringsEqual(a: string, b: string): boolean {
  return isNumeric(a) && isNumeric(b) ? Number(a) === Number(b) : a === b;
}

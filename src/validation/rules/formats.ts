// Format and choice rules: inList, email, regex, json, countryCode, ip, url.
import { isIP } from 'node:net';
import { isCountryCode } from '../countries.js';
import type { Keep, Rule } from '../engine.js';
import { INVALID_SELECTION } from '../messages.js';
import { isPhpArray, phpString, phpStringsEqual } from '../php-values.js';
import { simple } from './simple.js';

/**
 * Laravel's `in`: compares the value's string form, numerically when both sides are numeric (null
 * reads as `''`).
 */
export function inList(values: readonly (string | number)[]): Rule<Keep> {
  const allowed = values.map(String);
  const one = (v: unknown): boolean => {
    const text = v === null ? '' : isPhpArray(v) ? null : phpString(v);
    return text !== null && allowed.some((a) => phpStringsEqual(text, a));
  };
  return simple(
    'in',
    INVALID_SELECTION,
    (v, ctx) =>
      // With array(), Laravel checks every element instead (a map's values too).
      ctx.valueType === 'array' && isPhpArray(v) ? Object.values(v).every(one) : one(v),
    { doc: { enum: values } },
  );
}

// An approximation of egulias/email-validator's RFCValidation (Laravel's default `email`):
// dot-atom or quoted local part; dotted domain labels (Unicode allowed, no edge hyphens) or an IPv4 literal.
const EMAIL =
  /^(?:[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*|"(?:[^"\\\r\n]|\\.)*")@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*|\[\d{1,3}(?:\.\d{1,3}){3}\])$/u;

export function email(): Rule<Keep> {
  return simple(
    'email',
    'The :attribute field must be a valid email address.',
    (v) => typeof v === 'string' && EMAIL.test(v),
    { doc: { format: 'email' } },
  );
}

export function regex(re: RegExp): Rule<Keep> {
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
export function json(): Rule<Keep> {
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
export function countryCode(): Rule<Keep> {
  return simple('countryCode', INVALID_SELECTION, (v) => typeof v === 'string' && isCountryCode(v), {
    doc: { pattern: '^[A-Z]{2}$', description: 'An ISO 3166-1 alpha-2 country code.' },
  });
}

/**
 * An IPv4 or IPv6 address as PHP's FILTER_VALIDATE_IP takes it: Node's isIP, less the IPv6 zone
 * (`fe80::1%eth0`), which PHP refuses and no stored address carries.
 */
export const isPhpIp = (v: string): boolean => isIP(v) !== 0 && !v.includes('%');

/** Laravel's `ip`: an IPv4 or IPv6 address (PHP's FILTER_VALIDATE_IP). */
export function ip(): Rule<Keep> {
  return simple(
    'ip',
    'The :attribute field must be a valid IP address.',
    (v) => typeof v === 'string' && isPhpIp(v),
    { doc: { description: 'An IPv4 or IPv6 address.' } },
  );
}

/**
 * Laravel's `url` (with protocols, `url:http,https`): an absolute URL written `scheme://…` with a
 * host, without spaces, whose scheme is one of `protocols` (any when none is given).
 */
export function url(protocols: readonly string[] = []): Rule<Keep> {
  return simple(
    'url',
    'The :attribute field must be a valid URL.',
    (v) => {
      // A backslash is no URL character (Laravel's pattern refuses it); WHATWG's parser reads it as `/`,
      // so `http://a\@b` would be stored reading as host b while it reaches host a.
      if (typeof v !== 'string' || /[\s\\]/.test(v)) return false;
      let parsed: URL;
      try {
        parsed = new URL(v);
      } catch {
        return false;
      }
      const scheme = parsed.protocol.slice(0, -1).toLowerCase();
      if (protocols.length > 0 && !protocols.includes(scheme)) return false;
      // The host is written right after `//` (WHATWG's parser would read `http:///x` as host `x`).
      const afterSlashes = v.slice(scheme.length + 3);
      return (
        parsed.hostname !== '' && v.toLowerCase().startsWith(`${scheme}://`) && !/^[/\\?#]/.test(afterSlashes)
      );
    },
    {
      doc: {
        format: 'uri',
        ...(protocols.length > 0 ? { description: `A URL (${protocols.join(' or ')}).` } : {}),
      },
    },
  );
}

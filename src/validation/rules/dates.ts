// Date rules: dateFormat (strict, as PHP's round trip) and afterOrEqual (dates read as Laravel compares them).
import { storableInstant } from '../../shared/dates.js';
import type { Keep, Rule, RuleContext } from '../engine.js';
import { fill } from '../messages.js';
import { isEmpty, isNumeric } from '../php-values.js';

const FORMAT_TOKENS: Record<string, { pattern: string; unit: DatePart }> = {
  Y: { pattern: '(\\d{4})', unit: 'year' },
  m: { pattern: '(\\d{2})', unit: 'month' },
  d: { pattern: '(\\d{2})', unit: 'day' },
  H: { pattern: '(\\d{2})', unit: 'hour' },
  i: { pattern: '(\\d{2})', unit: 'minute' },
  s: { pattern: '(\\d{2})', unit: 'second' },
};
type DatePart = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

/**
 * The UTC moment of the calendar parts, a day past the month's end rolling over (2026-02-30 into
 * March). setUTCFullYear, not Date.UTC: that reads the years 0–99 as 1900–1999 (PHP's `Y` takes 0001).
 */
export function utcDate(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  return date;
}

/** Epoch ms (UTC) of a real calendar date/time, or null. */
function toEpoch(parts: Partial<Record<DatePart, number>>): number | null {
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const date = utcDate(year, month, day, hour, minute, second);
  const epoch = date.getTime();
  if (!storableInstant(epoch)) return null;
  // A real date survives the round trip (a rolled-over one does not).
  const realDay = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1;
  return realDay && date.getUTCDate() === day ? epoch : null;
}

/** Epoch ms of a real `YYYY-MM-DD` day at 00:00 UTC, as `date_format:Y-m-d` takes it (0001–9999), or null. */
export function parseYmd(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  return m ? toEpoch({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }) : null;
}

/**
 * Laravel's `date_format`, strict as PHP's round trip (zero-padded, real dates).
 * Supports the Y m d H i s tokens; anything else is rejected up front rather than half-implemented.
 */
export function dateFormat(format: string): Rule<string> {
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

/**
 * A time of day after a date: `10:05`, `10:05:07.25`, with a zone (`Z`, `+01:00`, `+0100`, `+01`) or
 * none, a space before it or not (`10:00:00 +01:00`, as PHP's parser reads it; probe X); `t` and `z`
 * in either case, as RFC 3339 and PHP's parser take them (probe T).
 */
const TIME = '(?:[ Tt](\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d+))?)? ?([Zz]|[+-]\\d{2}(?::?\\d{2})?)?)?$';

/**
 * The numeric date shapes PHP's date parser reads (strtotime, date_parse), each with the order of its
 * year, month and day: ISO `2026-11-29` and `2026/11/29`, American `11/29/2026`, and day first with
 * dashes or dots, `29-11-2026` and `29.11.2026` (it was refused; probe W).
 */
const DATE_SHAPES: readonly { pattern: RegExp; order: readonly [number, number, number] }[] = [
  { pattern: new RegExp(`^(\\d{4})-(\\d{1,2})-(\\d{1,2})${TIME}`), order: [0, 1, 2] },
  { pattern: new RegExp(`^(\\d{4})/(\\d{1,2})/(\\d{1,2})${TIME}`), order: [0, 1, 2] },
  { pattern: new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{4})${TIME}`), order: [2, 0, 1] },
  { pattern: new RegExp(`^(\\d{1,2})[-.](\\d{1,2})[-.](\\d{4})${TIME}`), order: [2, 1, 0] },
];

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction: string;
  zone: string | undefined;
}

/** The parts of a date in one of DATE_SHAPES, as written (not yet checked against a calendar). */
function dateParts(value: string): DateParts | null {
  for (const { pattern, order } of DATE_SHAPES) {
    const m = pattern.exec(value);
    if (!m) continue;
    const ymd = [m[1], m[2], m[3]].map(Number);
    const [h, mi, sec] = [m[4], m[5], m[6]].map((part) => Number(part ?? 0));
    return {
      year: ymd[order[0]] ?? 0,
      month: ymd[order[1]] ?? 0,
      day: ymd[order[2]] ?? 0,
      hour: h ?? 0,
      minute: mi ?? 0,
      second: sec ?? 0,
      fraction: m[7] ?? '',
      zone: m[8],
    };
  }
  return null;
}

/**
 * An instant to the microsecond, as Carbon keeps one: whole milliseconds since the epoch and the
 * microseconds past them (0–999). Two numbers, as one float of microseconds loses the last digits in
 * far years (probe V: `9999-12-31T23:59:59.99999Z` rounded past the last storable instant).
 */
interface Instant {
  ms: number;
  us: number;
}

const notBefore = (a: Instant, b: Instant): boolean => a.ms > b.ms || (a.ms === b.ms && a.us >= b.us);

/**
 * A date as Laravel's date comparison reads one (DateTime::createFromFormat, then Carbon::parse), in
 * the shapes clients send: `Y-m-d` with an optional time and zone, digits with or without leading
 * zeros, a day past the month's end rolling over as PHP's does (2026-02-30 is March 2), and `m/d/Y`.
 * Naive values are read as UTC so two naive values compare. Anything else is no date.
 */
function parseDate(value: unknown): Instant | null {
  const p = typeof value === 'string' ? dateParts(value) : null;
  return p && instantOf(p);
}

/** The instant of a date's parts (parseDate), or null for a time or offset no clock has, or one the database cannot hold. */
function instantOf(p: DateParts): Instant | null {
  const { month, day, hour, minute, second, zone } = p;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  // The fraction to the microsecond, as Carbon keeps it (`.2` and `.5` of one second compare).
  const micros = Number(p.fraction.slice(0, 6).padEnd(6, '0'));
  let ms = utcDate(p.year, month, day, hour, minute, second).getTime() + Math.floor(micros / 1000);
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.replace(/[+:-]/g, '');
    const [offsetHours, offsetMinutes] = [Number(digits.slice(0, 2)), Number(digits.slice(2) || 0)];
    // An offset no clock has (`+05:99`, `+99:00`) is no date: it was read as another offset (probe T).
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    ms -= sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  // A moment the database cannot hold (year 0, or past 9999 once its offset is applied) is no date.
  return storableInstant(ms) ? { ms, us: micros % 1000 } : null;
}

/**
 * Laravel's `after_or_equal:other_field`: a value that is no text fails; it passes when the other
 * field is empty, as Laravel does.
 */
export function afterOrEqual(other: string): Rule<Keep> {
  const fail = (ctx: RuleContext): string =>
    fill('The :attribute field must be a date after or equal to :date.', {
      attribute: ctx.attribute,
      date: ctx.attributeOf(other),
    });
  return {
    name: 'afterOrEqual',
    doc: { description: `A date after or equal to ${other}.` },
    check: (value, ctx) => {
      // A Date: what `date()` made of the text before this rule.
      if (!(value instanceof Date) && typeof value !== 'string' && !isNumeric(value)) return fail(ctx);
      const otherValue = ctx.input[other];
      if (isEmpty(otherValue)) return null;
      // Read as sent, not as that Date: `date()` keeps the millisecond only.
      const mine = parseDate(ctx.input[ctx.field]);
      const theirs = parseDate(otherValue);
      if (mine !== null && theirs !== null && notBefore(mine, theirs)) return null;
      return fail(ctx);
    },
  };
}

/** The days of `month` (1–12) of `year`, for a calendar check (`date`, the ingest's date-times). */
export const daysIn = (year: number, month: number): number =>
  new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * Laravel's `date`: a date (and time) in the shapes parseDate reads, on a real calendar day, as PHP's
 * `checkdate` requires (2026-02-30 is refused). The value is output as a Date (naive values in UTC),
 * cut to the millisecond; `upTo: 'ceil'` rounds a fraction of one up instead, for an inclusive lower
 * bound on a column of milliseconds (`since` .137001 takes no event of .137).
 */
export function date(opts: { upTo?: 'floor' | 'ceil' } = {}): Rule<Date> {
  const epochOf = (value: unknown): number | null => {
    const p = typeof value === 'string' ? dateParts(value) : null;
    // A day the calendar has, as PHP's `checkdate` requires (2026-02-30 is refused here).
    if (p === null || p.day > daysIn(p.year, p.month)) return null;
    const instant = instantOf(p);
    if (instant === null) return null;
    // To the millisecond a Date holds (parseDate keeps the microseconds, as Carbon does).
    // Rounded up, still a moment the database holds (past 9999's last one there is nothing anyway).
    return opts.upTo === 'ceil' && instant.us > 0 && storableInstant(instant.ms + 1)
      ? instant.ms + 1
      : instant.ms;
  };
  return {
    name: 'date',
    type: 'date',
    // Not JSON Schema's `date-time`: a date alone (`2027-01-01`) is a date too, as Laravel's `date` reads it.
    doc: { description: 'A date (`YYYY-MM-DD`) or a date-time (ISO 8601; without a zone: UTC).' },
    check: (value, ctx) =>
      epochOf(value) === null
        ? fill('The :attribute field must be a valid date.', { attribute: ctx.attribute })
        : null,
    coerce: (value) => new Date(epochOf(value) ?? Number.NaN),
  };
}

/**
 * Laravel's `after:now`: a date later than the moment of the check; a value that is no date fails
 * too (after `date`, as Laravel's rules run without `bail`).
 */
export function afterNow(): Rule<Keep> {
  return {
    name: 'afterNow',
    doc: { description: 'A moment in the future.' },
    check: (value, ctx) => {
      const epoch = value instanceof Date ? value.getTime() : (parseDate(value)?.ms ?? null);
      return epoch !== null && !Number.isNaN(epoch) && epoch > Date.now()
        ? null
        : fill('The :attribute field must be a date after :date.', { attribute: ctx.attribute, date: 'now' });
    },
  };
}

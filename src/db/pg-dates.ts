// PostgreSQL's text forms of `date`, `timestamp` and `timestamptz` read into Dates as Prisma reads
// them (`date` and `timestamp` as UTC). A page of 100 rows carries about a thousand of them, so the
// usual shapes are read digit by digit; any other (BC years, infinity, an offset other than UTC,
// a year before 1000) goes to the general parsers, which give the same answer more slowly.
import pg from 'pg';

const generalTimestampTz = pg.types.getTypeParser(1184, 'text') as (s: string) => Date;

const ZERO = 48;
const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - ZERO;
  return d >= 0 && d <= 9 ? d : Number.NaN;
};
const two = (s: string, i: number): number => digit(s, i) * 10 + digit(s, i + 1);

/**
 * Milliseconds since the epoch of midnight UTC of the `yyyy-mm-dd` at the start of `s`, or NaN for
 * another shape. Date.UTC reads years 0–99 as 19xx: those are NaN here and take the general path.
 */
function dayMillis(s: string): number {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return Number.NaN;
  const year = two(s, 0) * 100 + two(s, 2);
  if (!(year >= 1000)) return Number.NaN;
  return Date.UTC(year, two(s, 5) - 1, two(s, 8));
}

/**
 * Milliseconds since the epoch of `yyyy-mm-dd hh:mm:ss[.f…]` followed by `suffix` (`''` or `+00`),
 * or NaN for anything else. Digits past the third of the fraction are dropped, as Date does.
 */
function utcMillis(s: string, suffix: string): number {
  if (s.charCodeAt(10) !== 32 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return Number.NaN;
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(19) === 46) {
    i = 20;
    let scale = 100;
    while (i < s.length) {
      const n = digit(s, i);
      if (Number.isNaN(n)) break;
      ms += n * scale;
      scale /= 10;
      i++;
    }
    ms = Math.floor(ms);
  }
  if (s.length - i !== suffix.length || (suffix && !s.endsWith(suffix))) return Number.NaN;
  return dayMillis(s) + ((two(s, 11) * 60 + two(s, 14)) * 60 + two(s, 17)) * 1000 + ms;
}

/** `date` as midnight UTC. */
export function parseDate(s: string): Date {
  const t = s.length === 10 ? dayMillis(s) : Number.NaN;
  return Number.isNaN(t) ? new Date(`${s}T00:00:00Z`) : new Date(t);
}

/** `timestamp` (no time zone): the columns hold UTC wall time. */
export function parseTimestamp(s: string): Date {
  const t = utcMillis(s, '');
  return Number.isNaN(t) ? new Date(`${s.replace(' ', 'T')}Z`) : new Date(t);
}

/** `timestamptz`: read fast when the session's time zone is UTC (`+00`), else by pg's own parser. */
export function parseTimestampTz(s: string): Date {
  const t = utcMillis(s, '+00');
  return Number.isNaN(t) ? generalTimestampTz(s) : new Date(t);
}

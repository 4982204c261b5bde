/** Pure formatting helpers matching the legacy Laravel output. */

const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years toISOString writes with 4 digits. */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;

/** `yyyy-mm-ddT` of a day since the epoch, by arithmetic (days to a civil date, H. Hinnant's algorithm). */
function civilDay(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const y = year < 1000 ? String(year).padStart(4, '0') : String(year);
  return `${y}-${PAD2[month]}-${PAD2[day]}T`;
}

// The days of a page repeat (a session's start and end, a guest's visits): each is written once.
const dayTexts = new Map<number, { prefix: string; date: string }>();
const MAX_CACHED_DAYS = 4096;

function dayText(days: number): { prefix: string; date: string } {
  let text = dayTexts.get(days);
  if (text === undefined) {
    const prefix = civilDay(days);
    text = { prefix, date: prefix.slice(0, -1) };
    if (dayTexts.size >= MAX_CACHED_DAYS) dayTexts.clear();
    dayTexts.set(days, text);
  }
  return text;
}

/** `hh:mm:` of each minute of a day, and `.mmm000Z` of each millisecond: a date is four pieces. */
const MINUTES = Array.from({ length: 1440 }, (_, i) => `${PAD2[Math.floor(i / 60)]}:${PAD2[i % 60]}:`);
const MILLIS_MICROS_Z = PAD3.map((ms) => `.${ms}000Z`);

/**
 * `yyyy-mm-ddThh:mm:ss.mmm000Z` of a UTC time by arithmetic: a page of sessions writes thousands,
 * and toISOString was most of their cost.
 */
function utcIsoMicros(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const inDay = ms - days * 86_400_000;
  const minute = Math.floor(inDay / 60_000);
  const rest = inDay - minute * 60_000;
  const sec = Math.floor(rest / 1000);
  return `${dayText(days).prefix}${MINUTES[minute]}${PAD2[sec]}${MILLIS_MICROS_Z[rest - sec * 1000]}`;
}

/** `2026-11-21T09:05:03.123000Z`: Laravel/Carbon's default JSON date (microseconds). */
export function isoMicros(d: Date | null | undefined): string | null {
  if (!d) return null;
  const ms = d.getTime();
  // Outside four-digit years (and for an invalid date, which throws) toISOString decides.
  if (!(ms >= FIRST_MS && ms <= LAST_MS)) return `${d.toISOString().slice(0, 23)}000Z`;
  return utcIsoMicros(ms);
}

/** `2026-11-21T09:05:03+00:00` (UTC, no fraction). */
export function isoOffset(d: Date | null | undefined): string | null {
  if (!d) return null;
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

/** `2026-11-21` (UTC date part). */
export function dateOnly(d: Date | null | undefined): string | null {
  if (!d) return null;
  const ms = d.getTime();
  if (!(ms >= FIRST_MS && ms <= LAST_MS)) return d.toISOString().slice(0, 10);
  return dayText(Math.floor(ms / 86_400_000)).date;
}

// Building Intl formatters is expensive, so keep one per zone. Zone names come from
// stored data, so the cache is bounded in case callers pass arbitrary strings.
const MAX_CACHED_ZONES = 500;
const displayFormatters = new Map<string, Intl.DateTimeFormat>();

function createDisplayFormatter(timeZone: string): Intl.DateTimeFormat {
  // Fixed calendar and digits so the output never depends on the host locale.
  return new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: 'numeric',
    minute: '2-digit',
    hourCycle: 'h12',
  });
}

function displayFormatter(timeZone: string): Intl.DateTimeFormat {
  let fmt = displayFormatters.get(timeZone);
  if (fmt) return fmt;
  try {
    fmt = createDisplayFormatter(timeZone);
  } catch {
    // Unknown zone: show UTC rather than failing the whole response.
    fmt = displayFormatter('UTC');
  }
  if (displayFormatters.size >= MAX_CACHED_ZONES) displayFormatters.clear();
  displayFormatters.set(timeZone, fmt);
  return fmt;
}

/** `2026-11-21 9:05 AM` in the given IANA time zone (12-hour clock, hour not padded). */
export function localDisplay(d: Date | null | undefined, timeZone: string): string | null {
  if (!d) return null;
  let year = '';
  let month = '';
  let day = '';
  let hour = '';
  let minute = '';
  let dayPeriod = '';
  for (const part of displayFormatter(timeZone).formatToParts(d)) {
    switch (part.type) {
      case 'year':
        year = part.value.padStart(4, '0');
        break;
      case 'month':
        month = part.value;
        break;
      case 'day':
        day = part.value;
        break;
      case 'hour':
        hour = part.value;
        break;
      case 'minute':
        minute = part.value;
        break;
      case 'dayPeriod':
        dayPeriod = part.value.toUpperCase();
        break;
    }
  }
  return `${year}-${month}-${day} ${hour}:${minute} ${dayPeriod}`;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `HH:MM:SS` with hours growing past 24 (`49:03:10`); negative/non-finite -> 0. */
export function hms(totalSeconds: number): string {
  const total = Number.isFinite(totalSeconds) && totalSeconds > 0 ? Math.floor(totalSeconds) : 0;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return `${pad2(hours)}:${pad2(minutes)}:${pad2(total % 60)}`;
}

const SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1024-based size with up to two decimals: `1.5 KB`, `12.34 MB`; stays in TB beyond. */
export function humanSize(bytes: number | bigint): string {
  let value = Number(bytes);
  if (!Number.isFinite(value) || value < 0) value = 0;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // The unit is picked before rounding (like the usual PHP round()-based helper), so
  // 1023.999 KB shows as `1024 KB`, not `1 MB`.
  return `${Math.round(value * 100) / 100} ${SIZE_UNITS[unit]}`;
}

/**
 * A finite number as plain decimal text, as a Laravel decimal column reads: JavaScript's shortest
 * round-trip digits with any exponent written out (1e-7 → `0.0000001`, 1e21 → `1` and 21 zeros);
 * zero, either sign, is `0`.
 */
export function decimalText(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`decimalText: not a finite number: ${n}`);
  if (n === 0) return '0';
  const text = String(n);
  const e = text.indexOf('e');
  if (e < 0) return text;
  // `d[.ddd]e±x`: the point sits after the first digit, moved by the exponent.
  const sign = n < 0 ? '-' : '';
  const mantissa = text.slice(sign.length, e);
  const digits = mantissa.replace('.', '');
  const point = 1 + Number(text.slice(e + 1));
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

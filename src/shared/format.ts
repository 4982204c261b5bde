/** Pure formatting helpers matching the legacy Laravel output. */

/** `2026-11-21T09:05:03.123000Z`: Laravel/Carbon's default JSON date (microseconds). */
export function isoMicros(d: Date | null | undefined): string | null {
  if (!d) return null;
  return `${d.toISOString().slice(0, 23)}000Z`;
}

/** `2026-11-21T09:05:03+00:00` (UTC, no fraction). */
export function isoOffset(d: Date | null | undefined): string | null {
  if (!d) return null;
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

/** `2026-11-21` (UTC date part). */
export function dateOnly(d: Date | null | undefined): string | null {
  if (!d) return null;
  return d.toISOString().slice(0, 10);
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

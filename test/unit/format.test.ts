import { describe, expect, it } from 'vitest';
import { dateOnly, hms, humanSize, isoMicros, isoOffset, localDisplay } from '../../src/shared/format.js';

const d = new Date('2026-11-21T09:05:03.123Z');

describe('ISO date formats', () => {
  it('isoMicros writes what toISOString writes, for any time of years 0000 to 9999 and beyond', () => {
    const viaIso = (d: Date) => `${d.toISOString().slice(0, 23)}000Z`;
    const edges = [
      -62_167_219_200_000, // 0000-01-01T00:00:00.000Z
      253_402_300_799_999, // 9999-12-31T23:59:59.999Z
      -1,
      0,
      1,
      951_782_400_000,
      951_868_799_999, // around 1970 and 2000-02-29
      Date.UTC(1900, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    ];
    const random = Array.from({ length: 20_000 }, () =>
      Math.floor(-62_167_219_200_000 + Math.random() * (253_402_300_799_999 + 62_167_219_200_000)),
    );
    for (const ms of [...edges, ...random])
      expect(isoMicros(new Date(ms)), String(ms)).toBe(viaIso(new Date(ms)));
    // Past four-digit years toISOString's own form stays, as before.
    const later = new Date(253_402_300_800_000);
    expect(isoMicros(later)).toBe(viaIso(later));
    expect(() => isoMicros(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('isoMicros writes six fraction digits in UTC', () => {
    expect(isoMicros(d)).toBe('2026-11-21T09:05:03.123000Z');
    expect(isoMicros(new Date('2026-01-02T00:00:00Z'))).toBe('2026-01-02T00:00:00.000000Z');
  });

  it('isoOffset writes UTC with +00:00 and no fraction', () => {
    expect(isoOffset(d)).toBe('2026-11-21T09:05:03+00:00');
  });

  it('dateOnly writes the UTC date part', () => {
    expect(dateOnly(d)).toBe('2026-11-21');
    expect(dateOnly(new Date('2026-11-21T23:59:59.999Z'))).toBe('2026-11-21');
  });

  it('dateOnly writes what toISOString writes, the same day twice alike (its texts are cached)', () => {
    const random = Array.from({ length: 20_000 }, () =>
      Math.floor(-62_167_219_200_000 + Math.random() * (253_402_300_799_999 + 62_167_219_200_000)),
    );
    for (const ms of [-62_167_219_200_000, 253_402_300_799_999, -1, 0, 253_402_300_800_000, ...random]) {
      const expected = new Date(ms).toISOString().slice(0, 10);
      expect(dateOnly(new Date(ms)), String(ms)).toBe(expected);
      expect(dateOnly(new Date(ms)), String(ms)).toBe(expected);
    }
  });

  it('passes null and undefined through as null', () => {
    for (const fn of [isoMicros, isoOffset, dateOnly]) {
      expect(fn(null)).toBeNull();
      expect(fn(undefined)).toBeNull();
    }
    expect(localDisplay(null, 'UTC')).toBeNull();
    expect(localDisplay(undefined, 'UTC')).toBeNull();
  });
});

describe('localDisplay', () => {
  it('writes yyyy-mm-dd h:mm AM/PM without a leading hour zero', () => {
    expect(localDisplay(d, 'UTC')).toBe('2026-11-21 9:05 AM');
    expect(localDisplay(new Date('2026-11-21T21:45:00Z'), 'UTC')).toBe('2026-11-21 9:45 PM');
  });

  it('writes 12 for the hour after midnight and after noon', () => {
    expect(localDisplay(new Date('2026-11-21T00:30:00Z'), 'UTC')).toBe('2026-11-21 12:30 AM');
    expect(localDisplay(new Date('2026-11-21T12:05:00Z'), 'UTC')).toBe('2026-11-21 12:05 PM');
    expect(localDisplay(new Date('2026-11-21T00:00:00Z'), 'UTC')).toBe('2026-11-21 12:00 AM');
    expect(localDisplay(new Date('2026-11-21T11:59:00Z'), 'UTC')).toBe('2026-11-21 11:59 AM');
  });

  it('converts to a non-UTC zone, crossing the date line', () => {
    // Dubai is UTC+4 all year.
    expect(localDisplay(d, 'Asia/Dubai')).toBe('2026-11-21 1:05 PM');
    expect(localDisplay(new Date('2026-11-21T21:10:00Z'), 'Asia/Dubai')).toBe('2026-11-22 1:10 AM');
  });

  it('follows DST in America/New_York', () => {
    // DST ends 2026-11-01 at 06:00Z: EDT (UTC-4) before, EST (UTC-5) after.
    expect(localDisplay(new Date('2026-11-01T05:30:00Z'), 'America/New_York')).toBe('2026-11-01 1:30 AM');
    expect(localDisplay(new Date('2026-11-01T06:30:00Z'), 'America/New_York')).toBe('2026-11-01 1:30 AM');
    expect(localDisplay(new Date('2026-07-04T16:00:00Z'), 'America/New_York')).toBe('2026-07-04 12:00 PM');
    expect(localDisplay(d, 'America/New_York')).toBe('2026-11-21 4:05 AM');
    // Late evening in New York is already the next day in UTC.
    expect(localDisplay(new Date('2026-11-21T03:00:00Z'), 'America/New_York')).toBe('2026-11-20 10:00 PM');
  });

  it('falls back to UTC for an unknown zone', () => {
    expect(localDisplay(d, 'Not/AZone')).toBe('2026-11-21 9:05 AM');
    expect(localDisplay(d, '')).toBe('2026-11-21 9:05 AM');
    // Second call hits the cache.
    expect(localDisplay(d, 'Not/AZone')).toBe('2026-11-21 9:05 AM');
  });
});

describe('hms', () => {
  it('pads and grows hours past 24', () => {
    expect(hms(0)).toBe('00:00:00');
    expect(hms(59)).toBe('00:00:59');
    expect(hms(3600)).toBe('01:00:00');
    expect(hms(86399)).toBe('23:59:59');
    expect(hms(49 * 3600 + 3 * 60 + 10)).toBe('49:03:10');
    expect(hms(100 * 3600)).toBe('100:00:00');
  });

  it('floors fractions and treats negative or non-finite input as 0', () => {
    expect(hms(61.999)).toBe('00:01:01');
    expect(hms(-5)).toBe('00:00:00');
    expect(hms(Number.NaN)).toBe('00:00:00');
  });
});

describe('humanSize', () => {
  it('handles unit boundaries', () => {
    expect(humanSize(0)).toBe('0 B');
    expect(humanSize(512)).toBe('512 B');
    expect(humanSize(1023)).toBe('1023 B');
    expect(humanSize(1024)).toBe('1 KB');
    expect(humanSize(1536)).toBe('1.5 KB');
    expect(humanSize(1048575)).toBe('1024 KB');
    expect(humanSize(1048576)).toBe('1 MB');
    expect(humanSize(1024 ** 3)).toBe('1 GB');
    expect(humanSize(1024 ** 4)).toBe('1 TB');
  });

  it('rounds to at most two decimals and drops trailing zeros', () => {
    expect(humanSize(Math.round(12.34 * 1024 * 1024))).toBe('12.34 MB');
    expect(humanSize(1024 * 1.1)).toBe('1.1 KB');
    expect(humanSize(1024 * 1.999)).toBe('2 KB');
    expect(humanSize(1024 * 1.666)).toBe('1.67 KB');
  });

  it('stays in TB beyond TB', () => {
    expect(humanSize(2048 * 1024 ** 4)).toBe('2048 TB');
  });

  it('accepts bigint and treats negative as 0', () => {
    expect(humanSize(1536n)).toBe('1.5 KB');
    expect(humanSize(2n ** 50n)).toBe('1024 TB');
    expect(humanSize(-1)).toBe('0 B');
    expect(humanSize(-10n)).toBe('0 B');
  });
});

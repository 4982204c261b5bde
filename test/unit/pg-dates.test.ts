// The digit-by-digit date readers give what the general parsers give, on the usual shapes and on
// every shape they hand over (BC, infinity, offsets, years before 1000).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseDate, parseTimestamp, parseTimestampTz } from '../../src/db/pg-dates.js';

const time = (d: Date): number => d.getTime();
const generalTz = pg.types.getTypeParser(1184, 'text') as (s: string) => Date;

describe('timestamptz', () => {
  it.each([
    ['2024-05-01 12:34:56+00', '2024-05-01T12:34:56.000Z'],
    ['2024-05-01 12:34:56.1+00', '2024-05-01T12:34:56.100Z'],
    ['2024-05-01 12:34:56.12+00', '2024-05-01T12:34:56.120Z'],
    ['2024-05-01 12:34:56.123+00', '2024-05-01T12:34:56.123Z'],
    ['2024-05-01 12:34:56.123999+00', '2024-05-01T12:34:56.123Z'],
    ['1970-01-01 00:00:00+00', '1970-01-01T00:00:00.000Z'],
    ['2000-02-29 23:59:59.999+00', '2000-02-29T23:59:59.999Z'],
    ['9999-12-31 23:59:59.999+00', '9999-12-31T23:59:59.999Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseTimestampTz(text).toISOString()).toBe(iso);
    expect(time(parseTimestampTz(text))).toBe(time(generalTz(text)));
  });

  it.each([
    '2024-05-01 14:34:56.5+02',
    '2024-05-01 07:04:56-05:30',
    '0099-05-01 12:00:00+00',
    '0001-01-01 00:00:00+00 BC',
    '2024-05-01 12:34:56+00:00',
  ])('hands %s to the general parser', (text) => {
    expect(time(parseTimestampTz(text))).toBe(time(generalTz(text)));
  });

  it('keeps infinity as the general parser reads it', () => {
    expect(parseTimestampTz('infinity')).toEqual(generalTz('infinity'));
  });
});

describe('timestamp and date (UTC wall time)', () => {
  it.each([
    ['2024-05-01 12:34:56', '2024-05-01T12:34:56.000Z'],
    ['2024-05-01 12:34:56.789', '2024-05-01T12:34:56.789Z'],
    ['2024-05-01 12:34:56.7891', '2024-05-01T12:34:56.789Z'],
    ['0099-05-01 12:00:00', '0099-05-01T12:00:00.000Z'],
  ])('timestamp %s is %s', (text, iso) => {
    expect(parseTimestamp(text).toISOString()).toBe(iso);
  });

  it.each([
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['1900-01-01', '1900-01-01T00:00:00.000Z'],
    ['0050-06-15', '0050-06-15T00:00:00.000Z'],
  ])('date %s is %s', (text, iso) => {
    expect(parseDate(text).toISOString()).toBe(iso);
  });

  it('a timestamp with an offset is not read as UTC wall time by the fast path', () => {
    // `timestamp` never carries one; the general path decides (an invalid Date), not a wrong time.
    expect(Number.isNaN(parseTimestamp('2024-05-01 12:34:56+02').getTime())).toBe(true);
  });
});

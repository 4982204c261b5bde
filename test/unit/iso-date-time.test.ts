// The ingest's date-times (`seen_at`, `at`): ISO 8601 with a zone, as controllers write it.
import { describe, expect, it } from 'vitest';
import { parseIsoDateTime } from '../../src/modules/ingest/ingest.inputs.js';

describe('parseIsoDateTime', () => {
  it.each([
    '2026-11-28T23:30:00Z',
    '2026-11-28t23:30:00z',
    '2026-11-28T23:30:00+00:00',
    '2026-11-28T23:30:00+0000',
    '2026-11-28T23:30:00+00',
    '2026-11-29T03:30:00+04',
    '2026-11-28T20:00:00-03:30',
    '2026-11-28T23:30Z',
  ])('reads %s as 2026-11-28T23:30:00Z (probe R: lower case and hour-only offsets were refused)', (text) => {
    expect(parseIsoDateTime(text)?.toISOString()).toBe('2026-11-28T23:30:00.000Z');
  });

  it('keeps the milliseconds of a longer fraction', () => {
    expect(parseIsoDateTime('2026-11-28T23:30:00.123456789Z')?.toISOString()).toBe(
      '2026-11-28T23:30:00.123Z',
    );
  });

  it.each([
    '2026-11-28T24:00:00Z',
    '2026-11-28T23:60:00Z',
    '2026-11-28T23:30:60Z',
    '2026-11-28T23:30:00+24:00',
    '2026-11-28T23:30:00+04:60',
    '2026-02-30T10:00:00Z',
    '2026-11-28 23:30:00Z',
    '2026-11-28T23:30:00',
    '2026-11-28T23:30:00+4',
  ])('refuses %s (T24:00 rolled over to the next day)', (text) => {
    expect(parseIsoDateTime(text)).toBeNull();
  });
});

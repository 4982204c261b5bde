// Every time zone the locations take (PHP's list) is one the service can format local times in.
import { describe, expect, it } from 'vitest';
import { TIME_ZONES } from '../../src/validation/time-zones.js';

describe('TIME_ZONES', () => {
  it('are PHP’s region names and UTC, each formatted by this Node’s ICU', () => {
    expect(TIME_ZONES.size).toBeGreaterThan(400);
    expect(TIME_ZONES.has('UTC')).toBe(true);
    expect(TIME_ZONES.has('Asia/Calcutta')).toBe(false);
    for (const zone of TIME_ZONES) {
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: zone }).format(0), zone).not.toThrow();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { decimalText } from '../../src/shared/format.js';

describe('decimalText', () => {
  it('writes JavaScript’s shortest digits in plain decimal notation', () => {
    expect(decimalText(1e-7)).toBe('0.0000001');
    expect(decimalText(-2e-5)).toBe('-0.00002');
    expect(decimalText(-1.5e-7)).toBe('-0.00000015');
    expect(decimalText(25.2048)).toBe('25.2048');
    expect(decimalText(-180)).toBe('-180');
    expect(decimalText(0)).toBe('0');
    expect(decimalText(-0)).toBe('0');
    expect(decimalText(1e21)).toBe('1000000000000000000000');
    expect(decimalText(-1.2345e22)).toBe('-12345000000000000000000');
    expect(decimalText(5e-324)).toBe(`0.${'0'.repeat(323)}5`);
  });

  it('reads back to the same double, with no exponent, for any finite double', () => {
    const values = [Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, 0.1 + 0.2, 123456789.123, 1 / 3];
    for (let i = 0; i < 2000; i++) {
      const bits = new DataView(new ArrayBuffer(8));
      bits.setUint32(0, (Math.random() * 2 ** 32) >>> 0);
      bits.setUint32(4, (Math.random() * 2 ** 32) >>> 0);
      const n = bits.getFloat64(0);
      if (Number.isFinite(n)) values.push(n);
    }
    for (const n of values) {
      for (const v of [n, -n]) {
        const text = decimalText(v);
        expect(text, String(v)).toMatch(/^-?\d+(\.\d*[1-9])?$/);
        expect(Number(text), text).toBe(v);
      }
    }
  });

  it('refuses what has no decimal text', () => {
    expect(() => decimalText(Number.NaN)).toThrow(RangeError);
    expect(() => decimalText(Number.POSITIVE_INFINITY)).toThrow('decimalText: not a finite number: Infinity');
  });
});

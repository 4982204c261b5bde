import { describe, expect, it } from 'vitest';
import { PhpFloat, phpFloat, phpJsonEncode, phpJsonEncodeExact } from '../../src/rest/php-json.js';

describe('phpFloat', () => {
  it('wraps numbers and passes null/undefined through as null', () => {
    expect(phpFloat(1.5)).toEqual(new PhpFloat(1.5));
    expect(phpFloat(null)).toBeNull();
    expect(phpFloat(undefined)).toBeNull();
  });
});

describe('phpJsonEncode strings', () => {
  it('escapes forward slashes', () => {
    expect(phpJsonEncode('http://a/b')).toBe('"http:\\/\\/a\\/b"');
  });

  it('escapes non-ASCII as lowercase \\uXXXX', () => {
    expect(phpJsonEncode('café')).toBe('"caf\\u00e9"');
    expect(phpJsonEncode('€ ß Ω')).toBe('"\\u20ac \\u00df \\u03a9"');
    expect(phpJsonEncode('\u00a0')).toBe('"\\u00a0"');
  });

  it('writes characters beyond the BMP as a surrogate pair', () => {
    expect(phpJsonEncode('😀')).toBe('"\\ud83d\\ude00"');
    expect(phpJsonEncode('a😀b')).toBe('"a\\ud83d\\ude00b"');
  });

  it('escapes control characters, quotes and backslashes', () => {
    expect(phpJsonEncode('\b\f\n\r\t')).toBe('"\\b\\f\\n\\r\\t"');
    expect(phpJsonEncode('\u0000\u0001\u001f')).toBe('"\\u0000\\u0001\\u001f"');
    expect(phpJsonEncode('\u001b')).toBe('"\\u001b"');
    expect(phpJsonEncode('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
  });

  it('leaves DEL and plain ASCII alone', () => {
    expect(phpJsonEncode('\u007f')).toBe('"\u007f"');
    expect(phpJsonEncode("plain ASCII <>&'")).toBe('"plain ASCII <>&\'"');
    expect(phpJsonEncode('')).toBe('""');
  });

  it('escapes object keys like strings', () => {
    expect(phpJsonEncode({ 'a/b': 1, 'ké"y': 2 })).toBe('{"a\\/b":1,"k\\u00e9\\"y":2}');
  });
});

describe('phpJsonEncode numbers', () => {
  it('writes plain numbers as integers', () => {
    expect(phpJsonEncode(41)).toBe('41');
    expect(phpJsonEncode(-3)).toBe('-3');
    expect(phpJsonEncode(0)).toBe('0');
    expect(phpJsonEncode(-0)).toBe('0');
    expect(phpJsonEncode(9007199254740991)).toBe('9007199254740991');
  });

  it('writes a non-integer plain number as a float', () => {
    expect(phpJsonEncode(41.5)).toBe('41.5');
    expect(phpJsonEncode(1.5e-7)).toBe('1.5e-7');
  });

  it('writes bigint as an integer', () => {
    expect(phpJsonEncode(12345678901234567890n)).toBe('12345678901234567890');
    expect(phpJsonEncode(-5n)).toBe('-5');
  });

  it('keeps a fraction on whole PhpFloats', () => {
    expect(phpJsonEncode(new PhpFloat(41))).toBe('41.0');
    expect(phpJsonEncode(new PhpFloat(-3))).toBe('-3.0');
    expect(phpJsonEncode(new PhpFloat(0))).toBe('0.0');
    expect(phpJsonEncode(new PhpFloat(-0))).toBe('-0.0');
    expect(phpJsonEncode(new PhpFloat(1e16))).toBe('10000000000000000.0');
  });

  it('writes shortest round-trip digits', () => {
    expect(phpJsonEncode(new PhpFloat(41.5))).toBe('41.5');
    expect(phpJsonEncode(new PhpFloat(0.1))).toBe('0.1');
    expect(phpJsonEncode(new PhpFloat(0.1 + 0.2))).toBe('0.30000000000000004');
    expect(phpJsonEncode(new PhpFloat(-73.98765))).toBe('-73.98765');
    expect(phpJsonEncode(new PhpFloat(40.712776))).toBe('40.712776');
  });

  it('uses PHP exponent form below 1e-4 and from 1e17', () => {
    expect(phpJsonEncode(new PhpFloat(1e25))).toBe('1.0e+25');
    expect(phpJsonEncode(new PhpFloat(1e-7))).toBe('1.0e-7');
    expect(phpJsonEncode(new PhpFloat(-2.5e-10))).toBe('-2.5e-10');
    expect(phpJsonEncode(new PhpFloat(1.2345e300))).toBe('1.2345e+300');
    expect(phpJsonEncode(new PhpFloat(1e17))).toBe('1.0e+17');
    expect(phpJsonEncode(new PhpFloat(1e-5))).toBe('1.0e-5');
    // Still fixed notation at the edges of PHP's range.
    expect(phpJsonEncode(new PhpFloat(0.0001))).toBe('0.0001');
    expect(phpJsonEncode(new PhpFloat(0.00012))).toBe('0.00012');
    expect(phpJsonEncode(new PhpFloat(99999999999999980))).toBe('99999999999999980.0');
  });

  it('throws on non-finite floats', () => {
    expect(() => phpJsonEncode(new PhpFloat(Number.NaN))).toThrow(/non-finite/);
    expect(() => phpJsonEncode(new PhpFloat(Number.POSITIVE_INFINITY))).toThrow(/non-finite/);
    expect(() => phpJsonEncode(Number.NEGATIVE_INFINITY)).toThrow(/non-finite/);
    expect(() => phpJsonEncode(Number.NaN)).toThrow(/non-finite/);
  });
});

describe('phpJsonEncode structures', () => {
  it('writes scalars', () => {
    expect(phpJsonEncode(null)).toBe('null');
    expect(phpJsonEncode(true)).toBe('true');
    expect(phpJsonEncode(false)).toBe('false');
  });

  it('encodes nested objects and arrays compactly, with PhpFloat inside', () => {
    const value = {
      id: 7,
      name: 'Café/Bar',
      location: { lat: new PhpFloat(25), lng: new PhpFloat(55.2708) },
      tags: ['a/b', 'é', []],
      scores: [new PhpFloat(1), 2, new PhpFloat(2.5), null],
      empty: {},
      nested: [{ x: [{ y: phpFloat(-1) }] }],
    };
    expect(phpJsonEncode(value)).toBe(
      '{"id":7,"name":"Caf\\u00e9\\/Bar","location":{"lat":25.0,"lng":55.2708},' +
        '"tags":["a\\/b","\\u00e9",[]],"scores":[1.0,2,2.5,null],"empty":{},' +
        '"nested":[{"x":[{"y":-1.0}]}]}',
    );
  });

  it('omits undefined object properties and keeps insertion order', () => {
    expect(phpJsonEncode({ b: 1, a: undefined, c: null, d: 'x' })).toBe('{"b":1,"c":null,"d":"x"}');
    expect(phpJsonEncode({ a: undefined })).toBe('{}');
  });

  it('writes undefined array items as null, like JSON.stringify', () => {
    expect(phpJsonEncode([1, undefined, 3])).toBe('[1,null,3]');
  });

  it('uses toJSON when an object provides one', () => {
    const decimal = { toJSON: () => '12.50' };
    expect(phpJsonEncode({ price: decimal })).toBe('{"price":"12.50"}');
  });

  it('agrees with JSON.stringify on ASCII-only data', () => {
    const value = { a: [1, 2, { b: 'c d', e: true, f: null }], g: 'h"i\\j\n' };
    expect(phpJsonEncode(value)).toBe(JSON.stringify(value));
  });

  it('throws on Date with a clear message', () => {
    expect(() => phpJsonEncode(new Date())).toThrow(/Date/);
    expect(() => phpJsonEncode({ created_at: new Date() })).toThrow(/format dates to strings/);
    expect(() => phpJsonEncode([new Date()])).toThrow(/Date/);
  });

  it('throws on values PHP could not have produced', () => {
    expect(() => phpJsonEncode(undefined)).toThrow(/undefined/);
    expect(() => phpJsonEncode(new Map())).toThrow(/Map or Set/);
    expect(() => phpJsonEncode({ f: () => 1 })).toThrow(/function/);
    expect(() => phpJsonEncode(Symbol('s'))).toThrow(/symbol/);
  });
});

// phpJsonEncode takes a fast path (JSON.stringify, then PHP's escapes and float texts in one pass)
// for plain data; it must write exactly what the exact encoder writes.
describe('phpJsonEncode fast path', () => {
  const cases: Record<string, unknown> = {
    'whole and fractional PhpFloats at every depth': {
      x: new PhpFloat(41),
      y: [new PhpFloat(-0), new PhpFloat(0.5), { z: new PhpFloat(1e25) }, new PhpFloat(1e-7)],
      w: new PhpFloat(99999999999999980),
    },
    'plain floats JS and PHP print alike': { a: 41.5, b: -0.0001, c: 0.30000000000000004, d: -0 },
    'slashes, non-ASCII, surrogates and escapes': {
      'k/é': 'http://a/b café 😀 \u007f \u0000 "q" \\ \\/ \n',
      lone: '\ud800x',
    },
    'a string that looks like a placeholder': ['\u0000php-float-x:41.0', { s: '\u0000php-float-' }],
    'undefined properties and array items': { a: undefined, b: [undefined, 1], c: null },
    'a list envelope': {
      data: [{ id: 'a', lat: phpFloat(25), lng: phpFloat(55.27), tags: [] }],
      links: { first: 'http://h/api/v1/x?page=1', last: null },
      meta: { per_page: 10 },
    },
    // These leave the fast path: the exact encoder decides.
    'a plain float PHP writes in exponent form': { a: 1e-7, b: 1e-5, c: -2.5e-10 },
    'a toJSON object': { price: { toJSON: () => '12.50' } },
    'a bigint': { n: 12345678901234567890n },
  };
  for (const [name, value] of Object.entries(cases)) {
    it(`matches the exact encoder: ${name}`, () => {
      expect(phpJsonEncode(value)).toBe(phpJsonEncodeExact(value));
    });
  }

  it('writes PHP text for the cases above', () => {
    expect(phpJsonEncode(cases['whole and fractional PhpFloats at every depth'])).toBe(
      '{"x":41.0,"y":[-0.0,0.5,{"z":1.0e+25},1.0e-7],"w":99999999999999980.0}',
    );
    expect(phpJsonEncode(cases['a plain float PHP writes in exponent form'])).toBe(
      '{"a":1.0e-7,"b":1.0e-5,"c":-2.5e-10}',
    );
    expect(phpJsonEncode(cases['a string that looks like a placeholder'])).toBe(
      '["\\u0000php-float-x:41.0",{"s":"\\u0000php-float-"}]',
    );
  });

  it('still refuses what the exact encoder refuses, inside objects', () => {
    expect(() => phpJsonEncode({ a: [new Date()] })).toThrow(/Date/);
    expect(() => phpJsonEncode({ a: Number.NaN })).toThrow(/non-finite/);
    expect(() => phpJsonEncode({ a: new PhpFloat(Number.POSITIVE_INFINITY) })).toThrow(/non-finite/);
    expect(() => phpJsonEncode({ m: new Set() })).toThrow(/Map or Set/);
  });

  it('leaves PhpFloat a plain number for JSON.stringify outside an encode', () => {
    expect(JSON.stringify({ x: new PhpFloat(41) })).toBe('{"x":41}');
  });
});

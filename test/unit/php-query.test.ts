// parsePhpQuery against PHP's parse_str: the cases of PHP's own tests (ext/standard/tests/strings/
// parse_str_basic3.phpt, parse_str_basic4.phpt) and the rules of php_register_variable_ex.
import { describe, expect, it } from 'vitest';
import { assignPhpVariable, MAX_ARRAYS, PhpArray, parsePhpQuery } from '../../src/http/query-string.js';

/** The parsed input as plain JSON (JS objects list integer keys first, as JSON.stringify does). */
const parsed = (text: string): unknown => JSON.parse(JSON.stringify(parsePhpQuery(text)));

describe('parsePhpQuery, as PHP’s parse_str', () => {
  it('keeps the last assignment of a key, in the place the key first took', () => {
    expect(parsed('a=1&b=2&a=3')).toEqual({ a: '3', b: '2' });
    expect(Object.keys(parsePhpQuery('a=1&b=2&a=3'))).toEqual(['a', 'b']);
    // A plain value replaces a list, and a list a plain value.
    expect(parsed('name[]=a&name=Probe')).toEqual({ name: 'Probe' });
    expect(parsed('name=Probe&name[]=a')).toEqual({ name: ['a'] });
    expect(parsed('a[b]=1&a[b][c]=2')).toEqual({ a: { b: { c: '2' } } });
  });

  it('reads keys as PHP keeps them: [] appends at the largest integer key + 1', () => {
    expect(parsed('a[]=x&a[]=y')).toEqual({ a: ['x', 'y'] });
    expect(parsed('a[0]=x&a[1]=y')).toEqual({ a: ['x', 'y'] });
    // Integer keys make a list in PHP's order, whatever the keys (Laravel's `array` rule takes it).
    expect(parsed('types[7]=bogus')).toEqual({ types: ['bogus'] });
    expect(parsed('types[]=guest.created&types[5]=bogus&types[]=zz')).toEqual({
      types: ['guest.created', 'bogus', 'zz'],
    });
    expect(parsed('a[1]=x&a[0]=y')).toEqual({ a: ['x', 'y'] });
    expect(parsed('a[2]=x&a[]=y&a[1]=z')).toEqual({ a: ['x', 'y', 'z'] });
    // Only canonical decimal text is an integer key: `05` and `-0` are strings, `[]` still starts at 0.
    expect(parsed('a[05]=x&a[]=y')).toEqual({ a: { '05': 'x', 0: 'y' } });
    expect(parsed('a[-0]=x&a[]=y')).toEqual({ a: { '-0': 'x', 0: 'y' } });
    // PHP 8.3: after a negative key, [] takes the next one.
    expect(parsed('a[-3]=x&a[]=y&a[x]=z')).toEqual({ a: { '-3': 'x', '-2': 'y', x: 'z' } });
    // The largest integer: [] has no key left (dropped); one more is a string key.
    expect(parsed('a[9223372036854775807]=x&a[]=y')).toEqual({ a: ['x'] });
    expect(parsed('a[9223372036854775808]=x&a[]=y')).toEqual({ a: { '9223372036854775808': 'x', 0: 'y' } });
  });

  it('nests as PHP’s tests show', () => {
    expect(parsed('first=abc&a[]=123&a[]=false&b[]=str&c[]=3.5&a[]=last')).toEqual({
      first: 'abc',
      a: ['123', 'false', 'last'],
      b: ['str'],
      c: ['3.5'],
    });
    expect(parsed('arr[1]=sid&arr[4]=bill')).toEqual({ arr: ['sid', 'bill'] });
    expect(parsed('arr[first]=sid&arr[forth]=bill')).toEqual({ arr: { first: 'sid', forth: 'bill' } });
    expect(parsed('arr[3][4]=sid&arr[3][6]=fred')).toEqual({ arr: [['sid', 'fred']] });
    expect(parsed('arr[][]=sid&arr[][]=fred')).toEqual({ arr: [['sid'], ['fred']] });
    // Badly formed names: an unclosed first bracket is part of the name (as `_`); deeper, the value
    // goes to the key before it; text after a `]` not followed by `[` is ignored.
    expect(parsed('arr[1=sid&arr[4][2=fred')).toEqual({ arr_1: 'sid', arr: ['fred'] });
    expect(parsed('arr1]=sid&arr[4]2]=fred')).toEqual({ 'arr1]': 'sid', arr: ['fred'] });
    expect(parsed('arr[one=sid&arr[4][two=fred')).toEqual({ arr_one: 'sid', arr: ['fred'] });
    expect(parsed('a[b[c]]=1')).toEqual({ a: { 'b[c': '1' } });
    expect(parsed('a[ ]=1&a[ b]=2')).toEqual({ a: { 0: '1', ' b': '2' } });
    // Unlike PHP (README): dots and spaces in names stay.
    expect(parsed('arr.test[1]=sid&arr+test[4][two]=fred')).toEqual({
      'arr.test': ['sid'],
      'arr test': [{ two: 'fred' }],
    });
  });

  it('decodes byte by byte, a byte that is no UTF-8 as U+FFFD, and leaves a bad escape as it is', () => {
    expect(parsed('name=Caf%C3%A9+Bar')).toEqual({ name: 'Café Bar' });
    expect(parsed('name=Caf%C3%A9+Bar%E9')).toEqual({ name: 'Café Bar\uFFFD' });
    expect(parsed('first=%41&second=%a&third=%b&fourth=%zz%4')).toEqual({
      first: 'A',
      second: '%a',
      third: '%b',
      fourth: '%zz%4',
    });
    expect(parsed('s=%3c%3d%3d%20%20foo+bar++%3d%3d%3e&t=10%5c2%3d5')).toEqual({
      s: '<==  foo bar  ==>',
      t: '10\\2=5',
    });
    // Names decode first, then nest; a name ends at a NUL and loses its leading spaces.
    expect(parsed('a%5B0%5D=x&b%5Bk%5D=y')).toEqual({ a: ['x'], b: { k: 'y' } });
    expect(parsed('a%00b=1&+c=2&v=x%00y')).toEqual({ a: '1', c: '2', v: 'x\u0000y' });
    // A piece without `=` is an empty value; empty pieces and empty names are nothing.
    expect(parsed('flag&&b=&=x&[a]=1&')).toEqual({ flag: '', b: '' });
  });

  it('takes the first 1000 variables (empty pieces do not count)', () => {
    const vars = Array.from({ length: 1001 }, (_, i) => `v${i}=${i}`);
    const read = parsePhpQuery(vars.join('&'));
    expect(Object.keys(read)).toHaveLength(1000);
    expect(read.v999).toBe('999');
    expect(read.v1000).toBeUndefined();
    expect(parsed(`${'&'.repeat(5000)}a=1`)).toEqual({ a: '1' });
  });

  it('drops a variable nested deeper than 64 levels, with what it held', () => {
    const deep = (levels: number) => `a${'[k]'.repeat(levels)}`;
    const at64 = parsePhpQuery(`${deep(64)}=x`);
    let node: unknown = at64.a;
    for (let i = 1; i < 64; i++) node = (node as Record<string, unknown>).k;
    expect(node).toEqual({ k: 'x' });
    expect(parsed(`a[x]=1&${deep(65)}=x`)).toEqual({});
    expect(parsed(`a[x]=1&${deep(65)}=x&a[y]=2&b=3`)).toEqual({ a: { y: '2' }, b: '3' });
  });

  it('makes no key special: __proto__ is data', () => {
    const read = parsePhpQuery('__proto__=x&a[__proto__][polluted]=1&constructor=y');
    expect(Object.keys(read)).toEqual(['__proto__', 'a', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(read, '__proto__')?.value).toBe('x');
    expect(Object.keys(read.a as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('PhpArray.replaceRecursive (files laid over fields, as $request->all())', () => {
  it('replaces a value by key and merges arrays under the same key', () => {
    const fields = new PhpArray();
    const files = new PhpArray();
    for (const [name, value] of [
      ['name', 'text'],
      ['doc[a]', 'text a'],
      ['doc[b]', 'text b'],
      ['list[]', 'first'],
    ])
      assignPhpVariable(fields, name as string, value);
    for (const [name, value] of [
      ['name', 'FILE'],
      ['doc[b]', 'FILE b'],
      ['list[]', 'FILE 0'],
      ['extra', 'FILE x'],
    ])
      assignPhpVariable(files, name as string, value);
    fields.replaceRecursive(files);
    expect(JSON.parse(JSON.stringify(fields.toRecord()))).toEqual({
      name: 'FILE',
      doc: { a: 'text a', b: 'FILE b' },
      list: ['FILE 0'],
      extra: 'FILE x',
    });
  });
});

describe('the arrays one input may make', () => {
  it('stop at MAX_ARRAYS: the variables past it are dropped, as those past max_input_vars', () => {
    // 1000 names 64 deep would make 64 000 arrays.
    const query = Array.from({ length: 1000 }, (_, i) => `d${i}${'[a]'.repeat(64)}=1`).join('&');
    const names = Object.keys(parsePhpQuery(query));
    expect(names.length).toBe(Math.ceil(MAX_ARRAYS / 64));
    expect(names[0]).toBe('d0');
    let deepest: unknown = parsePhpQuery(query).d0;
    for (let i = 0; i < 64; i++) deepest = (deepest as Record<string, unknown>).a;
    expect(deepest).toBe('1');
    // An unclosed bracket of a megabyte is one name, its brackets as underscores.
    expect(Object.keys(parsePhpQuery(`a${'['.repeat(100_000)}=1`))).toEqual([`a${'_'.repeat(100_000)}`]);
  });
});

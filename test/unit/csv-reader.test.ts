// The RFC 4180 reader of guest imports (src/shared/csv-reader.ts).
import { describe, expect, it } from 'vitest';
import { CsvError, readCsv } from '../../src/shared/csv-reader.js';

const fields = (text: string) => readCsv(text).map((r) => r.fields);

describe('readCsv', () => {
  it('reads records of comma-separated fields, CRLF or LF, with or without a final line break', () => {
    expect(fields('a,b,c\r\n1,2,3\r\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
    expect(fields('a,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    // A lone CR ends a record too (old spreadsheets).
    expect(fields('a,b\r1,2\r')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(fields('')).toEqual([]);
  });

  it('keeps empty fields, leading and trailing ones included; an empty line is one empty field', () => {
    expect(fields(',a,,\n\nb\n')).toEqual([['', 'a', '', ''], [''], ['b']]);
    expect(fields('a,')).toEqual([['a', '']]);
    expect(fields('"",x')).toEqual([['', 'x']]);
  });

  it('unquotes fields: commas, line breaks and doubled quotes inside, spaces kept', () => {
    expect(fields('"a,b","say ""hi""",  c  \r\n"line1\r\nline2",x\n')).toEqual([
      ['a,b', 'say "hi"', '  c  '],
      ['line1\r\nline2', 'x'],
    ]);
    expect(fields('"""quoted"""')).toEqual([['"quoted"']]);
    // A quote inside an unquoted field is text.
    expect(fields('5" screen,b')).toEqual([['5" screen', 'b']]);
  });

  it('drops a UTF-8 byte order mark at the start only, and keeps other text as it is', () => {
    expect(fields('\uFEFFemail,name\nä@x.de,Zoë')).toEqual([
      ['email', 'name'],
      ['ä@x.de', 'Zoë'],
    ]);
    expect(fields('a,\uFEFFb')).toEqual([['a', '\uFEFFb']]);
  });

  it('numbers each record by the line it starts on, counting line breaks inside quotes', () => {
    const lines = readCsv('h1,h2\r\n"a\nb",c\n\nd,"e\r\nf\rg"\nlast').map((r) => r.line);
    expect(lines).toEqual([1, 2, 4, 5, 8]);
  });

  it('refuses a quoted field never closed, naming the line it opened on', () => {
    expect(() => readCsv('a,b\n1,"open\n2,3\n')).toThrow(
      new CsvError('a quoted field opened on line 2 is never closed', 2),
    );
    try {
      readCsv('a\n"x');
    } catch (err) {
      expect(err).toBeInstanceOf(CsvError);
      expect((err as CsvError).line).toBe(2);
    }
  });

  it('refuses text after a closing quote, naming its line', () => {
    expect(() => readCsv('a,b\n"x"y,z')).toThrow('text after the closing quote of a field on line 2');
    expect(() => readCsv('"multi\nline" ,z')).toThrow('text after the closing quote of a field on line 2');
  });

  it('reads a large file in linear time', () => {
    const row = 'loc-1,Guest Name,guest@example.test,"a, quoted ""cell""",\r\n';
    const text = `location_id,name,email,custom_field_1,phone\r\n${row.repeat(100_000)}`;
    const started = performance.now();
    const records = readCsv(text);
    expect(records).toHaveLength(100_001);
    expect(records[100_000]?.fields).toEqual([
      'loc-1',
      'Guest Name',
      'guest@example.test',
      'a, quoted "cell"',
      '',
    ]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

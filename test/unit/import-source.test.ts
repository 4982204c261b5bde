// The import file reader (src/modules/guests/guests.import.source.ts): each row's line, by which the
// CLI names a refused row, for a JSON array as for CSV and NDJSON (probe G: a JSON array's had none).
import { describe, expect, it } from 'vitest';
import { readImportFile } from '../../src/modules/guests/guests.import.source.js';

const read = (text: string) => readImportFile(new TextEncoder().encode(text), { format: 'json' });

describe('readImportFile, a JSON array', () => {
  it('gives each element the line it starts on', () => {
    const text = [
      '[',
      '{"name":"One","email":"a@example.com"},',
      '',
      '{"location_id":"x",',
      ' "name":"Two, \\"quoted\\" [not] {nested}",',
      ' "tags":[{"a":[1,2]}, "b"]},',
      '  {"name":"Three"}, {"name":"Four"}',
      ']',
    ].join('\n');
    const { rows, lines } = read(text);
    expect(rows).toHaveLength(4);
    expect(lines).toEqual([2, 4, 7, 7]);
  });

  it('one line, CRLF, a BOM and non-objects alike', () => {
    expect(read('[{"a":1},{"a":2}]').lines).toEqual([1, 1]);
    expect(read('\uFEFF[\r\n{"a":1},\r\n"x",\r\n3]').lines).toEqual([2, 3, 4]);
  });
});

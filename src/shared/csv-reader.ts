// An RFC 4180 reader for imported files (no CSV package is installed): records of comma-separated
// fields, a field in double quotes may hold commas, line breaks and doubled quotes (`""` is one `"`).
// Lenient where spreadsheets are: records end at CRLF, LF or a lone CR, a UTF-8 byte order mark at the
// start is dropped, a quote inside an unquoted field is kept as text. Strict where the data would
// otherwise be guessed: a quoted field never closed, or text after a closing quote, is an error.

export interface CsvRecord {
  /** The fields, unquoted. An empty line is one empty field. */
  readonly fields: string[];
  /** The 1-based line of the file on which the record starts (quoted line breaks count). */
  readonly line: number;
}

/** A file that is not CSV: the message says what and where (`… on line 12`). */
export class CsvError extends Error {
  override readonly name = 'CsvError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

/** Every record of `text`, in order. A final line break ends the last record; it starts no new one. */
export function readCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    // One record: fields until a line break or the end.
    for (;;) {
      let value: string;
      if (text.charCodeAt(i) === QUOTE) {
        const opened = line;
        let out = '';
        let from = i + 1;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) throw new CsvError(`a quoted field opened on line ${opened} is never closed`, opened);
          line += countBreaks(text, from, q);
          if (text.charCodeAt(q + 1) === QUOTE) {
            out += text.slice(from, q + 1);
            from = q + 2;
            continue;
          }
          out += text.slice(from, q);
          i = q + 1;
          break;
        }
        const next = text.charCodeAt(i);
        if (i < n && next !== COMMA && next !== CR && next !== LF) {
          throw new CsvError(`text after the closing quote of a field on line ${line}`, line);
        }
        value = out;
      } else {
        let j = i;
        while (j < n) {
          const c = text.charCodeAt(j);
          if (c === COMMA || c === CR || c === LF) break;
          j++;
        }
        value = text.slice(i, j);
        i = j;
      }
      fields.push(value);
      if (i < n && text.charCodeAt(i) === COMMA) {
        i++;
        if (i < n) continue;
        // A comma at the very end of the text still ends a field: the record has an empty last one.
        fields.push('');
      }
      break;
    }
    // The record's line break: CRLF, LF or CR.
    if (i < n) {
      if (text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF) i += 2;
      else i += 1;
      line++;
    }
    records.push({ fields, line: start });
  }
  return records;
}

/** Line breaks (CRLF, LF or CR, each counted once) in `text[from, to)`. */
function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === LF) count++;
    else if (c === CR && text.charCodeAt(k + 1) !== LF) count++;
  }
  return count;
}

// Where a guest import's rows come from when they arrive as a file (REST's multipart `file`, the
// CLI's FILE): CSV, NDJSON or a JSON array, read into the same rows a JSON body sends, each with the
// line it starts on. What the file itself gets wrong is the `file` field's 422; what one row gets
// wrong is that row's (guests.import.ts reports it as `rows.N`).
import { restoreFormula } from '../../shared/csv-formula.js';
import { CsvError, readCsv } from '../../shared/csv-reader.js';
import { undecodable } from '../../shared/json-decode.js';
import { ValidationError } from '../../validation/validator.js';

export const IMPORT_FORMATS = ['csv', 'ndjson', 'json'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A row the file could not give as an object: the message, `:attribute` standing for `rows.N`. */
export class UnreadableRow {
  constructor(readonly message: string) {}
}

export interface FileRows {
  format: ImportFormat;
  /** Objects of field → value (REST names), or UnreadableRow. */
  rows: unknown[];
  /** The 1-based line of the file each row starts on (same index as `rows`); null in a JSON array. */
  lines: (number | null)[];
}

export interface FileHint {
  /** The file's name (its extension decides the format when none is asked for). */
  filename?: string | undefined;
  /** Its content type, next. */
  mimetype?: string | undefined;
  /** The format asked for; otherwise the name, the type, then the content decide. */
  format?: ImportFormat | undefined;
}

const fileError = (message: string): ValidationError => new ValidationError({ file: [message] });

/**
 * The most fields (CSV columns, object keys) a row may have. A guest has about 40; a row of a
 * million unknown ones would hold the event loop for seconds while its object is built and read.
 */
export const MAX_ROW_FIELDS = 200;

/** The format of a file: as asked, else by extension, by content type, then by its first character. */
export function formatOf(text: string, hint: FileHint): ImportFormat {
  if (hint.format) return hint.format;
  const ext = /\.([A-Za-z]+)$/.exec(hint.filename ?? '')?.[1]?.toLowerCase();
  if (ext === 'csv') return 'csv';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'json') return 'json';
  const type = (hint.mimetype ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson' || type === 'application/jsonl' || type === 'application/x-jsonlines')
    return 'ndjson';
  if (type === 'application/json') return 'json';
  const first = /\S/.exec(text.replace(/^\uFEFF/, ''))?.[0];
  return first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv';
}

/**
 * The rows of a file. Throws the `file` field's 422 when the file cannot be read at all: not UTF-8,
 * not CSV (a quote never closed), not a JSON array, a repeated CSV column, or no row.
 */
export function readImportFile(bytes: Uint8Array, hint: FileHint = {}): FileRows {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw fileError('The file field must be a UTF-8 text file.');
  }
  // UTF-16 without a byte order mark decodes as UTF-8 (ASCII with a NUL beside each character): no
  // text file holds a NUL.
  if (text.includes('\u0000')) throw fileError('The file field must be a UTF-8 text file.');
  const format = formatOf(text, hint);
  const read = format === 'csv' ? csvRows(text) : format === 'ndjson' ? ndjsonRows(text) : jsonRows(text);
  if (read.rows.length === 0) throw fileError('The file field must contain at least one row.');
  return { format, ...read };
}

// ---------------------------------------------------------------------------------------------
// CSV

/**
 * A header row of field names (trimmed, case-insensitive; an unknown name is ignored like an unknown
 * body field), then one guest per record. An empty cell is a field not sent; `tags` is a JSON list
 * (`["vip","late"]`, as the exports write it) or names separated by commas. Empty lines, and records
 * of empty cells only, are skipped.
 */
function csvRows(text: string): Omit<FileRows, 'format'> {
  let records: ReturnType<typeof readCsv>;
  try {
    // Empty lines, and a spreadsheet's rows of empty cells (`,,,`), are no rows.
    records = readCsv(text).filter((r) => !r.fields.every((f) => f.trim() === ''));
  } catch (err) {
    if (err instanceof CsvError) throw fileError(`The file field must be a valid CSV file: ${err.message}.`);
    throw err;
  }
  const [head, ...body] = records;
  if (!head) return { rows: [], lines: [] };
  if (head.fields.length > MAX_ROW_FIELDS)
    throw fileError(`The file field must not have more than ${MAX_ROW_FIELDS} columns.`);
  const names = head.fields.map((name) => name.trim().toLowerCase());
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '') continue;
    if (seen.has(name)) throw fileError(`The file field must not repeat the column ${name}.`);
    seen.add(name);
  }
  const rows = body.map((record) => {
    const row: Record<string, unknown> = {};
    for (const [i, cell] of record.fields.entries()) {
      const name = names[i];
      if (name === undefined) {
        // Cells past the header's columns: empty ones (a spreadsheet's trailing commas) are nothing.
        if (cell.trim() === '') continue;
        return new UnreadableRow(`The :attribute field must not have more than ${names.length} columns.`);
      }
      if (name === '' || cell.trim() === '') continue;
      // A cell as an export wrote it: the `'` it put before a formula's first character goes.
      const value = restoreFormula(cell);
      row[name] = name === 'tags' ? tagList(value) : value;
    }
    return row;
  });
  return { rows, lines: body.map((r) => r.line) };
}

/** A `tags` cell: a JSON list, or names separated by commas; anything else stays text (a 422). */
function tagList(cell: string): unknown {
  const text = cell.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) && !undecodable(parsed) ? parsed : cell;
    } catch {
      return cell;
    }
  }
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

// ---------------------------------------------------------------------------------------------
// NDJSON and JSON

/** One JSON object per line (LF or CRLF); blank lines are skipped. */
function ndjsonRows(text: string): Omit<FileRows, 'format'> {
  const rows: unknown[] = [];
  const lines: (number | null)[] = [];
  for (const [i, line] of text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .entries()) {
    if (line.trim() === '') continue;
    lines.push(i + 1);
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      row = undefined;
    }
    rows.push(
      row === undefined || undecodable(row)
        ? new UnreadableRow('The :attribute field must be a valid JSON string.')
        : row,
    );
  }
  return { rows, lines };
}

/** A JSON array of objects, as the JSON body's array form. */
function jsonRows(text: string): Omit<FileRows, 'format'> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || undecodable(parsed))
    throw fileError('The file field must be a valid JSON array.');
  const lines = elementLines(text);
  return { rows: parsed, lines: parsed.map((_, i) => lines[i] ?? null) };
}

/**
 * The line (from 1, LF-counted as NDJSON's) each element of a JSON array starts on, in order: a
 * refused row is named with its line, as in CSV and NDJSON (probe G). Read after JSON.parse took the
 * text, so only strings, nesting and commas need telling apart.
 */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let next = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) line++;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    // Whitespace (JSON's four) and a BOM.
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff) continue;
    if (next && depth === 1 && c !== 0x5d) lines.push(line);
    next = false;
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      next = depth === 1;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && depth === 1) next = true;
  }
  return lines;
}

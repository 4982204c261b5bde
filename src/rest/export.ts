// Streamed exports (`GET /<list>/export?format=csv|ndjson`): a list's whole filtered result, in the
// list's order, written as CSV (RFC 4180) or NDJSON while it is read. The list operation authorizes
// and validates (403, 422) before any byte; the rows come in batches of EXPORT_BATCH, each the next
// keyset page after the last row sent (Prisma's `cursor` on the id, which the raw reader turns into a
// comparison on the list's order columns), each batch one statement on a pool connection taken for it
// alone and one turn of the tenant's (TENANT_DB_CONCURRENCY), so memory stays that of one batch and a
// slow reader holds nothing of the database. A database failure before the first byte answers as any
// request does (503); after it, the response is cut short (an unterminated chunked body, which HTTP
// clients report as an error rather than a short file) and the failure logged.

import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import type { TObject } from '@sinclair/typebox';
import { authorize } from '../auth/permissions.js';
import type { AppContext } from '../context.js';
import { findManyRows } from '../db/raw-rows.js';
import { AppError } from '../errors.js';
import {
  descriptionsOf,
  type Filters,
  type FilterValues,
  type ListOperation,
  type ListQuery,
  rulesOf,
} from '../operations/operation.js';
import { neutraliseFormula } from '../shared/csv-formula.js';
import {
  inList,
  nullable,
  queryBoolean,
  string,
  ValidationError,
  validate,
} from '../validation/validator.js';
import type { Endpoint } from './endpoint.js';
import { phpJsonEncode } from './php-json.js';

/** Rows read per statement. */
export const EXPORT_BATCH = 1000;

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The export's own query parameters, beside the list's filters (paging is not taken). */
export const exportRules = {
  format: [nullable(), string(), inList(EXPORT_FORMATS)],
  bom: [nullable(), queryBoolean()],
} as const;

export const EXPORT_DESCRIPTIONS = {
  format: '`csv` (default; RFC 4180, a header row, CRLF line ends) or `ndjson` (one list item per line)',
  bom: 'CSV only: `true` starts the file with a UTF-8 byte order mark, for spreadsheets',
} as const;

export const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
};

// ---------------------------------------------------------------------------------------------
// Writers

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell: null (and absent) empty; a string as it is; any other value (number, boolean, array,
 * object) as the JSON the list writes for it (`true`, `12`, `["vip","late"]`). A cell whose text
 * starts with `=`, `+`, `-`, `@`, tab or carriage return (after any `'`) gets a leading `'`
 * (src/shared/csv-formula.ts); a cell holding `"`, `,`,
 * CR or LF is quoted, its quotes doubled (RFC 4180).
 */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined ? '' : typeof value === 'string' ? value : phpJsonEncode(value);
  text = neutraliseFormula(text);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record of `columns`, CRLF-terminated. */
export function csvRecord(columns: readonly string[], item: Readonly<Record<string, unknown>>): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) {
    if (i > 0) line += ',';
    line += csvCell(item[columns[i] as string]);
  }
  return `${line}\r\n`;
}

export const csvHeader = (columns: readonly string[]): string =>
  `${columns.map((c) => csvCell(c)).join(',')}\r\n`;

const BOM = '\uFEFF';

// ---------------------------------------------------------------------------------------------
// The stream

/** What the app lends a streamed answer (src/rest/adapter.ts). */
export interface StreamEnv {
  /** Waits for a turn of the caller's tenant (see src/http/request-gate.ts); gives it back when called. */
  turn(signal: AbortSignal): Promise<() => void>;
  /** Aborts when the server stops and the export's grace is over: the export is then cut short. */
  closing: AbortSignal;
  /** Ends the HTTP response at once, unterminated (a batch in flight is not waited for). */
  abort(): void;
  log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** A handler's answer that is a stream rather than a JSON body. */
export class StreamAnswer {
  constructor(
    readonly headers: Readonly<Record<string, string>>,
    readonly open: (env: StreamEnv) => Readable,
  ) {}
}

/** Keyset paging: the first batch, then the rows from the last one sent on (rowsAfter leaves it out). */
export interface ExportPage {
  take: number;
  cursor?: { id: string };
}

/** A turn of the tenant's, waited for as long as it takes (a wait that times out queues again). */
async function waitTurn(env: StreamEnv, signal: AbortSignal): Promise<() => void> {
  for (;;) {
    try {
      return await env.turn(signal);
    } catch (err) {
      if (signal.aborted || !(err instanceof AppError) || err.code !== 'SERVICE_UNAVAILABLE') throw err;
    }
  }
}

/**
 * `first`, then the rows after it, batch after batch, each handed to `encode` and yielded as it
 * encodes; a batch shorter than EXPORT_BATCH is the last. A batch is let go before its encoding is
 * yielded: held while a slow reader keeps the stream waiting, its rows would be promoted to V8's old
 * space, and the process would grow by a batch each time until the next full collection.
 * A cursor on a row deleted meanwhile reads nothing: when a batch comes back empty and the last row
 * sent is gone, the latest row of that batch still present is the cursor, and the rows after it
 * already sent are left out; a batch deleted whole cuts the export short (an error).
 */
export async function* rowsAfter<Row extends { id: string }, Out>(
  first: Row[],
  next: (page: ExportPage) => Promise<Row[]>,
  present: (ids: string[]) => Promise<Set<string>>,
  env: StreamEnv,
  signal: AbortSignal,
  encode: (rows: Row[]) => Out,
): AsyncGenerator<Out> {
  let rows = first;
  let full = first.length === EXPORT_BATCH;
  first = [];
  // The rows after the row `id`: from it on, one more, and it left out if it came back. A row that no
  // longer matches the filters (erased, renamed) does not come back, and then no other row may take
  // its place in being skipped.
  const after = async (id: string): Promise<{ rows: Row[]; full: boolean }> => {
    const got = await next({ take: EXPORT_BATCH + 1, cursor: { id } });
    const rest = (got[0]?.id === id ? got.slice(1) : got).slice(0, EXPORT_BATCH);
    return { rows: rest, full: rest.length === EXPORT_BATCH };
  };
  for (;;) {
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.id);
    const chunk = encode(rows);
    rows = [];
    yield chunk;
    if (!full || signal.aborted) return;
    // A turn of the event loop between batches: the embedded database answers a read without one,
    // and a loopback socket takes every chunk, so an export held every other request, the probes
    // and the watchdog's beat for its whole length (probe F: 5 s for 40 000 guests).
    await setImmediate();
    const release = await waitTurn(env, signal);
    try {
      const last = ids[ids.length - 1] as string;
      let page = await after(last);
      if (page.rows.length === 0) {
        const still = await present(ids);
        if (!still.has(last)) {
          const at = ids.findLastIndex((id) => still.has(id));
          if (at < 0) throw new Error('the rows of the last batch were deleted while the export ran');
          const sent = new Set(ids.slice(at + 1));
          page = await after(ids[at] as string);
          page = { rows: page.rows.filter((r) => !sent.has(r.id)), full: page.full };
        }
      }
      rows = page.rows;
      full = page.full;
    } finally {
      release();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The endpoint

/**
 * `GET /things/export`: the list operation's filters (same 422s) and scope, `format` and `bom`, the
 * whole result in the list's order, each row written by the list's serializer.
 */
export function exportEndpointOf<F extends Filters<W>, W, O, Row extends { id: string }>(
  op: ListOperation<F, W, O>,
  def: {
    summary: string;
    /** The file name's stem: `sessions` → `sessions-2026-11-21.csv`. */
    name: string;
    /** The Prisma model the rows are (finds which rows of a batch are still there). */
    model: string;
    /** The list item's schema: the CSV columns are its keys, in order (optional keys left out). */
    item: TObject;
    /** Columns beyond the default, from the validated filters (the guests' `withBeacon`). */
    columns?: (input: FilterValues<F>, base: readonly string[]) => readonly string[];
    read(ctx: AppContext, query: ListQuery<FilterValues<F>, W, O>, page: ExportPage): Promise<Row[]>;
    serialize(row: Row, ctx: AppContext): object;
  },
): Endpoint {
  const optional = new Set(
    Object.entries(def.item.properties)
      .filter(([key]) => !(def.item.required ?? []).includes(key))
      .map(([key]) => key),
  );
  const base = Object.keys(def.item.properties).filter((k) => !optional.has(k));
  return {
    summary: def.summary,
    action: op.action,
    filters: { ...rulesOf(op.filters), ...exportRules },
    descriptions: { ...descriptionsOf(op.filters), ...EXPORT_DESCRIPTIONS },
    exportItem: def.item,
    async handle({ ctx, query: raw }) {
      authorize(ctx.principal, op.action);
      // Every message at once, the list's and the export's own, as one validation would give them.
      const [listed, options] = await Promise.allSettled([op.query(ctx, raw), validate(raw, exportRules)]);
      const errors = {
        ...(listed.status === 'rejected' && listed.reason instanceof ValidationError
          ? listed.reason.errors
          : {}),
        ...(options.status === 'rejected' && options.reason instanceof ValidationError
          ? options.reason.errors
          : {}),
      };
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      if (listed.status === 'rejected') throw listed.reason;
      if (options.status === 'rejected') throw options.reason;
      const q = listed.value;
      const format: ExportFormat = options.value.format === 'ndjson' ? 'ndjson' : 'csv';
      const columns = def.columns ? def.columns(q.input, base) : base;
      // The first batch before the first byte: a failure here answers as any request (503).
      const first = await def.read(ctx, q, { take: EXPORT_BATCH });
      const date = new Date().toISOString().slice(0, 10);
      // Each record is encoded into the batch's buffer as soon as it is written, so that no batch-long
      // string (nor its thousands of pieces) is alive when V8 collects its young generation.
      const write = (rows: Row[]): Buffer => {
        let buf = Buffer.allocUnsafe(256 * 1024);
        let at = 0;
        for (const row of rows) {
          const item = def.serialize(row, ctx) as Record<string, unknown>;
          const text = format === 'csv' ? csvRecord(columns, item) : `${phpJsonEncode(item)}\n`;
          if (at + text.length * 3 > buf.length) {
            const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, at + text.length * 3));
            buf.copy(bigger, 0, 0, at);
            buf = bigger;
          }
          at += buf.write(text, at);
        }
        return buf.subarray(0, at);
      };
      const head = format === 'csv' ? `${options.value.bom === true ? BOM : ''}${csvHeader(columns)}` : '';
      return new StreamAnswer(
        {
          'Content-Type': MEDIA_TYPES[format],
          'Content-Disposition': `attachment; filename="${def.name}-${date}.${format}"`,
          'Cache-Control': 'no-store',
        },
        (env) => {
          const stop = new AbortController();
          const present = async (ids: string[]): Promise<Set<string>> => {
            const rows = await findManyRows<{ id: string }>(ctx.prisma, def.model, {
              where: { id: { in: ids } },
              select: { id: true },
            });
            return new Set(rows.map((r) => r.id));
          };
          async function* chunks(): AsyncGenerator<Buffer> {
            if (head) yield Buffer.from(head);
            yield* rowsAfter(first, (page) => def.read(ctx, q, page), present, env, stop.signal, write);
          }
          const stream = Readable.from(chunks(), { objectMode: false, highWaterMark: 64 * 1024 });
          // Destroyed without an error: this warning is the one line for it (with an error, Fastify
          // logged it again, with its stack, as a response that failed).
          const cut = (): void => {
            env.log.warn({ export: def.name }, 'export cut short: the server is stopping');
            env.abort();
            stream.destroy();
          };
          if (env.closing.aborted) cut();
          else env.closing.addEventListener('abort', cut, { once: true });
          stream.once('close', () => {
            stop.abort();
            env.closing.removeEventListener('abort', cut);
          });
          return stream;
        },
      );
    },
  };
}

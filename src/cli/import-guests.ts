// `admin import guests FILE --tenant ID [--mode …] [--upsert-by …] [--format …]`: the guest import of
// `POST /guests/import` (src/modules/guests/guests.import.ts) from a CSV, NDJSON or JSON file, with
// the same rules and messages. The operator acts as the tenant's admin holding guests.manage-global
// (every location; an upsert may move a guest), and a file may hold any number of rows, within
// GUEST_IMPORT_MAX_MB (the route's limit) bytes.
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Prisma } from '../db/database.js';
import { systemActor } from '../events/outbox.js';
import {
  type ImportMode,
  type ImportProgress,
  type ImportSummary,
  runGuestImport,
  type UpsertKey,
} from '../modules/guests/guests.import.js';
import { type ImportFormat, readImportFile } from '../modules/guests/guests.import.source.js';
import { type FieldErrors, ValidationError } from '../validation/validator.js';
import { type ProgressStream, progressBar } from './progress-bar.js';

export interface ImportCommand {
  file: string;
  tenantId: string;
  mode: ImportMode;
  upsertBy: UpsertKey | null;
  format?: ImportFormat | undefined;
}

/** What `--json` prints on success (the human text beside it). */
export interface ImportResult {
  tenant_id: string;
  file: string;
  format: ImportFormat;
  rows: number;
  created: number;
  updated: number;
  skipped: number;
  errors: FieldErrors;
}

/**
 * Nothing was stored because of the file or its rows (exit 1): the message lists every refused row
 * plainly; `errors` are the same messages keyed `rows.N.field` for `--json`.
 */
export class ImportFailed extends Error {
  override readonly name = 'ImportFailed';
  constructor(
    message: string,
    readonly errors: FieldErrors,
  ) {
    super(message);
  }
}

/** `row 12 (line 14): The rows.12.email field must be a valid email address.`, one line per message. */
export function rowLines(errors: FieldErrors, lines: readonly (number | null)[]): string[] {
  return Object.entries(errors).flatMap(([key, messages]) => {
    const index = Number(/^rows\.(\d+)/.exec(key)?.[1] ?? Number.NaN);
    const line = lines[index];
    const where = Number.isNaN(index) ? key : `row ${index}${line ? ` (line ${line})` : ''}`;
    return messages.map((m) => `${where}: ${m}`);
  });
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The import's phases on one bar each (src/cli/progress-bar.ts): `… 5000/10000 rows checked`. */
export function importProgress(stream: ProgressStream): (p: ImportProgress) => void {
  const LABELS: Record<ImportProgress['phase'], string> = {
    checking: 'rows checked',
    storing: 'rows stored',
  };
  let bar: ReturnType<typeof progressBar> | undefined;
  let phase = '';
  let done = 0;
  return (p) => {
    if (p.phase !== phase) {
      bar?.end(LABELS[phase as ImportProgress['phase']]);
      bar = progressBar(stream, p.total);
      phase = p.phase;
      done = 0;
    }
    bar?.tick(p.done - done, LABELS[p.phase]);
    done = p.done;
    if (p.done === p.total) {
      bar?.end(LABELS[p.phase]);
      bar = undefined;
      phase = '';
    }
  };
}

/** What a path is when it is not a regular file: `a folder`, `a device`, … */
function notAFile(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const MIB = 1024 * 1024;

function tooLarge(file: string, maxBytes: number, size: string): ImportFailed {
  return new ImportFailed(
    `${file} is larger than GUEST_IMPORT_MAX_MB (${maxBytes / MIB} MiB, the limit of POST /guests/import): ${size}; ` +
      'raise GUEST_IMPORT_MAX_MB to import a bigger file, or split it.',
    {},
  );
}

/**
 * The file's bytes, refused before any read unless it is a regular file of at most `maxBytes`
 * (a folder, a device such as /dev/zero, a FIFO or /dev/stdin would be read without end or block),
 * and refused as soon as more than `maxBytes` arrive (a file growing while it is read): at most
 * `maxBytes + 1` bytes are ever read.
 */
/** Why a file cannot be read, said plainly for the errors an operator meets (Node's own wording else). */
const FILE_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'there is no such file.',
  ENOTDIR: 'a part of its path is not a folder.',
  EACCES: 'this process may not read it.',
  EPERM: 'this process may not read it.',
  ELOOP: 'its symbolic links go round in a loop.',
  ENAMETOOLONG: 'its name is too long.',
};
const fileReason = (err: unknown): string =>
  FILE_REASONS[(err as NodeJS.ErrnoException).code ?? ''] ?? (err as Error).message;

export async function readBoundedFile(file: string, maxBytes: number): Promise<Buffer> {
  const cannot = (reason: string) => new ImportFailed(`Cannot read ${file}: ${reason}`, {});
  const judge = (stats: Stats): void => {
    const kind = notAFile(stats);
    if (kind) throw cannot(`it is ${kind}, not a regular file.`);
    if (stats.size > maxBytes) throw tooLarge(file, maxBytes, `${stats.size} bytes`);
  };
  try {
    // The path first: opening a FIFO would wait for a writer, and opening some devices acts.
    judge(await stat(file));
  } catch (err) {
    if (err instanceof ImportFailed) throw err;
    throw cannot(fileReason(err));
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: should the path have become a FIFO since, the open does not wait for a writer.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw cannot(fileReason(err));
  }
  try {
    // What was opened (the path may have been replaced since it was judged).
    const opened = await handle.stat();
    judge(opened);
    // One byte more than the file holds (at most the limit's): its end, or that it grew.
    let buffer = Buffer.alloc(Math.min(opened.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw tooLarge(file, maxBytes, 'it grew while being read');
        const grown = Buffer.alloc(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } catch (err) {
    if (err instanceof ImportFailed) throw err;
    throw cannot(fileReason(err));
  } finally {
    await handle.close();
  }
}

/** The rows of the command's file, read and parsed (no database needed): refused plainly. */
export async function readGuestFile(
  cmd: Pick<ImportCommand, 'file' | 'format'>,
  config: Pick<Config, 'guestImportMaxBytes'>,
): Promise<GuestFile> {
  const bytes = await readBoundedFile(cmd.file, config.guestImportMaxBytes);
  try {
    return readImportFile(bytes, { filename: path.basename(cmd.file), format: cmd.format });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const message = Object.values(err.errors).flat().join(' ');
    throw new ImportFailed(`${cmd.file}: ${message}`, err.errors);
  }
}

export type GuestFile = ReturnType<typeof readImportFile>;

/** Imports the rows of `read` (readGuestFile) into the command's tenant. */
export async function importGuestsFile(
  prisma: Prisma,
  cmd: ImportCommand,
  read: GuestFile,
  progress: (p: ImportProgress) => void,
  config: Pick<Config, 'appUrl' | 'guestImportMaxBytes'>,
): Promise<ImportResult & { text: string }> {
  const total = read.rows.length;
  const env = {
    prisma,
    scope: { tenantId: cmd.tenantId, locationId: null },
    mayMoveGuests: true,
    // The operator, not a user of the tenant: the events and audit entries name the service.
    actor: systemActor,
    config,
    progress,
  };
  let summary: ImportSummary;
  try {
    summary = await runGuestImport(env, read.rows, { mode: cmd.mode, upsertBy: cmd.upsertBy });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const refused = new Set(Object.keys(err.errors).map((k) => k.split('.')[1])).size;
    throw new ImportFailed(
      [
        `Nothing was stored: ${plural(refused, 'row')} of ${total} refused (mode all_or_nothing):`,
        ...rowLines(err.errors, read.lines),
      ].join('\n'),
      err.errors,
    );
  }
  const lines = rowLines(summary.errors, read.lines);
  if (summary.created + summary.updated === 0 && summary.skipped > 0) {
    throw new ImportFailed(
      [`Nothing was stored: all ${plural(total, 'row')} refused:`, ...lines].join('\n'),
      summary.errors,
    );
  }
  const text = [
    ...lines,
    `Imported ${cmd.file} (${read.format}, ${plural(total, 'row')}) into tenant ${cmd.tenantId}: ` +
      `${summary.created} created, ${summary.updated} updated, ${summary.skipped} skipped.`,
  ].join('\n');
  return {
    tenant_id: cmd.tenantId,
    file: cmd.file,
    format: read.format,
    rows: total,
    created: summary.created,
    updated: summary.updated,
    skipped: summary.skipped,
    errors: summary.errors,
    text,
  };
}

// `admin import guests FILE --tenant ID [--mode …] [--upsert-by …] [--format …]`: the guest import of
// `POST /guests/import` (src/modules/guests/guests.import.ts) from a CSV, NDJSON or JSON file, with
// the same rules and messages. The operator acts as the tenant's admin holding guests.manage-global
// (every location; an upsert may move a guest), and a file may hold any number of rows.
import { readFile } from 'node:fs/promises';
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

export async function importGuestsFile(
  prisma: Prisma,
  cmd: ImportCommand,
  progress: (p: ImportProgress) => void,
  config: Pick<Config, 'appUrl'>,
): Promise<ImportResult & { text: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(cmd.file);
  } catch (err) {
    throw new ImportFailed(`Cannot read ${cmd.file}: ${(err as Error).message}`, {});
  }
  const name = path.basename(cmd.file);
  let read: ReturnType<typeof readImportFile>;
  try {
    read = readImportFile(bytes, { filename: name, format: cmd.format });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const message = Object.values(err.errors).flat().join(' ');
    throw new ImportFailed(`${cmd.file}: ${message}`, err.errors);
  }
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

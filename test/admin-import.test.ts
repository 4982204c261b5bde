// `admin import guests FILE --tenant ID …` (src/cli/import-guests.ts) as a real child process on an
// embedded database in a temporary DATA_DIR (always embedded, whatever TEST_DATABASE_URL says): the
// same rules as POST /guests/import, progress on stderr, refused rows named with their lines, exit 1
// when nothing was stored because of them, usage errors 2.
import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportFailed, readBoundedFile } from '../src/cli/import-guests.js';
import { openDatabase } from '../src/db/database.js';
import { migratedDataDir } from './helpers/pglite-template.js';
import { killAll, type Run, startAdmin } from './helpers/processes.js';

let dataDir: string;
const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return e;
};
const admin = (...args: string[]): Promise<Run> => startAdmin(args, env()).exited(100_000);
/** A run that must end at once (a file read without end would otherwise run on). */
const quickAdmin = (extra: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> =>
  startAdmin(args, { ...env(), ...extra }).exited(20_000);
const MIB = 1024 * 1024;

/** Writes `text` to a file of the temporary folder; its path. */
async function file(name: string, text: string): Promise<string> {
  const p = path.join(dataDir, name);
  await writeFile(p, text);
  return p;
}

/** Reads the embedded database between runs (one process holds it at a time). */
async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const db = await openDatabase({ dataDir });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

let tenantId: string;
let locationId: string;

beforeAll(async () => {
  dataDir = await migratedDataDir('gateway-import-');
  const boot = await admin('bootstrap', '--tenant', 'Import Hotel', '--json');
  expect(boot.code, boot.stderr).toBe(0);
  ({ tenant_id: tenantId, location_id: locationId } = JSON.parse(boot.stdout));
}, 120_000);
afterAll(async () => {
  killAll();
  await rm(dataDir, { recursive: true, force: true });
});

describe('admin import guests', { timeout: 120_000 }, () => {
  it('all_or_nothing: names each refused row with its line, stores nothing, exits 1', async () => {
    const csv = await file(
      'bad.csv',
      `location_id,name,email\n${locationId},Ann Lee,ann@example.com\n\nnowhere,Bob,bob@example.com\n${locationId},Cy,not-an-email\n`,
    );
    const run = await admin('import', 'guests', csv, '--tenant', tenantId);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      [
        'error: Nothing was stored: 2 rows of 3 refused (mode all_or_nothing):',
        'row 1 (line 4): The selected rows.1.location_id is invalid.',
        'row 2 (line 5): The rows.2.email field must be a valid email address.',
      ].join('\n'),
    );
    // Progress: rows checked of the total, on stderr.
    expect(run.stderr).toContain('[##############################] 100%  3/3 rows checked');
    expect(await withDb((db) => db.prisma.guest.count({ where: { tenantId } }))).toBe(0);
  });

  it('skip_invalid --json: one object with the counts and the refused rows; progress on stderr', async () => {
    const csv = await file(
      'mixed.csv',
      `location_id,name,email,tags\n${locationId},Ann Lee,ann@example.com,"vip,late"\n${locationId},Cy,not-an-email,\n`,
    );
    const run = await admin(
      'import',
      'guests',
      csv,
      '--tenant',
      tenantId,
      '--mode',
      'skip_invalid',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual({
      tenant_id: tenantId,
      file: csv,
      format: 'csv',
      rows: 2,
      created: 1,
      updated: 0,
      skipped: 1,
      errors: { 'rows.1.email': ['The rows.1.email field must be a valid email address.'] },
    });
    expect(run.stderr).toContain('[##############################] 100%  1/1 rows stored');
    const ann = await withDb((db) =>
      db.prisma.guest.findFirstOrThrow({
        where: { tenantId, email: 'ann@example.com' },
        include: { tags: true },
      }),
    );
    expect(ann.tags).toHaveLength(2);
  });

  it('--upsert-by email with an NDJSON file updates the guest of that e-mail; the summary in plain text', async () => {
    const ndjson = await file(
      'upsert.ndjson',
      `{"location_id":"${locationId}","email":"ANN@example.com","room_no":"12"}\n{"location_id":"${locationId}","name":"New One"}\n`,
    );
    const run = await admin('import', 'guests', ndjson, '--tenant', tenantId, '--upsert-by', 'email');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(
      `Imported ${ndjson} (ndjson, 2 rows) into tenant ${tenantId}: 1 created, 1 updated, 0 skipped.`,
    );
    const ann = await withDb((db) => db.prisma.guest.findFirstOrThrow({ where: { tenantId, roomNo: '12' } }));
    expect(ann.email).toBe('ANN@example.com');
  });

  it('exits 1 when every row is refused (skip_invalid), or the file cannot be read', async () => {
    const csv = await file('all-bad.csv', 'location_id\nnowhere\n');
    const refused = await admin(
      'import',
      'guests',
      csv,
      '--tenant',
      tenantId,
      '--mode',
      'skip_invalid',
      '--json',
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({
      error:
        'Nothing was stored: all 1 row refused:\nrow 0 (line 2): The selected rows.0.location_id is invalid.',
      errors: { 'rows.0.location_id': ['The selected rows.0.location_id is invalid.'] },
    });
    const broken = await file('broken.csv', 'location_id,name\nx,"never closed\n');
    const bad = await admin('import', 'guests', broken, '--tenant', tenantId);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      `error: ${broken}: The file field must be a valid CSV file: a quoted field opened on line 2 is never closed.`,
    );
    const missing = await admin('import', 'guests', path.join(dataDir, 'nope.csv'), '--tenant', tenantId);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `error: Cannot read ${path.join(dataDir, 'nope.csv')}: there is no such file.`,
    );
  });

  it('refuses what is not a regular file before reading it: a folder, a FIFO, /dev/stdin, /dev/zero', async () => {
    const folder = path.join(dataDir, 'a-folder.csv');
    await mkdir(folder);
    const fifo = path.join(dataDir, 'a-fifo.csv');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // /dev/zero last: read, it would never end (the probe's run reached 21 GB in 25 minutes).
    for (const [file, kind] of [
      [folder, 'a folder'],
      [fifo, 'a pipe (FIFO)'],
      // The child's stdin: Node's 'pipe' is a socket pair.
      ['/dev/stdin', 'a socket'],
      ['/dev/zero', 'a device'],
    ] as const) {
      const run = await quickAdmin({}, 'import', 'guests', file, '--tenant', tenantId, '--json');
      expect(run.code, `${file}: ${run.stderr}`).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        error: `Cannot read ${file}: it is ${kind}, not a regular file.`,
        errors: {},
      });
    }
    const plain = await quickAdmin({}, 'import', 'guests', '/dev/zero', '--tenant', tenantId);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('error: Cannot read /dev/zero: it is a device, not a regular file.');
  });

  it("refuses a file over GUEST_IMPORT_MAX_MB (the route's limit) before reading it; one of exactly that many bytes imports", async () => {
    // One row whose unknown `padding` column (ignored, as unknown columns are) fills the file.
    const head = `location_id,name,padding\n${locationId},Padded Guest,`;
    const padded = (bytes: number) => `${head}${'x'.repeat(bytes - head.length - 1)}\n`;
    const over = await file('over.csv', padded(MIB + 1));
    const refused = await quickAdmin(
      { GUEST_IMPORT_MAX_MB: '1' },
      'import',
      'guests',
      over,
      '--tenant',
      tenantId,
      '--json',
    );
    expect(refused.code, refused.stderr).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({
      error:
        `${over} is larger than GUEST_IMPORT_MAX_MB (1 MiB, the limit of POST /guests/import): 1048577 bytes; ` +
        'raise GUEST_IMPORT_MAX_MB to import a bigger file, or split it.',
      errors: {},
    });
    expect(refused.stderr).not.toContain('rows checked');
    const exact = await file('exact.csv', padded(MIB));
    const run = await quickAdmin(
      { GUEST_IMPORT_MAX_MB: '1' },
      'import',
      'guests',
      exact,
      '--tenant',
      tenantId,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(
      `Imported ${exact} (csv, 1 row) into tenant ${tenantId}: 1 created, 0 updated, 0 skipped.`,
    );
    expect(await withDb((db) => db.prisma.guest.count({ where: { tenantId, name: 'Padded Guest' } }))).toBe(
      1,
    );
  });

  it('usage errors exit 2: no FILE, a bad --mode, an unknown tenant', async () => {
    const noFile = await admin('import', 'guests', '--tenant', tenantId);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('import guests takes one FILE; got none.');
    const csv = await file('one.csv', `location_id\n${locationId}\n`);
    const badMode = await admin('import', 'guests', csv, '--tenant', tenantId, '--mode', 'sometimes');
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toContain('--mode must be one of: all_or_nothing, skip_invalid; got "sometimes".');
    const unknown = await admin('import', 'guests', csv, '--tenant', 'no-such-tenant');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No tenant with id "no-such-tenant".');
  });
});

// A file that grows while it is read: Linux's /proc files say 0 bytes and hold more, so they pass
// the size check and only the guard while reading stops them.
describe.skipIf(process.platform !== 'linux')('readBoundedFile', () => {
  it('stops reading a file that grows past the limit while it is read', async () => {
    const file = '/proc/self/smaps';
    const error = await readBoundedFile(file, 1000).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ImportFailed);
    expect((error as ImportFailed).message).toBe(
      `${file} is larger than GUEST_IMPORT_MAX_MB (${1000 / MIB} MiB, the limit of POST /guests/import): ` +
        'it grew while being read; raise GUEST_IMPORT_MAX_MB to import a bigger file, or split it.',
    );
    // Within the limit, all of it (read past the 0 bytes its size said).
    expect((await readBoundedFile('/proc/self/status', MIB)).toString()).toMatch(/^Name:/);
  });
});

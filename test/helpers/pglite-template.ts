// A migrated, empty embedded database made once and copied wherever a test needs a new one: a new
// PGlite runs initdb and every migration first (about 4 s of CPU, more than most test files), and
// the copy is what a database of an earlier run would be. The admin CLI's first bootstrap still
// starts from an empty folder; the migration tests start from a dump taken before any migration.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { inject } from 'vitest';
import { type Database, pgliteDatabase } from '../../src/db/database.js';
import { applyMigrations, pgliteRunner, readMigrations } from '../../src/db/migrate.js';
import { newPglite } from '../../src/db/pglite.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The folder of ensurePgliteTemplate: `data/` (a migrated data folder), `data.tar` (its dump) and
     * `initdb.tar` (a dump of it before any migration).
     */
    pgliteTemplate: string;
  }
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What the template depends on: PGlite's version and the migrations. */
function templateKey(): string {
  const pglite = JSON.parse(
    readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  // The layout of the folder (2: initdb.tar added), then what its databases are made of.
  const hash = createHash('sha256').update(`2\0${pglite.version}\0`);
  for (const m of readMigrations()) hash.update(`${m.name}\0${m.checksum}\0`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The template's folder, made if missing (global setup). Kept in the system's temporary folder
 * under a name of what it was made from, so later runs reuse it; made aside and renamed into place,
 * so a run stopped halfway leaves nothing another run would take for a template.
 */
export async function ensurePgliteTemplate(): Promise<string> {
  const dir = path.join(tmpdir(), `gateway-pglite-template-${templateKey()}`);
  await removeOtherTemplates(path.basename(dir));
  // data.tar is written last. A template in use is touched, so that no other checkout removes it.
  if (existsSync(path.join(dir, 'data.tar'))) {
    const now = new Date();
    await utimes(dir, now, now);
    return dir;
  }
  const building = await mkdtemp(`${dir}.building-`);
  try {
    // One PGlite from initdb to the dump: dumping from a second one, opened in this process after the
    // first closed, never settled.
    const pglite = newPglite(path.join(building, 'data'));
    await pglite.waitReady;
    const initdb = await pglite.dumpDataDir('none');
    await writeFile(path.join(building, 'initdb.tar'), Buffer.from(await initdb.arrayBuffer()));
    await applyMigrations(pgliteRunner(pglite));
    const dump = await pglite.dumpDataDir('none');
    await pglite.close();
    await writeFile(path.join(building, 'data.tar'), Buffer.from(await dump.arrayBuffer()));
    await rename(building, dir).catch(async (err: NodeJS.ErrnoException) => {
      // Another run made it meanwhile.
      if (!existsSync(path.join(dir, 'data.tar'))) throw err;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

/** Templates of other migrations or PGlite versions (80 MB each), unless made or used in the last day. */
async function removeOtherTemplates(keep: string): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    if (!name.startsWith('gateway-pglite-template-') || name === keep) continue;
    const dir = path.join(tmpdir(), name);
    const made = await stat(dir).then(
      (s) => s.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - made > 86_400_000) await rm(dir, { recursive: true, force: true });
  }
}

/** A new data folder holding the migrated, empty database (removed by the caller). */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await cp(path.join(inject('pgliteTemplate'), 'data'), dir, { recursive: true });
  return dir;
}

const dumps = new Map<string, Blob>();
async function templateDump(name: 'data.tar' | 'initdb.tar'): Promise<Blob> {
  let dump = dumps.get(name);
  if (!dump) {
    dump = new Blob([await readFile(path.join(inject('pgliteTemplate'), name))]);
    dumps.set(name, dump);
  }
  return dump;
}

/** The migrated, empty database in memory (the embedded default of test/helpers/app.ts). */
export async function migratedMemoryDatabase(): Promise<Database> {
  const pglite = newPglite(undefined, await templateDump('data.tar'));
  await pglite.waitReady;
  return pgliteDatabase(pglite);
}

/**
 * A database as initdb leaves it, no migration applied (tests of the migrations): in memory, or in
 * the empty folder `dataDir` (initdb itself takes seconds of CPU).
 */
export async function initdbPglite(dataDir?: string): Promise<PGlite> {
  const pglite = newPglite(dataDir, await templateDump('initdb.tar'));
  await pglite.waitReady;
  return pglite;
}

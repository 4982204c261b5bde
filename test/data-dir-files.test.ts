// An embedded database folder the server cannot start from says why in one line (probe P: both
// answered only PGlite's `Aborted(). Build with -sASSERTIONS for more info.`): a file of it this
// process may not write (left by a command run as root), or files that are damaged.
import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareDataDir } from '../src/db/database.js';
import { migratedDataDir } from './helpers/pglite-template.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const folders: string[] = [];
afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

/** The server on `dir` (port 1: it must stop before listening), as `user` when given. */
function start(dir: string, user?: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, PORT: '1' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const node = [process.execPath, path.join(ROOT, 'dist/server.js')];
  const [command, args] = user ? ['runuser', ['-u', user, '--', ...node]] : [node[0] ?? '', node.slice(1)];
  return spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
}

const uid = (name: string): number | undefined => {
  const run = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  return run.status === 0 ? Number(run.stdout) : undefined;
};
const nobody = uid('nobody');
const asAnotherUser =
  process.getuid?.() === 0 && nobody !== undefined && spawnSync('runuser', ['--help']).status === 0;

// Each test starts the server (and one makes a database) as a process: far longer than a request.
describe('an embedded database folder the server cannot start from', { timeout: 120_000 }, () => {
  it.skipIf(!asAnotherUser)('names the first file this process may not write', async () => {
    const dir = await migratedDataDir('not-writable-');
    folders.push(dir);
    const walk = spawnSync('chown', ['-R', `${nobody}`, dir]);
    expect(walk.status).toBe(0);
    // Left by an admin command run as root.
    const stray = path.join(dir, 'global', 'pg_internal.init');
    await writeFile(stray, 'x');
    await chown(stray, 0, 0);
    const run = start(dir, 'nobody');
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toBe(
      `Cannot start: DATA_DIR ${dir}: this process may not write global/pg_internal.init (EACCES: permission denied): every file of the folder must be its own\n`,
    );
  });

  it('refuses a folder holding other files but no database (a mistyped path), and makes nothing there', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'not-a-database-'));
    folders.push(dir);
    await writeFile(path.join(dir, 'notes.txt'), 'mine');
    const run = start(dir);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toBe(
      `Cannot start: DATA_DIR ${dir}: holds files but no database (notes.txt): point DATA_DIR at the database's folder, or at an empty or new one\n`,
    );
    expect(await readdir(dir)).toEqual(['notes.txt']);
  });

  it('says the files are damaged when PGlite cannot start from them', async () => {
    // PGlite's two words for it: `Aborted()` (no pg_control) and `failed to initialize` (no base/).
    for (const gone of [['global', 'pg_control'], ['base']]) {
      const dir = await migratedDataDir('damaged-');
      folders.push(dir);
      await rm(path.join(dir, ...gone), { recursive: true });
      const run = start(dir);
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toBe(
        `Cannot start: DATA_DIR ${dir}: the embedded database cannot start from its files (PGlite aborted): they are damaged or were not written by this service; restore the folder from a backup\n`,
      );
    }
  });

  it('tells a mistyped path holding a folder named like PostgreSQL’s from an unfinished database; takes lost+found', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'site-'));
    folders.push(dir);
    await mkdir(path.join(dir, 'base'));
    await writeFile(path.join(dir, 'index.html'), '<p>site</p>');
    const run = start(dir);
    expect(run.stderr).toBe(
      `Cannot start: DATA_DIR ${dir}: holds files but no database (base, index.html): point DATA_DIR at the database's folder, or at an empty or new one\n`,
    );
    // A fresh volume's root: its lost+found and hidden files are no one's data.
    const volume = await mkdtemp(path.join(tmpdir(), 'volume-'));
    folders.push(volume);
    await mkdir(path.join(volume, 'lost+found'));
    await writeFile(path.join(volume, '.DS_Store'), '');
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: volume };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const boot = spawnSync(
      process.execPath,
      [path.join(ROOT, 'dist/cli/admin.js'), 'bootstrap', '--tenant', 'Volume Co', '--json'],
      {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(boot.status, boot.stderr).toBe(0);
  });

  it('calls a database without PG_VERSION unfinished (a first start stopped), not a mistyped path', async () => {
    const dir = await migratedDataDir('unfinished-');
    folders.push(dir);
    await rm(path.join(dir, 'PG_VERSION'));
    const run = start(dir);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toBe(
      `Cannot start: DATA_DIR ${dir}: holds an unfinished embedded database (PostgreSQL's folders but no PG_VERSION: was its first start stopped?): empty the folder to start anew, or restore it from a backup\n`,
    );
  });
});

describe('the data folder is closed to every other account (probes E, X: PGlite writes its files 0666)', () => {
  it('is made, or found open, without access for any other account', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'data-mode-'));
    folders.push(parent);
    const made = path.join(parent, 'new', 'data');
    prepareDataDir(made);
    expect((await stat(made)).mode & 0o077).toBe(0);
    const open = path.join(parent, 'open');
    await mkdir(open);
    await chmod(open, 0o777);
    prepareDataDir(open);
    expect((await stat(open)).mode & 0o777).toBe(0o700);
    // Its group too (probe X: at 750 the group could write the files), its setgid bit kept.
    await chmod(open, 0o2750);
    prepareDataDir(open);
    expect((await stat(open)).mode & 0o7777).toBe(0o2700);
    // A private one is left as it is.
    await chmod(open, 0o700);
    prepareDataDir(open);
    expect((await stat(open)).mode & 0o777).toBe(0o700);
  });
});

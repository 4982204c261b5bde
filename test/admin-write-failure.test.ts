// A write the embedded database cannot make (a full disk, simulated by a file-size limit): the
// command fails in one plain line (no stack, no PGlite PANIC dump), stores nothing, and leaves the
// folder as a killed process would, so the next command opens it (probe P: a clean close after the
// failed log write left a folder no start could open).
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDataDir } from './helpers/pglite-template.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ADMIN = path.join(ROOT, 'dist/cli/admin.js');
const folders: string[] = [];
afterAll(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

/** `admin …` on `dir`, its files limited to `maxKb` when given (bash's ulimit -f). */
function admin(dir: string, args: string[], maxKb?: number) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const quoted = [process.execPath, ADMIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const run = spawnSync('bash', ['-c', `${maxKb ? `ulimit -f ${maxKb}; ` : ''}exec ${quoted}`], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe.skipIf(process.platform !== 'linux')('admin on an embedded database that cannot write', () => {
  it('fails plainly, stores nothing, and the folder opens again', { timeout: 180_000 }, async () => {
    const dir = await migratedDataDir('write-failure-');
    folders.push(dir);
    const boot = admin(dir, ['bootstrap', '--tenant', 'Full Disk Co', '--json']);
    expect(boot.code, boot.stderr).toBe(0);
    const tenant = JSON.parse(boot.stdout).tenant_id as string;

    // Files of at most 4 MiB: the write-ahead log's 16 MiB files cannot grow past that.
    const seed = admin(dir, ['seed', '--tenant', tenant, '--guests', '1000', '--json'], 4096);
    expect(seed.code, seed.stderr).toBe(1);
    const { error } = JSON.parse(seed.stdout) as { error: string };
    expect(error).toMatch(/^unexpected failure: could not (write|extend).*File too large$/);
    const lines = seed.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`error: ${error}`);
    expect(seed.stderr).not.toMatch(/PANIC| {4}at |wasm-function/);

    const after = admin(dir, ['token', 'list', '--tenant', tenant, '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).tokens).toHaveLength(1);
    // All or nothing: the failed seed left no venue, so the next one adds all four.
    const again = admin(dir, ['seed', '--tenant', tenant, '--guests', '1', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ locations: 4, guests: 1 });
  });
});

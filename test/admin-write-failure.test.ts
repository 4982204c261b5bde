// A write the embedded database cannot make (a full disk, simulated by a file-size limit): the
// command fails in one plain line (no stack, no PGlite PANIC dump), stores nothing, and leaves the
// folder as a killed process would, so the next command opens it (probe P: a clean close after the
// failed log write left a folder no start could open).
import { spawn, spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDataDir } from './helpers/pglite-template.js';
import { freePort } from './helpers/processes.js';

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

describe.skipIf(process.platform !== 'linux')('the server on an embedded database that cannot write', () => {
  // PGlite spins for good after a write the disk refused: the server answered nothing and stayed
  // alive (probe F). The watchdog ends it (SIGKILL, one fatal line); the next start has what was committed.
  it('is ended by the watchdog after EVENT_LOOP_STALL_SECONDS, and starts again with every committed write; a paused process is not', {
    timeout: 180_000,
  }, async () => {
    const dir = await migratedDataDir('stall-');
    folders.push(dir);
    const boot = admin(dir, ['bootstrap', '--tenant', 'Stuck Disk Co', '--json']);
    expect(boot.code, boot.stderr).toBe(0);
    const { token, location_id: locationId } = JSON.parse(boot.stdout) as {
      token: string;
      location_id: string;
    };
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      EVENT_LOOP_STALL_SECONDS: '3',
    };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const serve = async (maxKb?: number) => {
      const port = await freePort();
      const limit = maxKb ? `ulimit -f ${maxKb}; ` : '';
      const child = spawn(
        'bash',
        ['-c', `${limit}exec '${process.execPath}' '${path.join(ROOT, 'dist/server.js')}'`],
        {
          cwd: ROOT,
          env: { ...env, PORT: String(port) },
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
        child.on('close', (code, signal) => resolve(signal ?? code)),
      );
      const base = `http://127.0.0.1:${port}`;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && child.exitCode === null) {
        if (
          await fetch(`${base}/health`).then(
            (r) => r.ok,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 100));
      }
      return {
        base,
        exited,
        output: () => out,
        /** The whole process frozen for `ms` (SIGSTOP, then SIGCONT), as `docker pause` freezes it. */
        async freeze(ms: number) {
          if (child.pid) process.kill(-child.pid, 'SIGSTOP');
          await new Promise((r) => setTimeout(r, ms));
          if (child.pid) process.kill(-child.pid, 'SIGCONT');
        },
        kill: () => {
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL');
          } catch {
            // Gone already.
          }
        },
      };
    };

    const full = await serve(4096);
    try {
      const rows = Array.from({ length: 400 }, (_, i) => ({
        name: `Guest ${i} Stuck`,
        email: `stuck${i}@example.com`,
        location_id: locationId,
        custom_data: JSON.stringify({ pad: 'x'.repeat(1900) }),
      }));
      const answer = fetch(`${full.base}/api/v1/guests/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ rows }),
      }).then(
        (r) => r.status,
        () => 'no answer',
      );
      expect(await full.exited).toBe('SIGKILL');
      expect(await answer).toBe('no answer');
      const fatal = full
        .output()
        .split('\n')
        .filter((line) => line.includes('"level":60'));
      expect(fatal).toHaveLength(1);
      expect(JSON.parse(fatal[0] as string).msg).toMatch(
        /^The event loop has not run for [3-9] s \(EVENT_LOOP_STALL_SECONDS is 3\): the process is stuck/,
      );
    } finally {
      full.kill();
    }

    const again = await serve();
    try {
      const res = await fetch(`${again.base}/api/v1/guests/count`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ count: 0 });
      // A pause of the whole process longer than the limit is no stall of its loop (probe V: a 6 s
      // SIGSTOP had it killed as stuck).
      await again.freeze(6_000);
      await new Promise((r) => setTimeout(r, 4_000));
      expect((await fetch(`${again.base}/health`)).status).toBe(200);
      expect(again.output()).not.toContain('"level":60');
    } finally {
      again.kill();
    }
  });
});

// One process per embedded data folder: a lock left by a killed process is taken over at once (and
// no acknowledged write is lost), a live holder is named by its pid, and of processes starting
// together on a dead lock exactly one wins. Always the embedded database, whatever TEST_DATABASE_URL says.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseLockedError, LOCK_FILE, lockDataDir } from '../src/db/pglite-lock.js';
import { migratedDataDir } from './helpers/pglite-template.js';
import {
  type Child,
  freePort,
  killAll,
  killGroup,
  startAdmin,
  startScript,
  startServer,
  waitUntilUp,
} from './helpers/processes.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const temps: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gateway-lock-'));
  temps.push(dir);
  return dir;
}
afterAll(async () => {
  killAll();
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const run = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(run.stdout.toString());
}

const plant = (dir: string, holder: { pid: number; hostname: string }) =>
  writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ ...holder, since: new Date().toISOString() }));

describe('the data folder lock', () => {
  it('takes over a lock whose holder is dead, and names a live holder by pid', async () => {
    const dir = await tempDir();
    await plant(dir, { pid: deadPid(), hostname: hostname() });
    const release = await lockDataDir(dir);
    const held = JSON.parse(await readFile(path.join(dir, LOCK_FILE), 'utf8'));
    expect(held).toMatchObject({ pid: process.pid, hostname: hostname() });
    release();
    await expect(readFile(path.join(dir, LOCK_FILE))).rejects.toThrow(/ENOENT/);

    // A live process of this host (the test runner's parent) holds it: refused, named.
    await plant(dir, { pid: process.ppid, hostname: hostname() });
    const refused = lockDataDir(dir);
    await expect(refused).rejects.toBeInstanceOf(DatabaseLockedError);
    await expect(refused).rejects.toThrow(
      `The embedded database in ${dir} is in use by process ${process.ppid} (is the server running?).`,
    );
  });

  it('treats a live holder of this host as live however old its heartbeat, unless its pid is reused', async () => {
    const dir = await tempDir();
    // A long statement of the embedded database holds its thread, and its heartbeat, past 30 s.
    await plant(dir, { pid: process.ppid, hostname: hostname() });
    const old = new Date(Date.now() - 60_000);
    await utimes(path.join(dir, LOCK_FILE), old, old);
    await expect(lockDataDir(dir)).rejects.toThrow(`is in use by process ${process.ppid}`);

    // The holder died and its pid names a process started after the lock was taken: dead.
    const later = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => later.once('spawn', resolve));
      const since = new Date(Date.now() - 3_600_000).toISOString();
      await writeFile(
        path.join(dir, LOCK_FILE),
        JSON.stringify({ pid: later.pid, hostname: hostname(), since }),
      );
      const release = await lockDataDir(dir);
      release();
    } finally {
      later.kill();
    }
  });

  it('treats a lock of another host as live until its heartbeat is stale', async () => {
    const dir = await tempDir();
    await plant(dir, { pid: 4242, hostname: 'elsewhere.example' });
    await expect(lockDataDir(dir)).rejects.toThrow(/in use by process 4242 on host elsewhere\.example/);
    const old = new Date(Date.now() - 60_000);
    await utimes(path.join(dir, LOCK_FILE), old, old);
    const release = await lockDataDir(dir);
    release();
  });

  it("treats proper-lockfile's directory of an older version by its age", async () => {
    const dir = await tempDir();
    const legacy = path.join(dir, 'gateway.lock');
    await mkdir(legacy);
    await expect(lockDataDir(dir)).rejects.toThrow(
      `The embedded database in ${dir} is in use by another process`,
    );
    const old = new Date(Date.now() - 60_000);
    await utimes(legacy, old, old);
    const release = await lockDataDir(dir);
    await expect(stat(legacy)).rejects.toThrow(/ENOENT/);
    release();
  });

  it('of four processes starting together on a dead lock, exactly one wins', {
    timeout: 60_000,
  }, async () => {
    const dir = await tempDir();
    await plant(dir, { pid: deadPid(), hostname: hostname() });
    const script = `
      const { lockDataDir } = await import(${JSON.stringify(path.join(ROOT, 'src/db/pglite-lock.ts'))});
      const at = Number(process.env.AT);
      await new Promise((r) => setTimeout(r, at - Date.now()));
      try { await lockDataDir(process.env.DIR); console.log('won'); await new Promise((r) => setTimeout(r, 2000)); }
      catch (err) { console.log(err.message); }`;
    const at = String(Date.now() + 3000);
    const racers = Array.from({ length: 4 }, () => {
      const child = startScript(script, { ...process.env, DIR: dir, AT: at });
      return child.exited(30_000).then((run) => ({ pid: child.process.pid, out: run.stdout.trim() }));
    });
    const results = await Promise.all(racers);
    const winners = results.filter((r) => r.out === 'won');
    expect(winners, JSON.stringify(results)).toHaveLength(1);
    for (const loser of results.filter((r) => r.out !== 'won')) {
      expect(loser.out).toContain(`is in use by process ${winners[0]?.pid}`);
    }
  });
});

describe('a server killed with SIGKILL', { timeout: 180_000 }, () => {
  let dataDir: string;
  let token: string;
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '100000',
      ...extra,
    };
    delete e.DATABASE_URL;
    delete e.REDIS_URL;
    return e;
  };
  async function serve(): Promise<{ server: Child; base: string }> {
    const port = await freePort();
    const server = startServer(env({ PORT: String(port), HOST: '127.0.0.1' }));
    const base = `http://127.0.0.1:${port}`;
    await waitUntilUp(server, base);
    return { server, base };
  }
  const locations = async (base: string): Promise<string[]> => {
    const res = await fetch(`${base}/api/v1/locations?per_page=100`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { name: string }[] }).data.map((l) => l.name);
  };

  beforeAll(async () => {
    dataDir = await migratedDataDir('gateway-lock-');
    temps.push(dataDir);
    const run = await startAdmin(['bootstrap', '--tenant', 'Crash', '--json'], env()).exited(100_000);
    expect(run.code, run.stderr).toBe(0);
    token = (JSON.parse(run.stdout) as { token: string }).token;
  }, 120_000);

  it('refuses a second server while the first runs, naming its pid', async () => {
    const { server } = await serve();
    const second = startServer(env({ PORT: String(await freePort()) }));
    const run = await second.exited(60_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Cannot start: The embedded database in ${dataDir} is in use by process ${server.process.pid} (is the server running?).`,
    );
    process.kill(server.process.pid as number, 'SIGTERM');
    expect((await server.exited(30_000)).code).toBe(0);
  });

  it('starts again at once on the same folder, with every acknowledged write', async () => {
    const acknowledged: string[] = [];
    for (let cycle = 0; cycle < 2; cycle++) {
      const { server, base } = await serve();
      expect(await locations(base)).toEqual(expect.arrayContaining(acknowledged));
      // Writes keep coming until the kill; each 201 is a promise the data is there after the crash.
      let writing = true;
      const writer = (async () => {
        for (let n = 0; writing; n++) {
          const name = `Crash ${cycle}-${n}`;
          const res = await fetch(`${base}/api/v1/locations`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name }),
          }).catch(() => null);
          if (res?.status === 201) acknowledged.push(name);
          else if (res) throw new Error(`POST answered ${res.status}`);
        }
      })();
      while (acknowledged.filter((n) => n.startsWith(`Crash ${cycle}-`)).length < 5) {
        await new Promise((r) => setTimeout(r, 20));
      }
      killGroup(server.process, 'SIGKILL');
      const run = await server.exited(10_000);
      expect(run.signal).toBe('SIGKILL');
      writing = false;
      await writer;
    }
    // The next start takes the dead server's lock over without waiting for it to go stale.
    const { server, base } = await serve();
    expect(server.stderr()).not.toContain('in use');
    expect(await locations(base)).toEqual(expect.arrayContaining(acknowledged));
    process.kill(server.process.pid as number, 'SIGTERM');
    expect((await server.exited(30_000)).code).toBe(0);
  });
});

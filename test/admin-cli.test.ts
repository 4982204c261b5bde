// The operator interface end to end: the admin CLI and the server as child processes on one
// embedded database in a temporary DATA_DIR (always embedded, whatever TEST_DATABASE_URL says).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { freePort, npmScript } from './helpers/processes.js';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

// Every child runs as `npm run admin` and `npm start` run it (node with tsx's loader), in a process
// group of its own, so afterAll can kill the whole group whatever state a failed test left it in.
const children = new Set<ChildProcess>();
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

let dataDir: string;
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ...extra };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}

function start(script: 'admin' | 'start', args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const [command, commandArgs] = npmScript(script, args);
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env,
    detached: true,
    stdio: 'pipe',
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function finished(child: ChildProcess, timeoutMs: number): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new Error(`timed out after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const admin = (...args: string[]): Promise<Run> => finished(start('admin', args, childEnv()), 100_000);

/** The one JSON object a `--json` command prints, and nothing else on stdout. */
// biome-ignore lint/suspicious/noExplicitAny: the printed objects are asserted against literals.
function onlyJson(run: Run): any {
  const lines = run.stdout.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  const value = JSON.parse(lines[0] ?? '');
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value;
}

/** The server on the test's DATA_DIR, once /health answers; `stop` ends it (SIGTERM, exit 0). */
async function serve(): Promise<{ base: string; stop: () => Promise<Run> }> {
  const port = await freePort();
  const server = start('start', [], childEnv({ PORT: String(port), HOST: '127.0.0.1' }));
  const exited = finished(server, 100_000);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 40_000;
  let up = false;
  while (!up && Date.now() < deadline && server.exitCode === null) {
    up = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (!up) await new Promise((r) => setTimeout(r, 200));
  }
  if (!up) {
    killGroup(server, 'SIGKILL');
    const run = await exited;
    throw new Error(`server did not come up (exit ${run.code})\n${run.stderr}`);
  }
  return {
    base,
    async stop() {
      process.kill(server.pid as number, 'SIGTERM');
      const run = await exited;
      expect(run.code, run.stderr).toBe(0);
      return run;
    },
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-cli-'));
});
afterAll(async () => {
  for (const child of children) killGroup(child, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

const ID = /^[A-Za-z0-9_-]{6,}$/;

describe('admin CLI and server on one embedded database', { timeout: 120_000 }, () => {
  let first: Record<string, string>;

  it('simulate --url: needs --token, takes no --tenant, and names an unreachable server', async () => {
    const noToken = await admin('simulate', '--url', 'http://127.0.0.1:9', '--json');
    expect(noToken.code).toBe(2);
    expect(onlyJson(noToken).error).toMatch(/^--url needs --token/);
    const both = await admin('simulate', '--url', 'http://127.0.0.1:9', '--token', 'x', '--tenant', 'y');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--tenant is not used with --url/);
    // Ids and tokens are base64url: one starting with `-` is still a value, not an option.
    const dashed = await admin('simulate', '--url', 'http://127.0.0.1:9', '--token', '-x', '--tenant', '-y');
    expect(dashed.code).toBe(2);
    expect(dashed.stderr).toMatch(/--tenant is not used with --url/);
    const badUrl = await admin('simulate', '--url', 'localhost:4000', '--token', 'x');
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/--url must be an http:\/\/ or https:\/\/ address/);
    const down = await admin('simulate', '--url', 'http://127.0.0.1:9', '--token', 'x', '--json');
    expect(down.code).toBe(1);
    expect(onlyJson(down).error).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9 .*Is the server running\?/);
    expect(down.stderr).not.toMatch(/\n\s+at /);
  });

  it('rejects an unknown command with the usage, before touching the database', async () => {
    const run = await admin('frobnicate');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Unknown command "frobnicate"');
    expect(run.stderr).toContain('Usage: npm run --silent admin -- <command>');
  });

  it('a database that cannot be reached is one line naming DATABASE_URL (exit 1, no stack trace)', async () => {
    const env = { ...childEnv(), DATABASE_URL: 'postgresql://root:secret@127.0.0.1:1/gateway' };
    const run = await finished(start('admin', ['token', 'list', '--tenant', 'x', '--json'], env), 100_000);
    expect(run.code).toBe(1);
    expect(onlyJson(run)).toEqual({
      error: 'DATABASE_URL postgresql://127.0.0.1:1/gateway: connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a DATA_DIR with no database is one line for every command but bootstrap; nothing is made there', async () => {
    const missing = path.join(dataDir, 'mistyped', 'data');
    const env = { ...childEnv(), DATA_DIR: missing };
    const run = await finished(start('admin', ['token', 'list', '--tenant', 'x', '--json'], env), 100_000);
    expect(run.code).toBe(1);
    expect(onlyJson(run)).toEqual({
      error: `DATA_DIR ${missing}: no database there; \`bootstrap\` starts one (is it the server's DATA_DIR?)`,
    });
    expect(existsSync(missing)).toBe(false);

    // A file where the folder goes is not "no database there" (which would send the operator to
    // bootstrap): it is named as the server names it (probe Z4; an unreadable folder alike).
    // (Beside the tests' DATA_DIR, not in it: a file there would make it a folder of other files.)
    const beside = await mkdtemp(path.join(tmpdir(), 'gateway-cli-file-'));
    try {
      const file = path.join(beside, 'a-file');
      writeFileSync(file, 'not a folder');
      const onFile = await finished(
        start('admin', ['token', 'list', '--tenant', 'x', '--json'], { ...childEnv(), DATA_DIR: file }),
        100_000,
      );
      expect(onFile.code).toBe(1);
      expect(onlyJson(onFile)).toEqual({ error: `DATA_DIR ${file}: not a folder` });
    } finally {
      await rm(beside, { recursive: true, force: true });
    }
  });

  it('--help prints the usage, as one object with --json', async () => {
    const run = await admin('--help', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(onlyJson(run).usage).toMatch(/^Usage: npm run --silent admin -- <command>/);
  });

  it('--json keeps its promise on every usage error: one object, the message without the usage', async () => {
    const cases: [string[], string][] = [
      [['frobnicate', '--json'], 'Unknown command "frobnicate".'],
      // An operand after a command that takes none: it was called an unknown command (probe O).
      [['token', 'list', '--tenant', 'T', '--json', '--', 'x'], 'token list takes no operand; got 1: x.'],
      [['seed', 'extra', '--json'], 'seed takes no operand; got 1: extra.'],
      [['--json'], 'No command given.'],
      [['bootstrap', '--bogus', '--json'], "Unknown option '--bogus'"],
      [['bootstrap', '--json'], '--tenant is required.'],
      [['bootstrap', '--tenant', '   ', '--json'], '--tenant must not be blank.'],
      [['bootstrap', '--tenant', '', '--json'], '--tenant must not be blank.'],
      [['token', 'issue', '--user', '', '--json'], '--user must not be blank.'],
      [['bootstrap', '--tenant', 'A', '--tenant', 'B', '--json'], '--tenant is given more than once.'],
      [
        ['token', 'issue', '--user', 'u', '--scope', 'read', '--scope', 'ingest', '--json'],
        '--scope is given more than once.',
      ],
      [['bootstrap', '--tenant', 'x'.repeat(256), '--json'], '--tenant must be at most 255 characters.'],
      [
        ['bootstrap', '--tenant', 'T', '--group', 'g'.repeat(300), '--json'],
        '--group must be at most 255 characters.',
      ],
      // An option of another command is refused, never ignored: this import would have been real.
      [
        ['import', 'guests', 'f.csv', '--tenant', 'T', '--dry-run', '--json'],
        '--dry-run does not apply to "import guests" (it takes --tenant, --mode, --upsert-by, --format, --json).',
      ],
      [
        ['bootstrap', '--tenant', 'Foo', '--user', 'x', '--devices', '3', '--json'],
        '--user does not apply to "bootstrap" (it takes --tenant, --group, --json).',
      ],
      // A missing value is one plain line (was parseArgs' "ambiguous … use '--tenant=-XYZ'").
      [['token', 'list', '--tenant', '--json'], '--tenant needs a value.'],
      [['token', 'list', '--json', '--tenant'], '--tenant needs a value.'],
      // A documented maximum (was an out-of-memory crash, or "Invalid array length").
      [
        ['simulate', '--tenant', 'x', '--devices', '100000000', '--json'],
        '--devices must be between 1 and 100000; got "100000000".',
      ],
      [
        ['simulate', '--tenant', 'x', '--devices', '99999999999', '--json'],
        '--devices must be between 1 and 100000; got "99999999999".',
      ],
      [
        ['seed', '--tenant', 'x', '--guests', '1000000000', '--json'],
        '--guests must be between 1 and 10000; got "1000000000".',
      ],
      [
        ['simulate', '--tenant', 'x', '--devices', '-5', '--json'],
        '--devices must be between 1 and 100000; got "-5".',
      ],
      // Which simulation is asked comes before its numbers (probe X: the order changed).
      [['simulate', '--token', 't', '--devices', '0', '--json'], '--token goes with --url.'],
    ];
    for (const [args, message] of cases) {
      const run = await admin(...args);
      expect(run.code, run.stderr).toBe(2);
      expect(onlyJson(run).error).toContain(message);
      expect(onlyJson(run).error).not.toContain('\n');
      expect(onlyJson(run).error).not.toContain('Usage:');
      expect(run.stderr).toContain('Usage: npm run --silent admin -- <command>');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('bootstrap --json prints one object with the ids and a token', async () => {
    const run = await admin('bootstrap', '--tenant', 'Acme', '--group', 'Partners', '--json');
    expect(run.code, run.stderr).toBe(0);
    first = onlyJson(run);
    expect(Object.keys(first).sort()).toEqual(
      ['group_id', 'location_id', 'service_profile_id', 'tenant_id', 'token', 'user_id'].sort(),
    );
    for (const key of ['group_id', 'location_id', 'service_profile_id', 'tenant_id', 'user_id']) {
      expect(first[key]).toMatch(ID);
    }
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  });

  let second: Record<string, string>;
  it('a second bootstrap with the same --group shares the group', async () => {
    const run = await admin('bootstrap', '--tenant', 'Beta', '--group', 'Partners', '--json');
    expect(run.code, run.stderr).toBe(0);
    second = onlyJson(run);
    expect(second.group_id).toBe(first.group_id);
    expect(second.tenant_id).not.toBe(first.tenant_id);
    expect(second.token).not.toBe(first.token);
  });

  it('bootstrap again for the same tenant reuses everything, its API user included, and issues another token', async () => {
    const once = onlyJson(await admin('bootstrap', '--tenant', 'Gamma', '--json'));
    const run = await admin('bootstrap', '--tenant', 'Gamma', '--json');
    expect(run.code, run.stderr).toBe(0);
    const again = onlyJson(run);
    expect({ ...again, token: 'x' }).toEqual({ ...once, token: 'x' });
    expect(again.token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(again.token).not.toBe(once.token);
    // One user with both tokens, neither revoked.
    const listed = onlyJson(await admin('token', 'list', '--tenant', once.tenant_id as string, '--json'));
    expect(
      listed.tokens.map((t: { name: string; user: { id: string }; revoked_at: string | null }) => [
        t.name,
        t.user.id,
        t.revoked_at,
      ]),
    ).toEqual([
      ['bootstrap', once.user_id, null],
      ['bootstrap', once.user_id, null],
    ]);
  });

  let issuedToken: string;
  it('token issue --json prints a new token; an unknown user exits 2, as an unknown tenant does', async () => {
    const run = await admin('token', 'issue', '--user', first.user_id as string, '--json');
    expect(run.code, run.stderr).toBe(0);
    const issued = onlyJson(run);
    issuedToken = issued.token;
    expect(Object.keys(issued)).toEqual(['token']);
    expect(issued.token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(issued.token).not.toBe(first.token);

    const unknown = await admin('token', 'issue', '--user', 'no-such-user', '--json');
    expect(unknown.code).toBe(2);
    const err = onlyJson(unknown);
    expect(err).toEqual({ error: 'No user with id or email "no-such-user".' });
    // Digits past PostgreSQL's integer name no user either (was a database error with its stack).
    const huge = await admin('token', 'issue', '--user', '999999999999999999999', '--json');
    expect(huge.code).toBe(2);
    expect(onlyJson(huge)).toEqual({ error: 'No user with id or email "999999999999999999999".' });
  });

  it.skipIf(!existsSync('/dev/full'))(
    'bootstrap with a stdout that takes nothing (a full disk) fails, exit 1, saying the token is not shown (probe F)',
    async () => {
      // A tenant of its own: the token it issues stays out of the other tests' lists.
      const [command, args] = npmScript('admin', [
        'bootstrap',
        '--tenant',
        `Full Disk ${Date.now()}`,
        '--json',
      ]);
      const full = openSync('/dev/full', 'w');
      try {
        const child = spawn(command, args, { cwd: ROOT, env: childEnv(), stdio: ['ignore', full, 'pipe'] });
        let stderr = '';
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(code, stderr).toBe(1);
        expect(stderr).toContain(
          'error: bootstrap ran, but its result could not be written to stdout (ENOSPC: no space left on device, write): a token it issued is not shown again; revoke it (token revoke) and issue another.',
        );
        expect(stderr).not.toContain('    at ');
      } finally {
        closeSync(full);
      }
    },
  );

  it('token issue --user EMAIL matches the e-mail regardless of case, as e-mails are unique', async () => {
    const db = await openDatabase({ dataDir });
    const { email } = await db.prisma.user
      .findUniqueOrThrow({ where: { id: second.user_id as string } })
      .finally(() => db.close());
    const run = await admin('token', 'issue', '--user', email.toUpperCase(), '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(onlyJson(run).token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  });

  it('Ctrl-C or SIGTERM during seed or import guests stores nothing and says so (exit 130, 143)', async () => {
    const tenantId = second.tenant_id as string;
    /** Runs the CLI, sending `signal` once `marker` is on its stderr. */
    const interrupted = async (signal: NodeJS.Signals, marker: string, ...args: string[]) => {
      const child = start('admin', args, childEnv());
      const run = finished(child, 100_000);
      let stderr = '';
      await new Promise<void>((resolve) => {
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes(marker)) resolve();
        });
        child.on('exit', () => resolve());
      });
      if (child.exitCode !== null) expect.fail(`exited before "${marker}": ${(await run).stderr}`);
      child.kill(signal);
      return run;
    };
    // The seed is one transaction: the locations and users written before the signal go too.
    const seed = await interrupted(
      'SIGINT',
      'seeding advertisements',
      'seed',
      '--tenant',
      tenantId,
      '--json',
    );
    const seedStopped = 'Interrupted by SIGINT: nothing was stored (the seed writes all or nothing).';
    expect(seed.code, seed.stderr).toBe(130);
    expect(onlyJson(seed)).toEqual({ error: seedStopped });
    expect(seed.stderr).toContain(`error: ${seedStopped}`);

    const csv = path.join(dataDir, 'guests.csv');
    const rows = Array.from({ length: 3000 }, (_, i) => `${second.location_id},Guest ${i},g${i}@example.com`);
    await writeFile(csv, `location_id,name,email\n${rows.join('\n')}\n`);
    // Stopped while storing (2000 rows a chunk): the transaction rolls back.
    const load = await interrupted('SIGTERM', 'rows stored', 'import', 'guests', csv, '--tenant', tenantId);
    const loadStopped = 'Interrupted by SIGTERM: nothing was stored (the import writes all or nothing).';
    expect(load.code, load.stderr).toBe(143);
    expect(load.stdout).toBe('');
    expect(load.stderr).toContain(`error: ${loadStopped}`);

    const db = await openDatabase({ dataDir });
    try {
      const where = { tenantId };
      expect(await db.prisma.location.count({ where })).toBe(1);
      expect(await db.prisma.user.count({ where })).toBe(1);
      expect(await db.prisma.guest.count({ where })).toBe(0);
    } finally {
      await db.close();
    }
  });

  let seeded: Record<string, number | string>;
  it('seed --json prints counts', async () => {
    // A seed is a whole number, 0 or more (it said "a whole number" of -1, probe F).
    const negative = await admin('seed', '--tenant', first.tenant_id as string, '--seed', '-1', '--json');
    expect(negative.code).toBe(2);
    expect(onlyJson(negative)).toEqual({ error: '--seed must be a whole number, 0 or more; got "-1".' });
    const run = await admin('seed', '--tenant', first.tenant_id as string, '--guests', '20', '--json');
    expect(run.code, run.stderr).toBe(0);
    seeded = onlyJson(run);
    expect(seeded.tenant_id).toBe(first.tenant_id);
    expect(seeded.guests).toBe(20);
    const resources = [
      'locations',
      'buildings',
      'floors',
      'zones',
      'users',
      'advertisements',
      'access_codes',
    ];
    resources.push(
      'guest_devices',
      'guest_sessions',
      'active_sessions',
      'location_sessions',
      'location_logs',
    );
    for (const key of resources) {
      expect(Number.isInteger(seeded[key]), key).toBe(true);
      expect(seeded[key] as number, key).toBeGreaterThan(0);
    }
  });

  it('says the database is in use while another process holds it, naming that process', async () => {
    const held = await openDatabase({ dataDir });
    try {
      const run = await admin('token', 'issue', '--user', first.user_id as string, '--json');
      expect(run.code).toBe(1);
      const inUse = `The embedded database in ${dataDir} is in use by process ${process.pid} (is the server running?).`;
      expect(onlyJson(run).error).toContain(inUse);
      expect(run.stderr).toContain(inUse);
      // A usage mistake is answered without the database: its own message, not "in use".
      for (const [args, message] of [
        [['token', 'issue', '--user', ' ', '--scope', 'read'], '--user must not be blank.'],
        [['seed', '--tenant', 'T', '--guests', '0'], '--guests must be between 1 and 10000; got "0".'],
        [['seed', '--tenant', 'T', '--seed', '-1'], '--seed must be a whole number, 0 or more; got "-1".'],
        [['simulate', '--devices', '5'], '--tenant is required.'],
        [['import', 'guests', 'f.csv', '--mode', 'some'], '--mode must be one of'],
        [['import', 'guests', 'f.csv'], '--tenant is required.'],
        [['tenant', 'activate', 'T', '--user-status', '9'], '--user-status must be 0 (Passive)'],
      ] as const) {
        const mistake = await admin(...args, '--json');
        expect(mistake.code, mistake.stderr).toBe(2);
        expect(onlyJson(mistake).error).toContain(message);
      }
      // So is an import's file that cannot be read (exit 1).
      const device = await admin('import', 'guests', '/dev/zero', '--tenant', 'T', '--json');
      expect(device.code, device.stderr).toBe(1);
      expect(onlyJson(device).error).toBe('Cannot read /dev/zero: it is a device, not a regular file.');
    } finally {
      await held.close();
    }
  });

  it('the server serves the bootstrapped token over HTTP and stops cleanly on SIGTERM', async () => {
    const server = await serve();
    const { base } = server;

    const res = await fetch(`${base}/api/v1/locations`, {
      headers: { authorization: `Bearer ${first.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    const body = (await res.json()) as { data: { id: string }[] };
    expect(body.data.map((l) => l.id)).toContain(first.location_id);
    expect(body.data).toHaveLength(1 + (seeded.locations as number));
    expect((await fetch(`${base}/api/v1/locations`)).status).toBe(401);
    // The bootstrap is in the tenant's audit log (by the service itself); the seed's demo data is not.
    const audit = await fetch(`${base}/api/v1/audit-logs?resource_type=tenant`, {
      headers: { authorization: `Bearer ${first.token}` },
    });
    expect(audit.status).toBe(200);
    const entries = ((await audit.json()) as { data: Record<string, unknown>[] }).data;
    expect(entries.map((e) => [e.action, e.resource_id, e.user_id])).toEqual([
      ['tenants.create', first.tenant_id, null],
    ]);
    const byBootstrap = await fetch(`${base}/api/v1/audit-logs?per_page=100`, {
      headers: { authorization: `Bearer ${first.token}` },
    });
    const actions = ((await byBootstrap.json()) as { data: { action: string }[] }).data.map((e) => e.action);
    expect(actions.filter((a) => a !== 'apiTokens.create').sort()).toEqual([
      'locations.create',
      'tenants.create',
      'users.create',
    ]);

    // simulate --url drives the running server (which owns the embedded database) until Ctrl-C.
    const sim = start(
      'admin',
      [
        'simulate',
        '--url',
        base,
        '--token',
        first.token as string,
        '--devices',
        '20',
        '--interval-ms',
        '300',
        '--json',
      ],
      childEnv(),
    );
    const simulated = finished(sim, 60_000);
    await new Promise<void>((resolve) => {
      sim.stderr?.on('data', (d: Buffer) => {
        if (d.toString().includes('tick 1:')) resolve();
      });
      sim.on('exit', () => resolve());
    });
    // A simulator that stopped on its own says why in its output.
    if (sim.exitCode !== null) expect.fail(`simulate exited early: ${(await simulated).stderr}`);
    process.kill(sim.pid as number, 'SIGINT');
    const simRun = await simulated;
    expect(simRun.code, simRun.stderr).toBe(0);
    const summary = onlyJson(simRun);
    expect(summary).toMatchObject({ devices: 20, location_id: expect.any(String) });
    expect(summary.presence_events).toBeGreaterThan(0);
    const active = await fetch(
      `${base}/api/v1/locations-analytics/active-sessions?location_id=${summary.location_id}`,
      { headers: { authorization: `Bearer ${first.token}` } },
    );
    expect(active.status).toBe(200);
    expect(((await active.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

    const run = await server.stop();
    expect(run.signal).toBeNull();
    // The lock is released: the CLI may use the database again.
    const after = await admin('token', 'issue', '--user', first.user_id as string, '--json');
    expect(after.code, after.stderr).toBe(0);
  });

  it('token list: the tenant’s tokens, newest first, with the last use the server wrote as it stopped', async () => {
    const run = await admin('token', 'list', '--tenant', first.tenant_id as string, '--json');
    expect(run.code, run.stderr).toBe(0);
    const listed = onlyJson(run);
    expect(Object.keys(listed)).toEqual(['tenant_id', 'tokens']);
    expect(listed.tenant_id).toBe(first.tenant_id);
    // The bootstrap token, the one `token issue` made, and the one issued after the server stopped.
    expect(listed.tokens).toHaveLength(3);
    const bootstrap = listed.tokens[2];
    expect(Object.keys(bootstrap)).toEqual([
      'id',
      'name',
      'user',
      'scopes',
      'created_at',
      'last_used_at',
      'expires_at',
      'revoked_at',
    ]);
    expect(bootstrap).toMatchObject({
      name: 'bootstrap',
      user: { id: first.user_id },
      scopes: ['full'],
      expires_at: null,
      revoked_at: null,
    });
    expect(bootstrap.last_used_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(listed.tokens[0].last_used_at).toBeNull();
    expect(run.stdout).not.toContain(first.token);

    const table = await admin('token', 'list', '--tenant', first.tenant_id as string);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +USER +SCOPES +CREATED +LAST USED +EXPIRES +REVOKED$/);
    expect(lines).toHaveLength(4);
    // Ids are base64url: nothing in one is special in a pattern.
    const minute = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}`;
    expect(lines[3]).toMatch(
      new RegExp(String.raw`^${bootstrap.id} +bootstrap +\S+@\S+ +full +${minute} +${minute} +- +-$`),
    );

    const noTenant = await admin('token', 'list', '--json');
    expect(noTenant.code).toBe(2);
    expect(onlyJson(noTenant).error).toMatch(/^--tenant is required\./);
    const unknown = await admin('token', 'list', '--tenant', 'nope', '--json');
    expect(unknown.code).toBe(2);
    expect(onlyJson(unknown).error).toMatch(/^No tenant with id "nope"\./);
  });

  it('token revoke: revokes once (again: nothing changes); plain messages for a missing or unknown id', async () => {
    const listed = onlyJson(await admin('token', 'list', '--tenant', first.tenant_id as string, '--json'));
    const id = listed.tokens[0].id as string;
    // After `--`, an id starting with "-" is still an id.
    const run = await admin('token', 'revoke', '--json', '--', id);
    expect(run.code, run.stderr).toBe(0);
    const revoked = onlyJson(run);
    expect(revoked).toMatchObject({ id, user: { id: first.user_id } });
    expect(revoked.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const again = await admin('token', 'revoke', '--', id);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`token ${id}`);
    expect(again.stdout).toContain('was already revoked');
    const after = onlyJson(await admin('token', 'list', '--tenant', first.tenant_id as string, '--json'));
    expect(after.tokens[0].revoked_at).toBe(revoked.revoked_at);

    // After `--`, `--json` is an operand too: a plain answer, no JSON.
    const operand = await admin('token', 'revoke', '--', '--json');
    expect(operand.code).toBe(2);
    expect(operand.stdout).toBe('');
    expect(operand.stderr).toContain('error: No token with id "--json".');
    const missing = await admin('token', 'revoke');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('token revoke takes one TOKEN_ID; got none.');
    const unknown = await admin('token', 'revoke', 'nope', '--json');
    expect(unknown.code).toBe(2);
    expect(onlyJson(unknown).error).toMatch(/^No token with id "nope"\./);
    const badScope = await admin('token', 'issue', '--user', first.user_id as string, '--scope', 'admin');
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('--scope must be one of: read, ingest, full; got "admin".');

    // The bootstrap's token, the issued ones and the revocation (once) are in the tenant's log and
    // audit log, as the API's are, by the service itself.
    const db = await openDatabase({ dataDir });
    try {
      const where = { tenantId: first.tenant_id as string, resourceType: 'api_token' };
      const events = await db.prisma.event.findMany({ where, orderBy: { id: 'asc' } });
      // The bootstrap's, the two `token issue`s (before and after the server ran), then the
      // revocation of the newest.
      expect(events.map((e) => [e.type, e.actorType, e.actorUserId, e.actorTokenId])).toEqual([
        ['api_token.created', 'system', null, null],
        ['api_token.created', 'system', null, null],
        ['api_token.created', 'system', null, null],
        ['api_token.revoked', 'system', null, null],
      ]);
      expect(events.map((e) => e.resourceId)).toEqual([listed.tokens[2].id, listed.tokens[1].id, id, id]);
      expect(events[3]?.payload).toMatchObject({ id, revoked_at: revoked.revoked_at });
      const audit = await db.prisma.auditLog.findMany({ where, orderBy: { createdAt: 'asc' } });
      expect(audit.map((e) => [e.action, e.actorUserId, e.resourceId])).toEqual([
        ['apiTokens.create', null, listed.tokens[2].id],
        ['apiTokens.create', null, listed.tokens[1].id],
        ['apiTokens.create', null, id],
        ['apiTokens.revoke', null, id],
      ]);
      expect(audit[3]?.changes).toEqual({ revoked_at: { old: null, new: revoked.revoked_at } });
      expect(JSON.stringify(audit)).not.toContain(issuedToken);
    } finally {
      await db.close();
    }
  });

  it('a deactivated tenant: bootstrap refuses it (no token), tenant activate brings it back', async () => {
    const made = await admin('bootstrap', '--tenant', 'Lonely Co', '--group', 'G3', '--json');
    expect(made.code, made.stderr).toBe(0);
    const lonely = onlyJson(made);
    const id = lonely.tenant_id as string;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    // The only tenant of its group deactivates itself: its caller is locked out, as documented.
    let server = await serve();
    try {
      const off = await fetch(`${server.base}/api/v1/tenants/${id}/deactivate`, {
        method: 'PUT',
        headers: bearer(lonely.token),
      });
      expect(off.status).toBe(200);
      expect(await off.json()).toEqual({ is_trashed: true });
      expect(
        (await fetch(`${server.base}/api/v1/users/count`, { headers: bearer(lonely.token) })).status,
      ).toBe(401);
    } finally {
      await server.stop();
    }

    const tokens = async (): Promise<number> => {
      const db = await openDatabase({ dataDir });
      try {
        return await db.prisma.apiToken.count({ where: { user: { tenantId: id } } });
      } finally {
        await db.close();
      }
    };
    // Bootstrap again would have printed a token answering 401: refused, nothing issued.
    const operand = id.startsWith('-') ? `-- ${id}` : id;
    const refusal = `Tenant "Lonely Co" (${id}) is deactivated: its users' tokens answer 401. Reactivate it first: admin tenant activate ${operand}`;
    const refused = await admin('bootstrap', '--tenant', 'Lonely Co', '--group', 'G3', '--json');
    expect(refused.code, refused.stderr).toBe(1);
    expect(onlyJson(refused)).toEqual({ error: refusal });
    expect(refused.stderr).toBe(`error: ${refusal}\n`);
    const plain = await admin('bootstrap', '--tenant', 'Lonely Co', '--group', 'G3');
    expect(plain.code, plain.stderr).toBe(1);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toBe(`error: ${refusal}\n`);
    expect(await tokens()).toBe(1);

    // Plain usage errors, as token revoke's.
    const unknown = await admin('tenant', 'activate', 'nope', '--json');
    expect(unknown.code).toBe(2);
    expect(onlyJson(unknown)).toEqual({ error: 'No tenant with id "nope".' });
    const missing = await admin('tenant', 'activate');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: tenant activate takes one TENANT_ID; got none.');
    const foreign = await admin('tenant', 'activate', '--tenant', id, '--json');
    expect(foreign.code).toBe(2);
    expect(onlyJson(foreign)).toEqual({
      error: '--tenant does not apply to "tenant activate" (it takes --user-status, --json).',
    });

    // After `--`, an id starting with "-" is still an id.
    const on = await admin('tenant', 'activate', '--json', '--', id);
    expect(on.code, on.stderr).toBe(0);
    expect(onlyJson(on)).toEqual({
      id,
      name: 'Lonely Co',
      address: null,
      city: null,
      country_code: null,
      country_name: null,
      description: null,
      is_trashed: false,
    });
    const onPlain = await admin('tenant', 'activate', '--', id);
    expect(onPlain.code, onPlain.stderr).toBe(0);
    expect(onPlain.stdout).toBe(`The tenant "Lonely Co" (${id}) is already active; nothing changed.\n`);

    // The activation is in the tenant's log and audit log as the API's is, by the service itself;
    // the second changed nothing and wrote nothing.
    const db = await openDatabase({ dataDir });
    try {
      const where = { tenantId: id, resourceType: 'tenant' };
      const events = await db.prisma.event.findMany({ where, orderBy: { id: 'asc' } });
      expect(events.map((e) => [e.type, e.actorType, e.actorUserId])).toEqual([
        ['tenant.created', 'system', null],
        ['tenant.updated', 'user', lonely.user_id],
        ['tenant.updated', 'system', null],
      ]);
      expect(events[2]?.payload).toMatchObject({ id, is_trashed: false });
      const audit = await db.prisma.auditLog.findMany({ where, orderBy: { createdAt: 'asc' } });
      expect(audit.map((e) => [e.action, e.actorUserId, e.resourceId])).toEqual([
        ['tenants.create', null, id],
        ['tenants.deactivate', lonely.user_id, id],
        ['tenants.activate', null, id],
      ]);
      expect(audit[2]?.changes).toEqual({ is_trashed: { old: true, new: false } });
    } finally {
      await db.close();
    }

    // Bootstrap works again: the same API user, another token; the earlier one answers again.
    const again = await admin('bootstrap', '--tenant', 'Lonely Co', '--group', 'G3', '--json');
    expect(again.code, again.stderr).toBe(0);
    const renewed = onlyJson(again);
    expect({ ...renewed, token: 'x' }).toEqual({ ...lonely, token: 'x' });
    server = await serve();
    try {
      for (const token of [lonely.token, renewed.token]) {
        const res = await fetch(`${server.base}/api/v1/users/count`, { headers: bearer(token) });
        expect(res.status).toBe(200);
      }
    } finally {
      await server.stop();
    }
  });

  it('tenant activate --user-status brings back users a deactivation with user_status made passive', async () => {
    const made = await admin('bootstrap', '--tenant', 'Passive Co', '--group', 'G4', '--json');
    expect(made.code, made.stderr).toBe(0);
    const passive = onlyJson(made);
    const id = passive.tenant_id as string;
    const operand = id.startsWith('-') ? ['--', id] : [id];
    const headers = { authorization: `Bearer ${passive.token}`, 'content-type': 'application/json' };
    let server = await serve();
    try {
      const off = await fetch(`${server.base}/api/v1/tenants/${id}/deactivate`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ user_status: 0 }),
      });
      expect(off.status).toBe(200);
    } finally {
      await server.stop();
    }

    const bad = await admin('tenant', 'activate', '--user-status', 'active', '--json', ...operand);
    expect(bad.code).toBe(2);
    expect(onlyJson(bad)).toEqual({
      error: '--user-status must be 0 (Passive), 1 (Active) or 2 (Banned); got "active".',
    });
    const on = await admin('tenant', 'activate', '--user-status', '1', ...operand);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toBe(
      `Activated the tenant "Passive Co" (${id}); 1 user (support users excepted) set to Active: its active users' tokens work again from their next request.\n`,
    );
    // On an active tenant it sets the statuses all the same, as the API's activate does.
    const again = await admin('tenant', 'activate', '--user-status', '1', ...operand);
    expect(again.stdout).toBe(
      `The tenant "Passive Co" (${id}) is already active; 0 users (support users excepted) set to Active.\n`,
    );
    server = await serve();
    try {
      const res = await fetch(`${server.base}/api/v1/users/count`, { headers });
      expect(res.status).toBe(200);
    } finally {
      await server.stop();
    }
    const db = await openDatabase({ dataDir });
    try {
      const audit = await db.prisma.auditLog.findMany({
        where: { tenantId: id, resourceType: 'user' },
        orderBy: { createdAt: 'asc' },
      });
      expect(audit.map((e) => [e.action, e.actorUserId, e.changes])).toEqual([
        ['users.create', null, expect.anything()],
        ['tenants.deactivate', passive.user_id, { status: { old: 1, new: 0 } }],
        ['tenants.activate', null, { status: { old: 0, new: 1 } }],
      ]);
    } finally {
      await db.close();
    }
  });
});

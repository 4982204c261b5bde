// `admin retention run --tenant ID [--dry-run]` end to end: the CLI as a child process on an embedded
// database in a temporary DATA_DIR (and, with TEST_DATABASE_URL, once on PostgreSQL while another
// pass holds the fleet's retention lock). The dry run counts and changes nothing; the run removes
// the same, with a progress bar on stderr and a plain summary on stdout.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { progressBar } from '../src/cli/progress-bar.js';
import { type Database, openDatabase } from '../src/db/database.js';
import { Prisma as PrismaNS } from '../src/generated/prisma/client.js';
import { RETENTION_LOCK_KEY } from '../src/modules/retention/retention.sweeper.js';
import { addDevice, addGuest, addSession, newTenant, randomMac } from './helpers/fixtures.js';
import { migratedDataDir } from './helpers/pglite-template.js';
import { npmScript, startAdmin } from './helpers/processes.js';
import { scratchDatabase } from './helpers/scratch-database.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DAY = 86_400_000;
const ago = (days: number): Date => new Date(Date.now() - days * DAY);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

/** The admin CLI with `args`, on the embedded database in `dataDir` (or on `databaseUrl`). */
function admin(env: { dataDir: string; databaseUrl?: string }, ...args: string[]): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: env.dataDir };
  delete childEnv.DATABASE_URL;
  delete childEnv.REDIS_URL;
  if (env.databaseUrl) childEnv.DATABASE_URL = env.databaseUrl;
  const [command, commandArgs] = npmScript('admin', args);
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: childEnv,
    stdio: 'pipe',
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 100_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one JSON object a `--json` command prints, and nothing else on stdout. */
// biome-ignore lint/suspicious/noExplicitAny: the printed objects are asserted against literals.
function onlyJson(run: Run): any {
  const lines = run.stdout.trim().split('\n');
  expect(lines, run.stderr).toHaveLength(1);
  return JSON.parse(lines[0] ?? '');
}

/**
 * A tenant with retention settings (13 months; presence 30 days; guest sessions 30 days; location
 * logs off) and: an inactive guest (20 months) with a device, a 590-day-old ended session and
 * presence record; 2 presence records 40 days old and 1 of 10 days; a session ended 40 days ago and
 * one 10 days ago, of an active guest.
 */
async function seedTenant(db: Database, settings = true) {
  const p = db.prisma;
  const a = await newTenant(p);
  const tenantId = a.tenant_id;
  const locationId = a.location_id;
  if (settings) {
    await p.retentionSettings.create({
      data: {
        tenantId,
        anonymizeInactiveGuestsAfterMonths: 13,
        deletePresenceRecordsAfterDays: 30,
        deleteGuestSessionsAfterDays: 30,
      },
    });
  }
  const old = await addGuest(p, tenantId, locationId, { name: 'Long Gone', lastVisitDate: ago(590) });
  const oldDevice = await addDevice(p, tenantId, old.id, { lastSeenTime: ago(590) });
  await addSession(
    p,
    tenantId,
    { guestId: old.id, deviceId: oldDevice.id, locationId },
    {
      startTime: ago(591),
      endTime: ago(590),
    },
  );
  await p.presenceRecord.create({
    data: { tenantId, mac: oldDevice.mac, guestId: old.id, dataType: 1, seenAt: ago(590) },
  });
  for (const [table, id] of [
    ['Guest', old.id],
    ['GuestDevice', oldDevice.id],
  ] as const) {
    await p.$executeRaw(
      PrismaNS.sql`UPDATE ${PrismaNS.raw(`"${table}"`)} SET "createdAt" = ${ago(600)}, "updatedAt" = ${ago(590)} WHERE "id" = ${id}`,
    );
  }
  const here = await addGuest(p, tenantId, locationId);
  const device = await addDevice(p, tenantId, here.id);
  for (const days of [40, 10]) {
    await addSession(
      p,
      tenantId,
      { guestId: here.id, deviceId: device.id, locationId },
      {
        startTime: ago(days + 1),
        endTime: ago(days),
      },
    );
  }
  for (const days of [40, 40, 10]) {
    await p.presenceRecord.create({ data: { tenantId, mac: randomMac(), dataType: 1, seenAt: ago(days) } });
  }
  return { tenantId, oldGuestId: old.id };
}

async function rowsOf(db: Database, tenantId: string) {
  const where = { tenantId };
  return {
    guests: await db.prisma.guest.count({ where: { ...where, erasedAt: null } }),
    presence: await db.prisma.presenceRecord.count({ where }),
    sessions: await db.prisma.guestSession.count({ where }),
  };
}

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('admin retention run (embedded database)', { timeout: 120_000 }, () => {
  let dataDir = '';
  let tenant: { tenantId: string; oldGuestId: string };
  let idle: { tenantId: string };
  const cli = (...args: string[]) => admin({ dataDir }, ...args);
  const withDb = async <T>(fn: (db: Database) => Promise<T>): Promise<T> => {
    const db = await openDatabase({ dataDir });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };

  beforeAll(async () => {
    dataDir = await migratedDataDir('gateway-retention-');
    await withDb(async (db) => {
      tenant = await seedTenant(db);
      idle = await seedTenant(db, false);
    });
  }, 120_000);
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('--dry-run counts what would go and changes nothing', async () => {
    const before = await withDb((db) => rowsOf(db, tenant.tenantId));
    const run = await cli('retention', 'run', '--tenant', tenant.tenantId, '--dry-run', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(onlyJson(run)).toEqual({
      tenant_id: tenant.tenantId,
      dry_run: true,
      inactive_guests: 1,
      presence_records: 3,
      location_logs: null,
      guest_sessions: 2,
      // The rows here are written directly: no event copies them.
      events: 0,
    });
    expect(run.stderr).toContain('Counting what goes');
    expect(run.stderr).not.toContain('[#');
    expect(await withDb((db) => rowsOf(db, tenant.tenantId))).toEqual(before);

    const text = await cli('retention', 'run', '--tenant', tenant.tenantId, '--dry-run');
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    const minute = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC`;
    expect(lines[0]).toBe(`Dry run for tenant ${tenant.tenantId}: nothing was changed. What would go now:`);
    expect(lines.slice(1)).toHaveLength(5);
    expect(lines[1]).toMatch(
      new RegExp(`^  inactive guests to anonymise \\(13 months: no activity since ${minute}\\) +1$`),
    );
    expect(lines[2]).toMatch(new RegExp(`^  presence records to delete \\(30 days: before ${minute}\\) +3$`));
    expect(lines[3]).toMatch(/^ {2}location logs \(off\) +-$/);
    expect(lines[4]).toMatch(new RegExp(`^  guest sessions to delete \\(30 days: before ${minute}\\) +2$`));
    expect(lines[5]).toMatch(/^ {2}their copies in the event log to delete +0$/);
  });

  it('a run removes it, with a progress bar on stderr and a summary; a second run finds nothing', async () => {
    const run = await cli('retention', 'run', '--tenant', tenant.tenantId, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(onlyJson(run)).toEqual({
      tenant_id: tenant.tenantId,
      dry_run: false,
      inactive_guests: 1,
      presence_records: 3,
      location_logs: null,
      guest_sessions: 2,
      // The rows here are written directly: no event copies them.
      events: 0,
    });
    // Not a terminal here: a line per tenth, the last one full.
    const bars = run.stderr.split('\n').filter((l) => l.startsWith('['));
    expect(bars.length).toBeGreaterThan(0);
    expect(bars.at(-1)).toMatch(/^\[#{30}\] 100% {2}6\/6 \w[\w ]+$/);
    await withDb(async (db) => {
      expect(await rowsOf(db, tenant.tenantId)).toEqual({ guests: 1, presence: 1, sessions: 1 });
      // Anonymised as the erasure does it.
      const erased = await db.prisma.guest.findUniqueOrThrow({ where: { id: tenant.oldGuestId } });
      expect(erased).toMatchObject({ name: '', email: null });
      expect(erased.erasedAt).toBeInstanceOf(Date);
      // The tenant without settings is untouched.
      expect(await rowsOf(db, idle.tenantId)).toEqual({ guests: 2, presence: 4, sessions: 3 });
    });

    const again = await cli('retention', 'run', '--tenant', tenant.tenantId);
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Retention applied to tenant ${tenant.tenantId}:`);
    expect(lines[1]).toMatch(/^ {2}inactive guests anonymised \(13 months: .*\) +0$/);
    expect(lines[2]).toMatch(/^ {2}presence records deleted \(30 days: .*\) +0$/);
    expect(lines[3]).toMatch(/^ {2}location logs \(off\) +-$/);
    expect(lines[4]).toMatch(/^ {2}guest sessions deleted \(30 days: .*\) +0$/);
    expect(lines[5]).toMatch(/^ {2}their copies in the event log deleted +0$/);
  });

  it('says so for a tenant whose settings are all off, and refuses a missing or unknown tenant', async () => {
    const off = await cli('retention', 'run', '--tenant', idle.tenantId, '--json');
    expect(off.code, off.stderr).toBe(0);
    expect(onlyJson(off)).toEqual({
      tenant_id: idle.tenantId,
      dry_run: false,
      inactive_guests: null,
      presence_records: null,
      location_logs: null,
      guest_sessions: null,
      events: null,
    });
    const offText = await cli('retention', 'run', '--tenant', idle.tenantId);
    expect(offText.stdout).toBe(
      `Every retention setting of tenant ${idle.tenantId} is off: nothing to do.\n`,
    );

    const missing = await cli('retention', 'run', '--json');
    expect(missing.code).toBe(2);
    expect(onlyJson(missing).error).toMatch(/^--tenant is required\./);
    const unknown = await cli('retention', 'run', '--tenant', 'nope', '--dry-run');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No tenant with id "nope".');
    const bare = await cli('retention');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('Unknown command "retention"');
    expect(bare.stderr).toContain('retention run --tenant TENANT_ID [--dry-run] [--json]');
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'admin retention run on PostgreSQL (skipped without TEST_DATABASE_URL)',
  { timeout: 120_000 },
  () => {
    it('refuses to run while another pass holds the retention lock (exit 1), and runs once it is free', async () => {
      const scratch = await scratchDatabase('retention_cli');
      const dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-retention-pg-'));
      try {
        const { tenantId } = await seedTenant(scratch.db);
        let release = () => {};
        let held = () => {};
        const taken = new Promise<void>((resolve) => {
          held = resolve;
        });
        const holder = scratch.db.tryExclusive(RETENTION_LOCK_KEY, async () => {
          held();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        });
        await taken;
        const env = { dataDir, databaseUrl: scratch.url ?? '' };
        const busy = await admin(env, 'retention', 'run', '--tenant', tenantId, '--json');
        expect(busy.code).toBe(1);
        expect(onlyJson(busy).error).toBe(
          'A retention pass is running now (a server’s sweeper, or another `admin retention run`); try again when it ends.',
        );
        // The dry run needs no lock.
        const dry = await admin(env, 'retention', 'run', '--tenant', tenantId, '--dry-run', '--json');
        expect(dry.code, dry.stderr).toBe(0);
        expect(onlyJson(dry).presence_records).toBe(3);
        release();
        await holder;
        const run = await admin(env, 'retention', 'run', '--tenant', tenantId, '--json');
        expect(run.code, run.stderr).toBe(0);
        expect(onlyJson(run)).toMatchObject({ inactive_guests: 1, presence_records: 3, guest_sessions: 2 });
      } finally {
        await scratch.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    /**
     * `retention run --json` on a scratch database whose tenant has `records` presence records past
     * a 30-day setting, started while `table` is held (SHARE: reads go on); `body` gets it once the
     * run waits for that table. `release()` lets the table go.
     */
    async function retentionWaitingOn(
      name: string,
      records: number,
      table: 'PresenceRecord' | 'CurrentPresence',
      body: (run: {
        p: Database['prisma'];
        tenantId: string;
        child: ReturnType<typeof startAdmin>;
        exited: ReturnType<ReturnType<typeof startAdmin>['exited']>;
        release: () => Promise<void>;
      }) => Promise<void>,
    ): Promise<void> {
      const scratch = await scratchDatabase(name);
      const dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-retention-pg-'));
      const p = scratch.db.prisma;
      let letGo = () => {};
      let holder: Promise<unknown> = Promise.resolve();
      try {
        const { tenant_id: tenantId } = await newTenant(p);
        await p.retentionSettings.create({ data: { tenantId, deletePresenceRecordsAfterDays: 30 } });
        await p.presenceRecord.createMany({
          data: Array.from({ length: records }, () => ({
            tenantId,
            mac: randomMac(),
            dataType: 1,
            seenAt: ago(40),
          })),
        });
        let locked = () => {};
        const isLocked = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const released = new Promise<void>((resolve) => {
          letGo = resolve;
        });
        holder = p.$transaction(
          async (tx) => {
            await tx.$executeRawUnsafe(`LOCK TABLE "${table}" IN SHARE MODE`);
            locked();
            await released;
          },
          { timeout: 60_000 },
        );
        await isLocked;
        const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: scratch.url ?? '' };
        delete env.REDIS_URL;
        const child = startAdmin(['retention', 'run', '--tenant', tenantId, '--json'], env);
        const exited = child.exited(100_000);
        const waiting = async () =>
          (
            await p.$queryRaw<{ n: number }[]>`
              SELECT count(*)::int AS n FROM pg_locks
              WHERE NOT granted AND relation = ${`"${table}"`}::regclass`
          )[0]?.n ?? 0;
        while ((await waiting()) === 0) {
          if (child.process.exitCode !== null) expect.fail(`exited early: ${child.stderr()}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const release = async () => {
          letGo();
          await holder;
        };
        await body({ p, tenantId, child, exited, release });
      } finally {
        letGo();
        await holder.catch(() => {});
        await scratch.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    }

    it('Ctrl-C stops a run after the current batch and says what went (exit 130); the rest stays', async () => {
      // One batch and a half (BATCH_SIZE 1000); the run's first batch waits for the table.
      await retentionWaitingOn('retention_cli_stop', 1500, 'PresenceRecord', async (r) => {
        r.child.process.kill('SIGINT');
        // The signal is heard while the batch waits; the batch then completes.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await r.release();
        const run = await r.exited;
        expect(run.code, run.stderr).toBe(130);
        const error =
          'Interrupted by SIGINT: stopped after the current batch: 1000 presence records deleted; the rest goes at the next run.';
        expect(onlyJson(run)).toEqual({
          error,
          tenant_id: r.tenantId,
          dry_run: false,
          inactive_guests: null,
          presence_records: 1000,
          location_logs: null,
          guest_sessions: null,
          events: null,
        });
        expect(run.stderr).toContain(`error: ${error}`);
        expect(await r.p.presenceRecord.count({ where: { tenantId: r.tenantId } })).toBe(500);
      });
    });

    it('a second Ctrl-C stops at once and still says what the batches before it removed (probe Z4)', async () => {
      // The presence records go in one batch; the current presence after them waits for the table.
      await retentionWaitingOn('retention_cli_force', 500, 'CurrentPresence', async (r) => {
        r.child.process.kill('SIGINT');
        await new Promise((resolve) => setTimeout(resolve, 200));
        r.child.process.kill('SIGINT');
        const run = await r.exited;
        expect(run.code, run.stderr).toBe(130);
        const error =
          'Interrupted again by SIGINT: stopped at once, the batch under way rolled back; before it: 500 presence records deleted; the rest goes at the next run.';
        expect(onlyJson(run)).toEqual({
          error,
          tenant_id: r.tenantId,
          dry_run: false,
          inactive_guests: null,
          presence_records: 500,
          location_logs: null,
          guest_sessions: null,
          events: null,
        });
        expect(run.stderr).toContain(`error: ${error}`);
        await r.release();
        expect(await r.p.presenceRecord.count({ where: { tenantId: r.tenantId } })).toBe(0);
      });
    });
  },
);

describe('the progress bar', () => {
  it('redraws one line in place on a terminal, and ends it', () => {
    const out: string[] = [];
    const bar = progressBar({ isTTY: true, write: (s: string) => out.push(s) }, 4);
    bar.tick(1, 'presence records deleted');
    bar.tick(1, 'presence records deleted'); // within 100 ms: not drawn
    bar.end('presence records deleted');
    expect(out).toEqual([
      `\r[${'#'.repeat(8)}${'-'.repeat(22)}]  25%  1/4 presence records deleted\u001b[K`,
      `\r[${'#'.repeat(15)}${'-'.repeat(15)}]  50%  2/4 presence records deleted\u001b[K`,
      '\n',
    ]);
  });

  it('writes a line per tenth elsewhere', () => {
    const out: string[] = [];
    const bar = progressBar({ write: (s: string) => out.push(s) }, 20);
    for (let i = 0; i < 20; i++) bar.tick(1, 'guest sessions deleted');
    bar.end('guest sessions deleted');
    // The first step, then one line as each tenth is reached.
    expect(out).toHaveLength(11);
    expect(out[0]).toBe(`[${'#'.repeat(2)}${'-'.repeat(28)}]   5%  1/20 guest sessions deleted\n`);
    expect(out[1]).toBe(`[${'#'.repeat(3)}${'-'.repeat(27)}]  10%  2/20 guest sessions deleted\n`);
    expect(out.at(-1)).toBe(`[${'#'.repeat(30)}] 100%  20/20 guest sessions deleted\n`);
  });
});

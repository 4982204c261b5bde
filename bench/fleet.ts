// `npm run bench -- --instances 1,2`: the guest page and the dashboard against 1, 2, … server
// processes (`npm start`'s command) on the benchmark's PostgreSQL and a shared Redis, as a fleet
// runs them. The load is split evenly over the instances (one autocannon per instance, the
// connections divided), as a balancer would spread it; throughput is reported in total and per
// instance, with the CPU each party used, so what a second instance buys on this machine, and what
// it competes with, can be read off the table.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type autocannon from 'autocannon';
import pg from 'pg';
import { type Child, freePort, killAll, startServer, waitUntilUp } from '../test/helpers/processes.js';

export interface FleetScenario {
  id: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export interface FleetMeasure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface FleetOptions {
  instances: number[];
  scenarios: FleetScenario[];
  databaseUrl: string;
  redisUrl: string;
  token: string;
  connections: number;
  duration: number;
  load: (opts: autocannon.Options) => Promise<FleetMeasure>;
  log: (msg: string) => void;
}

interface FleetRow {
  scenario: FleetScenario;
  instances: number;
  total: FleetMeasure;
  cpu: CpuShare | null;
}

// ── CPU used per party, from /proc (Linux; elsewhere the columns say —) ──────────────────────

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux architecture Node runs on

/** utime + stime of a process, in ticks (0 when it is gone). */
function ticks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function pidsNamed(names: string[]): number[] {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          return names.includes(readFileSync(`/proc/${d}/comm`, 'utf8').trim());
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

interface CpuShare {
  /** Cores kept busy on average during the run, per party. */
  gateways: number;
  postgres: number;
  redis: number;
  loadGenerator: number;
  /** The rest of the machine's busy time: processes that are not the benchmark's (a shared machine). */
  others: number;
}

/** Busy ticks of the whole machine (all cores), from the first line of /proc/stat. */
function machineBusy(): number {
  try {
    const [, user, nice, system, , , irq, softirq, steal] =
      readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]?.trim().split(/\s+/).map(Number) ?? [];
    return [user, nice, system, irq, softirq, steal].reduce<number>((a, b) => a + (b ?? 0), 0);
  } catch {
    return 0;
  }
}

/**
 * Samples CPU ticks of the gateways, the PostgreSQL backends serving the benchmark's database (the
 * server may serve others too), Redis and this process; `stop` gives the cores each used.
 */
async function cpuMeter(
  gatewayPids: number[],
  databaseUrl: string,
): Promise<{ stop(): Promise<CpuShare | null> }> {
  if (!existsSync('/proc/self/stat')) return { stop: async () => null };
  const pgClient = new pg.Client({ connectionString: databaseUrl });
  await pgClient.connect();
  const parties = async () => ({
    gateways: gatewayPids,
    postgres: (
      await pgClient.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
      )
    ).rows.map((r) => r.pid),
    redis: pidsNamed(['redis-server']),
    loadGenerator: [process.pid],
  });
  const snapshot = async () => {
    const all = await parties();
    const at = new Map<number, number>();
    for (const pid of Object.values(all).flat()) at.set(pid, ticks(pid));
    return { all, at, busy: machineBusy(), time: performance.now() };
  };
  const before = await snapshot();
  return {
    async stop() {
      const after = await snapshot().finally(() => pgClient.end());
      const seconds = (after.time - before.time) / 1000;
      const cores = (key: keyof typeof after.all) => {
        let used = 0;
        for (const pid of after.all[key]) {
          // A process born meanwhile counts from zero; one gone meanwhile cannot be read any more.
          used += (after.at.get(pid) ?? 0) - (before.at.get(pid) ?? 0);
        }
        return used / TICKS_PER_SECOND / seconds;
      };
      if (seconds <= 0 || after.at.size === 0) return null;
      const share = {
        gateways: cores('gateways'),
        postgres: cores('postgres'),
        redis: cores('redis'),
        loadGenerator: cores('loadGenerator'),
      };
      const busy = (after.busy - before.busy) / TICKS_PER_SECOND / seconds;
      const ours = share.gateways + share.postgres + share.redis + share.loadGenerator;
      return { ...share, others: Math.max(0, busy - ours) };
    },
  };
}

// ── The run ──────────────────────────────────────────────────────────────────────────────────

async function startFleet(n: number, opts: FleetOptions): Promise<{ children: Child[]; bases: string[] }> {
  const children: Child[] = [];
  const bases: string[] = [];
  for (let i = 0; i < n; i++) {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      REDIS_URL: opts.redisUrl,
      RATE_LIMIT_PER_MINUTE: '1000000',
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: 'http://localhost',
      LOG_LEVEL: 'silent',
    };
    children.push(startServer(env));
    bases.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(children.map((c, i) => waitUntilUp(c, bases[i] as string, 120_000)));
  return { children, bases };
}

async function stopFleet(children: Child[]): Promise<void> {
  for (const c of children) c.process.kill('SIGTERM');
  await Promise.all(children.map((c) => c.exited(30_000).catch(() => undefined)));
}

/** One autocannon per instance, the connections divided among them, all at once. */
async function spread(
  bases: string[],
  s: FleetScenario,
  opts: FleetOptions,
  length: { duration: number },
): Promise<FleetMeasure> {
  const per = bases.map(
    (_, i) => Math.floor(opts.connections / bases.length) + (i < opts.connections % bases.length ? 1 : 0),
  );
  const results = await Promise.all(
    bases.map((base, i) =>
      opts.load({
        url: base + s.path,
        method: s.method,
        headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
        connections: Math.max(1, per[i] ?? 1),
        ...length,
        ...(s.body ? { body: s.body } : {}),
      }),
    ),
  );
  const rps = results.reduce((sum, r) => sum + r.rps, 0);
  return {
    rps,
    // The instances' medians weighted by their throughput (an approximation); the slowest instance's p99.
    p50: results.reduce((sum, r) => sum + r.p50 * r.rps, 0) / (rps || 1),
    p99: Math.max(...results.map((r) => r.p99)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

export async function runFleet(opts: FleetOptions): Promise<string> {
  const rows: FleetRow[] = [];
  try {
    for (const n of opts.instances) {
      opts.log(`[fleet] starting ${n} instance(s)`);
      const { children, bases } = await startFleet(n, opts);
      try {
        for (const s of opts.scenarios) {
          opts.log(`[fleet × ${n}] ${s.label}`);
          await spread(bases, s, opts, { duration: 1 }); // warm-up: JIT, plans, pools
          const meter = await cpuMeter(
            children.map((c) => c.process.pid ?? 0),
            opts.databaseUrl,
          );
          const total = await spread(bases, s, opts, { duration: opts.duration });
          const cpu = await meter.stop();
          rows.push({ scenario: s, instances: n, total, cpu });
          opts.log(
            `   ${total.rps.toFixed(0)} req/s (${(total.rps / n).toFixed(0)} per instance), p99 ${total.p99.toFixed(0)} ms`,
          );
        }
      } finally {
        await stopFleet(children);
      }
    }
  } finally {
    killAll();
  }
  return fleetReport(rows, opts);
}

const fmt = (n: number | undefined, digits = 1) => (n === undefined ? '—' : n.toFixed(digits));

function fleetReport(rows: FleetRow[], opts: FleetOptions): string {
  const cores = os.cpus().length;
  const lines = [
    `Each row: ${opts.connections} connections in all, split evenly over the instances (no balancer in between), ` +
      `${opts.duration} s after a 1 s warm-up; one shared Redis (${opts.redisUrl.replace(/\/\/[^@]*@/, '//')}) holds the rate-limit counters. ` +
      `CPU columns: cores kept busy on average during the row (from /proc), out of the machine's ${os.cpus().length}.`,
    '',
    `| request | instances | req/s | req/s per instance | × 1 instance | p50 ms | p99 ms (slowest instance) | errors | CPU gateways | CPU PostgreSQL | CPU Redis | CPU load generator | CPU other processes |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const base = rows.find((b) => b.scenario.id === r.scenario.id && b.instances === 1);
    lines.push(
      `| ${r.scenario.label} | ${r.instances} | ${r.total.rps.toFixed(0)} | ${(r.total.rps / r.instances).toFixed(0)} | ` +
        `${base ? (r.total.rps / base.total.rps).toFixed(2) : '—'} | ${fmt(r.total.p50)} | ${fmt(r.total.p99, 0)} | ${r.total.errors} | ` +
        `${fmt(r.cpu?.gateways, 2)} | ${fmt(r.cpu?.postgres, 2)} | ${fmt(r.cpu?.redis, 2)} | ${fmt(r.cpu?.loadGenerator, 2)} | ${fmt(r.cpu?.others, 2)} |`,
    );
  }
  const most = Math.max(...opts.instances);
  lines.push('');
  // Each instance, PostgreSQL and the load generator would need a core of their own to add up.
  const busy = (r: FleetRow) =>
    r.cpu ? r.cpu.gateways + r.cpu.postgres + r.cpu.redis + r.cpu.loadGenerator + r.cpu.others : 0;
  const full = rows.filter((r) => busy(r) >= 0.9 * cores).length;
  if (cores < most + 2) {
    lines.push(
      `**${cores} cores** shared by ${most} instance(s), PostgreSQL, Redis and the load generator: an added ` +
        'instance competes with PostgreSQL (and the load generator) for the same cores. It can add ' +
        'throughput only while cores are left (a Node process runs its JavaScript on one core); ' +
        `the cores were full (90 % busy or more) in ${full} of ${rows.length} rows, where an instance ` +
        'can only take CPU from the others. A fleet adds capacity in proportion where each instance has ' +
        'cores of its own and PostgreSQL has headroom.',
    );
  } else {
    lines.push(
      `${cores} cores: at least one for each instance, PostgreSQL and the load generator; ` +
        `the cores were full (90 % busy or more) in ${full} of ${rows.length} rows.`,
    );
  }
  const others = Math.max(0, ...rows.map((r) => r.cpu?.others ?? 0));
  if (others > 0.2) {
    lines.push(
      '',
      `Other processes kept up to ${others.toFixed(2)} cores busy during the rows: the machine was shared, ` +
        'so compare rows of this run with care and rerun on a quiet machine for figures to keep.',
    );
  }
  return lines.join('\n');
}

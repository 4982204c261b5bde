// `npm run bench`: throughput, latency, SQL statements per request and peak RSS of the gateway's
// dashboard reads (and a write mix), each beside its SQL floor, on PostgreSQL at scale and on the
// embedded PGlite at a smaller size. See bench/RESULTS.md for a recorded run.
//
//   npm run bench -- [--tenants 10] [--guests 100000] [--devices 300000] [--sessions 1000000]
//                    [--present 50000] [--pglite-guests 5000] [--duration 5] [--connections 10]
//                    [--only pg|pglite|presence] [--rows guests,graphql] [--out file.md]
//   (presence: bench/presence.bench.ts in a process of its own: the ingest with one webhook endpoint
//   subscribed and without it, and the delivery lag; its database is BENCH_PRESENCE_DATABASE_URL,
//   default postgresql://root@127.0.0.1:5432/bench_presence, dropped and created afresh)
//   npm run bench -- --instances 1,2 [--duration 5] [--connections 10]: the guest page and the
//                    dashboard against 1, then 2 server processes on PostgreSQL + Redis (bench/fleet.ts)
//   BENCH_DATABASE_URL (default postgresql://root@127.0.0.1:5432/bench, created if absent; the
//   database is the benchmark's: a dataset of other sizes in it is dropped and regenerated).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildDist } from '../scripts/build.mjs';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { freePort, startServer, waitUntilUp } from '../test/helpers/processes.js';
import { redisAnswers } from '../test/helpers/redis.js';
import { type BenchDatabase, openPgliteBench, openPostgresBench } from './databases.js';
import {
  type Dataset,
  existingDataset,
  generateDataset,
  hasOtherData,
  type Sizes,
  sizesKey,
} from './dataset.js';
import { runFleet } from './fleet.js';
import * as floor from './floor.js';

const OPTIONS = {
  tenants: { type: 'string', default: '10' },
  guests: { type: 'string', default: '100000' },
  devices: { type: 'string', default: '300000' },
  sessions: { type: 'string', default: '1000000' },
  present: { type: 'string', default: '50000' },
  'pglite-guests': { type: 'string', default: '5000' },
  duration: { type: 'string', default: '5' },
  connections: { type: 'string', default: '10' },
  only: { type: 'string' },
  rows: { type: 'string' },
  out: { type: 'string' },
  instances: { type: 'string' },
} as const;

/** A bad command line, said plainly (no stack trace), before any work starts. */
function usage(message: string): never {
  process.stderr.write(`npm run bench: ${message}\n`);
  process.exit(2);
}

const { values: flags } = (() => {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (err) {
    return usage((err as Error).message);
  }
})();

const num = (name: keyof typeof flags) => {
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < 0) usage(`--${name} must be a whole number; got "${flags[name]}"`);
  return n;
};
const DURATION = num('duration');
const CONNECTIONS = num('connections');
for (const name of ['tenants', 'guests', 'devices', 'sessions', 'present', 'pglite-guests'] as const)
  num(name);
const only = flags.only;
if (only !== undefined && !['pg', 'pglite', 'presence'].includes(only)) {
  usage(`--only must be pg, pglite or presence; got "${only}"`);
}
const instances = flags.instances?.split(',').map(Number);
if (instances && (instances.length === 0 || !instances.every((n) => Number.isInteger(n) && n >= 1))) {
  usage(
    `--instances must be a comma-separated list of whole numbers from 1 (e.g. 1,2); got "${flags.instances}"`,
  );
}

// The server processes it starts (exports, the fleet) run dist/, as `npm start` does: built first.
await buildDist();
const log = (msg: string) => process.stderr.write(`${msg}\n`);

interface Scenario {
  id: string;
  label: string;
  kind: 'list' | 'graphql' | 'count' | 'other' | 'write' | 'export';
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Requests of seconds each: a fixed number of them (3 per connection) instead of a duration. */
  heavy?: boolean;
  /** The same request with a small page (per_page=10 / first: 10): statements must not differ. */
  smallPage?: { path: string; body?: string };
  floor?: floor.FloorQuery;
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

interface Row {
  scenario: Scenario;
  gateway: Measure;
  floor: Measure | null;
  statements: number;
  statementsSmall: number | null;
  rssMb: number;
  notes: string[];
}

// ── Load ─────────────────────────────────────────────────────────────────────────────────────

let peakRss = 0;
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 20).unref();

async function load(opts: autocannon.Options): Promise<Measure> {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION, timeout: 60, ...opts });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

const dashboardQuery = (first: number) =>
  JSON.stringify({
    query: `{ guests(first: ${first}) { edges { node { id name email online
      devices(first: 10) { edges { node { id mac typeName online } } }
      sessions(first: 5) { edges { node { id startTime endTime ipAddress downloadedData } } } } } } }`,
  });

function scenarios(ds: Dataset): Scenario[] {
  const t0 = ds.tenants[0];
  if (!t0) throw new Error('no tenant');
  const loc = t0.locations[0] ?? '';
  const tid = t0.tenantId;
  const perTenant = Math.floor(ds.sizes.guests / ds.sizes.tenants);
  const deepPage = Math.max(2, Math.floor(perTenant / 100) - 1);
  const filter = `location_id=${loc}&gender=female&type=1`;
  const filterSql = { where: `AND g."locationId" = $2 AND g.gender = 2 AND g.type = 1`, params: [loc] };
  const list = (id: string, label: string, q: string, f: floor.FloorQuery): Scenario => ({
    id,
    label,
    kind: 'list',
    method: 'GET',
    path: `/api/v1/${q}`,
    smallPage: { path: `/api/v1/${q.replace('per_page=100', 'per_page=10')}` },
    floor: f,
  });
  return [
    list('guests', 'GET /guests?per_page=100', 'guests?per_page=100', floor.guestPage(tid, {})),
    list(
      'guests-filtered',
      'GET /guests?per_page=100 + location, gender, type',
      `guests?per_page=100&${filter}`,
      floor.guestPage(tid, filterSql),
    ),
    list(
      'guests-deep',
      `GET /guests?per_page=100&page=${deepPage}`,
      `guests?per_page=100&page=${deepPage}`,
      floor.guestPage(tid, { offset: (deepPage - 1) * 100 }),
    ),
    {
      id: 'guests-count',
      label: 'GET /guests/count + location, gender, type',
      kind: 'count',
      method: 'GET',
      path: `/api/v1/guests/count?${filter}`,
      floor: floor.guestCount(tid, filterSql.where, filterSql.params),
    },
    {
      id: 'guests-count-name',
      label: 'GET /guests/count?name=ann (substring)',
      kind: 'count',
      method: 'GET',
      path: '/api/v1/guests/count?name=ann',
      floor: floor.guestCount(tid, `AND g.name ILIKE '%ann%'`, []),
    },
    {
      id: 'sessions-count',
      label: 'GET /sessions/count?location_id=…',
      kind: 'count',
      method: 'GET',
      path: `/api/v1/sessions/count?location_id=${loc}`,
      floor: floor.sessionCount(tid, loc),
    },
    list(
      'sessions',
      'GET /sessions?per_page=100&location_id=…',
      `sessions?per_page=100&location_id=${loc}`,
      floor.sessionPage(tid, loc),
    ),
    {
      id: 'hierarchy',
      label: 'GET /locations/hierarchy',
      kind: 'other',
      method: 'GET',
      path: '/api/v1/locations/hierarchy',
      floor: floor.hierarchy(tid),
    },
    {
      id: 'graphql',
      label: 'GraphQL: 100 guests + devices + latest 5 sessions',
      kind: 'graphql',
      method: 'POST',
      path: '/graphql',
      body: dashboardQuery(100),
      smallPage: { path: '/graphql', body: dashboardQuery(10) },
      floor: floor.dashboard(tid),
    },
    {
      id: 'active-sessions',
      label: `GET /locations-analytics/active-sessions (${ds.sizes.present} present)`,
      kind: 'other',
      heavy: ds.sizes.present > 5000,
      method: 'GET',
      path: `/api/v1/locations-analytics/active-sessions?location_id=${loc}`,
      floor: floor.activeSessions(tid, loc),
    },
    {
      // A captive portal's hot path: every request counts a use of the same row (its lock queues
      // them), links the known device and answers the code with its limits. No floor: a write.
      id: 'redeem',
      label: 'POST /access-codes/redeem (one shared unlimited code)',
      kind: 'write',
      method: 'POST',
      path: '/api/v1/access-codes/redeem',
      body: JSON.stringify({ code: REDEEM_CODE, location_id: loc, mac: REDEEM_MAC }),
    },
  ];
}

/** The shared code the redeem row redeems, at tenant 0's first location, and the device it names. */
const REDEEM_CODE = 'BENCH-REDEEM';
const REDEEM_MAC = '02:BE:4C:00:00:01';

/**
 * Creates the redeem row's code (type 1, unlimited) if absent and makes it redeemable again, and
 * gives its MAC a device (of a dataset guest), so every measured request, the counted one
 * included, is the steady state: a known device, one use counted.
 */
async function ensureRedeemCode(bench: BenchDatabase, ds: Dataset): Promise<void> {
  const t0 = ds.tenants[0];
  const locationId = t0?.locations[0];
  const guestId = ds.guestIds[0];
  if (!t0 || !locationId || !guestId) throw new Error('no tenant');
  await bench.db.prisma.guestDevice.upsert({
    where: { tenantId_mac: { tenantId: t0.tenantId, mac: REDEEM_MAC } },
    update: { guestId },
    create: { tenantId: t0.tenantId, guestId, mac: REDEEM_MAC },
  });
  const redeemable = {
    locationId,
    status: 1,
    revokedAt: null,
    maxUses: null,
    startDate: null,
    expiryDate: null,
  };
  await bench.db.prisma.accessCode.upsert({
    where: { tenantId_code: { tenantId: t0.tenantId, code: REDEEM_CODE } },
    update: redeemable,
    create: {
      ...redeemable,
      tenantId: t0.tenantId,
      serviceProfileId: t0.profileId,
      type: 1,
      code: REDEEM_CODE,
      description: 'Benchmark: the redeem row',
    },
  });
}

/** Reads a streamed answer to its end, counting its line ends and bytes without keeping it. */
function drain(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; lines: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let lines = 0;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, lines, bytes }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

interface ExportRun {
  got: { status: number; lines: number; bytes: number };
  seconds: number;
  growthMb: number;
  peakMb: number;
  who: string;
}

/** The export read in this process, its RSS sampled (PGlite: the database is in here too). */
async function exportInProcess(url: string, headers: Record<string, string>): Promise<ExportRun> {
  const before = process.memoryUsage.rss();
  peakRss = before;
  const started = performance.now();
  const got = await drain(url, headers);
  const seconds = (performance.now() - started) / 1000;
  return { got, seconds, growthMb: (peakRss - before) / 2 ** 20, peakMb: peakRss / 2 ** 20, who: 'process' };
}

/** A server process's resident set in bytes (Linux: /proc), or 0 where there is none. */
function rssOfPid(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The export from a server process of its own on `databaseUrl`, its RSS sampled every 50 ms. */
async function exportInChild(
  databaseUrl: string,
  authorization: string,
  path: string,
  /** A filter for the first, small export. */
  few: string,
): Promise<ExportRun> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = startServer({
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_URL: 'http://localhost',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  try {
    await waitUntilUp(child, base, 120_000);
    const pid = child.process.pid ?? 0;
    // A first small export (one guest's sessions) loads the code paths the big one takes.
    await drain(`${base}${path}&${few}`, { authorization });
    const before = rssOfPid(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOfPid(pid));
    }, 50);
    const started = performance.now();
    const got = await drain(`${base}${path}`, { authorization }).finally(() => clearInterval(sampler));
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, rssOfPid(pid));
    return { got, seconds, growthMb: (peak - before) / 2 ** 20, peakMb: peak / 2 ** 20, who: 'server' };
  } finally {
    child.process.kill('SIGTERM');
    await child.exited(30_000).catch(() => undefined);
  }
}

// ── One database ─────────────────────────────────────────────────────────────────────────────

async function runOn(name: string, bench: BenchDatabase, ds: Dataset): Promise<Row[]> {
  const config = loadConfig({
    RATE_LIMIT_PER_MINUTE: '1000000',
    APP_URL: 'http://localhost',
    LOG_LEVEL: 'silent',
  });
  const app = await buildApp({ config, db: bench.db, logger: false });
  await app.fastify.listen({ port: 0, host: '127.0.0.1' });
  const address = app.fastify.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const t0 = ds.tenants[0];
  if (!t0) throw new Error('no tenant');
  const headers = { authorization: `Bearer ${t0.token}`, 'content-type': 'application/json' };
  const all = scenarios(ds);
  const routes = new Map(all.flatMap((s) => (s.floor ? [[`/${s.id}`, s.floor] as const] : [])));
  const floorServer = await floor.startFloor(bench.rows, routes);
  const wanted = flags.rows?.split(',');
  const rows: Row[] = [];

  const countStatements = async (method: 'GET' | 'POST', url: string, body?: string) => {
    let n = 0;
    const off = bench.db.onQuery(() => {
      n++;
    });
    try {
      const res = await app.fastify.inject({ method, url, headers, ...(body ? { payload: body } : {}) });
      await new Promise((resolve) => setImmediate(resolve));
      if (res.statusCode !== 200 || res.body.includes('"errors"')) {
        throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
      return n;
    } finally {
      off();
    }
  };

  try {
    for (const s of all) {
      if (wanted && !wanted.some((w) => s.id.startsWith(w))) continue;
      if (s.id === 'active-sessions') {
        // Present devices stay present: their records are refreshed before the run.
        // ANALYZE as autovacuum would after such a wave of updates: with statistics from before it,
        // the planner expects one present device instead of all of them and nests loops.
        await bench.db.prisma.$executeRawUnsafe(`UPDATE "CurrentPresence" SET "seenAt" = now()`);
        await bench.db.prisma.$executeRawUnsafe(`ANALYZE "CurrentPresence"`);
      }
      log(`[${name}] ${s.label}`);
      const statements = await countStatements(s.method, s.path, s.body);
      const statementsSmall = s.smallPage
        ? await countStatements(s.method, s.smallPage.path, s.smallPage.body)
        : null;
      const size = s.heavy ? { amount: CONNECTIONS * 3 } : {};
      // Warm up (JIT, plans, pool) before measuring.
      const warm = s.heavy ? { amount: CONNECTIONS } : { duration: 1 };
      await load({
        url: base + s.path,
        method: s.method,
        headers,
        ...warm,
        ...(s.body ? { body: s.body } : {}),
      });
      peakRss = process.memoryUsage.rss();
      const gateway = await load({
        url: base + s.path,
        method: s.method,
        headers,
        ...size,
        ...(s.body ? { body: s.body } : {}),
      });
      const rssMb = peakRss / 1024 / 1024;
      let floorMeasure: Measure | null = null;
      if (s.floor) {
        await load({ url: `${floorServer.url}/${s.id}`, ...warm });
        floorMeasure = await load({ url: `${floorServer.url}/${s.id}`, ...size });
      }
      rows.push({ scenario: s, gateway, floor: floorMeasure, statements, statementsSmall, rssMb, notes: [] });
      log(`   ${fmtRow(rows[rows.length - 1] as Row)}`);
    }

    // A streamed export of all of tenant 0's sessions (README "Exports"), one at a time: rows/s, and
    // how far the process's RSS grows above where it stood (the goal: under 100 MB at 1 000 000
    // sessions, `--tenants 1`; the default dataset gives tenant 0 a tenth of the sessions).
    if (!wanted || wanted.some((w) => 'export'.startsWith(w))) {
      const path = '/api/v1/sessions/export?format=csv';
      log(`[${name}] GET ${path}`);
      const auth = { authorization: headers.authorization };
      // This process's run warms up (plans, JIT) and counts the statements.
      let statements = 0;
      const off = bench.db.onQuery(() => {
        statements++;
      });
      const warm = await drain(`${base}${path}`, auth).finally(off);
      // The measured run: on PostgreSQL a server process of its own (`npm start`'s command), whose RSS
      // alone is sampled (this process also holds the reader of the 200 MB answer and the dataset);
      // PGlite lives in this process, which is then measured as a whole.
      const measured =
        name === 'postgresql'
          ? await exportInChild(PG_URL, headers.authorization ?? '', path, `guest_id=${ds.guestIds[0] ?? ''}`)
          : await exportInProcess(`${base}${path}`, auth);
      const { got, seconds, growthMb } = measured;
      // The header is a line; the dataset's sessions hold no line breaks.
      const records = Math.max(0, got.lines - 1);
      const row: Row = {
        scenario: {
          id: 'export',
          label:
            `GET /sessions/export?format=csv: ${records} rows, ${(got.bytes / 1024 / 1024).toFixed(0)} MB in ` +
            `${seconds.toFixed(1)} s = **${Math.round(records / seconds)} rows/s**, ` +
            `${measured.who} RSS +${growthMb.toFixed(0)} MB`,
          kind: 'export',
          method: 'GET',
          path,
        },
        gateway: {
          rps: 1 / seconds,
          p50: seconds * 1000,
          p99: seconds * 1000,
          errors: got.status === 200 && warm.status === 200 ? 0 : 1,
        },
        floor: null,
        statements,
        statementsSmall: null,
        rssMb: measured.peakMb,
        notes: [`rss+${growthMb.toFixed(0)}`],
      };
      if (growthMb >= 100) row.notes.push('RSS +100 MB or more');
      rows.push(row);
      log(`   ${records} rows in ${seconds.toFixed(1)} s, RSS +${growthMb.toFixed(0)} MB, ${statements} SQL`);
    }

    if (!wanted || wanted.some((w) => 'write-mix'.startsWith(w))) {
      log(`[${name}] write mix`);
      let n = 0;
      const stamp = Date.now();
      const loc = t0.locations[1] ?? t0.locations[0] ?? '';
      const writes = load({
        url: base,
        headers,
        connections: Math.max(1, Math.floor(CONNECTIONS / 2)),
        requests: [
          {
            method: 'POST',
            path: '/api/v1/guests',
            setupRequest: (req) => {
              n++;
              return {
                ...req,
                body: JSON.stringify({
                  location_id: loc,
                  name: `Bench Writer ${n}`,
                  email: `w${stamp}-${n}@bench.invalid`,
                  tags: ['Segment 1', 'Bench'],
                }),
              };
            },
          },
          {
            method: 'PUT',
            setupRequest: (req) => {
              n++;
              // Guest k + 1 of the dataset stays at its own location (index (k + 1) % 4).
              const k = n % ds.guestIds.length;
              return {
                ...req,
                path: `/api/v1/guests/${ds.guestIds[k]}`,
                body: JSON.stringify({
                  location_id: t0.locations[(k + 1) % t0.locations.length],
                  name: `Updated ${n}`,
                }),
              };
            },
          },
        ],
      });
      peakRss = process.memoryUsage.rss();
      const reads = load({
        url: `${base}/api/v1/guests?per_page=100`,
        headers,
        connections: Math.max(1, Math.ceil(CONNECTIONS / 2)),
      });
      const [w, r] = await Promise.all([writes, reads]);
      const rssMb = peakRss / 1024 / 1024;
      const mk = (id: string, label: string, m: Measure): Row => ({
        scenario: { id, label, kind: 'write', method: 'GET', path: '' },
        gateway: m,
        floor: null,
        statements: Number.NaN,
        statementsSmall: null,
        rssMb,
        notes: [],
      });
      rows.push(mk('write-mix-writes', 'write mix: POST /guests + PUT /guests/:id', w));
      rows.push(mk('write-mix-reads', 'write mix: GET /guests?per_page=100 meanwhile', r));
      for (const row of rows.slice(-2)) log(`   ${fmtRow(row)}`);
      // The dataset is reused by the next run: the created guests go again.
      // On the floor's connection, which has no statement timeout: the cascade takes seconds.
      await bench.rows(`DELETE FROM "Guest" WHERE email LIKE '%@bench.invalid'`, []);
    }
  } finally {
    await floorServer.close();
    await app.close();
  }
  return rows;
}

// ── Report ───────────────────────────────────────────────────────────────────────────────────

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

function goals(row: Row, atScale: boolean): string[] {
  const missed: string[] = [];
  const s = row.scenario;
  if (row.statementsSmall !== null && row.statementsSmall !== row.statements)
    missed.push('SQL grows with page');
  if (row.floor && (s.kind === 'list' || s.kind === 'graphql')) {
    const limit = s.kind === 'graphql' ? 3 : 2;
    if (row.floor.rps / row.gateway.rps > limit) missed.push(`>${limit}× floor`);
  }
  if (atScale && s.kind !== 'export' && row.gateway.p99 >= 50) missed.push('p99 ≥ 50 ms');
  if (row.notes.includes('RSS +100 MB or more')) missed.push('RSS +100 MB or more');
  if (s.kind === 'count' && row.gateway.p99 >= 100) missed.push('count ≥ 100 ms');
  if (row.gateway.errors > 0) missed.push(`${row.gateway.errors} errors`);
  return missed;
}

function fmtRow(r: Row): string {
  return (
    `${r.gateway.rps.toFixed(0)} req/s, p50 ${ms(r.gateway.p50)} ms, p99 ${ms(r.gateway.p99)} ms, ${r.statements} SQL` +
    (r.floor ? ` | floor ${r.floor.rps.toFixed(0)} req/s p50 ${ms(r.floor.p50)} ms` : '')
  );
}

function table(rows: Row[], atScale: boolean): string {
  const lines = [
    `| request | req/s | p50 ms | p99 ms | SQL/req (page 10 → 100) | peak RSS MB | floor req/s | floor p50 ms | floor p99 ms | × floor | ${atScale ? 'goals' : 'goals (the p99 goal is for PostgreSQL at scale)'} |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const sql = Number.isNaN(r.statements)
      ? '—'
      : r.statementsSmall === null
        ? String(r.statements)
        : `${r.statementsSmall} → ${r.statements}`;
    const ratio = r.floor ? (r.floor.rps / r.gateway.rps).toFixed(2) : '—';
    const missed = goals(r, atScale);
    lines.push(
      `| ${r.scenario.label} | ${r.gateway.rps.toFixed(0)} | ${ms(r.gateway.p50)} | ${ms(r.gateway.p99)} | ${sql} | ${r.rssMb.toFixed(0)} | ` +
        `${r.floor ? r.floor.rps.toFixed(0) : '—'} | ${r.floor ? ms(r.floor.p50) : '—'} | ${r.floor ? ms(r.floor.p99) : '—'} | ${ratio} | ` +
        `${missed.length === 0 ? 'met' : `**missed**: ${missed.join(', ')}`} |`,
    );
  }
  return lines.join('\n');
}

function machine(): string {
  const cpus = os.cpus();
  return [
    `- date: ${new Date().toISOString()}`,
    `- CPU: ${cpus.length} × ${cpus[0]?.model ?? 'unknown'}`,
    `- memory: ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `- node ${process.version}, ${os.platform()} ${os.release()}; PostgreSQL on the same machine`,
    `- load average at the end of the run: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')} (other processes share the machine: numbers vary between runs)`,
    `- load: ${CONNECTIONS} connections, ${DURATION} s per row (after a 1 s warm-up), autocannon in the same process`,
  ].join('\n');
}

// ── Main ─────────────────────────────────────────────────────────────────────────────────────

async function prepare(bench: BenchDatabase, sizes: Sizes, name: string): Promise<Dataset> {
  const found = await existingDataset(bench.db.prisma, sizes);
  if (found) log(`[${name}] reusing dataset ${sizesKey(sizes)}`);
  else log(`[${name}] generating dataset ${sizesKey(sizes)}`);
  const ds = found ?? (await generateDataset(bench.db.prisma, sizes, log));
  await ensureRedeemCode(bench, ds);
  return ds;
}

const out: string[] = [];

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/bench';
const pgSizes = (): Sizes => ({
  tenants: num('tenants'),
  guests: num('guests'),
  devices: num('devices'),
  sessions: num('sessions'),
  present: num('present'),
});

/** The benchmark's PostgreSQL database with the dataset of `sizes` (reused, or generated). */
async function openPgDataset(sizes: Sizes): Promise<{ bench: BenchDatabase; ds: Dataset }> {
  const bench = await openPostgresBench(PG_URL, {
    // Only a benchmark dataset (marker table) of other sizes is dropped; foreign data is refused below.
    reset: async (pool) => {
      const marker = await pool.query(`SELECT to_regclass('bench_dataset')::text AS t`);
      if (!marker.rows[0]?.t) return false;
      const same = await pool.query('SELECT 1 FROM bench_dataset WHERE key = $1', [sizesKey(sizes)]);
      return same.rowCount === 0;
    },
  });
  try {
    if (!(await existingDataset(bench.db.prisma, sizes)) && (await hasOtherData(bench.db.prisma))) {
      throw new Error(
        'the benchmark database holds other data; point BENCH_DATABASE_URL at a database of its own',
      );
    }
    return { bench, ds: await prepare(bench, sizes, 'postgresql') };
  } catch (err) {
    await bench.close();
    throw err;
  }
}

// --instances: the fleet benchmark instead of the others.
if (instances) {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisAnswers(redisUrl))) throw new Error(`no Redis answers at ${redisUrl} (set REDIS_URL)`);
  const sizes = pgSizes();
  const { bench, ds } = await openPgDataset(sizes);
  await bench.close(); // the instances open their own pools
  const wanted = flags.rows?.split(',');
  const fleetRows = scenarios(ds).filter((s) =>
    wanted ? wanted.some((w) => s.id.startsWith(w)) : s.id === 'guests' || s.id === 'graphql',
  );
  const report = await runFleet({
    instances,
    scenarios: fleetRows,
    databaseUrl: PG_URL,
    redisUrl,
    token: ds.tenants[0]?.token ?? '',
    connections: CONNECTIONS,
    duration: DURATION,
    load,
    log,
  });
  out.push(
    `## Fleet: ${instances.join(', ')} instance(s) on PostgreSQL (${PG_URL.replace(/\/\/[^@]*@/, '//')}) and Redis`,
    '',
    `Dataset ${sizesKey(sizes)}; requests as tenant 0.`,
    '',
    report,
    '',
  );
}

if (!instances && (!only || only === 'pg')) {
  const sizes = pgSizes();
  const { bench, ds } = await openPgDataset(sizes);
  try {
    const rows = await runOn('postgresql', bench, ds);
    out.push(
      `## PostgreSQL (${PG_URL.replace(/\/\/[^@]*@/, '//')})`,
      '',
      `${sizes.tenants} tenants, ${sizes.guests} guests, ${sizes.devices} devices, ${sizes.sessions} sessions, ` +
        `${sizes.present} present devices (requests as tenant 0: ${sizes.guests / sizes.tenants} guests, ` +
        `${sizes.sessions / sizes.tenants} sessions, all present devices at its first location).`,
      '',
      table(rows, true),
      '',
    );
  } finally {
    await bench.close();
  }
}

if (!instances && (!only || only === 'pglite')) {
  const g = num('pglite-guests');
  const sizes: Sizes = {
    tenants: 2,
    guests: g,
    devices: g * 3,
    sessions: g * 10,
    present: Math.floor(g / 2),
  };
  const bench = await openPgliteBench();
  try {
    const ds = await prepare(bench, sizes, 'pglite');
    const rows = await runOn('pglite', bench, ds);
    out.push(
      '## PGlite (embedded, in memory)',
      '',
      `${sizes.tenants} tenants, ${sizes.guests} guests, ${sizes.devices} devices, ${sizes.sessions} sessions, ` +
        `${sizes.present} present devices.`,
      '',
      table(rows, false),
      '',
    );
  } finally {
    await bench.close();
  }
}

// The presence ingest with one webhook endpoint and without it: a process of its own (its CPU
// figures are its own threads', and nothing of the rows above stays in memory beside it).
if (!instances && (!only || only === 'presence') && !flags.rows) {
  log('[presence] ingest with and without one webhook endpoint (bench/presence.bench.ts)');
  const env = { ...process.env };
  env.BENCH_DATABASE_URL =
    process.env.BENCH_PRESENCE_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/bench_presence';
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/presence.bench.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`bench/presence.bench.ts failed (exit ${run.status ?? run.signal})`);
  out.push(
    '## Presence ingest, with one webhook endpoint and without it (PostgreSQL)',
    '',
    '```text',
    run.stdout.trimEnd(),
    '```',
    '',
  );
}

const report = ['## Machine', '', machine(), '', ...out].join('\n');
process.stdout.write(`${report}\n`);
if (flags.out) writeFileSync(flags.out, `${report}\n`);
process.exit(0);

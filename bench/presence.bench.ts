// Presence at venue scale, on PostgreSQL: ingest throughput (events per second, through the REST
// ingest) and active-sessions latency with 50 000 present devices (p50/p99 over 50 requests); then
// the moves again with one webhook endpoint subscribed to every event (a receiver answering 204, in
// a process of its own) and without it (disabled), in pairs of rounds ordered with, without, without,
// with, … (so a drift from round to round weighs on both sides alike; BENCH_PAIRS, default 4, each
// round moving BENCH_MOVED devices, default half), and the delivery lag from an event's time to its
// arrival at the receiver. Then, per moved device, the CPU and the wait for a CPU of each part: this
// process's main thread and its other threads (delivery's among them), PostgreSQL's backends for the
// API and for delivery, the receiver. Each round starts from a vacuumed database and a checkpoint, as
// autovacuum would leave it on a production server (it is off on this machine): without that,
// rounds with no endpoint at all slowed by 10–15 % each (bench/RESULTS.md, 2026-11-27).
//   npx tsx bench/presence.bench.ts        (BENCH_DATABASE_URL, default postgresql://root@127.0.0.1:5432/bench_presence, created afresh;
//   BENCH_DEVICES, BENCH_PAIRS, BENCH_MOVED; WEBHOOKS_CONCURRENCY, WEBHOOKS_CONCURRENCY_PER_ENDPOINT and
//   WEBHOOKS_THREAD as the server reads them). Also the last section of `npm run bench`.

import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { DELIVERY_APPLICATION_NAME } from '../src/events/webhook-delivery-thread.js';
import { bootstrapTenant, issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { type CpuWait, sampleThreads, spentBetween, type ThreadSample } from './cpu-wait.js';
import { startReceiverProcess } from './webhook-receiver.js';
import { webhookSettingsFromEnv } from './webhook-settings.js';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 50_000);
/** Rounds with and without the endpoint: this many pairs (with, without; then without, with; …), */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 4);
/** each moving this many of the devices. */
const MOVED = Math.min(DEVICES, Number(process.env.BENCH_MOVED ?? DEVICES / 2));
const REQUESTS = 50;
const BATCH = 1000;

const url = process.env.BENCH_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/bench_presence';
// A database of its own, created afresh: `test` belongs to CI, and an earlier run's tenants would
// weigh on this one (their presence times out, and their webhooks' receivers are gone).
await freshDatabase(url);
const db = await openDatabase({ url, poolSize: 10 });
const config = loadConfig({
  RATE_LIMIT_PER_MINUTE: '1000000',
  APP_URL: 'http://localhost',
  LOG_LEVEL: 'silent',
  // The webhook rows: delivery runs in this process, to a receiver on loopback.
  WEBHOOKS_DELIVERY: 'true',
  WEBHOOKS_ALLOW_PRIVATE: '1',
  ...webhookSettingsFromEnv(),
});
const app = await buildApp({ config, db, logger: false });
const prisma = db.prisma;

const a = await bootstrapTenant(prisma, { tenant: `Bench ${Date.now()}` });
const tenantId = a.tenant_id;
const ingestToken = (await issueToken(prisma, a.user_id, ['ingest'])).token;
// 2 buildings × 5 floors × 10 zones under the default location.
const zones: string[] = [];
for (let b = 0; b < 2; b++) {
  const building = await prisma.building.create({
    data: { tenantId, locationId: a.location_id, name: `B${b}` },
  });
  for (let f = 0; f < 5; f++) {
    const floor = await prisma.floor.create({
      data: { tenantId, buildingId: building.id, name: `F${f}`, level: f },
    });
    await prisma.zone.createMany({
      data: Array.from({ length: 10 }, (_, z) => ({ tenantId, floorId: floor.id, name: `Z${z}` })),
    });
    zones.push(
      ...(await prisma.zone.findMany({ where: { floorId: floor.id }, select: { id: true } })).map(
        (z) => z.id,
      ),
    );
  }
}

const mac = (i: number) =>
  (0x020000000000 + i).toString(16).toUpperCase().padStart(12, '0').match(/.{2}/g)?.join(':') as string;

async function ingestRound(round: number, devices = DEVICES): Promise<number> {
  // Dead rows of the rounds before cleaned and statistics fresh, as autovacuum keeps them; and a
  // checkpoint, so that no round pays for one another did not.
  await prisma.$executeRawUnsafe('VACUUM (ANALYZE)');
  await prisma.$executeRawUnsafe('CHECKPOINT');
  const started = performance.now();
  for (let from = 0; from < devices; from += BATCH) {
    const seenAt = new Date().toISOString();
    const events = Array.from({ length: Math.min(BATCH, devices - from) }, (_, k) => {
      const i = from + k;
      return {
        event_id: `bench-${round}-${i}`,
        mac: mac(i),
        data_type: i % 3 === 0 ? 2 : 1,
        x: (i % 100) / 3,
        y: (i % 77) / 3,
        zone_id: zones[(i + round * 7) % zones.length],
        connected: i % 2 === 0,
        seen_at: seenAt,
      };
    });
    const res = await app.fastify.inject({
      method: 'POST',
      url: '/api/v1/ingest/presence',
      headers: { authorization: `Bearer ${ingestToken}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ events }),
    });
    if (res.statusCode !== 200) throw new Error(`ingest failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
  }
  return (devices / (performance.now() - started)) * 1000;
}

const firstRound = await ingestRound(0);
const moveRound = await ingestRound(1);

async function latency(query: string): Promise<{ p50: number; p99: number; rows: number; bytes: number }> {
  const times: number[] = [];
  let rows = 0;
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await app.fastify.inject({
      method: 'GET',
      url: `/api/v1/locations-analytics/active-sessions${query}`,
      headers: { authorization: `Bearer ${a.token}` },
    });
    times.push(performance.now() - started);
    if (res.statusCode !== 200) throw new Error(`active sessions failed: ${res.statusCode}`);
    if (i === 0) {
      rows = (JSON.parse(res.body) as { data: unknown[] }).data.length;
      bytes = res.body.length;
    }
  }
  times.sort((x, y) => x - y);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] as number;
  return { p50: at(0.5), p99: at(0.99), rows, bytes };
}

// One webhook endpoint subscribed to everything, on a receiver in a process of its own that notes
// each event's lag (its arrival minus the event's time).
const receiver = await startReceiverProcess();
const hook = await app.fastify.inject({
  method: 'POST',
  url: '/api/v1/webhooks',
  headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
  payload: JSON.stringify({
    url: receiver.url,
    events: ['*'],
  }),
});
if (hook.statusCode !== 201) throw new Error(`webhook not created: ${hook.body}`);
const webhookId = (JSON.parse(hook.body) as { data: { id: string } }).data.id;
/** Until every event the rounds logged is delivered (or two minutes pass). */
async function drained(): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const [row] = await prisma.$queryRawUnsafe<{ behind: boolean; pending: number }[]>(
      `SELECT coalesce((SELECT "lastId" FROM "EventSequence" WHERE "tenantId" = $1), 0) >
              coalesce((SELECT "lastEventId" FROM "WebhookStream" WHERE "webhookId" = $2), 0) AS behind,
              (SELECT count(*)::int FROM "WebhookDelivery" WHERE "webhookId" = $2 AND "status" = 'pending') AS pending`,
      tenantId,
      webhookId,
    );
    if ((!row?.behind && row?.pending === 0) || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function endpointActive(active: boolean): Promise<void> {
  const res = await app.fastify.inject({
    method: 'PUT',
    url: `/api/v1/webhooks/${webhookId}`,
    headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ is_active: active }),
  });
  if (res.statusCode !== 200) throw new Error(`webhook not changed: ${res.body}`);
}

/** The database's backends of this database, delivery's and the others. */
interface Backends {
  deliveryBackends: Set<number>;
  otherBackends: Set<number>;
}
/** The threads a round's time is told by: this process's, the receiver's, the database's backends. */
async function threads(): Promise<Backends & { sample: ThreadSample }> {
  const rows = await prisma.$queryRawUnsafe<{ pid: number; delivery: boolean }[]>(
    `SELECT pid, coalesce(application_name, '') LIKE $1 AS delivery
       FROM pg_stat_activity WHERE datname = current_database()`,
    `${DELIVERY_APPLICATION_NAME}%`,
  );
  const deliveryBackends = new Set(rows.filter((r) => r.delivery).map((r) => r.pid));
  const otherBackends = new Set(rows.filter((r) => !r.delivery).map((r) => r.pid));
  return {
    sample: sampleThreads([process.pid, receiver.pid, ...deliveryBackends, ...otherBackends]),
    deliveryBackends,
    otherBackends,
  };
}
type Chosen = (pid: number, tid: number, backends: Backends) => boolean;
const PARTS = {
  'main thread': (pid, tid) => pid === process.pid && tid === process.pid,
  'other threads': (pid, tid) => pid === process.pid && tid !== process.pid,
  'PostgreSQL, API': (pid, _, b) => b.otherBackends.has(pid),
  'PostgreSQL, delivery': (pid, _, b) => b.deliveryBackends.has(pid),
  receiver: (pid) => pid === receiver.pid,
} satisfies Record<string, Chosen>;
type Part = keyof typeof PARTS;
interface Round {
  active: boolean;
  rate: number;
  parts: Record<Part, CpuWait>;
}

// Pairs of rounds with the endpoint and without it (disabled), in the order with, without, without,
// with, … (so a drift weighs on both sides alike), each moving MOVED devices.
const rounds: Round[] = [];
let round = 2;
for (let pair = 0; pair < PAIRS; pair++) {
  for (const active of pair % 2 === 0 ? [true, false] : [false, true]) {
    await endpointActive(active);
    const before = await threads();
    const rate = await ingestRound(round++, MOVED);
    const after = await threads();
    // A backend seen at either end of the round.
    const seen: Backends = {
      deliveryBackends: new Set([...before.deliveryBackends, ...after.deliveryBackends]),
      otherBackends: new Set([...before.otherBackends, ...after.otherBackends]),
    };
    const parts = {} as Record<Part, CpuWait>;
    for (const [name, chosen] of Object.entries(PARTS) as [Part, Chosen][])
      parts[name] = spentBetween(before.sample, after.sample, (p, t) => chosen(p, t, seen));
    rounds.push({ active, rate, parts });
    if (active) await drained();
  }
}
const withRounds = rounds.filter((r) => r.active).map((r) => r.rate);
const withoutRounds = rounds.filter((r) => !r.active).map((r) => r.rate);
const lags = (await receiver.stats()).lags;
await receiver.close();
lags.sort((x, y) => x - y);
const lagAt = (q: number) => lags[Math.min(lags.length - 1, Math.ceil(q * lags.length) - 1)] as number;

const all = await latency('');
const zone = await latency(`?zone_id=${zones[3]}&connected=1`);

const ms = (n: number) => `${n.toFixed(1)} ms`;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const table = [
  ['measure', 'value'],
  ['present devices', String(DEVICES)],
  ['ingest, new devices (batches of 1000)', `${Math.round(firstRound)} events/s`],
  ['ingest, devices moving zones', `${Math.round(moveRound)} events/s`],
  [`active-sessions, all (${all.rows} rows, ${(all.bytes / 1e6).toFixed(1)} MB) p50`, ms(all.p50)],
  ['active-sessions, all p99', ms(all.p99)],
  [`active-sessions, zone+connected (${zone.rows} rows) p50`, ms(zone.p50)],
  ['active-sessions, zone+connected p99', ms(zone.p99)],
  [
    'ingest, devices moving zones, one webhook endpoint ("*")',
    `${withRounds.map((r) => `${Math.round(r)}`).join(', ')} events/s`,
  ],
  [
    'ingest, devices moving zones, the endpoint disabled',
    `${withoutRounds.map((r) => `${Math.round(r)}`).join(', ')} events/s`,
  ],
  [
    `with the endpoint ÷ without, ${PAIRS} pairs of ${MOVED} moves`,
    `${((sum(withRounds) / sum(withoutRounds)) * 100).toFixed(0)} %`,
  ],
  ['webhook deliveries in the rounds with the endpoint', String(lags.length)],
  ...(lags.length > 0
    ? [
        ['webhook delivery lag (event time → receiver) p50', ms(lagAt(0.5))],
        ['webhook delivery lag p99', ms(lagAt(0.99))],
      ]
    : [['webhook delivery lag', 'none: the ingest logged no events']]),
];
const width = Math.max(...table.map((r) => (r[0] as string).length));
for (const [k, v] of table) console.log(`${(k as string).padEnd(width)}  ${v}`);

// Per moved device, each part's CPU and its wait for a CPU (µs), averaged over the rounds of each kind.
const perDevice = (ns: number) => (ns / 1000 / MOVED).toFixed(0);
const parts = Object.keys(PARTS) as Part[];
const rows = [['rounds', 'events/s', ...parts]];
for (const active of [true, false]) {
  const of = rounds.filter((r) => r.active === active);
  const mean = (f: (r: Round) => number) => sum(of.map(f)) / of.length;
  rows.push([
    active ? 'with the endpoint' : 'without',
    mean((r) => r.rate).toFixed(0),
    ...parts.map(
      (p) => `${perDevice(mean((r) => r.parts[p].cpuNs))} / ${perDevice(mean((r) => r.parts[p].waitNs))}`,
    ),
  ]);
}
console.log('\nper moved device, µs on a CPU / µs waiting for one (Linux schedstat)');
const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((r) => (r[i] as string).length)));
for (const r of rows)
  console.log(
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  '),
  );

await app.close();
await db.close();

async function freshDatabase(target: string): Promise<void> {
  const name = new URL(target).pathname.slice(1);
  const admin = new URL(target);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const quoted = `"${name.replace(/"/g, '""')}"`;
    await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoted}`);
  } finally {
    await client.end();
  }
}

// Webhook delivery alone, on PostgreSQL: N events already in one tenant's log (written as another
// instance would write them, so the poll finds them) for one endpoint subscribed to them, delivered to a
// receiver on loopback answering 204; timed from the moment they may be sent (none was before)
// until the receiver has them all, after 4 000 others delivered and the tables analysed (as autovacuum
// would leave them).
// Prints deliveries/s, the CPU this process spent (the delivery and the receiver) and the CPU of this
// database's client backends (read from /proc: PostgreSQL on this machine, Linux) per delivery, the
// WAL written per delivery (timed from a checkpoint), and the statements by kind. BENCH_HISTORY
// attempts logged before (default 0), spread over 30 days, stand for a month of history.
//   npx tsx bench/webhook-delivery.bench.ts   (BENCH_DATABASE_URL, default
//   postgresql://root@127.0.0.1:5432/bench_webhooks, dropped and created again, so its name must begin
//   with bench_webhooks; BENCH_EVENTS, default 40000; BENCH_HISTORY; WEBHOOKS_CONCURRENCY,
//   WEBHOOKS_CONCURRENCY_PER_ENDPOINT and WEBHOOKS_THREAD as the server reads them: the statements
//   by kind are those of this thread's pool, so delivery's appear with WEBHOOKS_THREAD=false only)

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { recordEvents, systemActor } from '../src/events/outbox.js';
import { newAttemptId } from '../src/events/webhook-worker.js';
import { bootstrapTenant } from '../src/modules/tenants/bootstrap.service.js';
import { webhookSettingsFromEnv } from './webhook-settings.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 40_000);
/** Attempts logged before, over the last 30 days (a month of history, as the endpoint's would be). */
const HISTORY = Number(process.env.BENCH_HISTORY ?? 0);
/** Events delivered (and the tables analysed) before the measured ones. */
const WARM_UP_EVENTS = 4_000;
const url = process.env.BENCH_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/bench_webhooks';
// A fresh database each run: the queue's history (and its statistics) start the same.
await recreateDatabase(url);
const db = await openDatabase({ url, poolSize: 10 });
const config = loadConfig({
  APP_URL: 'http://localhost',
  LOG_LEVEL: 'silent',
  WEBHOOKS_DELIVERY: 'true',
  WEBHOOKS_ALLOW_PRIVATE: '1',
  // The measured events are found by the poll (written as another instance would): it looks often.
  WEBHOOKS_POLL_MS: '50',
  ...webhookSettingsFromEnv(),
});
const app = await buildApp({ config, db, logger: false });
const a = await bootstrapTenant(db.prisma, { tenant: `Webhook bench ${Date.now()}` });

let received = 0;
let allReceived: () => void = () => {};
const done = new Promise<void>((resolve) => {
  allReceived = resolve;
});
let warmedUp = 0;
let allWarmedUp: () => void = () => {};
const warm = new Promise<void>((resolve) => {
  allWarmedUp = resolve;
});
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string };
    res.writeHead(204).end();
    if (body.type === 'guest.created' && ++received === EVENTS) allReceived();
    if (body.type === 'guest.updated' && ++warmedUp === WARM_UP_EVENTS) allWarmedUp();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = await app.fastify.inject({
  method: 'POST',
  url: '/api/v1/webhooks',
  headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
  payload: JSON.stringify({
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    events: ['guest.created', 'guest.updated'],
  }),
});
if (hook.statusCode !== 201) throw new Error(`webhook not created: ${hook.body}`);
const webhookId = (JSON.parse(hook.body) as { data: { id: string } }).data.id;

/** `n` events of `type`, 1000 a transaction, not announced in this process: the next poll finds them. */
async function logEvents(type: 'guest.created' | 'guest.updated', n: number): Promise<void> {
  for (let from = 0; from < n; from += 1000) {
    await db.prisma.$transaction((tx) =>
      recordEvents(
        tx,
        a.tenant_id,
        systemActor,
        Array.from({ length: Math.min(1000, n - from) }, (_, k) => {
          const id = `g${from + k}`;
          return {
            type,
            resourceType: 'guest' as const,
            resourceId: id,
            payload: {
              id,
              name: `Guest ${id}`,
              email: `${id}@example.com`,
              tags: [{ id: 't1', name: 'VIP' }],
            },
          };
        }),
      ),
    );
  }
}

// A delivery history first, then statistics of it, as autovacuum would leave a production server
// (it is off on this machine): the planner's choices for the queue depend on them (bench/RESULTS.md,
// the record's join).
await logEvents('guest.updated', WARM_UP_EVENTS);
await warm;
if (HISTORY > 0) await logHistory(HISTORY);
await db.prisma.$executeRawUnsafe('VACUUM (ANALYZE)');
// The measured events are written while another connection locks the endpoint's stream (once the
// worker has let it go after the warm-up: a claim skips a locked one), so that none is sent before
// the timing starts.
const holder = new pg.Client({ connectionString: url });
await holder.connect();
for (;;) {
  await holder.query('BEGIN');
  const { rowCount } = await holder.query(
    `SELECT 1 FROM "WebhookStream" WHERE "webhookId" = $1 AND "leasedUntil" IS NULL FOR UPDATE`,
    [webhookId],
  );
  if (rowCount === 1) break;
  await holder.query('ROLLBACK');
  await new Promise((r) => setTimeout(r, 20));
}
await logEvents('guest.created', EVENTS);

// After a checkpoint, as most of the time: a page's first change after one writes it whole to the WAL.
await db.prisma.$executeRawUnsafe('CHECKPOINT');
const [wal0] = await db.rows<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn', []);
const statements = new Map<string, { n: number; ms: number }>();
db.onQuery((sql, ms) => {
  const kind = sql.replace(/\s+/g, ' ').trim().slice(0, 60);
  const s = statements.get(kind) ?? { n: 0, ms: 0 };
  s.n++;
  s.ms += ms;
  statements.set(kind, s);
});
const pg0 = await backendsCpu();
const cpu0 = process.cpuUsage();
const started = performance.now();
await holder.query('COMMIT');
await holder.end();
await done;
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
const pgSeconds = (await backendsCpu()) - pg0;
const [walBytes] = await db.rows<{ bytes: string }>(
  'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS bytes',
  [wal0?.lsn],
);
const nodeSeconds = (cpu.user + cpu.system) / 1e6;

const us = (s: number) => `${Math.round((s / EVENTS) * 1e6)} µs`;
console.log(`measure                                       value`);
console.log(`deliveries                                    ${EVENTS} in ${seconds.toFixed(1)} s`);
console.log(`deliveries/s                                  ${Math.round(EVENTS / seconds)}`);
console.log(`this process's CPU per delivery (+ receiver)  ${us(nodeSeconds)}`);
console.log(`PostgreSQL backends' CPU per delivery         ${us(pgSeconds)}`);
console.log(
  `WAL per delivery                              ${Math.round(Number(walBytes?.bytes) / EVENTS)} bytes`,
);
if (HISTORY > 0) console.log(`attempts logged before (30 days)              ${HISTORY}`);
console.log(`\nstatements  total ms  kind`);
for (const [kind, s] of [...statements].sort((x, y) => y[1].ms - x[1].ms).slice(0, 6)) {
  console.log(`${String(s.n).padStart(10)}  ${s.ms.toFixed(0).padStart(8)}  ${kind}`);
}

receiver.close();
await app.close();
await db.close();

/** `n` attempts of the endpoint, logged over the last 30 days, with ids as the code makes them. */
async function logHistory(n: number): Promise<void> {
  const now = Date.now();
  const CHUNK = 50_000;
  for (let from = 0; from < n; from += CHUNK) {
    const count = Math.min(CHUNK, n - from);
    const times = Array.from(
      { length: count },
      (_, k) => now - 30 * 86_400_000 + ((from + k) / n) * 30 * 86_400_000,
    );
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO "WebhookAttempt" ("id", "tenantId", "webhookId", "eventId", "eventType", "messageId",
         "attempt", "status", "statusCode", "durationMs", "createdAt")
       SELECT h.id, $1, $2, 0, 'guest.updated', 'evt_history', 1, 'succeeded', 204, 3, to_timestamp(h.t / 1000.0)
       FROM unnest($3::text[], $4::float8[]) AS h(id, t)`,
      a.tenant_id,
      webhookId,
      times.map((t) => newAttemptId(t)),
      times,
    );
  }
}

/** CPU seconds (user + system) of this database's client backends, from /proc (0 where unreadable). */
async function backendsCpu(): Promise<number> {
  const rows = await db.rows<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
    [],
  );
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Another machine's PostgreSQL, or a backend that just ended.
    }
  }
  return ticks / 100;
}

async function recreateDatabase(target: string): Promise<void> {
  const name = new URL(target).pathname.slice(1);
  // Dropped at every run: only a database of this bench's own.
  if (!name.startsWith('bench_webhooks')) {
    throw new Error(`BENCH_DATABASE_URL must name a database called bench_webhooks…; got "${name}".`);
  }
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

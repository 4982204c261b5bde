// One tenant floods the database; does another tenant still get served, and does /health answer?
//
//   npx tsx bench/overload.ts [--burst 30] [--filter 500000] [--guests 20000] [--pool 10] [--deadline 300]
//   BENCH_DATABASE_URL (default postgresql://root@127.0.0.1:5432/test, already migrated).
//
// Tenant A sends `--burst` concurrent GraphQL `guests(name: …)` queries with a `--filter`-character
// name over its `--guests` guests; tenant B sends one light request (`GET /api/v1/locations`) every 100 ms and /health is asked
// every 500 ms, until A's burst has drained. Everything runs on 127.0.0.1; the run stops by itself
// after `--deadline` seconds. Prints one line of JSON with the figures bench/RESULTS.md records.
import { setMaxListeners } from 'node:events';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { bootstrapTenant } from '../src/modules/tenants/bootstrap.service.js';

const { values } = parseArgs({
  options: {
    burst: { type: 'string', default: '30' },
    filter: { type: 'string', default: '500000' },
    guests: { type: 'string', default: '20000' },
    pool: { type: 'string', default: '10' },
    deadline: { type: 'string', default: '300' },
  },
});
const burst = Number(values.burst);
const filterLength = Number(values.filter);
const deadlineMs = Number(values.deadline) * 1000;
const url = process.env.BENCH_DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/test';

const config = loadConfig({
  ...process.env,
  DATABASE_URL: url,
  DB_POOL_SIZE: values.pool,
  RATE_LIMIT_PER_MINUTE: '1000000',
  LOG_LEVEL: 'silent',
});
const db = await openDatabase({
  url,
  migrate: false,
  poolSize: config.dbPoolSize,
  statementTimeoutMs: config.dbStatementTimeoutMs,
  connectTimeoutMs: config.dbConnectTimeoutMs,
});
const app = await buildApp({ config, db, logger: false });
const base = await app.fastify.listen({ port: 0, host: '127.0.0.1' });
const suffix = Date.now().toString(36);
const a = await bootstrapTenant(db.prisma, { tenant: `Overload A ${suffix}` });
const b = await bootstrapTenant(db.prisma, { tenant: `Overload B ${suffix}` });
for (let done = 0; done < Number(values.guests); done += 5000) {
  await db.prisma.guest.createMany({
    data: Array.from({ length: Math.min(5000, Number(values.guests) - done) }, (_, i) => ({
      tenantId: a.tenant_id,
      locationId: a.location_id,
      username: `guest-${suffix}-${done + i}`,
      name: `Guest ${done + i} ${suffix}`,
    })),
  });
}

const timed = async (fn: () => Promise<Response>): Promise<{ ms: number; status: number }> => {
  const started = performance.now();
  try {
    const res = await fn();
    await res.arrayBuffer();
    return { ms: performance.now() - started, status: res.status };
  } catch {
    return { ms: performance.now() - started, status: 0 };
  }
};
const abort = AbortSignal.timeout(deadlineMs);
setMaxListeners(0, abort); // every request of the run listens to it
const heavyBody = JSON.stringify({
  query: 'query($n: String) { guests(first: 10, name: $n) { totalCount edges { node { id name } } } }',
  variables: { n: 'x'.repeat(filterLength) },
});

const started = performance.now();
let drained = false;
const heavy = Promise.all(
  Array.from({ length: burst }, () =>
    timed(() =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
        body: heavyBody,
        signal: abort,
      }),
    ),
  ),
).then((r) => {
  drained = true;
  return r;
});

const light: { ms: number; status: number }[] = [];
const health: { ms: number; status: number }[] = [];
const lightLoop = (async () => {
  const pending: Promise<void>[] = [];
  while (!drained && !abort.aborted) {
    pending.push(
      timed(() =>
        fetch(`${base}/api/v1/locations`, { headers: { authorization: `Bearer ${b.token}` }, signal: abort }),
      ).then((r) => {
        light.push(r);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await Promise.all(pending);
})();
const healthLoop = (async () => {
  const pending: Promise<void>[] = [];
  while (!drained && !abort.aborted) {
    pending.push(timed(() => fetch(`${base}/health`, { signal: abort })).then((r) => void health.push(r)));
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await Promise.all(pending);
})();

const heavyResults = await heavy;
const drainMs = performance.now() - started;
await Promise.all([lightLoop, healthLoop]);

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((x, y) => x - y);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0);
};
const count = (xs: { status: number }[]): Record<string, number> =>
  xs.reduce<Record<string, number>>((m, x) => {
    m[x.status] = (m[x.status] ?? 0) + 1;
    return m;
  }, {});

console.log(
  JSON.stringify({
    burst,
    filterLength,
    pool: Number(values.pool),
    drainMs: Math.round(drainMs),
    heavy: {
      statuses: count(heavyResults),
      p50: pct(
        heavyResults.map((r) => r.ms),
        50,
      ),
    },
    light: {
      n: light.length,
      statuses: count(light),
      p50: pct(
        light.map((r) => r.ms),
        50,
      ),
      max: pct(
        light.map((r) => r.ms),
        100,
      ),
    },
    health: {
      n: health.length,
      statuses: count(health),
      max: pct(
        health.map((r) => r.ms),
        100,
      ),
    },
  }),
);
await app.close();
await db.close();

// How long GET /metrics takes once traffic has created its series (issue: under 50 ms with a few
// hundred series). The embedded database in memory; a tenant bootstrapped as the CLI does; a mix of
// REST routes, statuses and named GraphQL operations; then timed scrapes.
//   npx tsx bench/metrics.ts [scrapes=200]
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { bootstrapTenant } from '../src/modules/tenants/bootstrap.service.js';

const scrapes = Number(process.argv[2] ?? 200);
const token = 'bench-metrics-token-0123456789';
const db = await openDatabase({ dataDir: 'memory://' });
const app = await buildApp({
  config: loadConfig({ METRICS_TOKEN: token, RATE_LIMIT_PER_MINUTE: '1000000', LOG_LEVEL: 'silent' }),
  db,
  logger: false,
});
const { token: api } = await bootstrapTenant(db.prisma, { tenant: 'Metrics bench' });
const inject = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  app.fastify.inject({
    method,
    url,
    headers: { authorization: `Bearer ${api}`, 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });

const paths = [
  'guests',
  'guests/count',
  'sessions',
  'guest-devices',
  'locations',
  'locations/hierarchy',
  'users',
];
for (let i = 0; i < 20; i++) {
  for (const p of paths) await inject('GET', `/api/v1/${p}?per_page=5`);
  await inject('GET', '/api/v1/guests/nope'); // 404
  await inject('POST', '/api/v1/guests', { name: '' }); // 422
  await inject('GET', '/api/v1/unknown-route'); // unmatched
  for (const name of ['Dashboard', 'Guests', 'Sessions', 'Locations', 'Me'])
    await inject('POST', '/graphql', { query: `query ${name} { viewer { id } }` });
}

const body = (
  await app.fastify.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })
).body;
const series = body.split('\n').filter((l) => l && !l.startsWith('#')).length;
const times: number[] = [];
for (let i = 0; i < scrapes; i++) {
  const t = process.hrtime.bigint();
  const res = await app.fastify.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${token}` },
  });
  times.push(Number(process.hrtime.bigint() - t) / 1e6);
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}`);
}
times.sort((a, b) => a - b);
const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(2);
console.log(
  `${series} series, ${body.length} bytes; ${scrapes} scrapes: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
);
await app.close();
await db.close();

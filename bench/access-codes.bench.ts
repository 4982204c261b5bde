// `npx tsx bench/access-codes.bench.ts`: times POST /api/v1/access-codes generating 1000 codes, ten
// times in one tenant, on embedded PGlite (in memory) and, when BENCH_DATABASE_URL is set, on that
// PostgreSQL server too. Prints the median and the maximum time per request. Not part of `npm test`.
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Database, openDatabase } from '../src/db/database.js';
import { bootstrapTenant } from '../src/modules/tenants/bootstrap.service.js';

const REQUESTS = 10;
const QUANTITY = 1000;

async function bench(label: string, db: Database): Promise<void> {
  const config = loadConfig({
    RATE_LIMIT_PER_MINUTE: '100000',
    APP_URL: 'http://localhost',
    LOG_LEVEL: 'silent',
  });
  const app = await buildApp({ config, db, logger: false });
  try {
    const tenant = await bootstrapTenant(db.prisma, { tenant: `Bench ${Date.now()}` });
    const body = JSON.stringify({
      location_id: tenant.location_id,
      service_profile_id: tenant.service_profile_id,
      type: 2,
      quantity: QUANTITY,
    });
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      const res = await app.fastify.inject({
        method: 'POST',
        url: '/api/v1/access-codes',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        payload: body,
      });
      times.push(performance.now() - started);
      if (res.statusCode !== 201)
        throw new Error(`request ${i + 1}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if ((JSON.parse(res.body) as { count: number }).count !== QUANTITY) throw new Error('short batch');
    }
    const stored = await db.prisma.accessCode.count({ where: { tenantId: tenant.tenant_id } });
    const sorted = [...times].sort((a, b) => a - b);
    const median = ((sorted[4] ?? 0) + (sorted[5] ?? 0)) / 2;
    const max = sorted[sorted.length - 1] ?? 0;
    console.log(
      `${label}: ${REQUESTS} × POST /access-codes (quantity ${QUANTITY}): median ${median.toFixed(1)} ms, ` +
        `max ${max.toFixed(1)} ms per request (${stored} codes stored)`,
    );
  } finally {
    await app.close();
  }
}

const pglite = await openDatabase({ dataDir: 'memory://' });
try {
  await bench('PGlite (in memory)', pglite);
} finally {
  await pglite.close();
}

const url = process.env.BENCH_DATABASE_URL;
if (url) {
  const pg = await openDatabase({ url });
  try {
    await bench('PostgreSQL', pg);
  } finally {
    await pg.close();
  }
}

// Three server processes (`npm start`'s command) on one PostgreSQL and one Redis, as compose.yaml
// runs them behind a balancer: started at once on an empty database they migrate it once and all
// serve; they share one rate-limit budget per token and one presence fan-out; and killing one with
// SIGKILL in the middle of a stream of writes loses no write any of them acknowledged.
// The database is a fresh one created on TEST_DATABASE_URL's server and dropped at the end.
// Loopback only; every wait is bounded; the processes are killed in afterAll whatever happened.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/database.js';
import { readMigrations } from '../src/db/migrate.js';
import { type BootstrapResult, issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { newTenant } from './helpers/fixtures.js';
import { type Child, freePort, killAll, killGroup, startServer, waitUntilUp } from './helpers/processes.js';
import { subscribe } from './helpers/sse.js';

const PG_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const BUDGET = 60;

/** The URL of database `name` on the server of `url`. */
function onServer(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function onMaintenanceDb<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: onServer(PG_URL ?? '', 'postgres') });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

interface Instance {
  child: Child;
  base: string;
}

const call = (base: string, method: string, url: string, token: string, body?: unknown) =>
  fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });

describe.skipIf(!PG_URL || !REDIS_URL)(
  'three instances on one PostgreSQL and one Redis (skipped without TEST_DATABASE_URL and REDIS_URL)',
  { timeout: 60_000 },
  () => {
    const dbName = `fleet_${Date.now()}_${randomBytes(3).toString('hex')}`;
    let url = '';
    let dataDir = '';
    let instances: Instance[] = [];
    let db: Database | undefined;
    let tenant: BootstrapResult;

    beforeAll(async () => {
      url = onServer(PG_URL ?? '', dbName);
      await onMaintenanceDb((c) => c.query(`CREATE DATABASE "${dbName}"`));
      dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-fleet-'));
      const ports = await Promise.all([freePort(), freePort(), freePort()]);
      // All three at once on the empty database: each migrates on start.
      instances = ports.map((port) => {
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          DATABASE_URL: url,
          REDIS_URL,
          RATE_LIMIT_PER_MINUTE: String(BUDGET),
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
        };
        return { child: startServer(env), base: `http://127.0.0.1:${port}` };
      });
      await Promise.all(instances.map((i) => waitUntilUp(i.child, i.base, 90_000)));
      db = await openDatabase({ url, migrate: false, poolSize: 2 });
      tenant = await newTenant(db.prisma);
    }, 120_000);

    afterAll(async () => {
      killAll();
      await db?.close();
      if (url) await onMaintenanceDb((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('started at once on an empty database, migrate it once and all serve', async () => {
      const rows = await (db as Database).rows<{ migration_name: string; finished: boolean }>(
        `SELECT migration_name, finished_at IS NOT NULL AND rolled_back_at IS NULL AS finished
           FROM "_prisma_migrations" ORDER BY migration_name`,
        [],
      );
      // Each migration recorded once, and finished: no instance ran one beside another.
      expect(rows).toEqual(readMigrations().map((m) => ({ migration_name: m.name, finished: true })));
      const answers = await Promise.all(
        instances.map(async (i) => {
          const res = await call(i.base, 'GET', '/api/v1/locations', tenant.token);
          return {
            status: res.status,
            ids: ((await res.json()) as { data: { id: string }[] }).data.map((l) => l.id),
          };
        }),
      );
      expect(answers).toEqual(instances.map(() => ({ status: 200, ids: [tenant.location_id] })));
    });

    it(`share one budget: ${BUDGET} requests spread over the three succeed, the next is 429 on each`, async () => {
      // A token of its own: a budget nothing else spent.
      const { token } = await issueToken((db as Database).prisma, tenant.user_id);
      const remaining: number[] = [];
      for (let n = 0; n < BUDGET; n++) {
        const res = await call((instances[n % 3] as Instance).base, 'GET', '/api/v1/locations', token);
        expect(res.status, `request ${n + 1}`).toBe(200);
        remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
        await res.arrayBuffer();
      }
      // One counter, whichever instance answered.
      expect(remaining).toEqual(Array.from({ length: BUDGET }, (_, n) => BUDGET - 1 - n));
      for (const i of instances) {
        const res = await call(i.base, 'GET', '/api/v1/locations', token);
        expect(res.status).toBe(429);
        expect(await res.text()).toBe('{"message":"Too Many Attempts."}');
      }
    });

    it('deliver to a subscriber of one instance the ingest posted on another', async () => {
      const [one, two] = instances as [Instance, Instance];
      const { token: ingest } = await issueToken((db as Database).prisma, tenant.user_id, ['ingest']);
      const mac = '02:F1:EE:70:00:01';
      const sub = await subscribe(one.base, tenant.token, tenant.location_id);
      try {
        expect(sub.status).toBe(200);
        // The subscription registers asynchronously: ingest until it hears one (at most 10 s).
        const until = Date.now() + 10_000;
        let event: unknown;
        for (let n = 0; event === undefined && Date.now() < until; n++) {
          const res = await call(two.base, 'POST', '/api/v1/ingest/presence', ingest, {
            events: [
              {
                event_id: `fleet-${dbName}-${n}`,
                mac,
                data_type: 1,
                connected: true,
                location_id: tenant.location_id,
                seen_at: new Date().toISOString(),
              },
            ],
          });
          expect(res.status, await res.text()).toBe(200);
          event = await sub.next(400).catch(() => undefined);
        }
        expect(event).toMatchObject({
          data: { presenceChanged: { locationId: tenant.location_id, macAddresses: [mac] } },
        });
      } finally {
        sub.close();
      }
    });

    it('lose no acknowledged write when one is killed (SIGKILL) in the middle of a stream of writes', async () => {
      const WRITERS = 6;
      // Under each writer's budget (its own token): no 429 mixes in.
      const PER_WRITER = BUDGET - 10;
      const victim = instances[2] as Instance;
      const tokens = await Promise.all(
        Array.from(
          { length: WRITERS },
          async () => (await issueToken((db as Database).prisma, tenant.user_id)).token,
        ),
      );
      interface Write {
        instance: number;
        email: string;
        status: number | null; // null: no answer (connection refused or cut)
        id?: string;
        afterKill: boolean;
      }
      const writes: Write[] = [];
      let acknowledged = 0;
      let killedAt: number | null = null;
      const kill = () => {
        if (killedAt !== null) return;
        killedAt = Date.now();
        killGroup(victim.child.process, 'SIGKILL');
      };
      const writer = async (w: number) => {
        for (let j = 0; j < PER_WRITER; j++) {
          const instance = (w + j) % 3;
          const email = `w${w}-${j}@${dbName.replace(/_/g, '-')}.test`;
          const sentAfterKill = killedAt !== null;
          const write: Write = { instance, email, status: null, afterKill: sentAfterKill };
          writes.push(write);
          // Midway: once a third of the writes are acknowledged, kill the victim while it has one in flight.
          if (instance === 2 && acknowledged >= (WRITERS * PER_WRITER) / 3) setTimeout(kill, 5);
          try {
            const res = await call(
              (instances[instance] as Instance).base,
              'POST',
              '/api/v1/guests',
              tokens[w] as string,
              { location_id: tenant.location_id, name: `Fleet writer ${w}-${j}`, email },
            );
            const body = (await res.json()) as { data?: { id: string } };
            write.status = res.status;
            write.id = body.data?.id;
            if (res.ok) acknowledged++;
          } catch {
            // No answer: the instance is gone (refused) or died with this request in flight.
          }
        }
      };
      await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
      await victim.child.exited(10_000);

      const acked = writes.filter((w) => w.status !== null && w.status >= 200 && w.status < 300);
      // The kill happened midway: the victim acknowledged writes before it, the others after it.
      expect(killedAt).not.toBeNull();
      expect(acked.some((w) => w.instance === 2)).toBe(true);
      expect(acked.some((w) => w.afterKill && w.instance !== 2)).toBe(true);
      // Every answer that came was a success (a peer's death fails nothing on the survivors),
      // and the survivors answered everything sent to them.
      expect(writes.filter((w) => w.status !== null && w.status !== 201)).toEqual([]);
      expect(writes.filter((w) => w.instance !== 2 && w.status === null)).toEqual([]);

      const stored = await (db as Database).rows<{ id: string; email: string }>(
        `SELECT id, email FROM "Guest" WHERE "tenantId" = $1 AND email = ANY($2::text[])`,
        [tenant.tenant_id, acked.map((w) => w.email)],
      );
      const byEmail = new Map(stored.map((r) => [r.email, r.id]));
      expect(acked.filter((w) => byEmail.get(w.email) !== w.id)).toEqual([]);
    });
  },
);

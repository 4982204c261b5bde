// Three server processes (`npm start`'s command) on one PostgreSQL and one Redis, as compose.yaml
// runs them behind a balancer: started at once on an empty database they migrate it once and all
// serve; they share one rate-limit budget per token and one presence fan-out; and killing one with
// SIGKILL in the middle of a stream of writes loses no write any of them acknowledged.
// The database is a fresh one created on TEST_DATABASE_URL's server and dropped at the end.
// Loopback only; every wait is bounded; the processes are killed in afterAll whatever happened.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/database.js';
import { readMigrations } from '../src/db/migrate.js';
import { type BootstrapResult, issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { newTenant } from './helpers/fixtures.js';
import { type Child, freePort, killAll, killGroup, startServer, waitUntilUp } from './helpers/processes.js';
import { onMaintenanceDb, onServer } from './helpers/scratch-database.js';
import { subscribe } from './helpers/sse.js';

const PG_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const BUDGET = 60;
const hasHaproxy = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;

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
          TRUSTED_PROXIES: '127.0.0.1', // the balancer of the last tests
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

    // The committed balancer config, its servers pointed at these instances (the third is dead
    // since the test above): what compose.yaml runs, short of Docker.
    describe.skipIf(!hasHaproxy)(
      'behind HAProxy with deploy/haproxy.cfg (skipped where haproxy is not installed)',
      () => {
        let balancer: ChildProcess | undefined;
        let front = '';
        let ready = false;

        beforeAll(async () => {
          // The balancer checks /health/ready; a build without that endpoint cannot be balanced.
          ready = (await fetch(`${(instances[0] as Instance).base}/health/ready`)).status === 200;
          if (!ready) return;
          const port = await freePort();
          const cfg = path.join(dataDir, 'haproxy.cfg');
          await writeFile(
            cfg,
            localBalancerConfig(
              port,
              instances.map((i) => Number(new URL(i.base).port)),
            ),
          );
          balancer = spawn('haproxy', ['-db', '-f', cfg], { stdio: 'ignore' });
          front = `http://127.0.0.1:${port}`;
          const until = Date.now() + 20_000;
          while (Date.now() < until) {
            const up = await fetch(`${front}/health`).then(
              (r) => r.status === 200,
              () => false,
            );
            if (up) return;
            await new Promise((r) => setTimeout(r, 200));
          }
          throw new Error('HAProxy did not start serving within 20 s');
        }, 30_000);

        afterAll(() => {
          balancer?.kill('SIGKILL');
        });

        it('passes the client address on: each caller has its own budget, a forged X-Forwarded-For changes nothing', async (ctx) => {
          if (!ready) ctx.skip('this build serves no /health/ready');
          // Two callers on loopback addresses of their own (fresh per run: the budget lives in Redis).
          const octet = () => 1 + Math.floor(Math.random() * 250);
          const [a, b] = [`127.${octet()}.${octet()}.${octet()}`, `127.${octet()}.${octet()}.${octet()}`];
          const statuses: number[] = [];
          for (let n = 0; n <= BUDGET; n++) {
            statuses.push(await badTokenFrom(a, `${front}/api/v1/locations`, `198.51.100.${n % 250}`));
          }
          expect(statuses).toEqual([...Array.from({ length: BUDGET }, () => 401), 429]);
          expect(await badTokenFrom(b, `${front}/api/v1/locations`)).toBe(401);
        });

        it('answers every write while one instance is dead and another stops (SIGTERM) under load', async (ctx) => {
          if (!ready) ctx.skip('this build serves no /health/ready');
          const stopping = instances[1] as Instance;
          const WRITERS = 4;
          const PER_WRITER = 40;
          const tokens = await Promise.all(
            Array.from(
              { length: WRITERS },
              async () => (await issueToken((db as Database).prisma, tenant.user_id)).token,
            ),
          );
          const answers: { email: string; status: number | string }[] = [];
          let stopped = false;
          const writer = async (w: number) => {
            for (let j = 0; j < PER_WRITER; j++) {
              if (!stopped && answers.length >= (WRITERS * PER_WRITER) / 3) {
                stopped = true;
                stopping.child.process.kill('SIGTERM');
              }
              const email = `lb${w}-${j}@${dbName.replace(/_/g, '-')}.test`;
              const status = await call(front, 'POST', '/api/v1/guests', tokens[w] as string, {
                location_id: tenant.location_id,
                name: `Balanced writer ${w}-${j}`,
                email,
              }).then(
                async (res) => {
                  await res.arrayBuffer();
                  return res.status;
                },
                (err: Error) => err.message,
              );
              answers.push({ email, status });
            }
          };
          await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
          // The stopped instance drained and exited cleanly; the balancer sent its share elsewhere.
          expect((await stopping.child.exited(30_000)).code).toBe(0);
          const answered = answers.filter((a) => typeof a.status === 'number');
          expect(answered.filter((a) => a.status !== 201)).toEqual([]);
          // A request can still meet a keep-alive connection the stopping instance closes as it
          // arrives: HAProxy then closes the client's connection unanswered, so that the client may
          // send it again (as HTTP allows on a closed keep-alive connection). Such a request was not
          // processed: exactly the answered writes are stored.
          const stored = await (db as Database).rows<{ email: string }>(
            `SELECT email FROM "Guest" WHERE "tenantId" = $1 AND email = ANY($2::text[]) ORDER BY email`,
            [tenant.tenant_id, answers.map((a) => a.email)],
          );
          expect(stored.map((r) => r.email)).toEqual(answered.map((a) => a.email).sort());
        });
      },
    );
  },
);

/** deploy/haproxy.cfg with its front on `port` and its servers on these loopback ports (no Docker DNS). */
function localBalancerConfig(port: number, ports: number[]): string {
  const committed = readFileSync(path.join(import.meta.dirname, '../deploy/haproxy.cfg'), 'utf8');
  let server = 0;
  return committed
    .replace(/^resolvers docker\n(?:[ \t]+.*\n)*/m, '')
    .replace(/ resolvers docker init-addr \S+/, '')
    .replace(/^(\s*)bind :\d+$/m, `$1bind 127.0.0.1:${port}`)
    .replace(/^(\s*server (\S+)) \S+$/gm, (_, head: string) => `${head} 127.0.0.1:${ports[server++]}`);
}

/** GET `url` with a token nobody has, from local address `from`, optionally with a forged X-Forwarded-For. */
function badTokenFrom(from: string, url: string, forged?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        localAddress: from,
        agent: false,
        timeout: 15_000,
        headers: { authorization: 'Bearer not-a-token', ...(forged ? { 'x-forwarded-for': forged } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in 15 s')));
    req.on('error', reject);
    req.end();
  });
}

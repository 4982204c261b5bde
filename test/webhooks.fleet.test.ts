// Webhook delivery across server processes (`npm start`'s command) on one PostgreSQL database:
// nothing is lost when the delivering instance is killed (SIGKILL) while the receiver holds its
// requests open: every event reaches the receiver, the interrupted ones again with the same
// `webhook-id` once their lease ends; two instances delivering together make each attempt once; and
// on SIGTERM an instance finishes the attempt in flight, records it and exits 0.
// The events are written by this process (as another instance's API would write them), so the
// servers find them by their poll. A fresh database on TEST_DATABASE_URL's server, dropped at the end.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/database.js';
import type { EventType } from '../src/events/event-types.js';
import { type RecordedEvent, recordEvents, systemActor } from '../src/events/outbox.js';
import { DELIVERY_APPLICATION_NAME } from '../src/events/webhook-delivery-thread.js';
import type { BootstrapResult } from '../src/modules/tenants/bootstrap.service.js';
import { newTenant } from './helpers/fixtures.js';
import { type Child, freePort, killAll, killGroup, startServer, waitUntilUp } from './helpers/processes.js';
import { onMaintenanceDb, onServer } from './helpers/scratch-database.js';
import { type Received, type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const PG_URL = process.env.TEST_DATABASE_URL;
const LEASE_MS = 3000;

interface Instance {
  child: Child;
  base: string;
}

describe.skipIf(!PG_URL)(
  'webhook delivery by server processes on one PostgreSQL (skipped without TEST_DATABASE_URL)',
  { timeout: 90_000 },
  () => {
    const dbName = `webhooks_fleet_${Date.now()}_${randomBytes(3).toString('hex')}`;
    let url = '';
    let dataDir = '';
    let db: Database | undefined;
    let receiver: Receiver;
    let tenant: BootstrapResult;
    let hook: { id: string; secret: string };

    async function start(): Promise<Instance> {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: url,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOKS_ALLOW_PRIVATE: '1',
        WEBHOOKS_CONCURRENCY: '3',
        WEBHOOKS_TIMEOUT_MS: '2000',
        WEBHOOKS_LEASE_MS: String(LEASE_MS),
        WEBHOOKS_POLL_MS: '100',
        WEBHOOKS_RETRY_BASE_MS: '50',
      };
      const instance = { child: startServer(env), base: `http://127.0.0.1:${port}` };
      await waitUntilUp(instance.child, instance.base, 90_000);
      return instance;
    }

    const prisma = () => (db as Database).prisma;

    async function record(...events: [EventType, string][]): Promise<RecordedEvent[]> {
      return prisma().$transaction((tx) =>
        recordEvents(
          tx,
          tenant.tenant_id,
          systemActor,
          events.map(([type, id]) => ({ type, resourceType: 'guest', resourceId: id, payload: { id } })),
        ),
      );
    }

    const idOf = (e: RecordedEvent) => `evt_${tenant.tenant_id}_${e.id}`;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    /** Requests the receiver answered 2xx, by webhook-id. */
    const answered = new Map<string, number>();

    let first: Instance;
    let second: Instance | undefined;
    let third: Instance | undefined;

    beforeAll(async () => {
      url = onServer(PG_URL ?? '', dbName);
      await onMaintenanceDb((c) => c.query(`CREATE DATABASE "${dbName}"`));
      dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-webhooks-fleet-'));
      receiver = await startReceiver(() => 'hold');
      first = await start();
      db = await openDatabase({ url, migrate: false, poolSize: 2 });
      tenant = await newTenant(db.prisma);
      const res = await fetch(`${first.base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['guest.created'] }),
      });
      expect(res.status).toBe(201);
      hook = ((await res.json()) as { data: { id: string; secret: string } }).data;
    }, 120_000);

    afterAll(async () => {
      killAll();
      await receiver?.close();
      await db?.close();
      if (url) await onMaintenanceDb((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    /** The attempts logged for `events`, in event order: [event id, status, attempt number]. */
    const attemptsOf = async (events: readonly RecordedEvent[]) =>
      (
        await prisma().webhookAttempt.findMany({
          where: { webhookId: hook.id, eventId: { in: events.map((e) => e.id) } },
          orderBy: [{ eventId: 'asc' }, { attempt: 'asc' }],
        })
      ).map((a) => [a.eventId, a.status, a.attempt]);

    /** Answers 204 from now on, counting what it answered. */
    const answerAll = () =>
      receiver.setPolicy((r: Received) => {
        answered.set(r.id, (answered.get(r.id) ?? 0) + 1);
        return 204;
      });

    it('SIGKILL of the delivering instance mid-batch loses nothing: the interrupted attempts come again with the same webhook-id', async () => {
      const events = await record(
        ...Array.from({ length: 12 }, (_, i) => ['guest.created', `k${i}`] as [EventType, string]),
      );
      // The instance claims 3 (its concurrency) and the receiver holds them open.
      await receiver.waitFor((got) => got.length >= 3, 20_000);
      await sleep(200);
      const held = receiver.received.map((r) => r.id);
      expect(held).toHaveLength(3);
      killGroup(first.child.process, 'SIGKILL');
      const run = await first.child.exited(10_000);
      expect(run.signal).toBe('SIGKILL');
      answerAll();
      const killedAt = Date.now();
      second = await start();
      await receiver.waitFor(() => events.every((e) => answered.has(idOf(e))), 30_000);
      // The held ones came again once their lease ran out, with the same webhook-id and a valid signature.
      for (const id of held) {
        const copies = receiver.received.filter((r) => r.id === id);
        expect(copies.length, id).toBeGreaterThanOrEqual(2);
        for (const c of copies) receiver.verify(c, hook.secret);
        const last = copies.at(-1) as Received;
        expect(last.at - killedAt).toBeGreaterThan(0);
      }
      expect(new Set(receiver.received.map((r) => r.id))).toEqual(new Set(events.map(idOf)));
      // Delivered, each leaves the queue; its attempts are the record.
      await expect
        .poll(() => prisma().webhookDelivery.count({ where: { webhookId: hook.id } }), { timeout: 10_000 })
        .toBe(0);
      // The interrupted attempts left no record (their instance died before writing it): the
      // attempt that delivered each is its first recorded.
      await expect
        .poll(() => attemptsOf(events), { timeout: 10_000 })
        .toEqual(events.map((e) => [e.id, 'succeeded', 1]));
    });

    it('two instances delivering at once make each attempt once', async () => {
      third = await start();
      // Both instances' delivery threads connected (each names its connections with its process id).
      await expect
        .poll(
          async () =>
            (
              await prisma().$queryRawUnsafe<{ n: number }[]>(
                `SELECT count(DISTINCT application_name)::int AS n FROM pg_stat_activity
                 WHERE datname = current_database() AND application_name LIKE $1`,
                `${DELIVERY_APPLICATION_NAME} %`,
              )
            )[0]?.n,
          { timeout: 30_000 },
        )
        .toBe(2);
      // A second endpoint: an endpoint's stream is sent by one instance at a time, so each instance
      // can hold one endpoint's while the other holds the other's.
      const res = await fetch(`${third.base}/api/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/two`, events: ['guest.created'] }),
      });
      expect(res.status).toBe(201);
      const other = ((await res.json()) as { data: { id: string } }).data;
      const before = receiver.received.length;
      answered.clear();
      // Every request is held until both endpoints' first have arrived: the instance that took one
      // stream has its 3 slots held and cannot take the other, so the other instance must (a poll
      // every 100 ms), and both send at once. Then all are answered; after 1.5 s at the latest, within
      // the attempts' 2 s limit, so that a slow machine never turns a held attempt into a retry.
      const paths = new Set<string>();
      const releaseAll = () => {
        paths.add('released');
        receiver.release(204);
      };
      const fallback = setTimeout(releaseAll, 1500);
      receiver.setPolicy((r: Received) => {
        answered.set(r.id, (answered.get(r.id) ?? 0) + 1);
        if (paths.has('released')) return 204;
        paths.add(r.path);
        if (paths.size === 2) {
          clearTimeout(fallback);
          setImmediate(releaseAll);
        }
        return 'hold';
      });
      const events: RecordedEvent[] = [];
      for (let batch = 0; batch < 6; batch++) {
        events.push(
          ...(await record(
            ...Array.from(
              { length: 10 },
              (_, i) => ['guest.created', `d${batch}-${i}`] as [EventType, string],
            ),
          )),
        );
      }
      await receiver.waitFor(() => events.every((e) => (answered.get(idOf(e)) ?? 0) >= 2), 30_000);
      await sleep(1000);
      const sent = receiver.received.slice(before).map((r) => `${r.path} ${r.id}`);
      expect(sent).toHaveLength(120);
      expect(new Set(sent).size).toBe(120);
      // Each instance sends at most 3 at once: more than 3 open at a time means both were sending.
      expect(receiver.peakOpen()).toBeGreaterThan(3);
      for (const id of [hook.id, other.id]) {
        expect(await prisma().webhookDelivery.count({ where: { webhookId: id } })).toBe(0);
      }
      await expect
        .poll(() => attemptsOf(events), { timeout: 10_000 })
        .toEqual(events.map((e) => [e.id, 'succeeded', 1]));
      const del = await fetch(`${third.base}/api/v1/webhooks/${other.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tenant.token}` },
      });
      expect(del.status).toBe(204);
    });

    it('on SIGTERM an instance finishes the attempt in flight, records it and exits 0', async () => {
      const before = receiver.received.length;
      receiver.setPolicy(() => 'hold');
      const [e] = await record(['guest.created', 'last']);
      if (!e) throw new Error('no event');
      await receiver.waitFor((got) => got.length > before, 20_000);
      const live = [second, third].filter((i): i is Instance => i !== undefined);
      for (const i of live) process.kill(i.child.process.pid as number, 'SIGTERM');
      await sleep(500);
      receiver.release(204);
      for (const i of live) {
        const run = await i.child.exited(30_000);
        expect(run.code, run.stderr).toBe(0);
      }
      expect(await prisma().webhookDelivery.count({ where: { webhookId: hook.id, eventId: e.id } })).toBe(0);
      expect(await attemptsOf([e])).toEqual([[e.id, 'succeeded', 1]]);
      expect(receiver.received.slice(before).map((r) => r.id)).toEqual([idOf(e)]);
    });
  },
);

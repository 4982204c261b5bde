// Webhook delivery in one process (PGlite or PostgreSQL; the fleet is test/webhooks.fleet.test.ts):
// events written with the outbox reach the endpoints that subscribe to them, signed (verified with
// the `standardwebhooks` package), each with its `webhook-id`; retries (500 three times, then the
// fourth attempt), both secrets signing after a rotation, no retry for a 4xx, 410 and days of failures disable the endpoint (its waiting
// deliveries pause and resume when it is enabled again), the 24 h window, replay of exactly the range
// asked, bounded concurrency, a claim whose instance died comes due again after its lease (attempts
// the database failed to record: as soon as it records again; the streams of a delivery thread that
// failed: as soon as the next thread claims), shutdown
// lets the attempt in flight finish, and a database that goes away (PostgreSQL, through a TCP proxy)
// never stops the loop.
// A database of its own (see scratchDatabase): delivery workers of other test files never meet these
// deliveries, nor these workers theirs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, type Prisma } from '../src/db/database.js';
import type { EventType } from '../src/events/event-types.js';
import {
  announceEvents,
  onEventsCommitted,
  type RecordedEvent,
  recordEvents,
  systemActor,
} from '../src/events/outbox.js';
import { pruneHistory, startWebhookDelivery, type Wake } from '../src/events/webhook-delivery.js';
import { startWebhookDeliveryThread } from '../src/events/webhook-delivery-thread.js';
import { claimStreams, readStream, STREAM_CLAIM_SQL, STREAM_READ_SQL } from '../src/events/webhook-stream.js';
import {
  CLAIM_SQL,
  type ClaimedDelivery,
  claimDeliveries,
  INDEX_ONLY_PLANS,
  type MadeAttempt,
  newAttemptId,
  placesParameter,
  RECORD_SQL,
  recordAttempts,
  recordParameter,
  type StreamPlace,
} from '../src/events/webhook-worker.js';
import type { BootstrapResult } from '../src/modules/tenants/bootstrap.service.js';
import { endpointHealth } from '../src/modules/webhooks/webhooks.service.js';
import { isoMicros } from '../src/shared/format.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { besideWriter } from './helpers/lock-waits.js';
import { type ScratchDatabase, scratchDatabase } from './helpers/scratch-database.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';
import { type Received, type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const DELIVERY = {
  WEBHOOKS_DELIVERY: 'true',
  WEBHOOKS_ALLOW_PRIVATE: '1',
  WEBHOOKS_RETRY_BASE_MS: '20',
  WEBHOOKS_POLL_MS: '50',
  WEBHOOKS_CONCURRENCY: '4',
  WEBHOOKS_TIMEOUT_MS: '4000',
};

let scratch: ScratchDatabase;
let db: Database;
let t: TestApp;
/** Paths on one receiver: `/<path>` answers as `policies[path]` says (default 204). */
let receiver: Receiver;
const policies = new Map<string, (r: Received, n: number) => number | 'hold'>();
const counts = new Map<string, number>();

beforeAll(async () => {
  scratch = await scratchDatabase('webhooks_delivery');
  db = scratch.db;
  t = await startApp(DELIVERY, { db });
  receiver = await startReceiver((r) => {
    const path = r.path.split('/').pop() ?? '';
    const n = counts.get(path) ?? 0;
    counts.set(path, n + 1);
    return policies.get(path)?.(r, n) ?? 204;
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await scratch?.drop();
});

let paths = 0;
/** A receiver path of the test's own, answering as `policy` says. */
function endpoint(policy?: (r: Received, n: number) => number | 'hold'): { url: string; path: string } {
  const path = `p${++paths}`;
  if (policy) policies.set(path, policy);
  return { url: `${receiver.url}/${path}`, path };
}
const at = (path: string) => receiver.received.filter((r) => r.path.endsWith(`/${path}`));

async function createHook(
  a: BootstrapResult,
  url: string,
  events: string[] = ['*'],
  app: TestApp = t,
): Promise<{ id: string; secret: string }> {
  const res = await app.request('POST', '/api/v1/webhooks', { token: a.token, body: { url, events } });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** Appends events to the tenant's log as the API's writes do (in a transaction, announced on commit). */
async function record(
  prisma: Prisma,
  tenantId: string,
  ...events: [EventType, string][]
): Promise<RecordedEvent[]> {
  const recorded = await prisma.$transaction((tx) =>
    recordEvents(
      tx,
      tenantId,
      systemActor,
      events.map(([type, id]) => ({
        type,
        resourceType: 'guest',
        resourceId: id,
        payload: { id, name: `Guest ${id}` },
      })),
    ),
  );
  announceEvents(recorded);
  return recorded;
}

/**
 * A database of the test's own, with an app that delivers nothing (the test claims and records
 * itself) and a tenant; dropped after.
 */
async function withQuietScratch(
  name: string,
  fn: (s: { own: ScratchDatabase; quiet: TestApp; a: BootstrapResult }) => Promise<void>,
): Promise<void> {
  const own = await scratchDatabase(name);
  try {
    const quiet = await startApp({ WEBHOOKS_ALLOW_PRIVATE: '1' }, { db: own.db });
    try {
      await fn({ own, quiet, a: await newTenant(own.db.prisma) });
    } finally {
      await quiet.close();
    }
  } finally {
    await own.drop();
  }
}

/**
 * The tenant's events after its streams' places queued for their endpoints (as first attempts that
 * failed leave them: a row each, due now, unclaimed), and the places moved past them.
 */
async function queueStreams(prisma: Prisma, tenantId: string): Promise<void> {
  await prisma.$transaction([
    prisma.$executeRawUnsafe(
      `INSERT INTO "WebhookDelivery" ("tenantId", "webhookId", "eventId", "eventType", "status", "nextAttemptAt")
       SELECT $1, w."id", e."id", e."type", 'pending', now()
       FROM "WebhookStream" s JOIN "Webhook" w ON w."id" = s."webhookId" AND w."isActive"
       JOIN "Event" e ON e."tenantId" = $1 AND e."id" > s."lastEventId"
         AND (e."type" = ANY(w."events") OR '*' = ANY(w."events"))
       WHERE s."tenantId" = $1 ORDER BY e."id", w."id"`,
      tenantId,
    ),
    prisma.$executeRawUnsafe(
      `UPDATE "WebhookStream" s SET "lastEventId" = q."lastId"
       FROM "EventSequence" q WHERE q."tenantId" = s."tenantId" AND s."tenantId" = $1`,
      tenantId,
    ),
  ]);
}

/** `n` events of `type` (guests `<name>0` …) recorded, and queued (queueStreams). */
async function queued(
  prisma: Prisma,
  tenantId: string,
  type: EventType,
  name: string,
  n: number,
): Promise<void> {
  await record(
    prisma,
    tenantId,
    ...Array.from({ length: n }, (_, i) => [type, `${name}${i}`] as [EventType, string]),
  );
  await queueStreams(prisma, tenantId);
}

const messageId = (tenantId: string, id: bigint) => `evt_${tenantId}_${id}`;

/** A stream's first attempt of event `e` for `webhookId`, held under `lease`, as the worker claims it. */
function streamClaim(
  tenantId: string,
  webhookId: string,
  lease: number,
  e: { id: bigint; type: string; occurredAt: Date; payloadJson?: string },
): ClaimedDelivery {
  return {
    id: null,
    streamLease: lease,
    tenantId,
    webhookId,
    eventId: e.id,
    eventType: e.type,
    attempts: 1,
    firstAttemptAt: new Date(),
    url: 'http://unused',
    secret: 'unused',
    previousSecret: null,
    failingSince: null,
    occurredAt: e.occurredAt,
    payloadJson: e.payloadJson ?? '{}',
  };
}

/** An attempt of `claim` answered `statusCode` now: 204 succeeded, anything else to retry in a minute. */
function answered(claim: ClaimedDelivery, statusCode: number): MadeAttempt {
  const now = new Date();
  return {
    claim,
    id: newAttemptId(),
    startedAt: now,
    finishedAt: now,
    result:
      statusCode === 204
        ? { outcome: 'succeeded', statusCode, durationMs: 3, error: null }
        : { outcome: 'retry', statusCode, durationMs: 3, error: `HTTP ${statusCode}` },
    status: statusCode === 204 ? 'succeeded' : 'pending',
    retryAt: statusCode === 204 ? null : new Date(now.getTime() + 60_000),
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

// -------------------------------------------------------------------------------------------------
describe('delivery', () => {
  it('sends each subscribed event once, signed, with webhook-id evt_<tenant>_<id>; nothing else, nothing of another tenant', async () => {
    const a = await newTenant(db.prisma);
    const b = await newTenant(db.prisma);
    const [before] = await record(db.prisma, a.tenant_id, ['guest.created', 'early']);
    const created = endpoint();
    const all = endpoint();
    const other = endpoint();
    const onlyCreated = await createHook(a, created.url, ['guest.created']);
    const everything = await createHook(a, all.url, ['*']);
    await createHook(b, other.url, ['*']);
    const [e1, e2] = await record(db.prisma, a.tenant_id, ['guest.created', 'g1'], ['guest.updated', 'g1']);
    if (!e1 || !e2 || !before) throw new Error('events not recorded');
    await receiver.waitFor(() => at(created.path).length >= 1 && at(all.path).length >= 3);
    await sleep(300);

    // The subscriber of guest.created: exactly e1.
    const got = at(created.path);
    expect(got.map((r) => r.id)).toEqual([messageId(a.tenant_id, e1.id)]);
    const body = receiver.verify(got[0] as Received, onlyCreated.secret);
    expect(body).toEqual({
      type: 'guest.created',
      timestamp: isoMicros(e1.occurredAt),
      event_id: Number(e1.id),
      tenant_id: a.tenant_id,
      data: { id: 'g1', name: 'Guest g1' },
    });
    // "*": its own creation event, then e1 and e2 (not what came before it, not the other endpoint's creation).
    const types = at(all.path).map((r) => (receiver.verify(r, everything.secret) as { type: string }).type);
    expect(types.sort()).toEqual(['guest.created', 'guest.updated', 'webhook.created']);
    expect(at(all.path).map((r) => r.id)).not.toContain(messageId(a.tenant_id, before.id));
    // Tenant B's endpoint heard only its own creation.
    expect(at(other.path).map((r) => r.json.type)).toEqual(['webhook.created']);
    expect(at(other.path)[0]?.json.tenant_id).toBe(b.tenant_id);

    // The attempt is recorded after the answer arrives (in a batch): waited for, not assumed.
    const deliveries = await until('the attempt recorded', async () => {
      const list = await t.request('GET', `/api/v1/webhooks/${onlyCreated.id}/deliveries`, {
        token: a.token,
      });
      return list.json.data.length > 0 && list;
    });
    expect(deliveries.json.data).toEqual([
      expect.objectContaining({
        event_id: Number(e1.id),
        event_type: 'guest.created',
        message_id: messageId(a.tenant_id, e1.id),
        attempt: 1,
        status: 'succeeded',
        status_code: 204,
        error: null,
        next_retry_at: null,
      }),
    ]);
    // Delivered, it left the queue: its attempt is the record.
    expect(await db.prisma.webhookDelivery.count({ where: { webhookId: onlyCreated.id } })).toBe(0);
  });

  it('a receiver answering 500 three times gets the event on the fourth attempt, with the same webhook-id', async () => {
    const a = await newTenant(db.prisma);
    const ep = endpoint((_r, n) => (n < 3 ? 500 : 200));
    const hook = await createHook(a, ep.url, ['guest.created']);
    const createdRow = await db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    const [e] = await record(db.prisma, a.tenant_id, ['guest.created', 'g1']);
    if (!e) throw new Error('no event');
    await receiver.waitFor(() => at(ep.path).length >= 4);
    await sleep(300);
    const got = at(ep.path);
    expect(got.map((r) => r.id)).toEqual(Array(4).fill(messageId(a.tenant_id, e.id)));
    for (const r of got) receiver.verify(r, hook.secret);
    // Backoff: each retry waited longer than the one before (20, 120, 480 ms ± 20 %).
    const gaps = got.slice(1).map((r, i) => r.at - (got[i] as Received).at);
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[2]).toBeGreaterThan(gaps[0] as number);
    await until(
      'recorded',
      async () => (await db.prisma.webhookDelivery.count({ where: { webhookId: hook.id } })) === 0,
    );
    const list = await t.request('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: a.token });
    expect(
      list.json.data.map((x: Record<string, unknown>) => [x.attempt, x.status, x.status_code, x.error]),
    ).toEqual([
      [4, 'succeeded', 200, null],
      [3, 'failed', 500, 'HTTP 500'],
      [2, 'failed', 500, 'HTTP 500'],
      [1, 'failed', 500, 'HTTP 500'],
    ]);
    expect(list.json.data[0].next_retry_at).toBeNull();
    for (const x of list.json.data.slice(1)) expect(x.next_retry_at).toMatch(/Z$/);
    const failed = await t.request('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=failed`, {
      token: a.token,
    });
    expect(failed.json.data).toHaveLength(3);
    // The endpoint's run of failures ended with the success; its own fields did not change, nor
    // did its updated_at (the run of failures is the delivery's state, not an edit).
    const row = await db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(row.failingSince).toBeNull();
    expect(row.updatedAt).toEqual(createdRow.updatedAt);
  });

  it('after a rotation, first attempts and retries are signed with the new secret and the previous one; with previous_secret_hours 0, with the new one only', async () => {
    const a = await newTenant(db.prisma);
    const ep = endpoint((_r, n) => (n % 2 === 0 ? 500 : 204));
    const hook = await createHook(a, ep.url, ['guest.created']);
    const rotate = async (hours: number) => {
      const res = await t.request('POST', `/api/v1/webhooks/${hook.id}/rotate-secret`, {
        token: a.token,
        body: { previous_secret_hours: hours },
      });
      expect(res.status, res.text).toBe(200);
      return res.json.data.secret as string;
    };
    const signedBy = (r: Received, secret: string) => {
      try {
        receiver.verify(r, secret);
        return true;
      } catch {
        return false;
      }
    };
    const second = await rotate(24);
    const [e1] = await record(db.prisma, a.tenant_id, ['guest.created', 'g1']);
    await receiver.waitFor(() => at(ep.path).length >= 2);
    // The first attempt (from the endpoint's stream, answered 500) and its retry (a claim).
    for (const r of at(ep.path)) {
      expect(r.id).toBe(messageId(a.tenant_id, e1?.id ?? 0n));
      expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect([signedBy(r, second), signedBy(r, hook.secret)]).toEqual([true, true]);
    }
    const third = await rotate(0);
    const [e2] = await record(db.prisma, a.tenant_id, ['guest.created', 'g2']);
    await receiver.waitFor(() => at(ep.path).length >= 4);
    for (const r of at(ep.path).slice(2)) {
      expect(r.id).toBe(messageId(a.tenant_id, e2?.id ?? 0n));
      expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect([signedBy(r, third), signedBy(r, second), signedBy(r, hook.secret)]).toEqual([
        true,
        false,
        false,
      ]);
    }
  });

  it('a 4xx is not retried; 429 is', async () => {
    const a = await newTenant(db.prisma);
    const bad = endpoint(() => 400);
    const busy = endpoint((_r, n) => (n === 0 ? 429 : 204));
    const h400 = await createHook(a, bad.url, ['guest.created']);
    const h429 = await createHook(a, busy.url, ['guest.created']);
    await record(db.prisma, a.tenant_id, ['guest.created', 'g1']);
    await receiver.waitFor(() => at(busy.path).length >= 2 && at(bad.path).length >= 1);
    await sleep(400);
    expect(at(bad.path)).toHaveLength(1);
    expect(await db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: h400.id } })).toMatchObject(
      {
        status: 'failed',
        attempts: 1,
        lastStatusCode: 400,
        lastError: 'HTTP 400',
      },
    );
    // Delivered on the second attempt: out of the queue, both attempts logged.
    expect(await db.prisma.webhookDelivery.count({ where: { webhookId: h429.id } })).toBe(0);
    const tries = await db.prisma.webhookAttempt.findMany({
      where: { webhookId: h429.id },
      orderBy: { attempt: 'asc' },
    });
    expect(tries.map((x) => [x.attempt, x.status, x.statusCode])).toEqual([
      [1, 'failed', 429],
      [2, 'succeeded', 204],
    ]);
  });

  it('410 disables the endpoint (gone) by the system; its waiting deliveries pause, and resume when it is enabled', async () => {
    const a = await newTenant(db.prisma);
    // g1 fails (retried), g2 is answered 410.
    const ep = endpoint((r) => (r.json?.data?.id === 'g2' ? 410 : 500));
    const hook = await createHook(a, ep.url, ['guest.created']);
    const [e1] = await record(db.prisma, a.tenant_id, ['guest.created', 'g1']);
    await receiver.waitFor(() => at(ep.path).length >= 2);
    const [e2] = await record(db.prisma, a.tenant_id, ['guest.created', 'g2']);
    if (!e1 || !e2) throw new Error('no events');
    const disabled = await until('the endpoint disabled', async () => {
      const w = await db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
      return !w.isActive && w;
    });
    expect(disabled).toMatchObject({ disabledReason: 'gone' });
    const event = await db.prisma.event.findFirstOrThrow({
      where: { tenantId: a.tenant_id, type: 'webhook.disabled', resourceId: hook.id },
    });
    expect(event).toMatchObject({ actorType: 'system', actorUserId: null });
    expect(event.payload).toMatchObject({ id: hook.id, is_active: false, disabled_reason: 'gone' });
    const audit = await db.prisma.auditLog.findFirstOrThrow({
      where: { tenantId: a.tenant_id, resourceId: hook.id, action: 'webhooks.update' },
    });
    expect(audit.changes).toMatchObject({
      is_active: { old: true, new: false },
      disabled_reason: { old: null, new: 'gone' },
    });
    // g1 waits, unscheduled; nothing more is sent, and an event written now is not queued for it.
    await until('g1 paused', async () => {
      const d = await db.prisma.webhookDelivery.findFirstOrThrow({
        where: { webhookId: hook.id, eventId: e1.id },
      });
      return d.status === 'pending' && d.nextAttemptAt === null;
    });
    const [e3] = await record(db.prisma, a.tenant_id, ['guest.created', 'g3']);
    if (!e3) throw new Error('no event');
    const sent = at(ep.path).length;
    await sleep(400);
    expect(at(ep.path).length).toBe(sent);
    expect(await db.prisma.webhookDelivery.count({ where: { webhookId: hook.id, eventId: e3.id } })).toBe(0);

    // Enabled again: g1 is sent at once (its retries start over); g2 was answered (410) and stays failed.
    policies.set(ep.path, () => 204);
    const on = await t.request('PUT', `/api/v1/webhooks/${hook.id}`, {
      token: a.token,
      body: { is_active: true },
    });
    expect(on.json.data).toMatchObject({ is_active: true, disabled_reason: null });
    await receiver.waitFor(() =>
      at(ep.path)
        .slice(sent)
        .some((r) => r.id === messageId(a.tenant_id, e1.id)),
    );
    expect(
      (await db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: hook.id, eventId: e2.id } }))
        .status,
    ).toBe('failed');
    // g3, written while it was disabled, comes with a replay.
    const replay = await t.request('POST', `/api/v1/webhooks/${hook.id}/replay`, {
      token: a.token,
      body: { since_event_id: Number(e3.id) },
    });
    expect(replay.text).toBe('{"count":1}');
    await receiver.waitFor(() => at(ep.path).some((r) => r.id === messageId(a.tenant_id, e3.id)));
  });

  it('an endpoint failing for WEBHOOKS_DISABLE_AFTER_DAYS (5) is disabled (failing); a success ends a run of failures', async () => {
    const a = await newTenant(db.prisma);
    const down = endpoint(() => 503);
    const up = endpoint(() => 204);
    const failing = await createHook(a, down.url, ['guest.created']);
    const recovering = await createHook(a, up.url, ['guest.created']);
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000);
    const fourDaysAgo = new Date(Date.now() - 4 * 86_400_000);
    await db.prisma.webhook.update({ where: { id: failing.id }, data: { failingSince: sixDaysAgo } });
    await db.prisma.webhook.update({ where: { id: recovering.id }, data: { failingSince: fourDaysAgo } });
    await record(db.prisma, a.tenant_id, ['guest.created', 'g1']);
    const w = await until('disabled', async () => {
      const row = await db.prisma.webhook.findUniqueOrThrow({ where: { id: failing.id } });
      return !row.isActive && row;
    });
    expect(w.disabledReason).toBe('failing');
    await until('recovered', async () => {
      const row = await db.prisma.webhook.findUniqueOrThrow({ where: { id: recovering.id } });
      return row.failingSince === null;
    });
    // A first failure starts the run.
    const fresh = endpoint(() => 500);
    const hook = await createHook(a, fresh.url, ['guest.updated']);
    await record(db.prisma, a.tenant_id, ['guest.updated', 'g1']);
    const row = await until('failing', async () => {
      const r = await db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
      return r.failingSince !== null && r;
    });
    expect(row.isActive).toBe(true);
  });

  it('gives up (dead) when an attempt fails 24 h (the scaled window) after the first', async () => {
    const a = await newTenant(db.prisma);
    const ep = endpoint(() => 500);
    const hook = await createHook(a, ep.url, ['guest.created']);
    await record(db.prisma, a.tenant_id, ['guest.created', 'g1']);
    await receiver.waitFor(() => at(ep.path).length >= 1);
    // The first attempt failed: queued to retry once recorded.
    await until(
      'queued',
      async () => (await db.prisma.webhookDelivery.count({ where: { webhookId: hook.id } })) > 0,
    );
    // The window at WEBHOOKS_RETRY_BASE_MS=20 is 17 280 × 20 ms = 5.76 min: the first attempt was longer ago.
    await db.prisma.webhookDelivery.updateMany({
      where: { webhookId: hook.id },
      data: { firstAttemptAt: new Date(Date.now() - 10 * 60_000) },
    });
    const dead = await until('dead', async () => {
      const d = await db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: hook.id } });
      return d.status === 'dead' && d;
    });
    expect(dead.nextAttemptAt).toBeNull();
    const [last] = (await t.request('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: a.token })).json
      .data;
    expect(last).toMatchObject({ status: 'failed', status_code: 500, next_retry_at: null });
  });

  it('a retry of a type the endpoint no longer subscribes to is not sent again: dead; the types kept still go', async () => {
    const a = await newTenant(db.prisma);
    const ep = endpoint((r) => (r.json?.type === 'guest.updated' ? 500 : 204));
    const hook = await createHook(a, ep.url, ['guest.created', 'guest.updated']);
    const [updated] = await record(db.prisma, a.tenant_id, ['guest.updated', 'g1']);
    if (!updated) throw new Error('event not recorded');
    const updates = () => at(ep.path).filter((r) => r.id === messageId(a.tenant_id, updated.id)).length;
    await until(
      'queued to retry',
      async () => (await db.prisma.webhookDelivery.count({ where: { webhookId: hook.id } })) > 0,
    );
    const put = await t.request('PUT', `/api/v1/webhooks/${hook.id}`, {
      token: a.token,
      body: { events: ['guest.created'] },
    });
    expect(put.status, put.text).toBe(200);
    const dead = await until('dead', async () => {
      const d = await db.prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: hook.id } });
      return d.status === 'dead' && d;
    });
    expect(dead).toMatchObject({ eventId: updated.id, nextAttemptAt: null });
    // The deliveries list says it will not be tried again: its last attempt's next_retry_at is null.
    const listed = await t.request('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: a.token });
    expect(listed.status, listed.text).toBe(200);
    const attempts = listed.json.data.filter((x: { event_id: number }) => BigInt(x.event_id) === updated.id);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts[0].next_retry_at).toBeNull();
    // An attempt already in flight when the filter changed may land; none is made after.
    const sent = updates();
    const [created] = await record(db.prisma, a.tenant_id, ['guest.created', 'g2']);
    if (!created) throw new Error('event not recorded');
    await receiver.waitFor(() => at(ep.path).some((r) => r.id === messageId(a.tenant_id, created.id)));
    await sleep(300);
    expect(updates()).toBe(sent);
  });

  it('replay re-sends exactly the range asked (ids, or times), only the types subscribed, with the original webhook-id', async () => {
    const a = await newTenant(db.prisma);
    const ep = endpoint();
    const hook = await createHook(a, ep.url, ['guest.created']);
    const events = await record(
      db.prisma,
      a.tenant_id,
      ['guest.created', 'g1'],
      ['guest.updated', 'g1'],
      ['guest.created', 'g2'],
      ['guest.created', 'g3'],
      ['guest.updated', 'g3'],
      ['guest.created', 'g4'],
    );
    const created = events.filter((e) => e.type === 'guest.created');
    await receiver.waitFor(() => at(ep.path).length >= created.length);
    await sleep(200);
    const first = at(ep.path).length;
    expect(first).toBe(4);
    const [, second, third, fourth, fifth] = events as RecordedEvent[];
    const res = await t.request('POST', `/api/v1/webhooks/${hook.id}/replay`, {
      token: a.token,
      body: { since_event_id: Number(second?.id), until_event_id: String(fifth?.id) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe('{"count":2}');
    await receiver.waitFor(() => at(ep.path).length >= first + 2);
    await sleep(300);
    expect(
      at(ep.path)
        .slice(first)
        .map((r) => r.id)
        .sort(),
    ).toEqual([messageId(a.tenant_id, third?.id ?? 0n), messageId(a.tenant_id, fourth?.id ?? 0n)].sort());
    // By time: from the sixth event's time on (inclusive); the six share their transaction's time.
    const sixth = events[5] as RecordedEvent;
    const byTime = await t.request('POST', `/api/v1/webhooks/${hook.id}/replay`, {
      token: a.token,
      body: { since: sixth.occurredAt.toISOString() },
    });
    const expected = await db.prisma.event.count({
      where: { tenantId: a.tenant_id, type: 'guest.created', occurredAt: { gte: sixth.occurredAt } },
    });
    expect(byTime.json).toEqual({ count: expected });
    await receiver.waitFor(() => at(ep.path).length >= first + 2 + expected);
    expect(
      at(ep.path)
        .slice(first + 2)
        .map((r) => r.id),
    ).toContain(messageId(a.tenant_id, sixth.id));
  });

  it('at most WEBHOOKS_CONCURRENCY (4) attempts at once', async () => {
    const a = await newTenant(db.prisma);
    const ep = endpoint((_r, n) => (n < 10 ? 'hold' : 204));
    await createHook(a, ep.url, ['guest.created']);
    await record(
      db.prisma,
      a.tenant_id,
      ...Array.from({ length: 10 }, (_, i) => ['guest.created', `g${i}`] as [EventType, string]),
    );
    await receiver.waitFor(() => at(ep.path).length >= 4);
    await sleep(400);
    expect(at(ep.path)).toHaveLength(4);
    expect(receiver.open()).toBe(4);
    policies.set(ep.path, () => 204);
    receiver.release(204);
    await receiver.waitFor(() => new Set(at(ep.path).map((r) => r.id)).size === 10);
    expect(receiver.peakOpen()).toBeLessThanOrEqual(4);
  });
});

// -------------------------------------------------------------------------------------------------
// Each test starts apps (a delivery thread among them) on a database of its own: on a slow machine
// under the whole suite, well past the default 30 s a test has.
describe('claims, shutdown and failures', { timeout: 90_000 }, () => {
  it('a given-up retry clears its own last attempt’s next_retry_at only: not a replay copy’s, not an earlier attempt’s', async () => {
    const own = await scratchDatabase('webhooks_given_up');
    try {
      const prisma = own.db.prisma;
      const a = await newTenant(prisma);
      // Subscribed to guest.updated only: every guest.created retry below is given up when due.
      const hook = await prisma.webhook.create({
        data: {
          tenantId: a.tenant_id,
          url: 'http://127.0.0.1:9/',
          events: ['guest.updated'],
          secret: 'plain:x',
        },
      });
      const ago = (s: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - s * 1000);
      const later = new Date(Date.now() + 3_600_000);
      const delivery = (eventId: bigint, attempts: number, due: boolean, first: Date, last: Date) =>
        prisma.webhookDelivery.create({
          data: {
            tenantId: a.tenant_id,
            webhookId: hook.id,
            eventId,
            eventType: 'guest.created',
            status: 'pending',
            attempts,
            nextAttemptAt: due ? ago(1) : later,
            firstAttemptAt: first,
            lastAttemptAt: last,
          },
        });
      let n = 0;
      const attempt = (eventId: bigint, deliveryId: bigint | null, no: number, at: Date) =>
        prisma.webhookAttempt.create({
          data: {
            id: `given-up-${++n}`,
            tenantId: a.tenant_id,
            webhookId: hook.id,
            deliveryId,
            eventId,
            eventType: 'guest.created',
            messageId: `evt_${a.tenant_id}_${eventId}`,
            attempt: no,
            status: 'failed',
            durationMs: 1,
            nextRetryAt: later,
            createdAt: at,
          },
        });
      // Event 7: a retry due (its first attempt from the log names no delivery), and a replay's copy not due yet.
      const retried = await delivery(7n, 2, true, ago(30), ago(20));
      const firstOf7 = await attempt(7n, null, 1, ago(30));
      const secondOf7 = await attempt(7n, retried.id, 2, ago(20));
      const copy = await delivery(7n, 1, false, ago(10), ago(10));
      const copyAttempt = await attempt(7n, copy.id, 1, ago(10));
      // Event 8: due after its one attempt, from the log.
      await delivery(8n, 1, true, ago(15), ago(15));
      const onlyOf8 = await attempt(8n, null, 1, ago(15));

      expect(await claimDeliveries(prisma, 10, 60_000)).toEqual([]);

      const statuses = await prisma.webhookDelivery.findMany({
        orderBy: { id: 'asc' },
        select: { eventId: true, status: true },
      });
      expect(statuses.map((d) => [d.eventId, d.status])).toEqual([
        [7n, 'dead'],
        [7n, 'pending'],
        [8n, 'dead'],
      ]);
      const nextRetry = async (id: string) =>
        (await prisma.webhookAttempt.findUniqueOrThrow({ where: { id } })).nextRetryAt;
      expect(await nextRetry(secondOf7.id)).toBeNull();
      expect(await nextRetry(onlyOf8.id)).toBeNull();
      expect(await nextRetry(firstOf7.id)).toEqual(later);
      expect(await nextRetry(copyAttempt.id)).toEqual(later);
    } finally {
      await own.drop();
    }
  });

  it('a claim whose instance died (never finished) comes due again after its lease and is sent with the same webhook-id', async () => {
    const own = await scratchDatabase('webhooks_lease');
    try {
      const quiet = await startApp({ WEBHOOKS_ALLOW_PRIVATE: '1' }, { db: own.db });
      const a = await newTenant(own.db.prisma);
      const ep = endpoint();
      await createHook(a, ep.url, ['guest.created'], quiet);
      const events = await record(
        own.db.prisma,
        a.tenant_id,
        ['guest.created', 'g1'],
        ['guest.created', 'g2'],
      );
      await queueStreams(own.db.prisma, a.tenant_id);
      // An instance claims both for 1 s, then dies before sending.
      const claimed = await claimDeliveries(own.db.prisma, 10, 1000);
      expect(claimed.map((c) => c.eventId)).toEqual(events.map((e) => e.id));
      const claimedAt = Date.now();
      const worker = await startApp(DELIVERY, { db: own.db });
      try {
        await receiver.waitFor(() => at(ep.path).length >= 2, 45_000);
        expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(900);
        expect(
          at(ep.path)
            .map((r) => r.id)
            .sort(),
        ).toEqual(events.map((e) => messageId(a.tenant_id, e.id)).sort());
        await until('recorded', async () => (await own.db.prisma.webhookDelivery.count()) === 0);
        // The dead instance's claim counted as an attempt: this was the second.
        const logged = await own.db.prisma.webhookAttempt.findMany({ orderBy: { eventId: 'asc' } });
        expect(logged.map((x) => [x.eventId, x.attempt, x.status])).toEqual(
          events.map((e) => [e.id, 2, 'succeeded']),
        );
      } finally {
        await worker.close();
        await quiet.close();
      }
    } finally {
      await own.drop();
    }
  });

  it('attempts the database failed to record are sent again as soon as it records again, not a lease later: the same webhook-id, a second apart, then recorded once', async () => {
    const own = await scratchDatabase('webhooks_unrecorded');
    try {
      // A lease far longer than the test: a stream waiting for it would not come back in time.
      const worker = await startApp({ ...DELIVERY, WEBHOOKS_LEASE_MS: '120000' }, { db: own.db });
      try {
        const a = await newTenant(own.db.prisma);
        const ep = endpoint();
        await createHook(a, ep.url, ['guest.created'], worker);
        // The attempt log refuses every row: the statement recording the attempts fails whole.
        await own.db.prisma.$executeRawUnsafe(
          `ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "refuse_all" CHECK (false) NOT VALID`,
        );
        const [event] = await record(own.db.prisma, a.tenant_id, ['guest.created', 'g1']);
        // Sent, unrecorded, taken back a second later and sent again (still unrecorded).
        await receiver.waitFor(() => at(ep.path).length >= 2, 45_000);
        await own.db.prisma.$executeRawUnsafe(`ALTER TABLE "WebhookAttempt" DROP CONSTRAINT "refuse_all"`);
        const [first, second] = at(ep.path) as [Received, Received];
        expect(second.at - first.at).toBeGreaterThanOrEqual(900);
        expect(second.at - first.at).toBeLessThan(10_000);
        // Recorded once the database takes the rows: the place moves past the event, one attempt logged.
        await until('the place recorded', async () => {
          const stream = await own.db.prisma.webhookStream.findFirst({ where: { tenantId: a.tenant_id } });
          return stream?.lastEventId === event?.id;
        });
        const copies = at(ep.path).length;
        expect(copies).toBeGreaterThanOrEqual(2);
        expect(new Set(at(ep.path).map((r) => r.id))).toEqual(
          new Set([messageId(a.tenant_id, event?.id ?? 0n)]),
        );
        const logged = await own.db.prisma.webhookAttempt.findMany({ where: { tenantId: a.tenant_id } });
        expect(logged.map((x) => [x.eventId, x.status])).toEqual([[event?.id, 'succeeded']]);
        // Nothing more is sent once it is recorded.
        await sleep(1500);
        expect(at(ep.path)).toHaveLength(copies);
      } finally {
        await worker.close();
      }
    } finally {
      await own.drop();
    }
  });

  it('the history is pruned: attempts logged before the cutoff, of every endpoint (in batches of 5 000), and deliveries over since before it; pending ones and newer rows stay', async () => {
    await withQuietScratch('webhooks_prune', async ({ own, quiet, a }) => {
      const prisma = own.db.prisma;
      const one = await createHook(a, endpoint().url, ['guest.created'], quiet);
      const two = await createHook(a, endpoint().url, ['guest.created'], quiet);
      const cutoff = new Date(Date.now() - 30 * 86_400_000);
      const before = new Date(cutoff.getTime() - 1);
      const after = new Date(cutoff.getTime() + 60_000);
      const attempt = (webhookId: string, createdAt: Date, n: number) => ({
        id: newAttemptId(createdAt.getTime()),
        tenantId: a.tenant_id,
        webhookId,
        eventId: BigInt(n),
        eventType: 'guest.created',
        messageId: messageId(a.tenant_id, BigInt(n)),
        attempt: 1,
        status: 'succeeded',
        statusCode: 204,
        durationMs: 3,
        createdAt,
      });
      await prisma.webhookAttempt.createMany({
        data: [
          ...Array.from({ length: 5_002 }, (_, i) => attempt(one.id, before, i + 1)),
          attempt(one.id, after, 9_001),
          attempt(one.id, after, 9_002),
          attempt(two.id, before, 9_003),
          attempt(two.id, after, 9_004),
        ],
      });
      const delivery = (eventId: number, status: string, updatedAt: Date) => ({
        tenantId: a.tenant_id,
        webhookId: two.id,
        eventId: BigInt(eventId),
        eventType: 'guest.created',
        status,
        updatedAt,
      });
      await prisma.webhookDelivery.createMany({
        data: [
          delivery(1, 'succeeded', before),
          delivery(2, 'dead', before),
          delivery(3, 'pending', before),
          delivery(4, 'failed', after),
        ],
      });
      await pruneHistory(prisma, cutoff);
      const attempts = await prisma.webhookAttempt.findMany({ orderBy: { eventId: 'asc' } });
      expect(attempts.map((x) => [x.webhookId, x.eventId])).toEqual([
        [one.id, 9_001n],
        [one.id, 9_002n],
        [two.id, 9_004n],
      ]);
      const deliveries = await prisma.webhookDelivery.findMany({ orderBy: { eventId: 'asc' } });
      expect(deliveries.map((d) => [d.eventId, d.status])).toEqual([
        [3n, 'pending'],
        [4n, 'failed'],
      ]);
    });
  });

  it('a batch of attempts is recorded in one statement; a stale claim\u2019s result is not written, though its attempt is logged', async () => {
    await withQuietScratch('webhooks_batch', async ({ own, quiet, a }) => {
      const ep = endpoint();
      const hook = await createHook(a, ep.url, ['guest.created'], quiet);
      const events = await record(
        own.db.prisma,
        a.tenant_id,
        ['guest.created', 'g1'],
        ['guest.created', 'g2'],
        ['guest.created', 'g3'],
      );
      await queueStreams(own.db.prisma, a.tenant_id);
      // An instance claims all three for 1 ms and outlives its lease; another claims them again.
      const stale = await claimDeliveries(own.db.prisma, 10, 1);
      await sleep(20);
      const fresh = await claimDeliveries(own.db.prisma, 10, 60_000);
      expect(stale.map((c) => [c.eventId, c.attempts])).toEqual(events.map((e) => [e.id, 1]));
      expect(fresh.map((c) => [c.eventId, c.attempts])).toEqual(events.map((e) => [e.id, 2]));
      const [s1, s2, s3] = stale as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
      const [f1, f2, f3] = fresh as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
      // The stale claim of the first answers 500 in the same batch as the fresh ones (204, and
      // 500 for the third): only the fresh claims' results are written.
      expect(
        await recordAttempts(own.db.prisma, [
          answered(s1, 500),
          answered(f1, 204),
          answered(f2, 204),
          answered(f3, 503),
        ]),
      ).toEqual({ written: 3, logged: 4, moved: [], queued: 0 });
      // A stale result after the fresh one was written: nothing written (not pending any more).
      expect(await recordAttempts(own.db.prisma, [answered(s2, 500)])).toMatchObject({
        written: 0,
        logged: 1,
      });
      // A stale result while the fresh claim is still out: nothing written (the attempt count moved on).
      expect(await recordAttempts(own.db.prisma, [answered(s3, 204)])).toMatchObject({
        written: 0,
        logged: 1,
      });
      // The two delivered left the queue; the third waits for its retry.
      const rows = await own.db.prisma.webhookDelivery.findMany({ orderBy: { eventId: 'asc' } });
      expect(
        rows.map((r) => [
          r.eventId,
          r.status,
          r.attempts,
          r.lastStatusCode,
          r.lastError,
          r.nextAttemptAt !== null,
        ]),
      ).toEqual([[events[2]?.id, 'pending', 2, 503, 'HTTP 503', true]]);
      // Every attempt made is listed, the stale ones too (without a retry: their claim had lapsed).
      const list = await quiet.request('GET', `/api/v1/webhooks/${hook.id}/deliveries?per_page=10`, {
        token: a.token,
      });
      const byEvent = (id: bigint) =>
        list.json.data
          .filter((x: Record<string, unknown>) => x.event_id === Number(id))
          .map((x: Record<string, unknown>) => [
            x.attempt,
            x.status,
            x.status_code,
            x.message_id,
            x.next_retry_at === null,
          ])
          .sort((x: unknown[], y: unknown[]) => String(x).localeCompare(String(y)));
      const [e1, e2, e3] = events as [RecordedEvent, RecordedEvent, RecordedEvent];
      expect(byEvent(e1.id)).toEqual([
        [1, 'failed', 500, messageId(a.tenant_id, e1.id), true],
        [2, 'succeeded', 204, messageId(a.tenant_id, e1.id), true],
      ]);
      expect(byEvent(e2.id)).toEqual([
        [1, 'failed', 500, messageId(a.tenant_id, e2.id), true],
        [2, 'succeeded', 204, messageId(a.tenant_id, e2.id), true],
      ]);
      expect(byEvent(e3.id)).toEqual([
        [1, 'succeeded', 204, messageId(a.tenant_id, e3.id), true],
        [2, 'failed', 503, messageId(a.tenant_id, e3.id), false],
      ]);
    });
  });

  it('a claim reads each endpoint\u2019s oldest due rows from the index: every endpoint with a free slot is served, a flooded one is stepped over, not read', async () => {
    await withQuietScratch('webhooks_claim_plan', async ({ own, quiet, a }) => {
      const flooded = await createHook(a, endpoint().url, ['guest.created'], quiet);
      const burst = (name: string, n: number) => queued(own.db.prisma, a.tenant_id, 'guest.created', name, n);
      // Each endpoint's due rows: Limit ← LockRows ← an index scan of (status, webhookId,
      // nextAttemptAt) that stops at the endpoint's slots; nothing sorted, nothing joined (as a
      // join driven by the endpoints, the planner read each one's whole queue to sort it).
      const readsTheIndex = async () => {
        const nodes = await planOf(own.db, CLAIM_SQL, [16, 1000, 16, '{}']);
        const lock = nodes.find((n) => n['Node Type'] === 'LockRows');
        expect(nodes.find((n) => n.Plans?.includes(lock as PlanNode))?.['Node Type']).toBe('Limit');
        expect(lock?.Plans?.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
          ['Index Scan', 'WebhookDelivery_status_webhookId_nextAttemptAt_idx'],
        ]);
        expect(lock?.Plans?.[0]?.['Index Cond']).toContain('nextAttemptAt');
      };
      // A flood of 2000 in a queue never analysed (a new database, or autovacuum off) …
      await burst('f', 2000);
      await readsTheIndex();
      // … and after statistics of a history of delivered events and an empty queue.
      await own.db.prisma.webhookDelivery.updateMany({
        data: { status: 'succeeded', nextAttemptAt: null },
      });
      await own.db.prisma.$executeRawUnsafe('ANALYZE "WebhookDelivery"');
      await burst('f', 2000);
      await readsTheIndex();
      // A second endpoint, with 10 deliveries due after the flood's.
      const other = await createHook(a, endpoint().url, ['guest.updated'], quiet);
      await queued(own.db.prisma, a.tenant_id, 'guest.updated', 'o', 10);
      // 16 at most, 8 per endpoint: each endpoint's 8 oldest, though the flood's are all older.
      const claimed = await claimDeliveries(own.db.prisma, 16, 60_000, 8);
      const of = (hook: { id: string }) => claimed.filter((c) => c.webhookId === hook.id);
      expect([of(flooded).length, of(other).length]).toEqual([8, 8]);
      expect(claimed.map((c) => c.attempts)).toEqual(Array(16).fill(1));
      // The flooded endpoint's slots all taken: the other's last 2 are claimed, and the claim
      // reads a handful of index entries, not the flood's 1992 due rows.
      const [analysed] = await own.db.rows<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${CLAIM_SQL}`,
        [16, 60_000, 16, JSON.stringify({ [flooded.id]: 0 })],
        undefined,
        INDEX_ONLY_PLANS,
      );
      const read = nodesOf(analysed?.['QUERY PLAN'][0]?.Plan)
        .filter((n) => n['Relation Name'] === 'WebhookDelivery' && n['Node Type'] !== 'ModifyTable')
        .reduce(
          (sum, n) =>
            sum + ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * (n['Actual Loops'] ?? 1),
          0,
        );
      expect(read).toBeLessThan(20);
      const rest = await own.db.prisma.webhookDelivery.findMany({
        where: { webhookId: other.id },
        select: { attempts: true },
      });
      expect(rest.map((r) => r.attempts)).toEqual(Array(10).fill(1));
    });
  });

  it('a claim rewrites its rows in place (HOT updates: no index entry written), and a lapsed lease is claimed again', async () => {
    await withQuietScratch('webhooks_claim_hot', async ({ own, quiet, a }) => {
      await createHook(a, endpoint().url, ['guest.created'], quiet);
      await queued(own.db.prisma, a.tenant_id, 'guest.created', 'h', 20);
      const [claimed, hot, updated] = await own.db.prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRawUnsafe<unknown[]>(CLAIM_SQL, 50, 1, 50, '{}');
        const [stats] = await tx.$queryRawUnsafe<{ hot: bigint; updated: bigint }[]>(
          `SELECT pg_stat_get_xact_tuples_hot_updated('"WebhookDelivery"'::regclass) AS hot,
                  pg_stat_get_xact_tuples_updated('"WebhookDelivery"'::regclass) AS updated`,
        );
        return [rows.length, Number(stats?.hot), Number(stats?.updated)];
      });
      expect([claimed, updated, hot]).toEqual([20, 20, 20]);
      // Leased for 1 ms: due again, the second attempt.
      await sleep(5);
      const again = await claimDeliveries(own.db.prisma, 50, 60_000, 50);
      expect(again.map((c) => c.attempts)).toEqual(Array(20).fill(2));
      expect(await claimDeliveries(own.db.prisma, 50, 60_000, 50)).toEqual([]);
    });
  });

  it('recording a batch compares no pair of its rows (claimed deliveries, or a stream’s first attempts), with statistics as autovacuum leaves them', async () => {
    await withQuietScratch('webhooks_record_plan', async ({ own, quiet, a }) => {
      const hook = await createHook(a, endpoint().url, ['guest.created'], quiet);
      await queued(own.db.prisma, a.tenant_id, 'guest.created', 'r', 500);
      const claims = await claimDeliveries(own.db.prisma, 500, 60_000, 500);
      expect(claims).toHaveLength(500);
      await own.db.prisma.$executeRawUnsafe('ANALYZE');
      /** Join comparisons of the statement as the worker runs it (the same connection settings). */
      const compared = async (attempts: MadeAttempt[], places: StreamPlace[]) => {
        const [analysed] = await own.db.rows<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${RECORD_SQL}`,
          [recordParameter(attempts), placesParameter(places), 60_000],
        );
        return nodesOf(analysed?.['QUERY PLAN'][0]?.Plan).reduce(
          (sum, n) => sum + (n['Rows Removed by Join Filter'] ?? 0) * (n['Actual Loops'] ?? 1),
          0,
        );
      };
      // The log's join to the rows written was a nested loop over both, 249 500 rows removed by its
      // filter for 500 successes.
      expect(
        await compared(
          claims.map((c) => answered(c, 204)),
          [],
        ),
      ).toBeLessThan(500);
      expect(await own.db.prisma.webhookDelivery.count()).toBe(0);
      expect(await own.db.prisma.webhookAttempt.count({ where: { status: 'succeeded' } })).toBe(500);
      // 500 first attempts of a stream, all failed: queued to retry with the place moved past them.
      const events = await record(
        own.db.prisma,
        a.tenant_id,
        ...Array.from({ length: 500 }, (_, i) => ['guest.created', `s${i}`] as [EventType, string]),
      );
      const [held] = await claimStreams(own.db.prisma, 1, 60_000, 500);
      if (!held) throw new Error('no stream held');
      expect(held.window.events).toHaveLength(500);
      const first = held.window.events.map((e) => streamClaim(a.tenant_id, hook.id, held.lease, e));
      const place = {
        webhookId: hook.id,
        lease: held.lease,
        lastEventId: events.at(-1)?.id ?? 0n,
        release: true,
      };
      expect(
        await compared(
          first.map((c) => answered(c, 503)),
          [place],
        ),
      ).toBeLessThan(500);
      expect(await own.db.prisma.webhookDelivery.count({ where: { status: 'pending' } })).toBe(500);
      expect(
        await own.db.prisma.webhookAttempt.count({ where: { status: 'failed', nextRetryAt: { not: null } } }),
      ).toBe(500);
    });
  });

  it('a stream reads the log in index order and stops at its window, however long the backlog; what its endpoint does not subscribe to only moves its place', async () => {
    await withQuietScratch('webhooks_stream_plan', async ({ own, quiet, a }) => {
      const hook = await createHook(a, endpoint().url, ['guest.created'], quiet);
      const events = (n: number, name: string) =>
        record(
          own.db.prisma,
          a.tenant_id,
          ...Array.from(
            { length: n },
            (_, i) => [i % 4 === 3 ? 'guest.updated' : 'guest.created', `${name}${i}`] as [EventType, string],
          ),
        );
      // Statistics of a short log, then a backlog of two and a half windows.
      await events(20, 'h');
      await own.db.prisma.$executeRawUnsafe('ANALYZE "Event"');
      const backlog = await events(250, 'b');
      const nodes = await planOf(own.db, STREAM_READ_SQL, [hook.id, a.tenant_id, '0', 100]);
      // The window: Limit ← an index scan of the log's key, nothing sorted between them (the backlog
      // is not read, only the window).
      const limit = nodes.find(
        (n) => n['Node Type'] === 'Limit' && n.Plans?.some((c) => c['Relation Name'] === 'Event'),
      );
      expect(limit?.Plans?.map((c) => c['Index Name'])).toEqual(['Event_pkey']);
      expect(limit?.Plans?.[0]?.['Node Type']).toMatch(/^Index (Only )?Scan$/);
      // Held, it reads window after window: 100 events each, the subscribed ones returned.
      const [held] = await claimStreams(own.db.prisma, 10, 60_000, 100);
      if (!held) throw new Error('no stream held');
      const windows = [held.window];
      for (let w = held.window; w.full; ) {
        w = await readStream(own.db.prisma, held, w.readTo ?? 0n, 100);
        windows.push(w);
      }
      // 271 after its place: the endpoint's own creation (not subscribed), the 20, the backlog.
      expect(windows.map((w) => w.full)).toEqual([true, true, false]);
      const sent = windows.flatMap((w) => w.events.map((e) => e.id));
      const subscribed = (
        await own.db.prisma.event.findMany({
          where: { tenantId: a.tenant_id, type: 'guest.created', id: { gt: held.lastEventId } },
          orderBy: { id: 'asc' },
          select: { id: true },
        })
      ).map((e) => e.id);
      expect(sent).toEqual(subscribed);
      expect(windows.at(-1)?.readTo).toBe(backlog.at(-1)?.id);
      expect(windows[0]?.endpoint).toMatchObject({
        isActive: true,
        url: expect.stringContaining(receiver.url),
      });
    });
  });

  it('a window that is not full moves the place to the tenant’s last id, past events deleted before it was read (else claimed at every poll)', async () => {
    await withQuietScratch('webhooks_stream_tail', async ({ own, quiet, a }) => {
      const prisma = own.db.prisma;
      await createHook(a, endpoint().url, ['guest.created'], quiet);
      const [e1, , e3] = (await record(
        prisma,
        a.tenant_id,
        ['guest.created', 'g1'],
        ['guest.created', 'g2'],
        ['guest.created', 'g3'],
      )) as [RecordedEvent, RecordedEvent, RecordedEvent];
      // The log's newest events go before the stream reads them (a retention pass, the pruning).
      await prisma.event.deleteMany({ where: { tenantId: a.tenant_id, id: { gt: e1.id } } });
      const [held] = await claimStreams(prisma, 10, 60_000, 100);
      if (!held) throw new Error('no stream held');
      expect(held.window.events.map((e) => e.id)).toEqual([e1.id]);
      expect(held.window.readTo).toBe(e3.id);
      // Read from past e1: nothing left, and the place still goes to the last id.
      const rest = await readStream(prisma, held, e1.id, 100);
      expect([rest.events, rest.readTo, rest.full]).toEqual([[], e3.id, false]);
      // Caught up: nothing after the last id, no place to move to.
      expect((await readStream(prisma, held, e3.id, 100)).readTo).toBeNull();
      // A full window moves only as far as it read.
      const full = await readStream(prisma, held, 0n, 1);
      expect([full.full, full.readTo]).toEqual([true, 1n]);
    });
  });

  it('a stream is held by one instance at a time; its first attempts are recorded with its place (a failure queued to retry); a stale hold moves nothing and queues nothing, though its attempt is logged', async () => {
    await withQuietScratch('webhooks_stream_hold', async ({ own, quiet, a }) => {
      const prisma = own.db.prisma;
      const hook = await createHook(a, endpoint().url, ['guest.created'], quiet);
      const [e1, e2, e3] = (await record(
        prisma,
        a.tenant_id,
        ['guest.created', 'g1'],
        ['guest.created', 'g2'],
        ['guest.created', 'g3'],
      )) as [RecordedEvent, RecordedEvent, RecordedEvent];
      const [first] = await claimStreams(prisma, 10, 60_000, 100);
      if (!first) throw new Error('no stream held');
      expect(first.window.events.map((e) => e.id)).toEqual([e1.id, e2.id, e3.id]);
      // Held: no other claim gets it.
      expect(await claimStreams(prisma, 10, 60_000, 100)).toEqual([]);
      // Its lease runs out; another instance holds it, from the same place.
      await prisma.webhookStream.update({
        where: { webhookId: hook.id },
        data: { leasedUntil: new Date(Date.now() - 1000) },
      });
      const [second] = await claimStreams(prisma, 10, 60_000, 100);
      if (!second) throw new Error('not held again');
      expect([second.lease, second.lastEventId]).toEqual([first.lease + 1, first.lastEventId]);
      const made = (lease: number, e: RecordedEvent, statusCode: number): MadeAttempt => {
        const outcome = statusCode === 204 ? 'succeeded' : statusCode === 503 ? 'retry' : 'failed';
        return {
          claim: streamClaim(a.tenant_id, hook.id, lease, e),
          id: newAttemptId(),
          startedAt: new Date(),
          finishedAt: new Date(),
          result: {
            outcome,
            statusCode,
            durationMs: 2,
            error: statusCode === 204 ? null : `HTTP ${statusCode}`,
          },
          status: outcome === 'succeeded' ? 'succeeded' : outcome === 'retry' ? 'pending' : 'failed',
          retryAt: outcome === 'retry' ? new Date(Date.now() + 60_000) : null,
        };
      };
      const place = (lease: number, release: boolean) => ({
        webhookId: hook.id,
        lease,
        lastEventId: e3.id,
        release,
      });
      // The first holder outlived its lease: its attempt is logged; its place and its failure are not written.
      expect(
        await recordAttempts(prisma, [made(first.lease, e1, 503)], [place(first.lease, false)], 60_000),
      ).toEqual({ written: 0, logged: 1, moved: [], queued: 0 });
      expect(await prisma.webhookDelivery.count()).toBe(0);
      // The holder's: delivered, retried (queued, due in a minute), refused (queued, failed); place moved, let go.
      expect(
        await recordAttempts(
          prisma,
          [made(second.lease, e1, 204), made(second.lease, e2, 503), made(second.lease, e3, 400)],
          [place(second.lease, true)],
          60_000,
        ),
      ).toEqual({ written: 3, logged: 3, moved: [hook.id], queued: 2 });
      const rows = await prisma.webhookDelivery.findMany({ orderBy: { eventId: 'asc' } });
      expect(
        rows.map((r) => [r.eventId, r.status, r.attempts, r.lastStatusCode, r.nextAttemptAt !== null]),
      ).toEqual([
        [e2.id, 'pending', 1, 503, true],
        [e3.id, 'failed', 1, 400, false],
      ]);
      expect(
        await prisma.webhookStream.findUniqueOrThrow({
          where: { webhookId: hook.id },
          select: { lastEventId: true, leasedUntil: true },
        }),
      ).toEqual({ lastEventId: e3.id, leasedUntil: null });
      const list = await quiet.request('GET', `/api/v1/webhooks/${hook.id}/deliveries?per_page=10`, {
        token: a.token,
      });
      expect(
        list.json.data
          .map((x: Record<string, unknown>) => [
            x.event_id,
            x.status,
            x.status_code,
            x.next_retry_at !== null,
          ])
          .sort((x: unknown[], y: unknown[]) => String(x).localeCompare(String(y))),
      ).toEqual(
        [
          [Number(e1.id), 'failed', 503, false],
          [Number(e1.id), 'succeeded', 204, false],
          [Number(e2.id), 'failed', 503, true],
          [Number(e3.id), 'failed', 400, false],
        ].sort((x, y) => String(x).localeCompare(String(y))),
      );
      // Let go at its place: nothing to hold until an event comes, then held from there.
      expect(await claimStreams(prisma, 10, 60_000, 100)).toEqual([]);
      const [e4] = await record(prisma, a.tenant_id, ['guest.created', 'g4']);
      const [third] = await claimStreams(prisma, 10, 60_000, 100);
      expect(third?.window.events.map((e) => e.id)).toEqual([e4?.id]);
    });
  });

  // Two connections at once: on PGlite every statement has the one connection to itself.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'attempts of an endpoint deleted while they are recorded are left out; the others are recorded (the statement failed on the foreign key, and all of them were made again; probe W)',
    async () => {
      await withQuietScratch('webhooks_record_deleted', async ({ own, quiet, a }) => {
        const prisma = own.db.prisma;
        const gone = await createHook(a, endpoint().url, ['guest.created'], quiet);
        const kept = await createHook(a, endpoint().url, ['guest.created'], quiet);
        const [e1] = (await record(prisma, a.tenant_id, ['guest.created', 'g1'])) as [RecordedEvent];
        const held = await claimStreams(prisma, 10, 60_000, 100);
        expect(held.map((s) => s.webhookId).sort()).toEqual([gone.id, kept.id].sort());
        const attempt = (s: (typeof held)[number]): MadeAttempt =>
          answered(streamClaim(a.tenant_id, s.webhookId, s.lease, e1), 204);
        // The endpoint's deletion commits while the record statement waits on its rows.
        const recorded = await besideWriter(own.url as string, {
          before: [['DELETE FROM "Webhook" WHERE "id" = $1', [gone.id]]],
          request: () =>
            recordAttempts(
              prisma,
              held.map(attempt),
              held.map((s) => ({
                webhookId: s.webhookId,
                lease: s.lease,
                lastEventId: e1.id,
                release: true,
              })),
              60_000,
            ),
          waiting: 'WITH r AS%',
        });
        expect(recorded).toEqual({ written: 1, logged: 1, moved: [kept.id], queued: 0 });
        const logged = await prisma.webhookAttempt.findMany({ select: { webhookId: true, status: true } });
        expect(logged).toEqual([{ webhookId: kept.id, status: 'succeeded' }]);
      });
    },
  );

  // At 4 slots, the slow endpoint's two in flight and its backlog were counted twice (its two as
  // running, and two more as still to send): no slot was left for another stream (probe W).
  it.each([
    ['5', 'one slot beside both endpoints'],
    ['4', 'exactly two endpoints’ worth'],
  ])(
    'at most WEBHOOKS_CONCURRENCY_PER_ENDPOINT (2) attempts at once to one endpoint; another endpoint is served meanwhile (WEBHOOKS_CONCURRENCY %s: %s)',
    async (concurrency) => {
      const own = await scratchDatabase(`webhooks_per_endpoint_${concurrency}`);
      try {
        const app = await startApp(
          { ...DELIVERY, WEBHOOKS_CONCURRENCY: concurrency, WEBHOOKS_CONCURRENCY_PER_ENDPOINT: '2' },
          { db: own.db },
        );
        try {
          const a = await newTenant(own.db.prisma);
          const slow = endpoint((_r, n) => (n < 6 ? 'hold' : 204));
          const quick = endpoint();
          await createHook(a, slow.url, ['guest.created'], app);
          await record(
            own.db.prisma,
            a.tenant_id,
            ...Array.from({ length: 6 }, (_, i) => ['guest.created', `s${i}`] as [EventType, string]),
          );
          await receiver.waitFor(() => at(slow.path).length >= 2);
          // The slow endpoint holds its two; the quick one, created now, gets its events meanwhile.
          await createHook(a, quick.url, ['guest.created'], app);
          await record(
            own.db.prisma,
            a.tenant_id,
            ...Array.from({ length: 6 }, (_, i) => ['guest.created', `q${i}`] as [EventType, string]),
          );
          await receiver.waitFor(() => new Set(at(quick.path).map((r) => r.id)).size >= 6);
          expect(at(slow.path)).toHaveLength(2);
          await sleep(300);
          expect(at(slow.path)).toHaveLength(2);
          policies.set(slow.path, () => 204);
          receiver.release(204);
          await receiver.waitFor(() => new Set(at(slow.path).map((r) => r.id)).size === 12);
          await until('recorded', async () => (await own.db.prisma.webhookDelivery.count()) === 0);
        } finally {
          await app.close();
        }
      } finally {
        await own.drop();
      }
    },
  );

  it('close() sends nothing new, lets the attempt in flight finish and records it', async () => {
    const own = await scratchDatabase('webhooks_close');
    try {
      const app = await startApp(DELIVERY, { db: own.db });
      const a = await newTenant(own.db.prisma);
      const ep = endpoint(() => 'hold');
      await createHook(a, ep.url, ['guest.created'], app);
      await record(own.db.prisma, a.tenant_id, ['guest.created', 'g1']);
      await receiver.waitFor(() => at(ep.path).length >= 1);
      expect(app.app.webhooks?.inFlight()).toBe(1);
      let closed = false;
      const closing = app.close().then(() => {
        closed = true;
      });
      await sleep(300);
      expect(closed).toBe(false);
      await record(own.db.prisma, a.tenant_id, ['guest.created', 'g2']);
      receiver.release(204);
      await closing;
      // Recorded: delivered, out of the queue, its one attempt logged.
      expect(await own.db.prisma.webhookDelivery.count()).toBe(0);
      const logged = await own.db.prisma.webhookAttempt.findMany({});
      expect(logged.map((x) => [x.attempt, x.status, x.statusCode])).toEqual([[1, 'succeeded', 204]]);
      // Nothing sent after close: g2 waits in the log for the next instance.
      await sleep(200);
      expect(at(ep.path)).toHaveLength(1);
    } finally {
      await own.drop();
    }
  });

  it('a delivery thread whose database does not answer warns once, in a plain sentence, through this thread; stop() still resolves', async () => {
    const warnings: string[] = [];
    const delivery = startWebhookDeliveryThread({
      // Nothing listens on port 1.
      databaseUrl: 'postgresql://root@127.0.0.1:1/none',
      poolSize: 1,
      settings: { ...t.config.webhooks, pollMs: 50 },
      log: { warn: (_o, msg) => warnings.push(msg), info: () => {}, debug: () => {} },
    });
    await until('a warning', async () => warnings.length > 0, 30_000);
    await sleep(300);
    await delivery.stop();
    expect(warnings).toEqual([
      "Webhook delivery: could not read the event log (Can't reach database server at 127.0.0.1:1); trying again",
    ]);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'a database that goes away never stops the loop: one plain warning per outage, one line when it answers again, and what was written meanwhile is delivered (PostgreSQL)',
    async () => {
      const own = await scratchDatabase('webhooks_outage');
      const target = new URL(own.url as string);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      // Delivery reaches the database through the proxy; the API and the test, directly.
      const viaProxy = await openDatabase({
        url: proxy.url(own.url as string),
        migrate: false,
        poolSize: 4,
        statementTimeoutMs: 1000,
        connectTimeoutMs: 1000,
      });
      const app = await startApp({ ...DELIVERY, WEBHOOKS_DELIVERY: 'false' }, { db: own.db });
      const warnings: string[] = [];
      const infos: string[] = [];
      const delivery = startWebhookDelivery({
        prisma: viaProxy.prisma,
        settings: { ...app.config.webhooks, deliver: true, pollMs: 50 },
        log: {
          warn: (_o, msg) => warnings.push(msg),
          info: (_o, msg) => infos.push(msg),
          debug: () => {},
        },
        health: endpointHealth(viaProxy.prisma),
      });
      try {
        const a = await newTenant(own.db.prisma);
        const ep = endpoint();
        await createHook(a, ep.url, ['guest.created'], app);
        await proxy.set('refuse');
        const [event] = await record(own.db.prisma, a.tenant_id, ['guest.created', 'g1']);
        await until('a warning', async () => warnings.length > 0);
        // The loop keeps trying (a poll every 50 ms) and says so once.
        await sleep(1000);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/^Webhook delivery: could not [a-z ]+ \(.+\); trying again$/);
        expect(warnings[0]).not.toMatch(/\n\s+at /);
        expect(infos).toEqual([]);
        expect(at(ep.path)).toHaveLength(0);

        await proxy.set('pass');
        await receiver.waitFor(() => at(ep.path).length >= 1, 10_000);
        expect(at(ep.path).map((r) => r.id)).toEqual([messageId(a.tenant_id, event?.id ?? 0n)]);
        await until('resumed', async () => infos.length > 0);
        expect(infos).toEqual(['Webhook delivery: the database answers again; delivery resumed']);
        expect(warnings).toHaveLength(1);
      } finally {
        await proxy.set('pass');
        await delivery.stop();
        await viaProxy.close();
        await proxy.close();
        await app.close();
        await own.drop();
      }
    },
  );
});

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'the delivery thread (PostgreSQL; skipped without TEST_DATABASE_URL)',
  () => {
    /** Delivery's statements seen on the app's own pool while a 410 answer is delivered, and the events announced here. */
    async function deliverA410(thread: 'true' | 'false'): Promise<{ onPool: number; announced: string[] }> {
      const own = await scratchDatabase(`webhooks_thread_${thread}`);
      const seen: string[] = [];
      const stopWatching = own.db.onQuery((sql) => seen.push(sql));
      const announced: string[] = [];
      const stopListening = onEventsCommitted((events) => {
        for (const e of events) if (e.type === 'webhook.disabled') announced.push(e.resourceId);
      });
      try {
        const app = await startApp({ ...DELIVERY, WEBHOOKS_THREAD: thread }, { db: own.db });
        try {
          const a = await newTenant(own.db.prisma);
          const ep = endpoint(() => 410);
          const hook = await createHook(a, ep.url, ['guest.created'], app);
          await record(own.db.prisma, a.tenant_id, ['guest.created', 'g1']);
          await receiver.waitFor(() => at(ep.path).length >= 1);
          await until('disabled and recorded', async () => {
            const w = await own.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
            return (
              !w.isActive &&
              (await own.db.prisma.webhookAttempt.count({ where: { webhookId: hook.id } })) === 1
            );
          });
          await until('announced', async () => announced.includes(hook.id));
        } finally {
          await app.close();
        }
        return {
          onPool: seen.filter((sql) =>
            [STREAM_CLAIM_SQL, STREAM_READ_SQL, RECORD_SQL, CLAIM_SQL].includes(sql),
          ).length,
          announced,
        };
      } finally {
        stopListening();
        stopWatching();
        await own.drop();
      }
    }

    it('delivers from a thread of its own: the API’s pool runs none of delivery’s statements, and an endpoint the thread disables is announced here (WEBHOOKS_THREAD=false: the same on the API’s pool)', async () => {
      const threaded = await deliverA410('true');
      expect(threaded.onPool).toBe(0);
      expect(threaded.announced).toHaveLength(1);
      const inline = await deliverA410('false');
      expect(inline.onPool).toBeGreaterThan(0);
      expect(inline.announced).toHaveLength(1);
    });

    it('a thread that fails mid-attempt is started again and takes back the streams it held at once, not a lease later: the same webhook-id, then recorded once', async () => {
      const own = await scratchDatabase('webhooks_thread_crash');
      // The API only: the thread below is the one delivering.
      const app = await startApp({ ...DELIVERY, WEBHOOKS_DELIVERY: 'false' }, { db: own.db });
      const warnings: string[] = [];
      const delivery = startWebhookDeliveryThread({
        databaseUrl: own.url as string,
        poolSize: 2,
        // A lease far longer than the test: a stream waiting for it would not come back in time.
        settings: { ...app.config.webhooks, deliver: true, pollMs: 50, leaseMs: 120_000 },
        log: { warn: (_o, msg) => warnings.push(msg), info: () => {}, debug: () => {} },
      });
      try {
        const a = await newTenant(own.db.prisma);
        // The first request is held unanswered: the thread ends while it is in flight.
        const ep = endpoint((_r, n) => (n === 0 ? 'hold' : 204));
        await createHook(a, ep.url, ['guest.created'], app);
        const [event] = await record(own.db.prisma, a.tenant_id, ['guest.created', 'g1']);
        await receiver.waitFor(() => at(ep.path).length >= 1, 10_000);
        // A message the thread cannot handle fails it, as a bug in it would.
        const failedAt = Date.now();
        delivery.wake(null as unknown as Wake[]);
        await receiver.waitFor(() => at(ep.path).length >= 2, 10_000);
        expect(Date.now() - failedAt).toBeLessThan(10_000);
        expect(warnings.some((w) => w.startsWith('Webhook delivery: its thread failed'))).toBe(true);
        expect(new Set(at(ep.path).map((r) => r.id))).toEqual(
          new Set([messageId(a.tenant_id, event?.id ?? 0n)]),
        );
        await until('the place recorded', async () => {
          const stream = await own.db.prisma.webhookStream.findFirst({ where: { tenantId: a.tenant_id } });
          return stream?.lastEventId === event?.id;
        });
        const logged = await own.db.prisma.webhookAttempt.findMany({ where: { tenantId: a.tenant_id } });
        expect(logged.map((x) => [x.eventId, x.status])).toEqual([[event?.id, 'succeeded']]);
      } finally {
        await delivery.stop();
        await app.close();
        await own.drop();
      }
    });
  },
);

interface PlanNode {
  'Node Type': string;
  'Index Cond'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** The nodes of the plan PostgreSQL makes for `sql` with the planner held to indexes (as the worker runs it). */
async function planOf(db: Database, sql: string, params: unknown[]): Promise<PlanNode[]> {
  const [plan] = await db.rows<{ 'QUERY PLAN': unknown }>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
    params,
    undefined,
    INDEX_ONLY_PLANS,
  );
  const [explained] = (plan?.['QUERY PLAN'] ?? []) as { Plan: PlanNode }[];
  if (!explained) throw new Error('no plan');
  return nodesOf(explained.Plan);
}

/** A plan's nodes, its root first. */
function nodesOf(root: PlanNode | undefined): PlanNode[] {
  const nodes: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    nodes.push(n);
    for (const c of n.Plans ?? []) walk(c);
  };
  if (root) walk(root);
  return nodes;
}

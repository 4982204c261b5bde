// The event log, read and followed live: `GET /events` and `Query.events` page it; the `events`
// subscription (GraphQL over SSE) resumes after an id (the argument, or the `Last-Event-ID` a
// reconnecting client resends) with exactly what was missed, then live events, with no gap and no
// duplicate, on one instance and across two sharing Redis. Real HTTP, bounded in time.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventType } from '../src/events/event-types.js';
import { recordEvents, systemActor, writeWithEvents } from '../src/events/outbox.js';
import { pruneEvents } from '../src/events/sweeper.js';
import { RECHECK_MS, RIGHTS_CHANGED } from '../src/graphql/stream-credentials.js';
import { MAX_SUBSCRIPTIONS_PER_TOKEN, TOO_MANY_SUBSCRIPTIONS } from '../src/graphql/subscription-limit.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';
import { startAdmin } from './helpers/processes.js';
import { type Frame, type Subscriber, subscribeTo } from './helpers/sse.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const EVENTS = `subscription Events($after: ID, $types: [String!]) {
  events(after: $after, types: $types) { id type resourceId actor { type userId } }
}`;

interface Ev {
  id: string;
  type: string;
  resourceId: string;
  actor: { type: string; userId: string | null };
}

async function listen(t: TestApp): Promise<string> {
  await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.fastify.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** `n` events in one transaction (as the service writes them), resource ids `<tag>-<i>`. */
async function write(t: TestApp, tenantId: string, tag: string, n = 1, type: EventType = 'guest.created') {
  await writeWithEvents({ prisma: t.db.prisma, tenantId, actor: systemActor }, async (_tx, log) => {
    for (let i = 0; i < n; i++)
      log.record({ type, resourceType: 'guest', resourceId: `${tag}-${i}`, payload: { id: `${tag}-${i}` } });
  });
}

/** The next `n` events of a subscription, with their frames' `id:` lines. */
async function take(sub: Subscriber, n: number): Promise<{ events: Ev[]; frameIds: (string | null)[] }> {
  const frames: Frame[] = [];
  for (let i = 0; i < n; i++) frames.push(await sub.nextFrame(5000));
  const events = frames.map((f) => {
    const body = f.data as { data?: { events: Ev }; errors?: unknown };
    if (!body?.data) throw new Error(`not an event: ${JSON.stringify(f.data)}`);
    return body.data.events;
  });
  return { events, frameIds: frames.map((f) => f.id) };
}

const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** The first frame's error: code and message. */
async function refusal(sub: Subscriber): Promise<{ code: string; message: string }> {
  const body = (await sub.next(5000)) as { errors?: { message: string; extensions: { code: string } }[] };
  const e = body.errors?.[0];
  return { code: e?.extensions.code ?? '(none)', message: e?.message ?? '(none)' };
}

describe('the events subscription, one instance', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('resumes after an id: the missed events, then live ones written during and after the catch-up, each once, in order', async () => {
    const a = await newTenant(t.db.prisma);
    await write(t, a.tenant_id, 'before', 5); // ids 1–5
    const first = await subscribeTo(base, a.token, EVENTS, { after: '2' });
    // Written while the subscription reads what was missed.
    const writes = Promise.all([write(t, a.tenant_id, 'during', 3), write(t, a.tenant_id, 'during2', 2)]);
    try {
      expect(first.status).toBe(200);
      await writes; // ids 6–10
      const got = await take(first, 8);
      expect(got.events.map((e) => e.id)).toEqual(range(3, 10));
      expect(got.frameIds).toEqual(range(3, 10));
      expect(got.events[0]).toEqual({
        id: '3',
        type: 'guest.created',
        resourceId: 'before-2',
        actor: { type: 'system', userId: null },
      });
    } finally {
      first.close();
    }
    // Disconnected: events are written meanwhile; the reconnection gets exactly those, then live ones.
    await write(t, a.tenant_id, 'away', 4); // ids 11–14
    const again = await subscribeTo(base, a.token, EVENTS, { after: '10' });
    try {
      const missed = await take(again, 4);
      expect(missed.events.map((e) => e.resourceId)).toEqual(['away-0', 'away-1', 'away-2', 'away-3']);
      await write(t, a.tenant_id, 'live', 1);
      const live = await take(again, 1);
      expect(live.events.map((e) => [e.id, e.resourceId])).toEqual([['15', 'live-0']]);
    } finally {
      again.close();
    }
  });

  it('without `after`, only new events; over GET, `Last-Event-ID` resumes after the id it names', async () => {
    const a = await newTenant(t.db.prisma);
    await write(t, a.tenant_id, 'old', 3);
    const fresh = await subscribeTo(base, a.token, EVENTS, {});
    try {
      // The subscription registers asynchronously: write until the first new event arrives.
      let got: Ev | undefined;
      for (let i = 0; i < 50 && !got; i++) {
        await write(t, a.tenant_id, `new${i}`);
        got = await take(fresh, 1).then(
          (r) => r.events[0],
          () => undefined,
        );
      }
      expect(got?.resourceId).toMatch(/^new\d+-0$/);
      expect(Number(got?.id)).toBeGreaterThan(3);
    } finally {
      fresh.close();
    }
    // A browser's EventSource reconnects with GET and the last `id:` it saw.
    const resumed = await subscribeTo(
      base,
      a.token,
      EVENTS,
      {},
      { get: true, headers: { 'Last-Event-ID': '1' } },
    );
    try {
      expect(resumed.status).toBe(200);
      const got = await take(resumed, 2);
      expect(got.frameIds).toEqual(['2', '3']);
      expect(got.events.map((e) => e.resourceId)).toEqual(['old-1', 'old-2']);
    } finally {
      resumed.close();
    }
    // An `$after` variable sent null or blank is no value: the header resumes (an EventSource
    // resends the same variables on every reconnection).
    for (const after of [null, '', ' ']) {
      const blank = await subscribeTo(
        base,
        a.token,
        EVENTS,
        { after },
        { headers: { 'Last-Event-ID': '1' } },
      );
      try {
        expect((await take(blank, 2)).frameIds, JSON.stringify(after)).toEqual(['2', '3']);
      } finally {
        blank.close();
      }
    }
    // The argument wins over the header.
    const both = await subscribeTo(
      base,
      a.token,
      EVENTS,
      { after: '2' },
      { headers: { 'Last-Event-ID': '1' } },
    );
    try {
      expect((await take(both, 1)).frameIds).toEqual(['3']);
    } finally {
      both.close();
    }
  });

  it('keeps the types asked for, resuming through the others', async () => {
    const a = await newTenant(t.db.prisma);
    await write(t, a.tenant_id, 'g', 2, 'guest.created'); // 1, 2
    await write(t, a.tenant_id, 'u', 2, 'guest.updated'); // 3, 4
    const sub = await subscribeTo(base, a.token, EVENTS, {
      after: '0',
      types: ['guest.updated', 'guest.erased'],
    });
    try {
      const missed = await take(sub, 2);
      expect(missed.events.map((e) => [e.id, e.type])).toEqual([
        ['3', 'guest.updated'],
        ['4', 'guest.updated'],
      ]);
      await write(t, a.tenant_id, 'g2', 3, 'guest.created'); // 5–7, not wanted
      await write(t, a.tenant_id, 'e', 1, 'guest.erased'); // 8
      const live = await take(sub, 1);
      expect(live.events.map((e) => [e.id, e.type])).toEqual([['8', 'guest.erased']]);
      expect(live.frameIds).toEqual(['8']);
    } finally {
      sub.close();
    }
  });

  it('refuses an unknown type, a malformed `after`, one past the log, and callers without events.view', async () => {
    const a = await newTenant(t.db.prisma);
    await write(t, a.tenant_id, 'x', 2);
    const cases: [Record<string, unknown>, Record<string, string>, { code: string; message: string }][] = [
      [
        { types: ['guest.created', 'guest.born'] },
        {},
        { code: 'BAD_USER_INPUT', message: 'The selected types.1 (guest.born) is invalid.' },
      ],
      [{ after: 'abc' }, {}, { code: 'BAD_USER_INPUT', message: 'The after field must be an integer.' }],
      [
        { after: '3' },
        {},
        { code: 'BAD_USER_INPUT', message: 'The after field must not be greater than 2.' },
      ],
      [
        {},
        { 'Last-Event-ID': 'x' },
        { code: 'BAD_USER_INPUT', message: 'The after field must be an integer.' },
      ],
    ];
    for (const [variables, headers, expected] of cases) {
      const sub = await subscribeTo(base, a.token, EVENTS, variables, { headers });
      try {
        expect(await refusal(sub)).toEqual(expected);
      } finally {
        sub.close();
      }
    }
    // Retention deleted the first two: resuming before what is kept would hide a gap.
    expect(await pruneEvents(t.db, a.tenant_id, new Date(Date.now() + 60_000))).toBe(2);
    await write(t, a.tenant_id, 'kept', 1); // id 3
    const gone = await subscribeTo(base, a.token, EVENTS, { after: '1' });
    try {
      expect(await refusal(gone)).toEqual({
        code: 'BAD_USER_INPUT',
        message: 'The after field must be at least 2: older events are no longer kept.',
      });
    } finally {
      gone.close();
    }
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const ingest = (await issueToken(t.db.prisma, a.user_id, ['ingest'])).token;
    for (const token of [venue.token, ingest]) {
      const sub = await subscribeTo(base, token, EVENTS, { after: '0' });
      try {
        expect((await refusal(sub)).code).toBe('FORBIDDEN');
      } finally {
        sub.close();
      }
    }
  });

  it('frees the place of streams their clients left at once, many together (three rounds of MAX_SUBSCRIPTIONS_PER_TOKEN)', async () => {
    const a = await newTenant(t.db.prisma);
    const body = JSON.stringify({ query: EVENTS, variables: {} });
    const { hostname, port } = new URL(base);
    /** A stream opened and its connection closed `afterMs` later, whatever it has read by then. */
    const openAndLeave = (afterMs: number) =>
      new Promise<void>((resolve) => {
        const req = httpRequest({
          host: hostname,
          port,
          path: '/graphql',
          method: 'POST',
          headers: {
            authorization: `Bearer ${a.token}`,
            'content-type': 'application/json',
            accept: 'text/event-stream',
          },
        });
        req.on('error', () => {});
        req.once('close', () => resolve());
        req.end(body);
        setTimeout(() => req.destroy(), afterMs);
      });
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from({ length: MAX_SUBSCRIPTIONS_PER_TOKEN }, (_, i) => openAndLeave(40 + (i % 5) * 20)),
      );
      await sleep(300);
    }
    // Every place is free again (the server sees each close a moment later): a full allowance opens.
    await sleep(1000);
    const open: Subscriber[] = [];
    try {
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_TOKEN; i++)
        open.push(await subscribeTo(base, a.token, EVENTS, {}));
      expect(open.map((s) => s.status)).toEqual(open.map(() => 200));
    } finally {
      for (const s of open) s.close();
    }
  });

  it('refuses a token more than MAX_SUBSCRIPTIONS_PER_TOKEN open subscriptions, and counts one closed', async () => {
    const a = await newTenant(t.db.prisma);
    const open: Subscriber[] = [];
    try {
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_TOKEN; i++)
        open.push(await subscribeTo(base, a.token, EVENTS, {}));
      expect(open.map((s) => s.status)).toEqual(open.map(() => 200));
      const refused = await subscribeTo(base, a.token, EVENTS, {});
      try {
        expect(refused.status).toBe(429);
        expect(await refusal(refused)).toEqual({ code: 'RATE_LIMITED', message: TOO_MANY_SUBSCRIPTIONS });
        expect(await refused.ended(5000)).toBe(true);
      } finally {
        refused.close();
      }
      // Another token of the same user has its own allowance.
      const other = await subscribeTo(
        base,
        (await issueToken(t.db.prisma, a.user_id, ['full'])).token,
        EVENTS,
        {},
      );
      other.close();
      expect(other.status).toBe(200);
      // A client that leaves frees its place (the server sees the close a moment later).
      open.shift()?.close();
      let again: Subscriber | undefined;
      for (let tries = 0; tries < 50 && again === undefined; tries++) {
        const sub = await subscribeTo(base, a.token, EVENTS, {});
        if (sub.status === 200) again = sub;
        else {
          sub.close();
          await sleep(100);
        }
      }
      if (!again) throw new Error('a closed subscription never freed its place');
      open.push(again);
      await write(t, a.tenant_id, 'after-close');
      expect((await take(again, 1)).events[0]?.resourceId).toBe('after-close-0');
    } finally {
      for (const s of open) s.close();
    }
  });

  it('finds in the table a write whose notice never came (another process, Redis away)', async () => {
    const a = await newTenant(t.db.prisma);
    const sub = await subscribeTo(base, a.token, EVENTS, { after: '0' });
    try {
      await write(t, a.tenant_id, 'first', 1);
      expect((await take(sub, 1)).frameIds).toEqual(['1']);
      // Recorded and committed, never announced (as the admin CLI's writes on another process).
      await t.db.prisma.$transaction((tx) =>
        recordEvents(tx, a.tenant_id, systemActor, [
          { type: 'guest.created', resourceType: 'guest', resourceId: 'silent', payload: {} },
          { type: 'guest.updated', resourceType: 'guest', resourceId: 'silent', payload: {} },
        ]),
      );
      await write(t, a.tenant_id, 'next', 1);
      const got = await take(sub, 3);
      expect(got.events.map((e) => [e.id, e.resourceId])).toEqual([
        ['2', 'silent'],
        ['3', 'silent'],
        ['4', 'next-0'],
      ]);
    } finally {
      sub.close();
    }
  });

  it("never sends another tenant's events", async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    await write(t, a.tenant_id, 'a-old', 1);
    const sub = await subscribeTo(base, a.token, EVENTS, { after: '0' });
    try {
      expect((await take(sub, 1)).events.map((e) => e.resourceId)).toEqual(['a-old-0']);
      await write(t, b.tenant_id, 'b', 3);
      await write(t, a.tenant_id, 'a', 1);
      const next = await take(sub, 1);
      expect(next.events.map((e) => [e.id, e.resourceId])).toEqual([['2', 'a-0']]);
    } finally {
      sub.close();
    }
  });

  it('pages the log: GET /events and Query.events after an id, with the types filter', async () => {
    const a = await newTenant(t.db.prisma);
    const created = await t.request('POST', '/api/v1/locations', { token: a.token, body: { name: 'Hall' } });
    expect(created.status, created.text).toBe(201);
    await write(t, a.tenant_id, 'g', 3);
    const page = await t.request('GET', '/api/v1/events?after=1&per_page=2', { token: a.token });
    expect(page.status, page.text).toBe(200);
    expect(page.json.data.map((e: { id: number }) => e.id)).toEqual([2, 3]);
    expect(page.json.data[0]).toMatchObject({
      id: 2,
      type: 'guest.created',
      actor: { type: 'system', user_id: null, token_id: null },
      request_id: null,
      resource_type: 'guest',
      resource_id: 'g-0',
      payload: { id: 'g-0' },
    });
    const first = await t.request('GET', '/api/v1/events?types[]=location.created', { token: a.token });
    expect(first.json.data).toHaveLength(1);
    expect(first.json.data[0]).toMatchObject({
      id: 1,
      type: 'location.created',
      actor: { type: 'user', user_id: a.user_id },
      payload: { name: 'Hall' },
    });
    expect(first.json.data[0].request_id).toBe(created.headers['x-request-id']);
    const bad = await t.request('GET', '/api/v1/events?types[]=guest.born', { token: a.token });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({
      message: 'The selected types.0 (guest.born) is invalid.',
      errors: { 'types.0': ['The selected types.0 (guest.born) is invalid.'] },
    });
    // A map is no list: the filter was dropped, every type answered (probe X).
    const map = await t.request('GET', '/api/v1/events?types[a]=guest.created', { token: a.token });
    expect([map.status, map.json]).toEqual([
      422,
      {
        message: 'The types field must be an array.',
        errors: { types: ['The types field must be an array.'] },
      },
    ]);
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    expect((await t.request('GET', '/api/v1/events', { token: venue.token })).status).toBe(403);
    const q = await t.graphql(a.token, '{ events(after: "2", first: 5) { id type payload actor { type } } }');
    expect(q.json).toEqual({
      data: {
        events: [
          { id: '3', type: 'guest.created', payload: '{"id":"g-1"}', actor: { type: 'system' } },
          { id: '4', type: 'guest.created', payload: '{"id":"g-2"}', actor: { type: 'system' } },
        ],
      },
    });
  });

  describe('an open stream whose credentials stop holding', () => {
    /**
     * Subscribed with `token`, one event received (the stream is open and delivering), and then
     * RECHECK_MS without a payload: the next payload is sent only if the credentials still hold.
     */
    async function delivering(tenantId: string, token: string): Promise<Subscriber> {
      const sub = await subscribeTo(base, token, EVENTS, { after: String(await lastId(tenantId)) });
      await write(t, tenantId, 'open');
      expect((await take(sub, 1)).events[0]?.resourceId).toBe('open-0');
      await sleep(RECHECK_MS + 50);
      return sub;
    }
    const lastId = async (tenantId: string) =>
      (await t.db.prisma.eventSequence.findUnique({ where: { tenantId } }))?.lastId ?? 0n;
    /** After a change (its own event the next payload) and more events: the stream's next frame, and whether it ended. */
    async function afterChange(tenantId: string, sub: Subscriber) {
      await write(t, tenantId, 'after', 2);
      const frame = await sub.nextFrame(5000);
      return { frame, ended: await sub.ended(5000) };
    }
    const unauthenticated = {
      errors: [{ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } }],
    };

    it('ends on the first payload after its token is revoked: an error, no event, no id', async () => {
      const a = await newTenant(t.db.prisma);
      const created = await t.request('POST', '/api/v1/api-tokens', {
        token: a.token,
        body: { name: 'live', scopes: ['read'] },
      });
      expect(created.status, created.text).toBe(201);
      const sub = await delivering(a.tenant_id, created.json.data.token);
      try {
        const revoked = await t.request('DELETE', `/api/v1/api-tokens/${created.json.data.id}`, {
          token: a.token,
        });
        expect(revoked.status).toBe(204);
        const { frame, ended } = await afterChange(a.tenant_id, sub);
        expect(frame).toEqual({ id: null, data: unauthenticated });
        expect(ended).toBe(true);
      } finally {
        sub.close();
      }
    });

    it('ends once its user is deactivated, and once its rights change (subscribe again)', async () => {
      const a = await newTenant(t.db.prisma);
      const deactivated = await addUser(t.db.prisma, a.tenant_id, 'tenant');
      const sub = await delivering(a.tenant_id, deactivated.token);
      try {
        const res = await t.request('PUT', `/api/v1/users/${deactivated.userId}/deactivate`, {
          token: a.token,
        });
        expect(res.status, res.text).toBe(204);
        expect(await afterChange(a.tenant_id, sub)).toEqual({
          frame: { id: null, data: unauthenticated },
          ended: true,
        });
      } finally {
        sub.close();
      }
      const changed = await addUser(t.db.prisma, a.tenant_id, 'tenant');
      const again = await delivering(a.tenant_id, changed.token);
      try {
        await t.db.prisma.user.update({
          where: { id: changed.userId },
          data: { permissions: ['guests.export'] },
        });
        expect(await afterChange(a.tenant_id, again)).toEqual({
          frame: {
            id: null,
            data: { errors: [{ message: RIGHTS_CHANGED, extensions: { code: 'UNAUTHENTICATED' } }] },
          },
          ended: true,
        });
      } finally {
        again.close();
      }
      // Subscribing again judges the new rights: the stream opens.
      const renewed = await delivering(a.tenant_id, changed.token);
      renewed.close();
    });
  });
});

describe('live subscriptions on shutdown', () => {
  it('end with their final event when the app closes', async () => {
    const t = await startApp();
    const base = await listen(t);
    const a = await newTenant(t.db.prisma);
    await write(t, a.tenant_id, 'x', 1);
    const events = await subscribeTo(base, a.token, EVENTS, { after: '0' });
    const presence = await subscribeTo(
      base,
      a.token,
      'subscription P($l: ID!, $after: ID) { presenceChanged(locationId: $l, after: $after) { eventId } }',
      { l: a.location_id, after: '1' },
    );
    try {
      expect((await take(events, 1)).frameIds).toEqual(['1']);
      await t.close();
      // The `complete` frame (`data:` empty).
      expect(await events.next(5000)).toBeNull();
      expect(await presence.next(5000)).toBeNull();
    } finally {
      events.close();
      presence.close();
    }
  });
});

describe.skipIf(!process.env.REDIS_URL)('the events subscription across two instances sharing Redis', () => {
  let one: TestApp;
  let two: TestApp;
  let base: string;
  beforeAll(async () => {
    const env = { REDIS_URL: process.env.REDIS_URL ?? '' };
    one = await startApp(env);
    two = await startApp(env, { db: one.db });
    base = await listen(two);
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  // Both apps share this process, so each one's commit listener publishes every write's notice: the
  // subscriber's instance hears each twice, through Redis only (its pubsub has no in-memory path).
  it("delivers to a subscriber of one instance, once each, what the other's API writes", async () => {
    const a = await newTenant(one.db.prisma);
    await write(one, a.tenant_id, 'old', 2);
    const sub = await subscribeTo(base, a.token, EVENTS, { after: '1' });
    try {
      expect((await take(sub, 1)).events.map((e) => e.id)).toEqual(['2']);
      for (const name of ['North', 'South']) {
        const res = await one.request('POST', '/api/v1/locations', { token: a.token, body: { name } });
        expect(res.status, res.text).toBe(201);
      }
      await write(one, a.tenant_id, 'bulk', 30); // more than a notice carries: read from the table
      const live = await take(sub, 32);
      expect(live.events.map((e) => e.id)).toEqual(range(3, 34));
      expect(live.events.slice(0, 2).map((e) => [e.type, e.actor.userId])).toEqual([
        ['location.created', a.user_id],
        ['location.created', a.user_id],
      ]);
    } finally {
      sub.close();
    }
  });
});

describe.skipIf(!process.env.REDIS_URL || !process.env.TEST_DATABASE_URL)(
  "the admin CLI's events, published through Redis as a server's (skipped without REDIS_URL and TEST_DATABASE_URL)",
  () => {
    const cliEnv = (redisUrl: string): NodeJS.ProcessEnv => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: process.env.TEST_DATABASE_URL,
        REDIS_URL: redisUrl,
      };
      delete env.DATA_DIR;
      return env;
    };

    it('token issue publishes its event on the tenant’s channel; with Redis away the command still succeeds', async () => {
      const t = await startApp();
      const a = await newTenant(t.db.prisma);
      await t.close();
      const listener = new Redis(process.env.REDIS_URL ?? '');
      const heard: string[] = [];
      listener.on('message', (_channel: string, message: string) => heard.push(message));
      try {
        await listener.subscribe(`eventsCommitted:${a.tenant_id}`);
        const run = await startAdmin(
          ['token', 'issue', '--user', a.user_id, '--json'],
          cliEnv(process.env.REDIS_URL ?? ''),
        ).exited(100_000);
        expect(run.code, run.stderr).toBe(0);
        for (const deadline = Date.now() + 5000; heard.length === 0 && Date.now() < deadline; )
          await new Promise((r) => setTimeout(r, 50));
        const notice = JSON.parse(heard[0] ?? '{}') as {
          lastId: string;
          events: { id: string; type: string; actorType: string }[];
        };
        expect(notice.lastId).toBe('1');
        expect(notice.events.map((e) => [e.id, e.type, e.actorType])).toEqual([
          ['1', 'api_token.created', 'system'],
        ]);

        // Nothing listens on port 1: the notice is dropped, the token is issued all the same.
        const away = await startAdmin(
          ['token', 'issue', '--user', a.user_id, '--json'],
          cliEnv('redis://127.0.0.1:1'),
        ).exited(100_000);
        expect(away.code, away.stderr).toBe(0);
        expect(JSON.parse(away.stdout).token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
        expect(away.stderr).toBe('');
        expect(heard).toHaveLength(1);
      } finally {
        listener.disconnect();
      }
    });
  },
);

// `presenceChanged` over Server-Sent Events: an ingest call reaches a subscriber of the same
// instance (in-memory pubsub) and of another instance sharing Redis. Real HTTP (the stream must
// arrive while the request is open), bounded in time, everything closed at the end.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTimedOutVisits } from '../src/modules/ingest/ingest.timeouts.js';
import { type PresenceChange, publishPresence } from '../src/modules/presence/presence.pubsub.js';
import { followPresence } from '../src/modules/presence/presence.resume.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { createAppPubSub } from '../src/redis/pubsub.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, addUser, newTenant } from './helpers/fixtures.js';
import { type Subscriber, subscribe, subscribeTo } from './helpers/sse.js';

async function listen(t: TestApp): Promise<string> {
  await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.fastify.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** Ingests one detection every 150 ms until the subscriber has an event (the subscription registers asynchronously). */
async function ingestUntilEvent(
  t: TestApp,
  token: string,
  zoneId: string,
  mac: string,
  sub: Subscriber,
): Promise<unknown> {
  const until = Date.now() + 10_000;
  let n = 0;
  while (Date.now() < until) {
    n += 1;
    const res = await t.request('POST', '/api/v1/ingest/presence', {
      token,
      body: {
        events: [
          {
            event_id: `sse-${mac}-${n}-${Date.now()}`,
            mac,
            data_type: 1,
            zone_id: zoneId,
            connected: true,
            seen_at: new Date().toISOString(),
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    try {
      return await sub.next(150);
    } catch {
      // not yet subscribed: send another
    }
  }
  throw new Error('the subscriber received nothing within 10 s');
}

async function venue(t: TestApp) {
  const a = await newTenant(t.db.prisma);
  const locationId = await addHierarchy(t.db.prisma, a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
  const zone = await t.db.prisma.zone.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
  const ingest = (await issueToken(t.db.prisma, a.user_id, ['ingest'])).token;
  return { a, locationId, zone, ingest };
}

describe('presenceChanged over SSE, one instance', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('pushes the change an ingest call causes', async () => {
    const { a, locationId, zone, ingest } = await venue(t);
    const sub = await subscribe(base, a.token, locationId);
    try {
      expect(sub.status).toBe(200);
      const event = await ingestUntilEvent(t, ingest, zone.id, 'AA:BB:CC:DD:00:01', sub);
      expect(event).toEqual({
        data: {
          presenceChanged: {
            locationId,
            macAddresses: ['AA:BB:CC:DD:00:01'],
            sessions: [{ macAddress: 'AA:BB:CC:DD:00:01', zone: 'Z0', connected: true }],
          },
        },
      });
    } finally {
      sub.close();
    }
  });

  it('passes the same auth gate: no token is 401, another tenant or location is not found', async () => {
    const { locationId } = await venue(t);
    const anonymous = await subscribe(base, undefined, locationId);
    expect(anonymous.status).toBe(401);
    anonymous.close();
    const b = await newTenant(t.db.prisma);
    const pinned = await addUser(t.db.prisma, b.tenant_id, 'venue', { locationId: b.location_id });
    for (const token of [b.token, pinned.token]) {
      const sub = await subscribe(base, token, locationId);
      try {
        const event = (await sub.next(5000)) as { errors?: { extensions: { code: string } }[] };
        expect(event.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
      } finally {
        sub.close();
      }
    }
  });
});

describe('presenceChanged and token scopes', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a `read` token subscribes (a subscription is a read); an `ingest` token is FORBIDDEN', async () => {
    const { a, locationId, zone, ingest } = await venue(t);
    const read = (await issueToken(t.db.prisma, a.user_id, ['read'])).token;
    const sub = await subscribe(base, read, locationId);
    try {
      expect(sub.status).toBe(200);
      const event = (await ingestUntilEvent(t, ingest, zone.id, 'AA:BB:CC:DD:00:03', sub)) as {
        data: { presenceChanged: { macAddresses: string[] } };
      };
      expect(event.data.presenceChanged.macAddresses).toEqual(['AA:BB:CC:DD:00:03']);
    } finally {
      sub.close();
    }
    const refused = await subscribe(base, ingest, locationId);
    try {
      const event = (await refused.next(5000)) as { errors?: { extensions: { code: string } }[] };
      expect(event.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    } finally {
      refused.close();
    }
  });
});

describe.skipIf(!process.env.REDIS_URL)('presenceChanged across two instances sharing Redis', () => {
  let one: TestApp;
  let two: TestApp;
  let base: string;
  beforeAll(async () => {
    const env = { REDIS_URL: process.env.REDIS_URL ?? '' };
    one = await startApp(env);
    two = await startApp(env, { db: one.db });
    base = await listen(one);
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  it('delivers to a subscriber of one instance the ingest of the other', async () => {
    const { a, locationId, zone, ingest } = await venue(one);
    const sub = await subscribe(base, a.token, locationId);
    try {
      const event = (await ingestUntilEvent(two, ingest, zone.id, 'AA:BB:CC:DD:00:02', sub)) as {
        data: { presenceChanged: { macAddresses: string[] } };
      };
      expect(event.data.presenceChanged.macAddresses).toEqual(['AA:BB:CC:DD:00:02']);
    } finally {
      sub.close();
    }
  });
});

describe('presenceChanged resumed after an event id', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp();
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const RESUMED = `subscription Watch($locationId: ID!, $after: ID) {
    presenceChanged(locationId: $locationId, after: $after) { macAddresses eventId sessions { macAddress } }
  }`;
  const position = async (tenantId: string): Promise<string> =>
    String((await t.db.prisma.eventSequence.findUniqueOrThrow({ where: { tenantId } })).lastId);
  let n = 0;
  const detect = async (token: string, zoneId: string, mac: string, seenAt = new Date()) => {
    const res = await t.request('POST', '/api/v1/ingest/presence', {
      token,
      body: {
        events: [
          {
            event_id: `resume-${++n}-${Date.now()}`,
            mac,
            data_type: 1,
            connected: true,
            zone_id: zoneId,
            seen_at: seenAt.toISOString(),
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
  };
  type Change = { data: { presenceChanged: { macAddresses: string[]; eventId: string | null } } };

  it('first names the devices that entered or left since, then the live changes, at their log positions', async () => {
    const { a, locationId, zone, ingest } = await venue(t);
    await detect(ingest, zone.id, 'AA:BB:CC:00:00:01');
    const seen = await position(a.tenant_id);
    await detect(ingest, zone.id, 'AA:BB:CC:00:00:02');
    const missedThrough = await position(a.tenant_id);
    const sub = await subscribeTo(base, a.token, RESUMED, { locationId, after: seen });
    try {
      const first = await sub.nextFrame(5000);
      expect(first.data).toEqual({
        data: {
          presenceChanged: {
            macAddresses: ['AA:BB:CC:00:00:02'],
            eventId: missedThrough,
            sessions: [{ macAddress: 'AA:BB:CC:00:00:02' }],
          },
        },
      });
      expect(first.id).toBe(missedThrough);
      await detect(ingest, zone.id, 'AA:BB:CC:00:00:03');
      const live = await sub.nextFrame(5000);
      const now = await position(a.tenant_id);
      expect((live.data as Change).data.presenceChanged).toEqual({
        macAddresses: ['AA:BB:CC:00:00:03'],
        eventId: now,
        sessions: [{ macAddress: 'AA:BB:CC:00:00:03' }],
      });
      expect(live.id).toBe(now);
    } finally {
      sub.close();
    }
    // A blank `after` is no value: the reconnection's `Last-Event-ID` resumes, as for `events`.
    const resent = await subscribeTo(
      base,
      a.token,
      RESUMED,
      { locationId, after: '' },
      { headers: { 'Last-Event-ID': seen } },
    );
    try {
      const first = await resent.nextFrame(5000);
      expect((first.data as Change).data.presenceChanged.macAddresses).toEqual([
        'AA:BB:CC:00:00:02',
        'AA:BB:CC:00:00:03',
      ]);
    } finally {
      resent.close();
    }
    // A past `after` beyond the log is refused, as the events subscription refuses it.
    const bad = await subscribeTo(base, a.token, RESUMED, {
      locationId,
      after: String(Number(missedThrough) + 99),
    });
    try {
      const body = (await bad.next(5000)) as { errors: { message: string }[] };
      expect(body.errors[0]?.message).toMatch(/^The after field must not be greater than \d+\.$/);
    } finally {
      bad.close();
    }
  });

  it('keeps log order when changes arrive out of it (two instances publishing): a gap is read from the log, ids never go back (probe R)', async () => {
    const { a, locationId, zone, ingest } = await venue(t);
    // A pubsub of the test's own: the changes reach the subscriber only as the test publishes them.
    const { pubsub, endSubscriptions } = createAppPubSub(undefined);
    const follow = (after: bigint | null) =>
      followPresence({ prisma: t.db.prisma, pubsub, tenantId: a.tenant_id, locationId, after })[
        Symbol.asyncIterator
      ]();
    try {
      const start = BigInt(await position(a.tenant_id));
      const live = follow(null);
      const firstLive = live.next();
      // A second subscriber of the location in this process: the gap is read once for both.
      const other = follow(null);
      const otherFirst = other.next();
      await new Promise((r) => setTimeout(r, 200)); // listening, and the position read
      const logReads: string[] = [];
      const stopWatching = t.db.onQuery((sql) => {
        if (sql.includes('array_agg(DISTINCT')) logReads.push(sql);
      });
      await detect(ingest, zone.id, 'AA:BB:CC:00:01:01');
      const afterA = BigInt(await position(a.tenant_id));
      await detect(ingest, zone.id, 'AA:BB:CC:00:01:02');
      const afterB = BigInt(await position(a.tenant_id));
      const change = (mac: string, first: bigint, last: bigint): PresenceChange => ({
        tenantId: a.tenant_id,
        locationId,
        macs: [mac],
        at: new Date().toISOString(),
        eventId: String(last),
        firstEventId: String(first),
      });
      // B's instance publishes first, A's later.
      const topic = `${a.tenant_id}:${locationId}`;
      pubsub.publish('presenceChanged', topic, change('AA:BB:CC:00:01:02', afterA + 1n, afterB));
      pubsub.publish('presenceChanged', topic, change('AA:BB:CC:00:01:01', start + 1n, afterA));
      // B's change names A too (its entry, read from the log), at B's position; A's, late, names A
      // again under that position: a client resuming from any id it was given misses nothing.
      expect((await firstLive).value).toMatchObject({
        macs: ['AA:BB:CC:00:01:01', 'AA:BB:CC:00:01:02'],
        eventId: String(afterB),
      });
      expect((await live.next()).value).toMatchObject({
        macs: ['AA:BB:CC:00:01:01'],
        eventId: String(afterB),
      });
      expect((await otherFirst).value).toMatchObject({
        macs: ['AA:BB:CC:00:01:01', 'AA:BB:CC:00:01:02'],
        eventId: String(afterB),
      });
      stopWatching();
      expect(logReads).toHaveLength(1);
      await live.return?.();
      await other.return?.();

      // Resumed from A's position: the first change names B; the late A (before it) is not sent again.
      const resumed = follow(afterA);
      expect((await resumed.next()).value).toMatchObject({
        macs: ['AA:BB:CC:00:01:02'],
        eventId: String(afterB),
      });
      pubsub.publish('presenceChanged', topic, change('AA:BB:CC:00:01:01', start + 1n, afterA));
      await detect(ingest, zone.id, 'AA:BB:CC:00:01:03');
      const afterC = BigInt(await position(a.tenant_id));
      pubsub.publish('presenceChanged', topic, change('AA:BB:CC:00:01:03', afterB + 1n, afterC));
      expect((await resumed.next()).value).toMatchObject({
        macs: ['AA:BB:CC:00:01:03'],
        eventId: String(afterC),
      });
      await resumed.return?.();
    } finally {
      endSubscriptions();
    }
  });

  it('reaches subscribers with the devices that left by timeout (the event sweeper)', async () => {
    const { a, locationId, zone, ingest } = await venue(t);
    await detect(ingest, zone.id, 'AA:BB:CC:00:00:09', new Date(Date.now() - 3600_000));
    const sub = await subscribeTo(base, a.token, RESUMED, { locationId, after: await position(a.tenant_id) });
    try {
      // Nothing missed: no first change. The sweep of this tenant alone (others' tests run meanwhile).
      const cutoff = new Date(Date.now() - t.config.activeWindowSeconds * 1000);
      const closed = await closeTimedOutVisits(
        t.db.prisma,
        a.tenant_id,
        new Date(Date.now() - 86_400_000),
        cutoff,
        undefined,
        (left, eventId) => publishPresence(t.app.pubsub, a.tenant_id, left, eventId),
      );
      expect(closed).toBe(1);
      const change = (await sub.next(5000)) as Change;
      expect(change.data.presenceChanged).toEqual({
        macAddresses: ['AA:BB:CC:00:00:09'],
        eventId: await position(a.tenant_id),
        sessions: [],
      });
    } finally {
      sub.close();
    }
  });
});

// The retention settings reach the event log: a pass that deletes guest sessions or location logs
// deletes the events copying them (`guest_session.*`, `presence.zone_*`, found by the row's id) in the
// same statement, so GET /events and a webhook replay no longer hold what the settings removed.
// Newer copies, other types (`device.first_seen`, `presence.location_*`: the device and the visit are
// kept by every setting) and other tenants stay; a setting that is off touches no event. Readers of
// the log (its pages, followLog, a webhook stream's windows) resume before such a hole and go on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetention } from '../src/cli/retention.js';
import { followLog, readLog } from '../src/events/feed.js';
import type { RecordedEvent } from '../src/events/outbox.js';
import { readStream } from '../src/events/webhook-stream.js';
import { retentionSettingsOf } from '../src/modules/retention/retention.service.js';
import {
  applyRetention,
  countRetention,
  cutoffsOf,
  noCounts,
} from '../src/modules/retention/retention.sweep.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addGuest, addHierarchy, newTenant, randomMac } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const prisma = () => t.db.prisma;
const DAY = 86_400_000;
/** Whole seconds, `days` ago (plus `seconds`). */
const ago = (days: number, seconds = 0): string =>
  new Date(Math.floor(Date.now() / 1000) * 1000 - days * DAY + seconds * 1000).toISOString();

let n = 0;
const eid = (): string => `re-${Date.now()}-${++n}`;

async function send(kind: 'presence' | 'sessions', token: string, events: Record<string, unknown>[]) {
  const res = await t.request('POST', `/api/v1/ingest/${kind}`, { token, body: { events } });
  expect(res.status, res.text).toBe(200);
}

interface Listed {
  id: number;
  type: string;
  resource_id: string;
}

/** GET /api/v1/events, every page of `perPage` after `after`. */
async function listed(token: string, after = 0, perPage = 100): Promise<Listed[]> {
  const out: Listed[] = [];
  for (let from = after; ; ) {
    const res = await t.request('GET', `/api/v1/events?after=${from}&per_page=${perPage}`, { token });
    expect(res.status, res.text).toBe(200);
    const page = (res.json as { data: Listed[] }).data;
    out.push(...page.map((e) => ({ id: e.id, type: e.type, resource_id: e.resource_id })));
    const last = page.at(-1);
    if (!last || page.length < perPage) return out;
    from = last.id;
  }
}

/**
 * A tenant with `settings` (PUT /settings/retention) and, through the ingest: a session 40 days
 * old (started and ended) and one of 5 days; a device in zone A then zone B 40 days ago, back in
 * zone A 2 days ago (the old visit then closed by timeout, its zone B leave recorded now).
 */
async function world(settings: Record<string, number | null> | null) {
  const a = await newTenant(prisma());
  const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 2 });
  const zones = await prisma().zone.findMany({
    where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
    orderBy: { name: 'asc' },
  });
  const [z0, z1] = zones.map((z) => z.id) as [string, string];
  const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
  const guest = await addGuest(prisma(), a.tenant_id, locationId);
  const session = (mac: string, ip: string, days: number) =>
    ['start', 'stop'].map((kind, i) => ({
      event_id: eid(),
      kind,
      mac,
      ip,
      location_id: locationId,
      guest_id: guest.id,
      login_type: 'Email',
      bytes_up: 0,
      bytes_down: 0,
      at: ago(days, i * 3600),
    }));
  await send('sessions', ingest, session(randomMac(), '10.0.0.40', 40));
  await send('sessions', ingest, session(randomMac(), '10.0.0.5', 5));
  const mac = randomMac();
  const seen = (zone: string, at: string) => ({
    event_id: eid(),
    mac,
    data_type: 1,
    connected: false,
    zone_id: zone,
    seen_at: at,
  });
  await send('presence', ingest, [seen(z0, ago(40)), seen(z1, ago(40, 30))]);
  await send('presence', ingest, [seen(z0, ago(2))]);
  if (settings) {
    const res = await t.request('PUT', '/api/v1/settings/retention', { token: a.token, body: settings });
    expect(res.status, res.text).toBe(200);
  }
  const sessions = await prisma().guestSession.findMany({
    where: { tenantId: a.tenant_id },
    orderBy: { startTime: 'asc' },
    select: { id: true },
  });
  const logs = await prisma().locationLog.findMany({
    where: { tenantId: a.tenant_id },
    orderBy: { timestamp: 'asc' },
    select: { id: true },
  });
  return {
    a,
    tenantId: a.tenant_id,
    sessions: sessions.map((s) => s.id) as [string, string],
    logs: logs.map((l) => l.id) as [string, string, string],
  };
}

const PROBE = {
  delete_presence_records_after_days: 10,
  delete_location_logs_after_days: 10,
  delete_guest_sessions_after_days: 30,
};

async function pass(tenantId: string) {
  const cutoffs = cutoffsOf(await retentionSettingsOf(prisma(), tenantId), new Date());
  return applyRetention({ prisma: prisma(), config: t.config }, tenantId, cutoffs);
}

async function counted(tenantId: string) {
  const cutoffs = cutoffsOf(await retentionSettingsOf(prisma(), tenantId), new Date());
  return countRetention(prisma(), tenantId, cutoffs);
}

describe('a retention pass and the event log', { timeout: 60_000 }, () => {
  it('the dry run counts the zone leave the pass writes, then deletes with its old zone visit (probe D)', async () => {
    const a = await newTenant(prisma());
    await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
    const zone = await prisma().zone.findFirstOrThrow({ where: { tenantId: a.tenant_id } });
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    // One detection three days old: a visit (location and zone entered) still open.
    await send('presence', ingest, [
      { event_id: eid(), mac: randomMac(), data_type: 1, connected: true, zone_id: zone.id, seen_at: ago(3) },
    ]);
    const res = await t.request('PUT', '/api/v1/settings/retention', {
      token: a.token,
      body: { delete_location_logs_after_days: 1, delete_presence_records_after_days: 1 },
    });
    expect(res.status, res.text).toBe(200);
    const expected = { ...noCounts(), presence_records: 1, location_logs: 1, events: 2 };
    expect(await counted(a.tenant_id)).toEqual(expected);
    expect(await pass(a.tenant_id)).toEqual(expected);
    // The visit's entry and its leave by timeout stay; the zone visit's copies went with it.
    expect((await listed(a.token)).map((e) => e.type).filter((type) => type.startsWith('presence.'))).toEqual(
      ['presence.location_entered', 'presence.location_left'],
    );
  });

  it('deletes the copies of the rows it deletes, older than the cut-off; newer ones, other types and other tenants stay', async () => {
    const w = await world(PROBE);
    const other = await world(null);
    const before = await listed(w.a.token);
    const [oldSession, newSession] = w.sessions;
    const [logA, logB, logA2] = w.logs;
    const copies = (e: Listed) =>
      ((e.type === 'guest_session.started' || e.type === 'guest_session.ended') &&
        e.resource_id === oldSession) ||
      (e.type.startsWith('presence.zone_') && (e.resource_id === logA || e.resource_id === logB));
    // zone A entered and left, zone B entered and left (by timeout, recorded 2 days ago's batch).
    expect(before.filter(copies).map((e) => e.type)).toEqual([
      'guest_session.started',
      'guest_session.ended',
      'presence.zone_entered',
      'presence.zone_left',
      'presence.zone_entered',
      'presence.zone_left',
    ]);
    const otherBefore = await listed(other.a.token);

    const expected = { ...noCounts(), presence_records: 2, location_logs: 2, guest_sessions: 1, events: 6 };
    expect(await counted(w.tenantId)).toEqual(expected);
    expect(await pass(w.tenantId)).toEqual(expected);

    const after = await listed(w.a.token);
    expect(after).toEqual(before.filter((e) => !copies(e)));
    // What stays: the newer session's events, the zone visit of 2 days ago, the devices' first
    // sightings, the location visits' entries and leaves, the settings' change.
    expect(after.filter((e) => e.resource_id === newSession).map((e) => e.type)).toEqual([
      'guest_session.started',
      'guest_session.ended',
    ]);
    expect(after.filter((e) => e.resource_id === logA2).map((e) => e.type)).toEqual([
      'presence.zone_entered',
    ]);
    // The sessions' two devices (the presence MAC is no one's device).
    expect(after.filter((e) => e.type === 'device.first_seen')).toHaveLength(2);
    expect(after.filter((e) => e.type.startsWith('presence.location_')).map((e) => e.type)).toEqual([
      'presence.location_entered',
      'presence.location_left',
      'presence.location_entered',
    ]);
    // The removed session's address stays only where its device keeps it (GET /guest-devices shows it).
    const holding = await prisma().event.findMany({
      where: { tenantId: w.tenantId },
      select: { type: true, payload: true },
    });
    expect(holding.filter((e) => JSON.stringify(e.payload).includes('10.0.0.40')).map((e) => e.type)).toEqual(
      ['device.first_seen'],
    );
    // Another tenant's identical copies stay; a second pass finds nothing.
    expect(await listed(other.a.token)).toEqual(otherBefore);
    expect(await counted(w.tenantId)).toEqual(noCounts());
    expect(await pass(w.tenantId)).toEqual(noCounts());
  });

  it('a setting that is off touches no event: presence records alone delete rows, no copy', async () => {
    const w = await world({ delete_presence_records_after_days: 10 });
    const before = await listed(w.a.token);
    expect(await counted(w.tenantId)).toEqual({ ...noCounts(), presence_records: 2 });
    expect(await pass(w.tenantId)).toEqual({ ...noCounts(), presence_records: 2 });
    expect(await listed(w.a.token)).toEqual(before);
    expect(await prisma().locationLog.count({ where: { tenantId: w.tenantId } })).toBe(3);
  });

  it('`admin retention run --dry-run` counts the copies apart from their rows, and changes nothing', async () => {
    const w = await world({ delete_guest_sessions_after_days: 30 });
    const before = await listed(w.a.token);
    const lines: string[] = [];
    const run = await runRetention(t.db, t.config, {
      tenantId: w.tenantId,
      dryRun: true,
      stderr: { write: (s: string) => lines.push(s) },
    });
    expect(run?.result).toEqual({
      tenant_id: w.tenantId,
      dry_run: true,
      inactive_guests: null,
      presence_records: null,
      location_logs: null,
      guest_sessions: 1,
      events: 2,
    });
    expect(run?.text.split('\n').at(-1)).toMatch(/^ {2}their copies in the event log to delete +2$/);
    expect(await listed(w.a.token)).toEqual(before);
    expect(await pass(w.tenantId)).toEqual({ ...noCounts(), guest_sessions: 1, events: 2 });
  });
});

describe('`admin retention run` stopped before its first batch', () => {
  it('says so on its progress bar, not "nothing to remove" (probe F), and removes nothing', async () => {
    const w = await world({ delete_guest_sessions_after_days: 30 });
    const lines: string[] = [];
    const stop = new AbortController();
    stop.abort();
    const run = await runRetention(t.db, t.config, {
      tenantId: w.tenantId,
      dryRun: false,
      stderr: { write: (s: string) => lines.push(s) },
      signal: stop.signal,
    });
    expect(run?.stopped).toBe('stopped before removing anything.');
    expect(lines.at(-1)).toMatch(/ 0\/1 stopped before removing anything\n$/);
    expect(lines.join('')).not.toContain('nothing to remove');
    expect(await pass(w.tenantId)).toEqual({ ...noCounts(), guest_sessions: 1, events: 2 });
  });
});

describe('readers of a log with a hole in the middle', { timeout: 60_000 }, () => {
  it('pages, followLog and a webhook stream resume before the hole and go on past it', async () => {
    const w = await world(PROBE);
    const before = await listed(w.a.token);
    await pass(w.tenantId);
    const kept = await listed(w.a.token);
    const keptIds = new Set(kept.map((e) => e.id));
    const firstGone = before.findIndex((e) => !keptIds.has(e.id));
    expect(firstGone).toBeGreaterThan(0);
    const resumeAt = before[firstGone - 1]?.id ?? 0;
    const expected = kept.filter((e) => e.id > resumeAt).map((e) => e.id);
    expect(expected.length).toBeGreaterThan(1);

    // GET /events in pages of 1 and 2 across the hole.
    for (const perPage of [1, 2]) {
      expect((await listed(w.a.token, resumeAt, perPage)).map((e) => e.id)).toEqual(expected);
    }
    // The table read the live feed makes: one page past the hole, up to the tenant's last id.
    const page = await readLog(prisma(), w.tenantId, BigInt(resumeAt), { limit: 2 });
    expect(page.events.map((e) => Number(e.id))).toEqual(expected.slice(0, 2));

    // followLog from before the hole: the kept events, then one written afterwards, live.
    const feed = followLog({
      prisma: prisma(),
      pubsub: t.app.pubsub,
      tenantId: w.tenantId,
      after: BigInt(resumeAt),
    });
    const got: number[] = [];
    const next = async (): Promise<RecordedEvent> => {
      const r = await feed.next();
      if (r.done) throw new Error('the feed ended');
      return r.value;
    };
    for (const _ of expected) got.push(Number((await next()).id));
    expect(got).toEqual(expected);
    const res = await t.request('PUT', '/api/v1/settings/retention', {
      token: w.a.token,
      body: { delete_location_logs_after_days: 11 },
    });
    expect(res.status, res.text).toBe(200);
    const live = await next();
    expect(live.type).toBe('retention_settings.updated');
    expect(Number(live.id)).toBe((kept.at(-1)?.id ?? 0) + 1);
    await feed.return?.();

    // A webhook stream's windows of 2 events from before the hole.
    const hook = await prisma().webhook.create({
      data: { tenantId: w.tenantId, url: 'https://example.com/hook', events: ['*'], secret: 'plain:whsec_x' },
    });
    const streamed: number[] = [];
    let place = BigInt(resumeAt);
    for (let i = 0; i < 50; i++) {
      const win = await readStream(prisma(), { webhookId: hook.id, tenantId: w.tenantId }, place, 2);
      streamed.push(...win.events.map((e) => Number(e.id)));
      if (win.readTo === null) break;
      expect(win.readTo).toBeGreaterThan(place);
      place = win.readTo;
    }
    expect(streamed).toEqual([...expected, Number(live.id)]);
  });
});

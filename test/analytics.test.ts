// Location analytics (spec 2.7–2.9, 4.5 and the decisions): active sessions from the current-presence
// table (every filter and field, the window edge, the statement shapes), the location session detail,
// and the deprecated endpoints before and after their sunset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../src/auth/principal.js';
import { activeSessionsQuery, listActiveSessions } from '../src/modules/analytics/analytics.service.js';
import { newId } from '../src/modules/ingest/ingest.batch.js';
import { upsertCurrentPresence } from '../src/modules/ingest/ingest.presence.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, addUser, newTenant, uniqueName } from './helpers/fixtures.js';

let t: TestApp;
/** The same database, with the deprecated endpoints still before their sunset. */
let served: TestApp;
beforeAll(async () => {
  t = await startApp();
  served = await startApp({ LEGACY_ANALYTICS_SUNSET: '2099-01-01' }, { db: t.db });
});
afterAll(async () => {
  await served.close();
  await t.close();
});

const URL = '/api/v1/locations-analytics/active-sessions';
const prisma = () => t.db.prisma;

interface Place {
  locationId: string;
  buildingId: string;
  floorId: string;
  zoneId: string;
}

/** A venue with 1 building × 2 floors × 2 zones; its places in hierarchy order. */
async function venue(tenantId: string, name?: string) {
  const locationId = await addHierarchy(prisma(), tenantId, { name, buildings: 1, floors: 2, zones: 2 });
  const zones = await prisma().zone.findMany({
    where: { tenantId, floor: { building: { locationId } } },
    include: { floor: true },
    orderBy: [{ floor: { level: 'asc' } }, { name: 'asc' }],
  });
  const places: Place[] = zones.map((z) => ({
    locationId,
    buildingId: z.floor.buildingId,
    floorId: z.floorId,
    zoneId: z.id,
  }));
  return { locationId, places: places as [Place, Place, Place, Place] };
}

let macCounter = 0;
const nextMac = (): string => {
  macCounter += 1;
  const hex = macCounter.toString(16).padStart(6, '0').toUpperCase();
  return `0A:00:00:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}`;
};

/** A presence record (and the device's current row), `ago` seconds before now. */
async function present(
  tenantId: string,
  mac: string,
  at: Partial<Place> & { locationId: string },
  opts: { ago?: number; seenAt?: Date; dataType?: number; connected?: boolean; x?: number; y?: number } = {},
) {
  const record = {
    id: newId(),
    tenantId,
    mac,
    dataType: opts.dataType ?? 1,
    x: opts.x ?? null,
    y: opts.y ?? null,
    locationId: at.locationId,
    buildingId: at.buildingId ?? null,
    floorId: at.floorId ?? null,
    zoneId: at.zoneId ?? null,
    connected: opts.connected ?? false,
    seenAt: opts.seenAt ?? new Date(Date.now() - (opts.ago ?? 10) * 1000),
  };
  await prisma().presenceRecord.create({ data: record });
  await upsertCurrentPresence(prisma(), [record]);
}

async function guestWithDevice(
  tenantId: string,
  locationId: string,
  data: { gender?: number; nationalityCode?: string; residencyCode?: string; tags?: string[] } = {},
) {
  const mac = nextMac();
  const guest = await prisma().guest.create({
    data: {
      tenantId,
      locationId,
      username: uniqueName('guest'),
      name: 'Guest',
      gender: data.gender ?? 0,
      nationalityCode: data.nationalityCode ?? null,
      residencyCode: data.residencyCode ?? null,
    },
  });
  await prisma().guestDevice.create({ data: { tenantId, guestId: guest.id, mac } });
  const tags = [];
  for (const name of data.tags ?? []) {
    const tag = await prisma().tag.upsert({
      where: { tenantId_name: { tenantId, name } },
      create: { tenantId, name },
      update: {},
    });
    await prisma().guestTag.create({ data: { tenantId, guestId: guest.id, tagId: tag.id } });
    tags.push(tag);
  }
  return { guest, mac, tags };
}

const macsOf = (res: { json: { data: { mac_address: string }[] } }) =>
  res.json.data.map((d) => d.mac_address).sort();

// -------------------------------------------------------------------------------------------------
describe.sequential('active sessions statement shapes', () => {
  it('sends the same statements for 3 and for 300 present devices', async () => {
    const run = async (devices: number) => {
      const a = await newTenant(prisma());
      const { places } = await venue(a.tenant_id);
      // In bulk: guests with a device and two tags each, all present.
      const tenantId = a.tenant_id;
      const rows = Array.from({ length: devices }, () => ({ guestId: newId(), mac: nextMac() }));
      await prisma().guest.createMany({
        data: rows.map((r) => ({
          id: r.guestId,
          tenantId,
          locationId: a.location_id,
          username: r.mac,
          name: 'G',
        })),
      });
      await prisma().guestDevice.createMany({
        data: rows.map((r) => ({ tenantId, guestId: r.guestId, mac: r.mac })),
      });
      const tags = await Promise.all(
        ['VIP', 'Staff'].map((name) => prisma().tag.create({ data: { tenantId, name } })),
      );
      await prisma().guestTag.createMany({
        data: rows.flatMap((r) => tags.map((tag) => ({ tenantId, guestId: r.guestId, tagId: tag.id }))),
      });
      const records = rows.map((r, i) => ({
        id: newId(),
        tenantId,
        mac: r.mac,
        dataType: 1,
        ...(places[i % 4] as Place),
        connected: i % 2 === 0,
        seenAt: new Date(Date.now() - 10_000),
      }));
      await prisma().presenceRecord.createMany({ data: records });
      await upsertCurrentPresence(prisma(), records);
      const { result, sql } = await recordStatements(t.db, () => t.request('GET', URL, { token: a.token }));
      expect(result.status).toBe(200);
      expect(result.json.data).toHaveLength(devices);
      expect(result.json.data[devices - 1].segment).toHaveLength(2);
      return sql;
    };
    const small = await run(3);
    const large = await run(300);
    expect(small.length).toBeGreaterThan(0);
    expect(large).toEqual(small);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /locations-analytics/active-sessions', () => {
  it('writes every field of spec 2.9 in order, from the right source', async () => {
    const a = await newTenant(prisma());
    const { places } = await venue(a.tenant_id, uniqueName('Mall'));
    const p = places[1];
    const { guest, mac, tags } = await guestWithDevice(a.tenant_id, p.locationId, {
      gender: 2,
      nationalityCode: 'AE',
      residencyCode: 'GB',
      tags: ['Zeta', 'Alpha'],
    });
    const seenAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 30_000);
    await present(a.tenant_id, mac, p, { seenAt, dataType: 2, connected: true, x: 12, y: 3.25 });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    const loc = await prisma().location.findUniqueOrThrow({ where: { id: p.locationId } });
    const [alpha, zeta] = [...tags].sort((x, y) => x.name.localeCompare(y.name));
    expect(res.text).toBe(
      `{"data":[{"mac_address":"${mac}","data_type":2,"x":12.0,"y":3.25,` +
        `"location_id":"${p.locationId}","location":"${loc.name}","building_id":"${p.buildingId}","building":"B0",` +
        `"floor_id":"${p.floorId}","floor":"F0","zone_id":"${p.zoneId}","zone":"Z1",` +
        `"gender":"Female","nationality":"AE","country_of_residency":"GB","guest_id":"${guest.id}",` +
        `"segment":[{"id":"${alpha?.id}","name":"Alpha"},{"id":"${zeta?.id}","name":"Zeta"}],` +
        `"last_seen":"${seenAt.toISOString().slice(0, 19)}.000000Z","connected":1}]}`,
    );
  });

  it('writes nulls and an empty segment for an unknown device seen at a location only', async () => {
    const a = await newTenant(prisma());
    const mac = nextMac();
    await present(a.tenant_id, mac, { locationId: a.location_id });
    const res = await t.request('GET', URL, { token: a.token });
    const loc = await prisma().location.findUniqueOrThrow({ where: { id: a.location_id } });
    expect(res.json.data).toEqual([
      {
        mac_address: mac,
        data_type: 1,
        x: null,
        y: null,
        location_id: a.location_id,
        location: loc.name,
        building_id: null,
        building: null,
        floor_id: null,
        floor: null,
        zone_id: null,
        zone: null,
        gender: null,
        nationality: null,
        country_of_residency: null,
        guest_id: null,
        segment: [],
        last_seen: expect.any(String),
        connected: 0,
      },
    ]);
  });

  it('names genders Male, Female and Unknown', async () => {
    const a = await newTenant(prisma());
    const byGender = new Map<string, number>();
    for (const gender of [0, 1, 2]) {
      const { mac } = await guestWithDevice(a.tenant_id, a.location_id, { gender });
      byGender.set(mac, gender);
      await present(a.tenant_id, mac, { locationId: a.location_id });
    }
    const res = await t.request('GET', URL, { token: a.token });
    const names = Object.fromEntries(
      res.json.data.map((d: { mac_address: string; gender: string }) => [
        byGender.get(d.mac_address),
        d.gender,
      ]),
    );
    expect(names).toEqual({ 0: 'Unknown', 1: 'Male', 2: 'Female' });
  });

  it('reads one row per device: its latest record', async () => {
    const a = await newTenant(prisma());
    const { places } = await venue(a.tenant_id);
    const mac = nextMac();
    await present(a.tenant_id, mac, places[0], { ago: 60 });
    await present(a.tenant_id, mac, places[3], { ago: 5 });
    // An older record arriving late does not replace the newer one.
    await present(a.tenant_id, mac, places[1], { ago: 120 });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.json.data).toHaveLength(1);
    expect(res.json.data[0].zone_id).toBe(places[3].zoneId);
    const stale = await t.request('GET', `${URL}?zone_id=${places[0].zoneId}`, { token: a.token });
    expect(stale.json.data).toEqual([]);
  });

  it('filters by location, building, floor and zone of the latest record', async () => {
    const a = await newTenant(prisma());
    const one = await venue(a.tenant_id);
    const two = await venue(a.tenant_id);
    const [m1, m2, m3, m4] = [nextMac(), nextMac(), nextMac(), nextMac()];
    await present(a.tenant_id, m1, one.places[0]);
    await present(a.tenant_id, m2, one.places[1]);
    await present(a.tenant_id, m3, one.places[2]);
    await present(a.tenant_id, m4, two.places[0]);
    const get = (q: string) => t.request('GET', `${URL}?${q}`, { token: a.token });
    expect(macsOf(await get(`location_id=${one.locationId}`))).toEqual([m1, m2, m3].sort());
    expect(macsOf(await get(`building_id=${two.places[0].buildingId}`))).toEqual([m4]);
    expect(macsOf(await get(`floor_id=${one.places[0].floorId}`))).toEqual([m1, m2].sort());
    expect(macsOf(await get(`zone_id=${one.places[1].zoneId}`))).toEqual([m2]);
    expect(macsOf(await get(`floor_id=${one.places[2].floorId}&zone_id=${one.places[1].zoneId}`))).toEqual(
      [],
    );
  });

  it('filters by segment, data type and connection', async () => {
    const a = await newTenant(prisma());
    const vip = await guestWithDevice(a.tenant_id, a.location_id, { tags: ['VIP'] });
    const plain = await guestWithDevice(a.tenant_id, a.location_id, { tags: ['Staff'] });
    const anonymous = nextMac();
    await present(a.tenant_id, vip.mac, { locationId: a.location_id }, { dataType: 2, connected: true });
    await present(a.tenant_id, plain.mac, { locationId: a.location_id }, { dataType: 1, connected: true });
    await present(a.tenant_id, anonymous, { locationId: a.location_id }, { dataType: 1, connected: false });
    const get = (q: string) => t.request('GET', `${URL}?${q}`, { token: a.token });
    expect(macsOf(await get(`segment_id=${vip.tags[0]?.id}`))).toEqual([vip.mac]);
    expect(macsOf(await get('data_type=2'))).toEqual([vip.mac]);
    expect(macsOf(await get('data_type=1'))).toEqual([plain.mac, anonymous].sort());
    expect(macsOf(await get('connected=1'))).toEqual([plain.mac, vip.mac].sort());
    expect(macsOf(await get('connected=0'))).toEqual([anonymous]);
    expect(macsOf(await get('connected=1&data_type=1'))).toEqual([plain.mac]);
  });

  it('refuses bad filters with 422', async () => {
    const a = await newTenant(prisma());
    const res = await t.request('GET', `${URL}?data_type=3&connected=yes`, { token: a.token });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: 'The selected data type is invalid. (and 2 more errors)',
      errors: {
        data_type: ['The selected data type is invalid.'],
        connected: ['The connected field must be an integer.', 'The selected connected is invalid.'],
      },
    });
  });

  it('leaves out devices not seen within the window', async () => {
    const a = await newTenant(prisma());
    const [fresh, old] = [nextMac(), nextMac()];
    await present(a.tenant_id, fresh, { locationId: a.location_id }, { ago: 290 });
    await present(a.tenant_id, old, { locationId: a.location_id }, { ago: 301 });
    expect(macsOf(await t.request('GET', URL, { token: a.token }))).toEqual([fresh]);
  });

  it('counts a record exactly ACTIVE_WINDOW_SECONDS old as gone (younger than the window is active)', async () => {
    const a = await newTenant(prisma());
    const now = new Date('2026-11-21T12:00:00.000Z');
    const [edge, inside] = [nextMac(), nextMac()];
    await present(
      a.tenant_id,
      edge,
      { locationId: a.location_id },
      { seenAt: new Date(now.getTime() - 300_000) },
    );
    await present(
      a.tenant_id,
      inside,
      { locationId: a.location_id },
      { seenAt: new Date(now.getTime() - 299_999) },
    );
    const principal: Principal = {
      tokenId: 't',
      tokenExpiresAt: null,
      userId: 'u',
      userIntId: 0,
      role: 'tenant',
      tenantId: a.tenant_id,
      groupId: a.group_id,
      locationId: null,
      permissions: [],
      scopes: [],
    };
    const ctx = { prisma: prisma(), config: t.config, principal, requestId: 'r' };
    const rows = await listActiveSessions(ctx, await activeSessionsQuery.query(ctx, {}), { now });
    expect(rows.map((r) => r.mac)).toEqual([inside]);
  });

  it('shows venue and front-desk users only their location', async () => {
    const a = await newTenant(prisma());
    const other = await venue(a.tenant_id);
    const [here, there] = [nextMac(), nextMac()];
    await present(a.tenant_id, here, { locationId: a.location_id });
    await present(a.tenant_id, there, other.places[0]);
    for (const role of ['venue', 'front-desk'] as const) {
      const u = await addUser(prisma(), a.tenant_id, role, { locationId: a.location_id });
      expect(macsOf(await t.request('GET', URL, { token: u.token }))).toEqual([here]);
      const filtered = await t.request('GET', `${URL}?location_id=${other.locationId}`, { token: u.token });
      expect(filtered.json.data).toEqual([]);
    }
    expect(macsOf(await t.request('GET', URL, { token: a.token }))).toEqual([here, there].sort());
  });

  it("never shows another tenant's devices, even filtered by its ids", async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const { places } = await venue(a.tenant_id);
    const { mac, tags } = await guestWithDevice(a.tenant_id, a.location_id, { tags: ['VIP'] });
    await present(a.tenant_id, mac, places[0]);
    expect(macsOf(await t.request('GET', URL, { token: a.token }))).toEqual([mac]);
    for (const q of [
      '',
      `?location_id=${places[0].locationId}`,
      `?zone_id=${places[0].zoneId}`,
      `?segment_id=${tags[0]?.id}`,
    ]) {
      const res = await t.request('GET', `${URL}${q}`, { token: b.token });
      expect(res.status).toBe(200);
      expect(res.text).toBe('{"data":[]}');
    }
  });

  it('refuses unauthenticated callers and ingest-only tokens', async () => {
    const a = await newTenant(prisma());
    expect((await t.request('GET', URL)).status).toBe(401);
    const { token } = await issueToken(prisma(), a.user_id, ['ingest']);
    const res = await t.request('GET', URL, { token });
    expect(res.status).toBe(403);
    expect(res.text).toBe('{"message":"This action is unauthorized."}');
  });
});

// -------------------------------------------------------------------------------------------------
async function locationSession(
  tenantId: string,
  locationId: string,
  data: {
    mac?: string;
    guestId?: string;
    startedAt?: Date;
    endedAt?: Date | null;
    duration?: number;
    visitType?: number;
  } = {},
) {
  const startedAt = data.startedAt ?? new Date('2026-11-01T10:00:00Z');
  return prisma().locationSession.create({
    data: {
      tenantId,
      locationId,
      mac: data.mac ?? nextMac(),
      guestId: data.guestId ?? null,
      startedAt,
      endedAt: data.endedAt === undefined ? new Date(startedAt.getTime() + 3_600_000) : data.endedAt,
      duration: data.duration ?? 3600,
      visitType: data.visitType ?? 1,
    },
  });
}

describe.concurrent('GET /locations-analytics/sessions/:id', () => {
  it('answers the location session of spec 2.7', async () => {
    const a = await newTenant(prisma());
    const { guest, mac } = await guestWithDevice(a.tenant_id, a.location_id);
    const s = await locationSession(a.tenant_id, a.location_id, { mac, guestId: guest.id, visitType: 2 });
    const res = await t.request('GET', `/api/v1/locations-analytics/sessions/${s.id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.text).toBe(
      `{"data":{"id":"${s.id}","guest_id":"${guest.id}","location_id":"${a.location_id}","mac":"${mac}",` +
        `"started_at":"2026-11-01T10:00:00.000000Z","ended_at":"2026-11-01T11:00:00.000000Z",` +
        `"duration":"3600","visit_type":2}}`,
    );
  });

  it("answers 404 for an unknown id, another tenant's or another location's session", async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const other = await venue(a.tenant_id);
    const s = await locationSession(a.tenant_id, other.locationId, { endedAt: null });
    const get = (token: string, id: string) =>
      t.request('GET', `/api/v1/locations-analytics/sessions/${id}`, { token });
    expect((await get(a.token, s.id)).status).toBe(200);
    expect((await get(a.token, s.id)).json.data.ended_at).toBeNull();
    for (const res of [
      await get(a.token, 'nope'),
      await get(b.token, s.id),
      await get((await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id })).token, s.id),
    ]) {
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
  });
});

describe.concurrent('deprecated location analytics', () => {
  const paths = [
    '/api/v1/locations-analytics/sessions',
    '/api/v1/locations-analytics/sessions/count',
    '/api/v1/locations-analytics/location-logs',
    '/api/v1/locations-analytics/location-logs/count',
  ];

  it('serves before the sunset with Deprecation, Sunset and Link headers', async () => {
    const a = await newTenant(prisma());
    for (const path of paths) {
      const res = await served.request('GET', path, { token: a.token });
      expect(res.status).toBe(200);
      expect(res.headers.deprecation).toBe('@1748908800');
      expect(res.headers.sunset).toBe('Thu, 01 Jan 2099 00:00:00 GMT');
      expect(res.headers.link).toBe(
        '<http://localhost/api/v1/locations-analytics/active-sessions>; rel="successor-version"',
      );
    }
  });

  it('answers 410 from the sunset on, naming the replacement', async () => {
    const a = await newTenant(prisma());
    for (const path of paths) {
      const res = await t.request('GET', path, { token: a.token });
      expect(res.status).toBe(410);
      const count = path.endsWith('/count') ? ' and count the returned records' : '';
      expect(res.json).toEqual({
        message:
          'This endpoint was removed on 2026-06-01. Use GET /api/v1/locations-analytics/active-sessions ' +
          `(with connected=1 for connected sessions)${count}.`,
      });
      expect(res.headers.sunset).toBe('Mon, 01 Jun 2026 00:00:00 GMT');
      expect(res.headers.link).toContain('rel="successor-version"');
    }
    // Authentication still comes first.
    expect((await t.request('GET', paths[0] as string)).status).toBe(401);
  });

  it('lists location sessions newest first with every filter', async () => {
    const a = await newTenant(prisma());
    const other = await venue(a.tenant_id);
    const { guest, mac } = await guestWithDevice(a.tenant_id, a.location_id);
    const s1 = await locationSession(a.tenant_id, a.location_id, {
      mac,
      guestId: guest.id,
      startedAt: new Date('2026-11-01T10:00:00Z'),
    });
    const s2 = await locationSession(a.tenant_id, a.location_id, {
      startedAt: new Date('2026-11-02T10:00:00Z'),
      visitType: 2,
    });
    const s3 = await locationSession(a.tenant_id, other.locationId, {
      startedAt: new Date('2026-11-03T10:00:00Z'),
      endedAt: null,
    });
    const ids = async (q: string) => {
      const res = await served.request('GET', `/api/v1/locations-analytics/sessions${q}`, { token: a.token });
      expect(res.status, res.text).toBe(200);
      const count = await served.request('GET', `/api/v1/locations-analytics/sessions/count${q}`, {
        token: a.token,
      });
      expect(count.json.count).toBe(res.json.data.length);
      return res.json.data.map((d: { id: string }) => d.id);
    };
    expect(await ids('')).toEqual([s3.id, s2.id, s1.id]);
    expect(await ids(`?guest_id=${guest.id}`)).toEqual([s1.id]);
    expect(await ids(`?location_id=${other.locationId}`)).toEqual([s3.id]);
    expect(await ids(`?mac=${mac.toLowerCase()}`)).toEqual([s1.id]);
    expect(await ids('?started_at=2026-11-02 10:00')).toEqual([s3.id, s2.id]);
    expect(await ids('?ended_at=2026-11-01 11:00')).toEqual([s1.id]);
    expect(await ids('?visit_type=2')).toEqual([s2.id]);
    const page = await served.request('GET', '/api/v1/locations-analytics/sessions?per_page=1', {
      token: a.token,
    });
    expect(page.json.meta.per_page).toBe(1);
    expect(page.json.data[0]).toEqual({
      id: s3.id,
      guest_id: null,
      location_id: other.locationId,
      mac: s3.mac,
      started_at: '2026-11-03T10:00:00.000000Z',
      ended_at: null,
      duration: '3600',
      visit_type: 1,
    });
    expect(page.json.links.next).toBe(
      'http://localhost/api/v1/locations-analytics/sessions?per_page=1&page=2',
    );
    // Another tenant sees none of them.
    const b = await newTenant(prisma());
    const theirs = await served.request('GET', '/api/v1/locations-analytics/sessions/count', {
      token: b.token,
    });
    expect(theirs.text).toBe('{"count":0}');
  });

  it('refuses dates not in yyyy-mm-dd hh:ii with 422', async () => {
    const a = await newTenant(prisma());
    const res = await served.request(
      'GET',
      '/api/v1/locations-analytics/sessions?started_at=2026-11-02&ended_at=2026-11-02T10:00',
      { token: a.token },
    );
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual({
      started_at: ['The started at field must match the format Y-m-d H:i.'],
      ended_at: ['The ended at field must match the format Y-m-d H:i.'],
    });
    const logs = await served.request(
      'GET',
      '/api/v1/locations-analytics/location-logs/count?timestamp=yesterday',
      {
        token: a.token,
      },
    );
    expect(logs.status).toBe(422);
    expect(logs.json.errors).toEqual({ timestamp: ['The timestamp field must match the format Y-m-d H:i.'] });
  });

  it('lists location logs newest first with every filter', async () => {
    const a = await newTenant(prisma());
    const { places } = await venue(a.tenant_id);
    const { guest, mac } = await guestWithDevice(a.tenant_id, places[0].locationId);
    const s = await locationSession(a.tenant_id, places[0].locationId, { mac, guestId: guest.id });
    const other = await locationSession(a.tenant_id, places[0].locationId);
    const log = (sessionId: string, zoneId: string, at: string, g: string | null, m: string) =>
      prisma().locationLog.create({
        data: {
          tenantId: a.tenant_id,
          locationId: places[0].locationId,
          sessionId,
          guestId: g,
          guestMac: m,
          zoneId,
          timestamp: new Date(at),
          duration: 120,
        },
      });
    const l1 = await log(s.id, places[0].zoneId, '2026-11-01T10:00:00Z', guest.id, mac);
    const l2 = await log(s.id, places[1].zoneId, '2026-11-01T10:02:00Z', guest.id, mac);
    const l3 = await log(other.id, places[1].zoneId, '2026-11-01T10:05:00Z', null, other.mac);
    const stamps = async (q: string) => {
      const res = await served.request('GET', `/api/v1/locations-analytics/location-logs${q}`, {
        token: a.token,
      });
      expect(res.status, res.text).toBe(200);
      const count = await served.request('GET', `/api/v1/locations-analytics/location-logs/count${q}`, {
        token: a.token,
      });
      expect(count.json.count).toBe(res.json.data.length);
      return res.json.data.map((d: { timestamp: string }) => d.timestamp);
    };
    const iso = (l: { timestamp: Date }) => `${l.timestamp.toISOString().slice(0, 19)}.000000Z`;
    expect(await stamps('')).toEqual([iso(l3), iso(l2), iso(l1)]);
    expect(await stamps(`?guest_id=${guest.id}`)).toEqual([iso(l2), iso(l1)]);
    expect(await stamps(`?guest_mac=${mac}`)).toEqual([iso(l2), iso(l1)]);
    expect(await stamps(`?session_id=${other.id}`)).toEqual([iso(l3)]);
    expect(await stamps(`?zone_id=${places[1].zoneId}`)).toEqual([iso(l3), iso(l2)]);
    expect(await stamps('?timestamp=2026-11-01 10:02')).toEqual([iso(l3), iso(l2)]);
    const res = await served.request(
      'GET',
      `/api/v1/locations-analytics/location-logs?session_id=${other.id}`,
      {
        token: a.token,
      },
    );
    expect(JSON.stringify(res.json.data)).toBe(
      `[{"guest_id":null,"guest_mac":"${other.mac}","session_id":"${other.id}","zone_id":"${places[1].zoneId}",` +
        `"timestamp":"2026-11-01T10:05:00.000000Z","duration":"120"}]`,
    );
    const b = await newTenant(prisma());
    const theirs = await served.request('GET', '/api/v1/locations-analytics/location-logs', {
      token: b.token,
    });
    expect(theirs.json.data).toEqual([]);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL activeSessions, presenceOccupancy and locationSession', () => {
  it('serves the same sessions with the same filters, and counts per place', async () => {
    const a = await newTenant(prisma());
    const { places } = await venue(a.tenant_id);
    const vip = await guestWithDevice(a.tenant_id, a.location_id, { gender: 1, tags: ['VIP'] });
    const other = nextMac();
    await present(a.tenant_id, vip.mac, places[0], { connected: true, x: 1.5, y: 2 });
    await present(a.tenant_id, other, places[1], { dataType: 2 });
    const res = await t.graphql(
      a.token,
      `query($z: ID, $s: ID) {
        all: activeSessions { macAddress }
        zone: activeSessions(zoneId: $z) { macAddress dataType x y zone gender guestId segment { name } connected }
        seg: activeSessions(segmentId: $s, connected: 1) { macAddress }
        presenceOccupancy { locations { id present connected } floors { present } zones { name present connected } }
      }`,
      { z: places[0].zoneId, s: vip.tags[0]?.id },
    );
    expect(res.json.errors, res.text).toBeUndefined();
    const d = res.json.data;
    expect(d.all.map((s: { macAddress: string }) => s.macAddress).sort()).toEqual([vip.mac, other].sort());
    expect(d.zone).toEqual([
      {
        macAddress: vip.mac,
        dataType: 1,
        x: 1.5,
        y: 2,
        zone: 'Z0',
        gender: 'Male',
        guestId: vip.guest.id,
        segment: [{ name: 'VIP' }],
        connected: true,
      },
    ]);
    expect(d.seg).toEqual([{ macAddress: vip.mac }]);
    expect(d.presenceOccupancy).toEqual({
      locations: [{ id: places[0].locationId, present: 2, connected: 1 }],
      floors: [{ present: 2 }],
      zones: [
        { name: 'Z0', present: 1, connected: 1 },
        { name: 'Z1', present: 1, connected: 0 },
      ],
    });
    // Filters narrow the counts, counted in one statement whatever the number of devices.
    const filtered = await recordStatements(t.db, () =>
      t.graphql(a.token, '{ presenceOccupancy(connected: 1) { zones { name present connected } } }'),
    );
    expect(filtered.result.json.data.presenceOccupancy.zones).toEqual([
      { name: 'Z0', present: 1, connected: 1 },
    ]);
    // (Other tests run concurrently on the same database: only this request's counting statement is picked.)
    expect(filtered.sql.filter((q) => q.includes('GROUPING SETS'))).toHaveLength(1);
    // The segment (the guest's tag) narrows the counts to the VIP's device, at every level.
    const segment = await t.graphql(
      a.token,
      'query($s: ID) { presenceOccupancy(segmentId: $s) { locations { present } floors { present } zones { name present } } }',
      { s: vip.tags[0]?.id },
    );
    expect(segment.json.data.presenceOccupancy).toEqual({
      locations: [{ present: 1 }],
      floors: [{ present: 1 }],
      zones: [{ name: 'Z0', present: 1 }],
    });
    const bad = await t.graphql(a.token, '{ activeSessions(dataType: 5) { macAddress } }');
    expect(bad.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { dataType: ['The selected data type is invalid.'] },
    });
    const b = await newTenant(prisma());
    const theirs = await t.graphql(
      b.token,
      '{ activeSessions { macAddress } presenceOccupancy { zones { id } } }',
    );
    expect(theirs.json.data).toEqual({ activeSessions: [], presenceOccupancy: { zones: [] } });
  });

  it("reads one location session, and not another tenant's", async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const s = await locationSession(a.tenant_id, a.location_id, { visitType: 2 });
    const q = 'query($id: ID!) { locationSession(id: $id) { id mac duration visitType endedAt } }';
    const mine = await t.graphql(a.token, q, { id: s.id });
    expect(mine.json.data.locationSession).toEqual({
      id: s.id,
      mac: s.mac,
      duration: 3600,
      visitType: 2,
      endedAt: '2026-11-01T11:00:00.000000Z',
    });
    const theirs = await t.graphql(b.token, q, { id: s.id });
    expect(theirs.json.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

// Alone: the GraphQL test above counts the occupancy statements sent while its request runs.
describe.sequential('presenceOccupancy order', () => {
  it('orders occupancy zones by name as the hierarchy does: the database order of names, then id', async () => {
    const a = await newTenant(prisma());
    const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 0 });
    const floor = await prisma().floor.findFirstOrThrow({
      where: { tenantId: a.tenant_id, building: { locationId } },
    });
    // Case and order chosen so that localeCompare (a, A, b, Z) and a C collation (A, Z, a, b) differ.
    for (const name of ['b', 'A', 'a', 'Z']) {
      const zone = await prisma().zone.create({
        data: { tenantId: a.tenant_id, floorId: floor.id, name, coordinates: [] },
      });
      await present(a.tenant_id, nextMac(), {
        locationId,
        buildingId: floor.buildingId,
        floorId: floor.id,
        zoneId: zone.id,
      });
    }
    const res = await t.graphql(
      a.token,
      `query($l: ID!) {
        presenceOccupancy(locationId: $l) { zones { id name present } }
        location(id: $l) { buildings { floors { zones { id name } } } }
      }`,
      { l: locationId },
    );
    expect(res.json.errors, res.text).toBeUndefined();
    const rest = await t.request('GET', `/api/v1/locations/hierarchy?location_id=${locationId}`, {
      token: a.token,
    });
    expect(rest.status).toBe(200);
    const restZones: { id: string; name: string }[] = rest.json.data[0].buildings[0].floors[0].zones;
    expect(restZones.map((z) => z.name).sort()).toEqual(['A', 'Z', 'a', 'b']);
    const occupancy: { id: string; name: string; present: number }[] = res.json.data.presenceOccupancy.zones;
    expect(occupancy.map(({ id, name }) => ({ id, name }))).toEqual(restZones);
    expect(occupancy.map((z) => z.present)).toEqual([1, 1, 1, 1]);
    expect(res.json.data.location.buildings[0].floors[0].zones).toEqual(restZones);
  });
});

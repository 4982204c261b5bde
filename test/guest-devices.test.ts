// REST /api/v1/guest-devices (spec 2.4, 4.3 and the decisions): exact bodies, every filter, the
// order switch, pinned roles and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers/app.js';
import { addDevice, addGuest, addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const URL = '/api/v1/guest-devices';
const tenant = () => newTenant(t.db.prisma);
const day = (d: number, h = 0) => new Date(Date.UTC(2026, 0, d, h));

/** A tenant with one guest at its default location. */
async function withGuest(guestData: Parameters<typeof addGuest>[3] = {}) {
  const a = await tenant();
  const guest = await addGuest(t.db.prisma, a.tenant_id, a.location_id, guestData);
  return { a, guest };
}

async function ids(token: string, query: string): Promise<string[]> {
  const res = await t.request('GET', `${URL}${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.json.data.map((d: { id: string }) => d.id);
}

async function count(token: string, query: string): Promise<number> {
  const res = await t.request('GET', `${URL}/count${query}`, { token });
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.json)).toEqual(['count']);
  return res.json.count;
}

describe.concurrent('GET /guest-devices', () => {
  it('writes every field of spec 2.4 in order: offset dates, human sizes, status text and value', async () => {
    const { a, guest } = await withGuest();
    const d = await addDevice(t.db.prisma, a.tenant_id, guest.id, {
      mac: 'AA:BB:CC:DD:EE:01',
      partnerId: 'P/1',
      typeName: 'Smartphone',
      ip: '10.1.2.3',
      userAgent: 'Mozilla/5.0 (iPhone)',
      description: 'Émile’s phone',
      platform: 'iOS',
      browser: 'Safari',
      online: true,
      connectionStatus: 1,
      totalDownloadedData: 1_572_864n, // 1.5 MB
      totalUploadedData: 512n,
      lastSeenTime: new Date('2026-01-05T09:05:03.456Z'),
      createdAt: new Date('2026-01-02T10:00:00.999Z'),
      updatedAt: new Date('2026-01-03T11:30:00Z'),
    });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      String.raw`{"data":[{"id":"${d.id}","guest_id":"${guest.id}","partner_id":"P\/1","type_name":"Smartphone",` +
        String.raw`"mac":"AA:BB:CC:DD:EE:01","ip":"10.1.2.3","user_agent":"Mozilla\/5.0 (iPhone)",` +
        String.raw`"description":"\u00c9mile\u2019s phone","platform":"iOS","browser":"Safari",` +
        `"connection_status":"Online","connection_status_value":1,` +
        `"total_downloaded_data":"1.5 MB","total_uploaded_data":"512 B",` +
        `"last_seen_time":"2026-01-05T09:05:03+00:00","created_at":"2026-01-02T10:00:00+00:00",` +
        `"updated_at":"2026-01-03T11:30:00+00:00"}],` +
        String.raw`"links":{"first":"http:\/\/localhost\/api\/v1\/guest-devices?page=1","last":null,"prev":null,"next":null},` +
        String.raw`"meta":{"current_page":1,"from":1,"to":1,"path":"http:\/\/localhost\/api\/v1\/guest-devices","per_page":10}}`,
    );
  });

  it('shows a device with defaults as Offline, 0 B and null dates and texts', async () => {
    const { a, guest } = await withGuest();
    const d = await addDevice(t.db.prisma, a.tenant_id, guest.id, { mac: 'AA:BB:CC:DD:EE:02' });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.json.data).toEqual([
      {
        id: d.id,
        guest_id: guest.id,
        partner_id: null,
        type_name: 'Unknown',
        mac: 'AA:BB:CC:DD:EE:02',
        ip: null,
        user_agent: null,
        description: '',
        platform: '',
        browser: '',
        connection_status: 'Offline',
        connection_status_value: 0,
        total_downloaded_data: '0 B',
        total_uploaded_data: '0 B',
        last_seen_time: null,
        created_at: `${d.createdAt.toISOString().slice(0, 19)}+00:00`,
        updated_at: `${d.updatedAt.toISOString().slice(0, 19)}+00:00`,
      },
    ]);
  });

  it('formats sizes 1024-based with at most two decimals', async () => {
    const { a, guest } = await withGuest();
    const cases: [bigint, string][] = [
      [0n, '0 B'],
      [1023n, '1023 B'],
      [1024n, '1 KB'],
      [12_939_428n, '12.34 MB'],
      [5n * 1024n ** 3n, '5 GB'],
      [3n * 1024n ** 4n + 1024n ** 4n / 4n, '3.25 TB'],
    ];
    for (const [i, [bytes]] of cases.entries()) {
      await addDevice(t.db.prisma, a.tenant_id, guest.id, {
        totalDownloadedData: bytes,
        totalUploadedData: bytes,
        createdAt: day(1, i),
      });
    }
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.json.data.map((d: { total_downloaded_data: string }) => d.total_downloaded_data)).toEqual(
      cases.map(([, text]) => text),
    );
  });

  it('orders oldest first by default (id breaks ties) and newest first with last_guest_device_first', async () => {
    const { a, guest } = await withGuest();
    const same = day(5);
    const created = [];
    // Created out of order so the order can only come from createdAt, then id.
    for (const at of [day(7), same, day(3), same]) {
      created.push(await addDevice(t.db.prisma, a.tenant_id, guest.id, { createdAt: at }));
    }
    const [d7, s1, d3, s2] = created.map((d) => d.id) as [string, string, string, string];
    const oldest = [d3, ...[s1, s2].sort(), d7];
    expect(await ids(a.token, '')).toEqual(oldest);
    expect(await ids(a.token, '?last_guest_device_first=false')).toEqual(oldest);
    expect(await ids(a.token, '?last_guest_device_first=0')).toEqual(oldest);
    expect(await ids(a.token, '?last_guest_device_first=true')).toEqual([...oldest].reverse());
    expect(await ids(a.token, '?last_guest_device_first=1')).toEqual([...oldest].reverse());
    // Paging keeps the order and the switch in the links.
    const page = await t.request('GET', `${URL}?last_guest_device_first=true&per_page=3`, { token: a.token });
    expect(page.json.data.map((d: { id: string }) => d.id)).toEqual([...oldest].reverse().slice(0, 3));
    expect(page.json.links.next).toBe(
      'http://localhost/api/v1/guest-devices?last_guest_device_first=true&per_page=3&page=2',
    );
    expect(await ids(a.token, '?last_guest_device_first=true&per_page=3&page=2')).toEqual([oldest[0]]);
  });

  it('pages 10 by default and refuses per_page over 100', async () => {
    const { a, guest } = await withGuest();
    for (let i = 0; i < 11; i++)
      await addDevice(t.db.prisma, a.tenant_id, guest.id, { createdAt: day(1, i) });
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.json.data).toHaveLength(10);
    expect(res.json.meta).toMatchObject({ per_page: 10, from: 1, to: 10 });
    expect(res.json.links.next).toBe('http://localhost/api/v1/guest-devices?page=2');
    const over = await t.request('GET', `${URL}?per_page=101`, { token: a.token });
    expect(over.status).toBe(422);
    expect(over.json).toEqual(
      unprocessable({ per_page: ['The per page field must not be greater than 100.'] }),
    );
  });

  it('filters by guest_id', async () => {
    const { a, guest } = await withGuest();
    const other = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const mine = await addDevice(t.db.prisma, a.tenant_id, guest.id);
    await addDevice(t.db.prisma, a.tenant_id, other.id);
    expect(await ids(a.token, `?guest_id=${guest.id}`)).toEqual([mine.id]);
    expect(await count(a.token, `?guest_id=${guest.id}`)).toBe(1);
    expect(await ids(a.token, '?guest_id=nope')).toEqual([]);
    expect(await count(a.token, '')).toBe(2);
  });

  it('filters by mac in any common notation and refuses a malformed one', async () => {
    const { a, guest } = await withGuest();
    const d = await addDevice(t.db.prisma, a.tenant_id, guest.id, { mac: 'A4:5E:60:C1:2B:0F' });
    await addDevice(t.db.prisma, a.tenant_id, guest.id, { mac: 'A4:5E:60:C1:2B:10' });
    for (const mac of ['A4:5E:60:C1:2B:0F', 'a4:5e:60:c1:2b:0f', 'a4-5e-60-c1-2b-0f', 'A45E.60C1.2B0F']) {
      expect(await ids(a.token, `?mac=${encodeURIComponent(mac)}`), mac).toEqual([d.id]);
      expect(await count(a.token, `?mac=${encodeURIComponent(mac)}`), mac).toBe(1);
    }
    expect(await ids(a.token, '?mac=00:00:00:00:00:00')).toEqual([]);
    for (const bad of ['A4:5E:60:C1:2B', 'A4:5E-60:C1:2B:0F', 'zz:5e:60:c1:2b:0f', 'A4%']) {
      for (const path of ['', '/count']) {
        const res = await t.request('GET', `${URL}${path}?mac=${encodeURIComponent(bad)}`, {
          token: a.token,
        });
        expect(res.status, bad).toBe(422);
        expect(res.json).toEqual(unprocessable({ mac: ['The mac field must be a valid MAC address.'] }));
      }
    }
  });

  it('filters by online with true/false/1/0 and refuses anything else', async () => {
    const { a, guest } = await withGuest();
    const on = await addDevice(t.db.prisma, a.tenant_id, guest.id, { online: true, connectionStatus: 1 });
    const off = await addDevice(t.db.prisma, a.tenant_id, guest.id, { online: false });
    for (const v of ['true', '1']) {
      expect(await ids(a.token, `?online=${v}`)).toEqual([on.id]);
      expect(await count(a.token, `?online=${v}`)).toBe(1);
    }
    for (const v of ['false', '0']) expect(await ids(a.token, `?online=${v}`)).toEqual([off.id]);
    for (const path of ['', '/count']) {
      const res = await t.request('GET', `${URL}${path}?online=yes`, { token: a.token });
      expect(res.status).toBe(422);
      expect(res.text).toBe(
        '{"message":"The online field must be true or false.","errors":{"online":["The online field must be true or false."]}}',
      );
    }
  });

  it('filters created_at and updated_at as "on or after that day" (UTC) and refuses other shapes', async () => {
    const { a, guest } = await withGuest();
    const early = await addDevice(t.db.prisma, a.tenant_id, guest.id, {
      createdAt: new Date('2026-01-04T23:59:59Z'),
      updatedAt: new Date('2026-02-10T00:00:00Z'),
    });
    const late = await addDevice(t.db.prisma, a.tenant_id, guest.id, {
      createdAt: new Date('2026-01-05T00:00:00Z'),
      updatedAt: new Date('2026-02-09T23:59:59Z'),
    });
    expect(await ids(a.token, '?created_at=2026-01-05')).toEqual([late.id]);
    expect(await ids(a.token, '?created_at=2026-01-04')).toEqual([early.id, late.id]);
    expect(await count(a.token, '?created_at=2026-01-05')).toBe(1);
    expect(await ids(a.token, '?updated_at=2026-02-10')).toEqual([early.id]);
    expect(await count(a.token, '?updated_at=2026-02-09')).toBe(2);
    expect(await ids(a.token, '?created_at=2026-01-05&updated_at=2026-02-10')).toEqual([]);
    for (const bad of ['2026-1-5', '05/01/2026', '2026-02-30', '2026-01-05 10:00']) {
      const res = await t.request('GET', `${URL}?created_at=${encodeURIComponent(bad)}&updated_at=x`, {
        token: a.token,
      });
      expect(res.status, bad).toBe(422);
      expect(res.json).toEqual(
        unprocessable({
          created_at: ['The created at field must match the format Y-m-d.'],
          updated_at: ['The updated at field must match the format Y-m-d.'],
        }),
      );
    }
  });

  it('filters by the device partner_id', async () => {
    const { a, guest } = await withGuest();
    const d = await addDevice(t.db.prisma, a.tenant_id, guest.id, { partnerId: 'ext-1' });
    await addDevice(t.db.prisma, a.tenant_id, guest.id, { partnerId: 'ext-2' });
    await addDevice(t.db.prisma, a.tenant_id, guest.id);
    expect(await ids(a.token, '?partner_id=ext-1')).toEqual([d.id]);
    expect(await count(a.token, '?partner_id=ext-1')).toBe(1);
    expect(await ids(a.token, '?partner_id=ext')).toEqual([]);
  });

  it('counts with the filters and ignores the list-only parameters', async () => {
    const { a, guest } = await withGuest();
    for (let i = 0; i < 3; i++) await addDevice(t.db.prisma, a.tenant_id, guest.id, { online: i > 0 });
    expect(await count(a.token, '?online=true&last_guest_device_first=true&per_page=1')).toBe(2);
    expect(await count(a.token, '?last_guest_device_first=maybe&per_page=1000')).toBe(3);
  });

  it('shows venue and front-desk users only the devices of guests at their location', async () => {
    const { a, guest } = await withGuest();
    const elsewhere = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Elsewhere' },
    });
    const away = await addGuest(t.db.prisma, a.tenant_id, elsewhere.id);
    // A minute apart: created in the same millisecond, their order would be their random ids'.
    const home = await addDevice(t.db.prisma, a.tenant_id, guest.id, {
      createdAt: new Date(Date.UTC(2026, 0, 1, 10, 0)),
    });
    const other = await addDevice(t.db.prisma, a.tenant_id, away.id, {
      createdAt: new Date(Date.UTC(2026, 0, 1, 10, 1)),
    });
    for (const role of ['venue', 'front-desk'] as const) {
      const u = await addUser(t.db.prisma, a.tenant_id, role, { locationId: a.location_id });
      expect(await ids(u.token, '')).toEqual([home.id]);
      expect(await count(u.token, '')).toBe(1);
      // A filter naming the other location's guest finds nothing rather than widening the scope.
      expect(await ids(u.token, `?guest_id=${away.id}`)).toEqual([]);
    }
    expect(await ids(a.token, '')).toEqual([home.id, other.id]);
  });

  it('never shows another tenant’s devices, whatever the filter', async () => {
    const { a, guest } = await withGuest({ partnerId: 'shared' });
    const { a: b, guest: theirs } = await withGuest();
    const mine = await addDevice(t.db.prisma, a.tenant_id, guest.id, { partnerId: 'shared' });
    const foreign = await addDevice(t.db.prisma, b.tenant_id, theirs.id, { partnerId: 'shared' });
    expect(await ids(a.token, '')).toEqual([mine.id]);
    expect(await ids(b.token, '')).toEqual([foreign.id]);
    expect(await ids(a.token, `?guest_id=${theirs.id}`)).toEqual([]);
    expect(await count(a.token, `?guest_id=${theirs.id}`)).toBe(0);
    expect(await ids(a.token, `?mac=${encodeURIComponent(foreign.mac)}`)).toEqual([]);
    expect(await count(a.token, '?partner_id=shared')).toBe(1);
  });

  it('needs a token', async () => {
    for (const path of ['', '/count']) {
      const res = await t.request('GET', `${URL}${path}`);
      expect(res.status).toBe(401);
      expect(res.text).toBe('{"message":"Unauthenticated."}');
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL guestDevices and Guest.devices', () => {
  const LIST = `query D($first: Int, $after: String, $guestId: String, $mac: String, $online: Boolean,
      $createdAt: String, $updatedAt: String, $partnerId: String, $last: Boolean) {
    guestDevices(first: $first, after: $after, guestId: $guestId, mac: $mac, online: $online,
        createdAt: $createdAt, updatedAt: $updatedAt, partnerId: $partnerId, lastGuestDeviceFirst: $last) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { id mac totalDownloadedData totalDownloadedDataHuman connectionStatus connectionStatusName
        lastSeenTime createdAt guest { id } } }
    }
  }`;

  /** Every id GraphQL returns for these variables, following endCursor, and its totalCount. */
  async function graphqlIds(token: string, vars: Record<string, unknown>) {
    const all: string[] = [];
    let after: string | null = null;
    let totalCount = -1;
    for (let i = 0; i < 20; i++) {
      const res = await t.graphql(token, LIST, { ...vars, first: 2, after });
      expect(res.json.errors, res.text).toBeUndefined();
      const conn = res.json.data.guestDevices;
      totalCount = conn.totalCount;
      all.push(...conn.edges.map((e: { node: { id: string } }) => e.node.id));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    return { ids: all, totalCount };
  }

  it('returns the same records as REST for the same filters, in the same order', async () => {
    const { a, guest } = await withGuest();
    const other = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    for (let i = 0; i < 5; i++) {
      await addDevice(t.db.prisma, a.tenant_id, i % 2 ? guest.id : other.id, {
        online: i % 3 === 0,
        partnerId: i < 3 ? 'p' : null,
        createdAt: day(10 - i),
        updatedAt: day(20 + i),
      });
    }
    const cases: [string, Record<string, unknown>][] = [
      ['', {}],
      ['?last_guest_device_first=1', { last: true }],
      [`?guest_id=${guest.id}`, { guestId: guest.id }],
      ['?online=true', { online: true }],
      ['?online=false&partner_id=p', { online: false, partnerId: 'p' }],
      ['?created_at=2026-01-08', { createdAt: '2026-01-08' }],
      ['?updated_at=2026-01-22&last_guest_device_first=true', { updatedAt: '2026-01-22', last: true }],
    ];
    for (const [query, vars] of cases) {
      const rest = await ids(a.token, `${query}${query ? '&' : '?'}per_page=100`);
      const gql = await graphqlIds(a.token, vars);
      expect(gql.ids, query).toEqual(rest);
      expect(gql.totalCount, query).toBe(await count(a.token, query));
      expect(rest.length, `${query} selects something`).toBeGreaterThan(0);
    }
  });

  it('shows raw bytes beside the human-readable size, and the mac filter in any notation', async () => {
    const { a, guest } = await withGuest();
    const d = await addDevice(t.db.prisma, a.tenant_id, guest.id, {
      mac: 'A4:5E:60:C1:2B:0F',
      totalDownloadedData: 5n * 1024n ** 4n,
      connectionStatus: 1,
      lastSeenTime: new Date('2026-01-05T09:05:03.456Z'),
      createdAt: new Date('2026-01-02T10:00:00Z'),
    });
    const res = await t.graphql(a.token, LIST, { mac: 'a4-5e-60-c1-2b-0f' });
    expect(res.json).toEqual({
      data: {
        guestDevices: {
          totalCount: 1,
          pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
          edges: [
            {
              node: {
                id: d.id,
                mac: 'A4:5E:60:C1:2B:0F',
                totalDownloadedData: 5497558138880,
                totalDownloadedDataHuman: '5 TB',
                connectionStatus: 1,
                connectionStatusName: 'Online',
                lastSeenTime: '2026-01-05T09:05:03.456000Z',
                createdAt: '2026-01-02T10:00:00.000000Z',
                guest: { id: guest.id },
              },
            },
          ],
        },
      },
    });
  });

  it('answers invalid filters with the REST messages and refuses first over 100', async () => {
    const { a } = await withGuest();
    const res = await t.graphql(a.token, LIST, { mac: 'nope', createdAt: '2026-13-01' });
    expect(res.json.data).toBeNull();
    expect(res.json.errors).toHaveLength(1);
    expect(res.json.errors[0].message).toBe('The mac field must be a valid MAC address. (and 1 more error)');
    expect(res.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: {
        mac: ['The mac field must be a valid MAC address.'],
        createdAt: ['The created at field must match the format Y-m-d.'],
      },
    });
    const big = await t.graphql(a.token, '{ guestDevices(first: 101) { totalCount } }');
    expect(big.json.errors[0].extensions.fields).toEqual({
      first: ['The first field must not be greater than 100.'],
    });
  });

  it('never returns another tenant’s devices, at the root or under a guest', async () => {
    const { a, guest } = await withGuest();
    const { a: b, guest: theirs } = await withGuest();
    const mine = await addDevice(t.db.prisma, a.tenant_id, guest.id);
    await addDevice(t.db.prisma, b.tenant_id, theirs.id);
    expect((await graphqlIds(a.token, {})).ids).toEqual([mine.id]);
    expect(await graphqlIds(a.token, { guestId: theirs.id })).toEqual({ ids: [], totalCount: 0 });
    const nested = await t.graphql(
      a.token,
      '{ guests { edges { node { id devices { totalCount edges { node { id } } } } } } }',
    );
    expect(nested.json.errors, nested.text).toBeUndefined();
    expect(nested.json.data.guests.edges).toEqual([
      { node: { id: guest.id, devices: { totalCount: 1, edges: [{ node: { id: mine.id } }] } } },
    ]);
  });

  it('shows a venue user only the devices of guests at their location', async () => {
    const { a, guest } = await withGuest();
    const elsewhere = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Elsewhere' },
    });
    const away = await addGuest(t.db.prisma, a.tenant_id, elsewhere.id);
    const home = await addDevice(t.db.prisma, a.tenant_id, guest.id);
    await addDevice(t.db.prisma, a.tenant_id, away.id);
    const u = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    expect(await graphqlIds(u.token, {})).toEqual({ ids: [home.id], totalCount: 1 });
  });
});

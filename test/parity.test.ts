// REST/GraphQL parity: dashboards switch between the two and must get the same answers. One tenant
// seeded with the `admin seed` seeders; for each REST list and count and a spread of filters, the
// GraphQL connection returns the same records (by id) in the same order, and the same total.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSeedRun, seeders } from '../src/cli/seeders.js';
import { seededRandom } from '../src/modules/locations/locations.seed.js';
import type { BootstrapResult } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';

let t: TestApp;
let a: BootstrapResult;
/** Values read from the seeded data, for filters that need one (a guest id, a name fragment). */
const seen: Record<string, string> = {};

beforeAll(async () => {
  t = await startApp();
  a = await newTenant(t.db.prisma);
  const rand = seededRandom(11);
  const made = newSeedRun();
  for (const seeder of seeders) {
    await seeder.run(t.db.prisma, { tenantId: a.tenant_id, rand, guests: 40, progress: () => {} }, made);
  }
  // A second tenant in the group, so the tenant list has more than one row.
  await t.request('POST', '/api/v1/tenants', { token: a.token, body: { name: 'Parity Second' } });
  await t.request('PUT', `/api/v1/tenants/${a.tenant_id}/switch`, { token: a.token });
  const guests = await t.db.prisma.guest.findMany({ where: { tenantId: a.tenant_id }, take: 1 });
  const guest = guests[0];
  if (!guest) throw new Error('the seeders made no guest');
  seen.guestId = guest.id;
  seen.guestNamePart = guest.name.slice(1, 4).toLowerCase();
  const device = await t.db.prisma.guestDevice.findFirst({ where: { tenantId: a.tenant_id } });
  seen.deviceGuestId = device?.guestId ?? '';
  const session = await t.db.prisma.guestSession.findFirst({ where: { tenantId: a.tenant_id } });
  seen.sessionLocationId = session?.locationId ?? '';
  const tag = await t.db.prisma.advertisementTag.findFirst({ where: { tenantId: a.tenant_id } });
  seen.adTagId = tag?.tagId ?? '';
  // Webhook endpoints (an address literal: no look-up, and public), subscribed to events this file
  // never causes: a delivering server of another test file on this database has nothing to send them.
  for (const [i, events] of [
    ['webhook.disabled'],
    ['api_token.revoked'],
    ['api_token.revoked', 'webhook.disabled'],
  ].entries()) {
    const res = await t.request('POST', '/api/v1/webhooks', {
      token: a.token,
      body: { url: `https://93.184.215.14/hook/${i === 1 ? 'CRM' : i}`, events },
    });
    if (res.status !== 201) throw new Error(res.text);
    if (i === 2)
      await t.request('PUT', `/api/v1/webhooks/${res.json.data.id}`, {
        token: a.token,
        body: { is_active: false },
      });
  }
}, 120_000);

afterAll(async () => {
  await t.close();
});

type Args = Record<string, string | number | boolean | (() => string)>;

interface Case {
  rest: string;
  graphql: string;
  /** Each: REST query (snake_case) and the GraphQL arguments (camelCase) of the same filter. */
  filters: [Record<string, string | (() => string)>, Args][];
}

const CASES: Case[] = [
  {
    rest: '/locations',
    graphql: 'locations',
    filters: [
      [{}, {}],
      [{ name: 'a' }, { name: 'a' }],
      [{ status: '1' }, { status: 1 }],
    ],
  },
  {
    rest: '/guests',
    graphql: 'guests',
    filters: [
      [{}, {}],
      [{ online: 'true' }, { online: true }],
      [
        { gender: 'female', last_guest_first: '1' },
        { gender: 'female', lastGuestFirst: true },
      ],
      [{ type: '2' }, { type: 2 }],
      [{ name: () => seen.guestNamePart ?? '' }, { name: () => seen.guestNamePart ?? '' }],
    ],
  },
  {
    rest: '/guest-devices',
    graphql: 'guestDevices',
    filters: [
      [{}, {}],
      [{ online: 'false' }, { online: false }],
      [{ last_guest_device_first: 'true' }, { lastGuestDeviceFirst: true }],
      [{ guest_id: () => seen.deviceGuestId ?? '' }, { guestId: () => seen.deviceGuestId ?? '' }],
    ],
  },
  {
    rest: '/sessions',
    graphql: 'guestSessions',
    filters: [
      [{}, {}],
      [{ online: 'true' }, { online: true }],
      [{ last_session_first: 'true' }, { lastSessionFirst: true }],
      [
        { location_id: () => seen.sessionLocationId ?? '' },
        { locationId: () => seen.sessionLocationId ?? '' },
      ],
    ],
  },
  {
    rest: '/advertisements',
    graphql: 'advertisements',
    filters: [
      [{}, {}],
      [{ status: '1' }, { status: 1 }],
      [
        { order_by: 'title', order_direction: 'desc' },
        { orderBy: 'title', orderDirection: 'desc' },
      ],
      [{ tag_id: () => seen.adTagId ?? '' }, { tagId: () => seen.adTagId ?? '' }],
    ],
  },
  {
    rest: '/service-profiles',
    graphql: 'serviceProfiles',
    filters: [
      [{}, {}],
      [{ is_default: 'true' }, { isDefault: true }],
    ],
  },
  {
    rest: '/access-codes',
    graphql: 'accessCodes',
    filters: [
      [{}, {}],
      [{ type: '1' }, { type: 1 }],
      [{ location_id: () => a.location_id }, { locationId: () => a.location_id }],
    ],
  },
  {
    rest: '/tenants',
    graphql: 'tenants',
    filters: [
      [{}, {}],
      [{ name: 'Parity Second' }, { name: 'Parity Second' }],
    ],
  },
  {
    rest: '/users',
    graphql: 'users',
    filters: [
      [{}, {}],
      [{ name: 'e' }, { name: 'e' }],
      [{ email: 'example' }, { email: 'example' }],
    ],
  },
  {
    rest: '/webhooks',
    graphql: 'webhooks',
    filters: [
      [{}, {}],
      [{ is_active: 'true' }, { isActive: true }],
      [{ url: 'crm' }, { url: 'crm' }],
    ],
  },
  {
    rest: '/api-tokens',
    graphql: 'apiTokens',
    filters: [
      [{}, {}],
      [{ status: 'active' }, { status: 'active' }],
      [{ name: 'boot' }, { name: 'boot' }],
    ],
  },
  {
    rest: '/audit-logs',
    graphql: 'auditLogs',
    filters: [
      [{}, {}],
      [{ resource_type: 'user' }, { resourceType: 'user' }],
      [{ action: 'tenants.switch' }, { action: 'tenants.switch' }],
    ],
  },
];

const value = (v: string | number | boolean | (() => string)): string | number | boolean =>
  typeof v === 'function' ? v() : v;

function restQuery(filters: Record<string, string | (() => string)>): string {
  return new URLSearchParams(Object.entries(filters).map(([k, v]) => [k, String(value(v))])).toString();
}

function graphqlArgs(args: Args): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}: ${JSON.stringify(value(v))}`)
    .join(', ');
}

/** Every id of a REST list, following `links.next`. */
async function restIds(path: string, query: string): Promise<string[]> {
  const ids: string[] = [];
  let url: string | null = `/api/v1${path}?${query}${query ? '&' : ''}per_page=100`;
  while (url) {
    const res = await t.request('GET', url, { token: a.token });
    expect(res.status, res.text).toBe(200);
    ids.push(...res.json.data.map((row: { id: string }) => row.id));
    url = res.json.links.next ? String(res.json.links.next).replace('http://localhost', '') : null;
  }
  return ids;
}

/** Every id of a GraphQL connection, following `endCursor`, and its totalCount. */
async function graphqlIds(field: string, args: Args): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  let total = -1;
  for (;;) {
    const parts = [graphqlArgs(args), 'first: 100', after ? `after: ${JSON.stringify(after)}` : '']
      .filter(Boolean)
      .join(', ');
    const res = await t.graphql(
      a.token,
      `{ ${field}(${parts}) { totalCount pageInfo { hasNextPage endCursor } edges { node { id } } } }`,
    );
    expect(res.json.errors, res.text).toBeUndefined();
    const conn = res.json.data[field];
    total = conn.totalCount;
    ids.push(...conn.edges.map((e: { node: { id: string } }) => e.node.id));
    if (!conn.pageInfo.hasNextPage) return { ids, total };
    after = conn.pageInfo.endCursor;
  }
}

describe.concurrent('REST and GraphQL answer the same', () => {
  for (const c of CASES) {
    for (const [rest, graphql] of c.filters) {
      const label = `${c.rest}?${Object.keys(rest).join('&') || '(no filter)'} = ${c.graphql}`;
      it(label, async () => {
        const query = restQuery(rest);
        const restList = await restIds(c.rest, query);
        const count = await t.request('GET', `/api/v1${c.rest}/count?${query}`, { token: a.token });
        expect(count.status, count.text).toBe(200);
        const gql = await graphqlIds(c.graphql, graphql);
        expect(gql.ids).toEqual(restList);
        expect(gql.total).toBe(count.json.count);
        expect(count.json.count).toBe(restList.length);
      });
    }
  }

  it('has seeded enough rows that the comparisons say something', async () => {
    for (const path of ['/guests', '/guest-devices', '/sessions', '/advertisements', '/access-codes']) {
      const res = await t.request('GET', `/api/v1${path}/count`, { token: a.token });
      expect(res.json.count, path).toBeGreaterThan(10);
    }
    // A filter must narrow the lists (or the filter cases compare the same unfiltered list).
    const online = await t.request('GET', '/api/v1/guests/count?online=true', { token: a.token });
    const all = await t.request('GET', '/api/v1/guests/count', { token: a.token });
    expect(online.json.count).toBeGreaterThan(0);
    expect(online.json.count).toBeLessThan(all.json.count);
  });
});

// GraphQL at /graphql: the locations connection against REST paging, the nested hierarchy in a
// fixed number of statements, mutations with REST's validation messages, auth, the shared rate
// limit, the graphql-armor limits, error masking and GraphiQL.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../src/graphql/yoga.js';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import {
  addDevice,
  addGuest,
  addHierarchy,
  addSession,
  addUser,
  newTenant,
  uniqueName,
} from './helpers/fixtures.js';
import { migratedMemoryDatabase } from './helpers/pglite-template.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

/** The data of a response without errors. */
function data(res: TestResponse): Json {
  expect(res.json?.errors, res.text).toBeUndefined();
  expect(res.status).toBe(200);
  return res.json.data;
}

/** The one error of a response (resolver errors: HTTP 200, `data` null). */
function onlyError(res: TestResponse): { message: string; extensions: Json } {
  expect(res.json?.errors, res.text).toHaveLength(1);
  return res.json.errors[0];
}

const LIST = `query List($first: Int, $after: String, $name: String, $status: Int) {
  locations(first: $first, after: $after, name: $name, status: $status) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { cursor node { id name isTrashed } }
  }
}`;

interface Filters {
  name?: string;
  status?: number;
}

/** Every page of GraphQL `locations` for these filters, following `endCursor`. */
async function graphqlPages(token: string, filters: Filters, first: number) {
  const pages: string[][] = [];
  let after: string | null = null;
  let totalCount = -1;
  for (let i = 0; i < 50; i++) {
    const res = await t.graphql(token, LIST, { ...filters, first, after });
    const conn = data(res).locations;
    totalCount = conn.totalCount;
    pages.push(conn.edges.map((e: Json) => e.node.id));
    if (!conn.pageInfo.hasNextPage) break;
    after = conn.pageInfo.endCursor;
  }
  return { pages, totalCount };
}

/** Every page of REST `GET /locations` for these filters. */
async function restPages(token: string, filters: Filters, perPage: number) {
  const pages: string[][] = [];
  for (let page = 1; page <= 50; page++) {
    const q = new URLSearchParams({ per_page: String(perPage), page: String(page) });
    if (filters.name !== undefined) q.set('name', filters.name);
    if (filters.status !== undefined) q.set('status', String(filters.status));
    const res = await t.request('GET', `/api/v1/locations?${q}`, { token });
    expect(res.status, res.text).toBe(200);
    pages.push(res.json.data.map((l: Json) => l.id));
    if (res.json.links.next === null) break;
  }
  return pages;
}

describe.concurrent('locations connection', () => {
  it('exposes the location fields on edges.node and counts them', async () => {
    const a = await newTenant(t.db.prisma);
    const created = await t.db.prisma.location.create({
      data: {
        tenantId: a.tenant_id,
        name: uniqueName('Harbor'),
        description: 'On the pier',
        address: '1 Pier Rd',
        postCode: '02110',
        city: 'Boston',
        state: 'MA',
        countryCode: 'US',
        lat: 42.35,
        lng: -71.05,
        timezone: 'America/New_York',
        smartLogin: 1,
        smartLoginFrequency: 3,
        smartLoginFrequencyType: 2,
        createdAt: new Date('2030-01-02T03:04:05.678Z'),
      },
    });
    const res = await t.graphql(
      a.token,
      `{ locations { totalCount edges { node {
        id name description address postCode city state countryCode lat lng timezone
        smartLogin smartLoginFrequency smartLoginFrequencyType loginPageId isTrashed createdAt
      } } } }`,
    );
    const conn = data(res).locations;
    expect(conn.totalCount).toBe(2);
    // Oldest first: the bootstrap location, then this one (created "later" in 2030).
    expect(conn.edges.map((e: Json) => e.node.id)).toEqual([a.location_id, created.id]);
    expect(conn.edges[1].node).toEqual({
      id: created.id,
      name: created.name,
      description: 'On the pier',
      address: '1 Pier Rd',
      postCode: '02110',
      city: 'Boston',
      state: 'MA',
      countryCode: 'US',
      lat: 42.35,
      lng: -71.05,
      timezone: 'America/New_York',
      smartLogin: 1,
      smartLoginFrequency: 3,
      smartLoginFrequencyType: 2,
      loginPageId: null,
      isTrashed: false,
      createdAt: '2030-01-02T03:04:05.678000Z',
    });
  });

  it('filters by name (case-insensitive) and status, and pages like REST', async () => {
    const a = await newTenant(t.db.prisma);
    const prisma = t.db.prisma;
    // Ties on createdAt, so the id tie-breaker decides the order on both transports.
    const tie = new Date('2020-05-05T05:05:05.000Z');
    const rows = [
      { name: 'Grand Venue North', isTrashed: false, createdAt: tie },
      { name: 'grand venue south', isTrashed: false, createdAt: tie },
      { name: 'Lobby', isTrashed: false, createdAt: tie },
      { name: 'GRAND VENUE East', isTrashed: false, createdAt: tie },
      { name: 'Pool', isTrashed: false, createdAt: new Date('2020-05-05T05:05:06.000Z') },
      { name: 'Grand Venue West', isTrashed: false, createdAt: new Date('2019-01-01T00:00:00.000Z') },
      { name: 'Old Grand Venue', isTrashed: true, createdAt: tie },
      { name: 'Old Bar', isTrashed: true, createdAt: tie },
      { name: 'Old Gym', isTrashed: true, createdAt: new Date('2018-01-01T00:00:00.000Z') },
    ];
    const ids = new Map<string, string>();
    for (const r of rows) {
      const l = await prisma.location.create({ data: { tenantId: a.tenant_id, ...r } });
      ids.set(r.name, l.id);
    }
    const idsOf = (...names: string[]): string[] =>
      names
        .map((n) => {
          const id = ids.get(n);
          if (!id) throw new Error(`no location ${n}`);
          return id;
        })
        .sort();
    const active = [
      a.location_id,
      ...idsOf(
        'Grand Venue North',
        'grand venue south',
        'Lobby',
        'GRAND VENUE East',
        'Pool',
        'Grand Venue West',
      ),
    ].sort();

    const cases: { filters: Filters; expected: string[] }[] = [
      { filters: {}, expected: active },
      // 0 is the default.
      { filters: { status: 0 }, expected: active },
      {
        filters: { name: 'gRaNd VeNuE' },
        expected: idsOf('Grand Venue North', 'grand venue south', 'GRAND VENUE East', 'Grand Venue West'),
      },
      { filters: { status: 1 }, expected: idsOf('Old Grand Venue', 'Old Bar', 'Old Gym') },
      { filters: { status: 1, name: 'GRAND' }, expected: idsOf('Old Grand Venue') },
      { filters: { name: 'no such venue' }, expected: [] },
    ];
    for (const { filters, expected } of cases) {
      for (const size of [2, 3]) {
        const gql = await graphqlPages(a.token, filters, size);
        const rest = await restPages(a.token, filters, size);
        const label = `${JSON.stringify(filters)} by ${size}`;
        expect(gql.pages, label).toEqual(rest);
        expect(gql.totalCount, label).toBe(expected.length);
        expect([...gql.pages.flat()].sort(), label).toEqual(expected);
        for (const page of gql.pages.slice(0, -1)) expect(page, label).toHaveLength(size);
      }
    }
  });

  it('refuses first over 100 instead of clamping it', async () => {
    const a = await newTenant(t.db.prisma);
    expect(
      data(await t.graphql(a.token, '{ locations(first: 100) { totalCount } }')).locations.totalCount,
    ).toBe(1);

    const res = await t.graphql(a.token, '{ locations(first: 101) { totalCount edges { node { id } } } }');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      errors: [
        {
          message: 'The first field must not be greater than 100.',
          locations: [{ line: 1, column: 3 }],
          path: ['locations'],
          extensions: {
            code: 'BAD_USER_INPUT',
            fields: { first: ['The first field must not be greater than 100.'] },
          },
        },
      ],
      data: null,
    });
    const last = onlyError(await t.graphql(a.token, '{ locations(last: 500) { edges { cursor } } }'));
    expect(last.message).toBe('The last field must not be greater than 100.');
    // Also when only the count is asked for.
    const count = await t.graphql(a.token, '{ locations(first: 101) { totalCount } }');
    expect(count.json.data).toBeNull();
    expect(onlyError(count)).toMatchObject({
      message: 'The first field must not be greater than 100.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('answers client mistakes in paging arguments as BAD_USER_INPUT, not as server errors', async () => {
    const a = await newTenant(t.db.prisma);
    // REST's wording and the field, as events(first: -1) and every other bad argument answer.
    for (const query of [
      '{ locations(first: -1) { totalCount } }',
      '{ guests(first: -1) { totalCount } }',
      '{ webhooks(last: -2) { totalCount } }',
      '{ events(first: -1) { id } }',
    ]) {
      const negative = onlyError(await t.graphql(a.token, query));
      const key = query.includes('last') ? 'last' : 'first';
      expect(negative.message).toBe(`The ${key} field must be at least 0.`);
      expect(negative.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        fields: { [key]: [`The ${key} field must be at least 0.`] },
      });
    }
    // 0 is a page of no rows (the count alone), as Relay allows.
    const none = await t.graphql(a.token, '{ locations(first: 0) { totalCount edges { node { id } } } }');
    expect(none.json.data.locations.edges).toEqual([]);
    const cursor = onlyError(await t.graphql(a.token, '{ locations(after: "not-a-cursor") { totalCount } }'));
    expect(cursor.extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(cursor.message).toBe('Invalid cursor.');
    // A crafted chunk that decodes to an object: the same client error, not a server error.
    const crafted = Buffer.from('GPC:J:{"id":"x"}').toString('base64');
    const object = onlyError(
      await t.graphql(a.token, `{ guests(after: "${crafted}") { totalCount edges { node { id } } } }`),
    );
    expect([object.message, object.extensions]).toEqual(['Invalid cursor.', { code: 'BAD_USER_INPUT' }]);
  });

  it('a relation connection’s bad paging argument is refused at its own field, before any field runs', async () => {
    const a = await newTenant(t.db.prisma);
    await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const crafted = Buffer.from('GPC:J:{"id":"x"}').toString('base64');
    const refusals: [args: string, message: string, fields?: Record<string, string[]>][] = [
      [
        'first: 101',
        'The first field must not be greater than 100.',
        { first: ['The first field must not be greater than 100.'] },
      ],
      [
        'first: -1',
        'The first field must be at least 0.',
        { first: ['The first field must be at least 0.'] },
      ],
      [
        'first: 1, before: "x"',
        'The first field prohibits before from being present.',
        { first: ['The first field prohibits before from being present.'] },
      ],
      ['after: "not-a-cursor"', 'Invalid cursor.'],
      [`after: "${crafted}"`, 'Invalid cursor.'],
    ];
    for (const [args, message, fields] of refusals) {
      const query = `{ guests { totalCount edges { node { id devices(${args}) { totalCount } } } } }`;
      const res = await t.graphql(a.token, query);
      expect(res.status, query).toBe(200);
      // Nothing ran: no data, and the error at the nested field, not at `guests`.
      expect(res.json, query).toEqual({
        errors: [
          {
            message,
            locations: [{ line: 1, column: query.indexOf('devices') + 1 }],
            extensions: fields ? { code: 'BAD_USER_INPUT', fields } : { code: 'BAD_USER_INPUT' },
          },
        ],
      });
    }
    // Each bad field, in a fragment or through a variable, is named once in document order; a
    // request error, so 400 under the GraphQL over HTTP media type.
    const query = `query($n: Int) { location(id: "${a.location_id}") { guests(first: 1) { edges { node { ...G } } } } }
fragment G on Guest { devices(first: $n) { edges { node { sessions(last: 101) { totalCount } } } } }`;
    const res = await t.request('POST', '/graphql', {
      token: a.token,
      headers: { accept: 'application/graphql-response+json' },
      body: { query, variables: { n: 500 } },
    });
    expect(res.status).toBe(400);
    expect(res.json.data).toBeUndefined();
    expect(res.json.errors.map((e: Json) => [e.message, e.locations])).toEqual([
      ['The first field must not be greater than 100.', [{ line: 2, column: 23 }]],
      ['The last field must not be greater than 100.', [{ line: 2, column: 59 }]],
    ]);
    // The same operation with good arguments runs.
    const good = await t.graphql(
      a.token,
      `query($n: Int) { guests { edges { node { devices(first: $n) { totalCount } } } } }`,
      { n: 100 },
    );
    expect(data(good).guests.edges).toEqual([{ node: { devices: { totalCount: 0 } } }]);
  });

  it('a page size refused with other bad arguments names them all, filters first, as REST’s one 422 does', async () => {
    const a = await newTenant(t.db.prisma);
    const events = onlyError(
      await t.graphql(a.token, '{ events(after: "abc", types: ["x"], first: 101) { id } }'),
    );
    expect(events.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: {
        after: ['The after field must be an integer.'],
        'types.0': ['The selected types.0 (x) is invalid.'],
        first: ['The first field must not be greater than 100.'],
      },
    });
    expect(Object.keys(events.extensions.fields)).toEqual(['after', 'types.0', 'first']);
    const rest = await t.request('GET', '/api/v1/events?after=abc&types[]=x&per_page=101', {
      token: a.token,
    });
    expect(Object.keys(rest.json.errors)).toEqual(['after', 'types.0', 'per_page']);
    // A connection alike; alone, the page size is still the one message.
    const audit = onlyError(
      await t.graphql(a.token, '{ auditLogs(action: "bogus", first: 101) { totalCount } }'),
    );
    expect(audit.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: {
        action: ['The selected action is invalid.'],
        first: ['The first field must not be greater than 100.'],
      },
    });
    const alone = onlyError(await t.graphql(a.token, '{ auditLogs(first: 101) { totalCount } }'));
    expect(alone.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: { first: ['The first field must not be greater than 100.'] },
    });
  });

  it('a cursor naming another tenant’s row finds no page, as an unknown id (no telling it exists)', async () => {
    const [a, b] = [await newTenant(t.db.prisma), await newTenant(t.db.prisma)];
    const p = t.db.prisma;
    for (let i = 0; i < 3; i++) await addGuest(p, a.tenant_id, a.location_id);
    const theirs = await addGuest(p, b.tenant_id, b.location_id);
    const cursorOf = (id: string) => Buffer.from(`GPC:S:${id}`).toString('base64');
    const page = async (cursor: string, dir: 'after' | 'before') => {
      const arg = dir === 'after' ? `first: 2, after: "${cursor}"` : `last: 2, before: "${cursor}"`;
      const res = await t.graphql(a.token, `{ guests(${arg}) { edges { node { id } } } }`);
      expect(res.json.errors, res.text).toBeUndefined();
      return res.json.data.guests.edges.length;
    };
    for (const dir of ['after', 'before'] as const) {
      expect(await page(cursorOf(theirs.id), dir)).toBe(0);
      expect(await page(cursorOf('no-such-id'), dir)).toBe(0);
    }
    const locations = await t.graphql(
      a.token,
      `{ locations(last: 2, before: "${cursorOf(b.location_id)}") { edges { node { id } } } }`,
    );
    expect(locations.json.data.locations.edges).toEqual([]);
  });

  it('so does a cursor on a nested relation connection (a guest’s devices, a device’s sessions)', async () => {
    const [a, b] = [await newTenant(t.db.prisma), await newTenant(t.db.prisma)];
    const p = t.db.prisma;
    // Their rows first: a cursor placing the page by them would find every one of ours after it.
    const other = await addGuest(p, b.tenant_id, b.location_id);
    const theirDevice = await addDevice(p, b.tenant_id, other.id);
    const theirSession = await addSession(
      p,
      b.tenant_id,
      {
        guestId: other.id,
        deviceId: theirDevice.id,
        locationId: b.location_id,
      },
      // Newer than ours: sessions are newest first.
      { startTime: new Date(Date.UTC(2026, 1, 1)) },
    );
    const guest = await addGuest(p, a.tenant_id, a.location_id);
    const devices = [];
    for (let i = 0; i < 3; i++) devices.push(await addDevice(p, a.tenant_id, guest.id));
    const device = devices[0] as { id: string };
    const ownSessions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const at = { guestId: guest.id, deviceId: device.id, locationId: a.location_id };
      ownSessions.push(
        (await addSession(p, a.tenant_id, at, { startTime: new Date(Date.UTC(2026, 0, 10 - i)) })).id,
      );
    }
    const cursorOf = (id: string) => Buffer.from(`GPC:S:${id}`).toString('base64');
    const devicePage = async (arg: string) => {
      const res = await t.graphql(
        a.token,
        `{ guest(id: "${guest.id}") { devices(${arg}) { edges { node { id } } } } }`,
      );
      expect(res.json.errors, res.text).toBeUndefined();
      return res.json.data.guest.devices.edges.length;
    };
    // The first device (oldest first) holds the sessions.
    const sessionPage = async (arg: string) => {
      const res = await t.graphql(
        a.token,
        `{ guest(id: "${guest.id}") { devices(first: 1) { edges { node { sessions(${arg}) { edges { node { id } } } } } } } }`,
      );
      expect(res.json.errors, res.text).toBeUndefined();
      return res.json.data.guest.devices.edges[0].node.sessions.edges.length;
    };
    for (const [page, theirs] of [
      [devicePage, theirDevice.id],
      [sessionPage, theirSession.id],
    ] as const) {
      for (const id of [theirs, 'no-such-id']) {
        expect(await page(`first: 2, after: "${cursorOf(id)}"`)).toBe(0);
        expect(await page(`last: 2, before: "${cursorOf(id)}"`)).toBe(0);
      }
    }
    // The tenant's own rows still place the page.
    expect(await devicePage(`first: 5, after: "${cursorOf(device.id)}"`)).toBe(2);
    expect(await sessionPage(`first: 5, after: "${cursorOf(ownSessions[0] as string)}"`)).toBe(2);
  });
});

describe('nested hierarchy', () => {
  const HIERARCHY = `{ locations { edges { node { id buildings { floors {
    dimensions(scaled: true) { width length }
    zones { name coordinates { x y } }
  } } } } } }`;

  /** The response and the SQL statements sent while serving it. */
  async function counted(token: string): Promise<{ res: TestResponse; statements: number; sql: string[] }> {
    const { result: res, sql } = await recordStatements(t.db, () => t.graphql(token, HIERARCHY));
    return { res, statements: sql.length, sql };
  }

  it('returns the hierarchy in as many statements for 3×4×5 as for 1×1×1', async () => {
    const small = await newTenant(t.db.prisma);
    const smallId = await addHierarchy(t.db.prisma, small.tenant_id, { buildings: 1, floors: 1, zones: 1 });
    // One floor over the 3000-cell grid: scaled to 54 × 54 (2916 cells).
    await t.db.prisma.floor.updateMany({
      where: { tenantId: small.tenant_id },
      data: { width: 100, length: 100 },
    });
    const large = await newTenant(t.db.prisma);
    const largeId = await addHierarchy(t.db.prisma, large.tenant_id, { buildings: 3, floors: 4, zones: 5 });

    const s = await counted(small.token);
    const l = await counted(large.token);

    const smallNodes = data(s.res).locations.edges.map((e: Json) => e.node);
    expect(smallNodes).toEqual([
      { id: small.location_id, buildings: [] },
      {
        id: smallId,
        buildings: [
          {
            floors: [
              {
                dimensions: { width: 54, length: 54 },
                zones: [
                  {
                    name: 'Z0',
                    coordinates: [
                      { x: 0, y: 0 },
                      { x: 1, y: 1 },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ]);

    const largeNodes = data(l.res).locations.edges.map((e: Json) => e.node);
    expect(largeNodes.map((n: Json) => n.id)).toEqual([large.location_id, largeId]);
    const buildings = largeNodes[1].buildings;
    expect(buildings).toHaveLength(3);
    for (const b of buildings) {
      expect(b.floors).toHaveLength(4);
      for (const f of b.floors) {
        expect(f.dimensions).toEqual({ width: 10, length: 10 });
        expect(f.zones.map((z: Json) => z.name)).toEqual(['Z0', 'Z1', 'Z2', 'Z3', 'Z4']);
      }
    }

    expect(s.statements).toBeGreaterThan(0);
    expect(l.sql, 'statements grow with the hierarchy (N+1)').toEqual(s.sql);
  });
});

describe.concurrent('location(id)', () => {
  const ONE = 'query One($id: ID!) { location(id: $id) { id name isTrashed } }';

  it('finds an own location, also a trashed one, and not another tenant’s', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    const trashed = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: uniqueName('Closed'), isTrashed: true },
    });

    const own = data(await t.graphql(a.token, ONE, { id: a.location_id })).location;
    expect(own).toMatchObject({ id: a.location_id, isTrashed: false });
    expect(data(await t.graphql(a.token, ONE, { id: trashed.id })).location).toEqual({
      id: trashed.id,
      name: trashed.name,
      isTrashed: true,
    });
    expect(data(await t.graphql(b.token, ONE, { id: a.location_id }))).toEqual({ location: null });
    expect(data(await t.graphql(a.token, ONE, { id: 'no-such-id' }))).toEqual({ location: null });
  });
});

const CREATE = `mutation Create($input: LocationInput!) {
  createLocation(input: $input) { id name countryCode city lat lng timezone isTrashed }
}`;
const UPDATE = `mutation Update($id: ID!, $input: LocationInput!) {
  updateLocation(id: $id, input: $input) { id name countryCode city lat lng timezone isTrashed }
}`;

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const camelKeys = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [camel(k), v]));

/** GraphQL's validation error equals REST's 422 for the same input: message and every field's messages. */
function expectSameValidation(gql: TestResponse, rest: TestResponse): void {
  expect(rest.status, rest.text).toBe(422);
  expect(gql.status).toBe(200);
  expect(gql.json.data).toBeNull();
  const err = onlyError(gql);
  expect(err.extensions.code).toBe('BAD_USER_INPUT');
  expect(err.extensions.fields).toEqual(camelKeys(rest.json.errors));
  expect(err.message).toBe(rest.json.message);
}

describe.concurrent('mutations', () => {
  it('createLocation returns the new location', async () => {
    const a = await newTenant(t.db.prisma);
    const name = uniqueName('Cafe');
    const res = await t.graphql(a.token, CREATE, {
      input: { name, countryCode: 'DE', city: 'Berlin', lat: 52.5, lng: 13.4, timezone: 'Europe/Berlin' },
    });
    const created = data(res).createLocation;
    expect(created).toEqual({
      id: expect.any(String),
      name,
      countryCode: 'DE',
      city: 'Berlin',
      lat: 52.5,
      lng: 13.4,
      timezone: 'Europe/Berlin',
      isTrashed: false,
    });
    const row = await t.db.prisma.location.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.tenantId).toBe(a.tenant_id);
  });

  it('createLocation fails validation with REST’s messages', async () => {
    const a = await newTenant(t.db.prisma);
    const taken = uniqueName('Taken');
    data(await t.graphql(a.token, CREATE, { input: { name: taken } }));
    const inputs: Record<string, unknown>[] = [
      { name: '', country_code: 'USA', lat: 100 },
      { name: 'x'.repeat(51), country_code: 'ZZ', lng: -181, timezone: 'Mars/Base' },
      { name: taken.toUpperCase() },
      { name: uniqueName('Smart'), smart_login: 1, smart_login_frequency_type: 7 },
      {},
    ];
    for (const body of inputs) {
      const gql = await t.graphql(a.token, CREATE, { input: camelKeys(body) });
      const rest = await t.request('POST', '/api/v1/locations', { token: a.token, body });
      expectSameValidation(gql, rest);
    }
    // camelCase keys where REST has snake_case ones.
    const gql = await t.graphql(a.token, CREATE, { input: { name: 'ok name', countryCode: 'USA' } });
    expect(Object.keys(onlyError(gql).extensions.fields)).toEqual(['countryCode']);
    expect(onlyError(gql).message).toBe('The country code field must be 2 characters. (and 1 more error)');
  });

  it('updateLocation returns the changed location and fails validation with REST’s messages', async () => {
    const a = await newTenant(t.db.prisma);
    const other = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: uniqueName('Other') },
    });
    const name = uniqueName('Renamed');
    const updated = data(
      await t.graphql(a.token, UPDATE, { id: a.location_id, input: { name, countryCode: 'FR', lat: 48.85 } }),
    ).updateLocation;
    expect(updated).toMatchObject({
      id: a.location_id,
      name,
      countryCode: 'FR',
      lat: 48.85,
      isTrashed: false,
    });
    // Its own name is not "taken".
    data(await t.graphql(a.token, UPDATE, { id: a.location_id, input: { name } }));

    const inputs: Record<string, unknown>[] = [
      { name: other.name },
      { name: '', smart_login: 3, lat: 'north' },
      { name: 'y'.repeat(60), post_code: 'p'.repeat(256) },
    ];
    for (const body of inputs) {
      const gqlInput = camelKeys(body);
      // `lat` is a Float in GraphQL; a string is refused by GraphQL itself, so compare the rest.
      if (typeof gqlInput.lat === 'string') {
        delete gqlInput.lat;
        delete body.lat;
      }
      const gql = await t.graphql(a.token, UPDATE, { id: a.location_id, input: gqlInput });
      const rest = await t.request('PUT', `/api/v1/locations/${a.location_id}`, { token: a.token, body });
      expectSameValidation(gql, rest);
    }
    const row = await t.db.prisma.location.findUniqueOrThrow({ where: { id: a.location_id } });
    expect(row.name).toBe(name);
  });

  it('updateLocation of another tenant’s location is NOT_FOUND', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    const res = await t.graphql(b.token, UPDATE, {
      id: a.location_id,
      input: { name: uniqueName('Hijack') },
    });
    expect(res.json.data).toBeNull();
    expect(onlyError(res)).toMatchObject({ message: 'Record not found.', extensions: { code: 'NOT_FOUND' } });
    const row = await t.db.prisma.location.findUniqueOrThrow({ where: { id: a.location_id } });
    expect(row.name).not.toMatch(/^Hijack/);
  });

  it('a front-desk user may neither create nor update locations', async () => {
    const a = await newTenant(t.db.prisma);
    const desk = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const name = uniqueName('Desk');
    const created = await t.graphql(desk.token, CREATE, { input: { name } });
    expect(onlyError(created)).toEqual(
      expect.objectContaining({ message: 'This action is unauthorized.', extensions: { code: 'FORBIDDEN' } }),
    );
    const updated = await t.graphql(desk.token, UPDATE, { id: a.location_id, input: { name } });
    expect(onlyError(updated)).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(await t.db.prisma.location.count({ where: { tenantId: a.tenant_id, name } })).toBe(0);
    // Reading its own location is allowed.
    expect(data(await t.graphql(desk.token, '{ locations { totalCount } }')).locations.totalCount).toBe(1);
  });
});

describe.concurrent('authentication', () => {
  it('answers a request without a token 401 with a GraphQL error body', async () => {
    const res = await t.graphql(undefined, '{ locations { totalCount } }');
    expect(res.status).toBe(401);
    expect(res.text).toBe(
      '{"errors":[{"message":"Unauthenticated.","extensions":{"code":"UNAUTHENTICATED"}}]}',
    );
    const bad = await t.graphql('not-a-token', '{ locations { totalCount } }');
    expect(bad.status).toBe(401);
    expect(bad.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('rate limit', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startApp({ RATE_LIMIT_PER_MINUTE: '2' }, { db: t.db });
  });
  afterAll(async () => {
    await limited.close();
  });

  const expect429 = (res: TestResponse) => {
    expect(res.status, res.text).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  };

  it('GraphiQL’s page spends the address’s budget (it is megabytes a load): the third load is 429', async () => {
    const load = () =>
      limited.app.fastify.inject({
        method: 'GET',
        url: '/graphql',
        headers: { accept: 'text/html' },
        remoteAddress: '203.0.113.77',
      });
    const [first, second, third] = [await load(), await load(), await load()];
    expect([first.statusCode, first.headers['x-ratelimit-remaining']]).toEqual([200, '1']);
    expect(second.statusCode).toBe(200);
    expect(third.statusCode).toBe(429);
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('answers the third GraphQL request 429 RATE_LIMITED with Retry-After', async () => {
    const a = await newTenant(t.db.prisma);
    const q = '{ locations { totalCount } }';
    expect((await limited.graphql(a.token, q)).status).toBe(200);
    expect((await limited.graphql(a.token, q)).status).toBe(200);
    const third = await limited.graphql(a.token, q);
    expect429(third);
    expect(third.json).toEqual({
      errors: [{ message: 'Too Many Attempts.', extensions: { code: 'RATE_LIMITED' } }],
    });
  });

  it('shares one budget between REST and GraphQL', async () => {
    const a = await newTenant(t.db.prisma);
    expect((await limited.request('GET', '/api/v1/locations', { token: a.token })).status).toBe(200);
    expect((await limited.graphql(a.token, '{ locations { totalCount } }')).status).toBe(200);
    const rest = await limited.request('GET', '/api/v1/locations', { token: a.token });
    expect429(rest);
    expect(rest.json).toEqual({ message: 'Too Many Attempts.' });
    const gql = await limited.graphql(a.token, '{ locations { totalCount } }');
    expect429(gql);
    expect(gql.json.errors[0].extensions.code).toBe('RATE_LIMITED');
  });
});

describe.concurrent('limits', () => {
  /** Refused before execution: no `data`, one error with this message. */
  async function expectRefused(query: string, message: unknown): Promise<void> {
    const a = await newTenant(t.db.prisma);
    const res = await t.graphql(a.token, query);
    expect(res.json.data, res.text).toBeUndefined();
    expect(res.json.errors.map((e: Json) => e.message)).toEqual([message]);
  }

  it('pins the limits', () => {
    expect(GRAPHQL_LIMITS).toEqual({ depth: 10, aliases: 15, tokens: 3000, cost: 50_000, nesting: 32 });
  });

  it('refuses a query deeper than the depth limit', async () => {
    // The schema itself is 8 levels deep; introspection through __type goes deeper.
    const ofType = (n: number): string => (n === 0 ? 'name' : `ofType { ${ofType(n - 1)} }`);
    const query = `{ __type(name: "Location") { fields { type { ${ofType(8)} } } } }`;
    await expectRefused(query, 'Query depth limit of 10 exceeded, found 12.');
    // One level less is within the limit.
    const a = await newTenant(t.db.prisma);
    data(await t.graphql(a.token, `{ __type(name: "Location") { fields { type { ${ofType(6)} } } } }`));
  });

  it('refuses more aliases than allowed', async () => {
    const aliases = (n: number) =>
      Array.from({ length: n }, (_, i) => `a${i}: location(id: "x") { id }`).join(' ');
    await expectRefused(`{ ${aliases(16)} }`, 'Aliases limit of 15 exceeded, found 16.');
    const a = await newTenant(t.db.prisma);
    expect(Object.keys(data(await t.graphql(a.token, `{ ${aliases(15)} }`)))).toHaveLength(15);
    // `__typename` counts too (graphql-armor leaves it out by default: 600 of them passed, probe K).
    const typenames = Array.from({ length: 16 }, (_, i) => `t${i}: __typename`).join(' ');
    await expectRefused(`{ ${typenames} }`, 'Aliases limit of 15 exceeded, found 16.');
  });

  it('refuses a query with too many tokens', async () => {
    await expectRefused(`{ ${'__typename '.repeat(3000)}}`, 'Syntax Error: Token limit of 3000 exceeded.');
  });

  it('refuses a query over the cost limit, with `first` written inline or passed as a variable', async () => {
    // 100 guests × 100 sessions each, with their devices and locations.
    const tree =
      'edges { node { sessions(first: 100) { edges { node { id startTime device { mac } location { name } } } } } }';
    const refused =
      /^Query cost \d+ exceeds the limit of 50000: ask for fewer items \(first\/last\) or fewer nested lists\.$/;
    await expectRefused(`{ guests(first: 100) { ${tree} } }`, expect.stringMatching(refused));
    const a = await newTenant(t.db.prisma);
    const viaVariable = await t.graphql(a.token, `query ($n: Int) { guests(first: $n) { ${tree} } }`, {
      n: 100,
    });
    expect(viaVariable.json.data, viaVariable.text).toBeUndefined();
    expect(viaVariable.json.errors[0].message).toMatch(refused);
    expect(viaVariable.json.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', limit: 50_000 });
    // A tenth of it is fine; the same document with 100 again is refused again (costs are
    // remembered per document and variables, never across them).
    data(await t.graphql(a.token, `query ($n: Int) { guests(first: $n) { ${tree} } }`, { n: 10 }));
    const again = await t.graphql(a.token, `query ($n: Int) { guests(first: $n) { ${tree} } }`, { n: 100 });
    expect(again.json.errors[0].message).toMatch(refused);
  });

  it('counts activeSessions (not paged) as a busy venue’s present devices, and sessionsByIp per address', async () => {
    const a = await newTenant(t.db.prisma);
    const fields = 'macAddress zone lastSeen guestId';
    // One list of every present device passes; fifteen differently filtered ones at once do not.
    data(await t.graphql(a.token, `{ activeSessions { ${fields} } }`));
    const many = Array.from(
      { length: 15 },
      (_, i) => `s${i}: activeSessions(dataType: ${(i % 2) + 1}) { ${fields} }`,
    );
    const refused = await t.graphql(a.token, `{ ${many.join(' ')} }`);
    expect(refused.json.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', cost: 60_015 });
    const ips = JSON.stringify(Array.from({ length: 100 }, (_, i) => `10.9.0.${i}`));
    const byIp = Array.from(
      { length: 15 },
      (_, i) => `b${i}: sessionsByIp(ipAddresses: ${ips}) { ipAddress name email duration }`,
    );
    const costly = await t.graphql(a.token, `{ ${byIp.join(' ')} }`);
    expect(costly.json.errors, costly.text).toBeUndefined();
  });

  it('refuses fragments spread into more than 10 000 fields as a cost, in one step, before any field ran (probe V)', async () => {
    const a = await newTenant(t.db.prisma);
    // Each fragment spreads the one before twice: 2^12 copies of `name` (and of a nested devices).
    const fragments = ['fragment F0 on Guest { name devices(first: 101) { totalCount } }'];
    for (let i = 1; i <= 12; i++)
      fragments.push(`fragment F${i} on Guest { ...F${i - 1} ... on Guest { ...F${i - 1} } }`);
    const query = `{ guests(first: 1) { edges { node { ...F12 } } } }\n${fragments.join('\n')}`;
    const res = await t.graphql(a.token, query);
    expect(res.json).toEqual({
      errors: [
        {
          message:
            'Query exceeds the limit of 10000 fields and fragment spreads (each fragment counted where spread): ask for fewer fields or spread fewer fragments.',
          extensions: { code: 'QUERY_TOO_COSTLY', limit: 10_000 },
        },
      ],
    });
  });

  it('sessionsByIp trims its addresses, as every GraphQL argument is (probe Y)', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const d = await addDevice(t.db.prisma, a.tenant_id, g.id);
    await addSession(t.db.prisma, a.tenant_id, { guestId: g.id, deviceId: d.id, locationId: a.location_id });
    const res = await t.graphql(
      a.token,
      'query($ips: [String!]!) { sessionsByIp(ipAddresses: $ips) { ipAddress } }',
      {
        ips: [' 10.0.0.1 '],
      },
    );
    expect(data(res).sessionsByIp).toEqual([{ ipAddress: '10.0.0.1' }]);
  });

  it('lets the dashboard query through: 100 guests with their devices and latest 5 sessions', async () => {
    const a = await newTenant(t.db.prisma);
    const query = `{ guests(first: 100) { totalCount edges { node { id name
      devices { edges { node { mac } } }
      sessions(first: 5) { edges { node { id startTime } } } } } } }`;
    expect(data(await t.graphql(a.token, query)).guests.totalCount).toBe(0);
  });

  it('answers a body over 1 MiB 413', async () => {
    const a = await newTenant(t.db.prisma);
    const rawBody = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(1024 * 1024) } });
    const res = await t.request('POST', '/graphql', { token: a.token, rawBody });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({
      errors: [{ message: 'Payload Too Large.', extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
    });
  });
});

describe.concurrent('errors and GraphiQL', () => {
  it('masks unexpected errors: no stack, no database message', async () => {
    // A database of its own whose Location table has gone: the statement fails inside the resolver.
    const own = await startApp({}, { db: await migratedMemoryDatabase() });
    try {
      const a = await newTenant(own.db.prisma);
      await own.db.prisma.$executeRawUnsafe('ALTER TABLE "Location" RENAME TO "Location_gone"');
      const res = await own.graphql(a.token, 'query One($id: ID!) { location(id: $id) { id } }', {
        id: a.location_id,
      });
      expect(res.json).toEqual({
        errors: [
          {
            message: 'Unexpected error.',
            locations: [{ line: 1, column: 23 }],
            path: ['location'],
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
        data: { location: null },
      });
      expect(res.text).not.toMatch(/\bat \/|\.ts:\d|prisma|Location_gone|relation|does not exist|stack/i);
    } finally {
      await own.close();
      await own.db.close();
    }
  });

  it('serves GraphiQL as HTML without a token and without any CDN', async () => {
    const res = await t.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Venue Wi-Fi Gateway');
    for (const cdn of ['unpkg.com', 'jsdelivr', 'cdn.']) expect(res.text.includes(cdn), cdn).toBe(false);
    // Compressed as the browser takes it (the page is about 9 MB as is), and revalidated for a 304.
    const page = (headers: Record<string, string>) =>
      t.app.fastify.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html', ...headers } });
    const br = await page({ 'accept-encoding': 'gzip, deflate, br' });
    expect([br.statusCode, br.headers['content-encoding'], br.headers.vary]).toEqual([
      200,
      'br',
      'Accept-Encoding',
    ]);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(res.text);
    const gz = await page({ 'accept-encoding': 'gzip, br;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(res.text);
    expect(br.rawPayload.length).toBeLessThan(res.text.length / 3);
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const held = await page({ 'if-none-match': etag });
    expect([held.statusCode, held.body]).toEqual([304, '']);
    // Each coding is a representation of its own, with its own tag: a cache holding the page as is
    // does not revalidate the brotli one (all three shared one tag; probe U).
    expect(new Set([etag, br.headers.etag, gz.headers.etag]).size).toBe(3);
    const other = await page({ 'if-none-match': etag, 'accept-encoding': 'br' });
    expect([other.statusCode, other.headers.etag]).toEqual([200, br.headers.etag]);
    const same = await page({ 'if-none-match': `W/${br.headers.etag}`, 'accept-encoding': 'br' });
    expect([same.statusCode, same.headers['content-encoding'], same.body]).toEqual([304, 'br', '']);
    // HEAD as GET, without the body (it answered 401 JSON; probe R).
    const head = await t.app.fastify.inject({
      method: 'HEAD',
      url: '/graphql',
      headers: { accept: 'text/html' },
    });
    expect([head.statusCode, head.headers['content-type'], head.headers.etag, head.body]).toEqual([
      200,
      'text/html; charset=utf-8',
      etag,
      '',
    ]);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    // A 304 to HEAD as to GET: no Content-Length (Fastify's own HEAD route gave 0).
    const heldHead = await t.app.fastify.inject({
      method: 'HEAD',
      url: '/graphql',
      headers: { accept: 'text/html', 'if-none-match': etag },
    });
    expect([heldHead.statusCode, heldHead.headers['content-length']]).toEqual([304, undefined]);
  });

  it('a mutation sent with GET is 405 METHOD_NOT_ALLOWED, Allow: POST (its code was BAD_REQUEST; probe R)', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('GET', `/graphql?query=${encodeURIComponent('mutation { __typename }')}`, {
      token: a.token,
      headers: { accept: 'application/json' },
    });
    expect([res.status, res.headers.allow]).toEqual([405, 'POST']);
    expect(res.json.errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
  });
});

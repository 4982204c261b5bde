// Location pinning through nested GraphQL relations: a venue or front-desk user pinned to location
// A must see nothing of location B by any path, as the root fields already ensure. The table has
// one row per relation field of the schema (derived from the built schema, so a new relation
// without a row fails), each run for every role. Data: one tenant, locations A and B, with a
// session and an access code at A whose guest is at B, and a session at B of A's guest.
import { type GraphQLNamedType, getNamedType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../src/auth/principal.js';
import { schema } from '../src/graphql/schema.js';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { addDevice, addGuest, addSession, addUser, newTenant } from './helpers/fixtures.js';

let t: TestApp;
/** Fixture name → id. */
const id: Record<string, string> = {};
const token: Partial<Record<Role, string>> = {};
const roles = ['tenant', 'support', 'venue', 'front-desk'] as const satisfies readonly Role[];
const pinnedRoles: readonly Role[] = ['venue', 'front-desk'];

/** Every record outside location A by its own rule (guests, sessions, codes by their location; devices by their guest's). */
const outsideA = ['B', 'gB', 'dB', 'sB', 'sY', 'cB', 'bB', 'fB', 'zB'];

beforeAll(async () => {
  t = await startApp();
  const p = t.db.prisma;
  const a = await newTenant(p);
  const tenantId = a.tenant_id;
  Object.assign(id, { A: a.location_id, tenant: tenantId, sp: a.service_profile_id });
  id.B = (await p.location.create({ data: { tenantId, name: 'Venue B' } })).id;
  for (const at of ['A', 'B']) {
    const building = await p.building.create({ data: { tenantId, locationId: id[at] as string, name: at } });
    const floor = await p.floor.create({
      data: { tenantId, buildingId: building.id, name: at, level: 0, width: 10, length: 10 },
    });
    const zone = await p.zone.create({
      data: { tenantId, floorId: floor.id, name: at, coordinates: [{ x: 0, y: 0 }] },
    });
    Object.assign(id, { [`b${at}`]: building.id, [`f${at}`]: floor.id, [`z${at}`]: zone.id });
    const guest = await addGuest(p, tenantId, id[at] as string);
    id[`g${at}`] = guest.id;
    const device = await addDevice(p, tenantId, guest.id);
    id[`d${at}`] = device.id;
    id[`mac${at}`] = device.mac;
  }
  const session = async (name: string, at: string, of: string, hour: number) => {
    const s = await addSession(
      p,
      tenantId,
      { locationId: id[at] as string, guestId: id[`g${of}`] as string, deviceId: id[`d${of}`] as string },
      { startTime: new Date(Date.UTC(2026, 0, 10, hour)) },
    );
    id[name] = s.id;
  };
  await session('sA', 'A', 'A', 1);
  await session('sB', 'B', 'B', 2);
  await session('sX', 'A', 'B', 3); // at A, B's guest and device
  await session('sY', 'B', 'A', 4); // A's guest and device, at B
  const code = async (name: string, at: string, of: string) => {
    const c = await p.accessCode.create({
      data: {
        tenantId,
        locationId: id[at] as string,
        serviceProfileId: a.service_profile_id,
        guestId: id[`g${of}`] as string,
        code: `${name}-${tenantId}`,
        type: 2,
      },
    });
    id[name] = c.id;
  };
  await code('cA', 'A', 'A');
  await code('cX', 'A', 'B'); // at A, B's guest
  await code('cB', 'B', 'B');
  // Users by name too (uT, uS, …), for the API tokens' users.
  const user = async (name: string, role: Role, locationId?: string) => {
    const u = await addUser(p, tenantId, role, locationId ? { locationId } : {});
    id[name] = u.userId;
    return u.token;
  };
  id.uT = a.user_id;
  token.tenant = a.token;
  token.support = await user('uS', 'support');
  token.venue = await user('uVA', 'venue', id.A);
  token['front-desk'] = await user('uFA', 'front-desk', id.A);
  await user('uVB', 'venue', id.B); // a user at B, for User.location
});
afterAll(async () => {
  await t.close();
});

const names = (ids: Iterable<string>): string[] => {
  const byId = new Map(Object.entries(id).map(([n, v]) => [v, n]));
  return [...new Set([...ids].map((v) => byId.get(v) ?? v))].sort();
};

type Json = Record<string, unknown>;

/**
 * The values at `path` (field names; lists are flattened, connections read through edges.node,
 * nulls dropped). Every connection passed must have totalCount equal to its rows (pages are
 * larger than the data), so the count never shows rows the page hides.
 */
function collect(value: unknown, path: readonly string[]): Json[] {
  if (value == null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => collect(v, path));
  const obj = value as Json;
  if (Array.isArray(obj.edges)) {
    const nodes = (obj.edges as { node: unknown }[]).map((e) => e.node);
    if ('totalCount' in obj) expect(obj.totalCount, 'totalCount of a connection').toBe(nodes.length);
    return collect(nodes, path);
  }
  const [head, ...rest] = path;
  return head === undefined ? [obj] : collect(obj[head], rest);
}

/** Every `id` anywhere in the answer. */
function allIds(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) allIds(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'id' && typeof v === 'string') out.push(v);
      else allIds(v, out);
    }
  }
  return out;
}

async function run(role: Role, query: string): Promise<Json> {
  const res = await t.graphql(token[role], query);
  expect(res.status, res.text).toBe(200);
  expect(res.json.errors, res.text).toBeUndefined();
  return res.json.data;
}

// ── The table: every relation field × every role ─────────────────────────────────────────────────

interface Row {
  query: string | ((role: Role) => string);
  /** From the answer's root to the relation's records. */
  path: string[] | ((role: Role) => string[]);
  /** Fixture names reached by the unpinned roles (tenant, support) and by the pinned ones. */
  unpinned: string[];
  pinned: string[];
}

const conn = (field: string) => `${field}(first: 100) { totalCount edges { node { id } } }`;
const viaSessions = (inner: string) => `{ guestSessions(first: 100) { edges { node { id ${inner} } } } }`;
const viaCodes = (inner: string) => `{ accessCodes(first: 100) { edges { node { id ${inner} } } } }`;
const fourSessions = ['sA', 'sB', 'sX', 'sY'];
// Front-desk users may not list users: they reach User through `viewer`.
const users = (r: Role, inner: string) =>
  r === 'front-desk'
    ? `{ viewer { id ${inner} } }`
    : `{ users(first: 100) { edges { node { id ${inner} } } } }`;
const usersPath = (r: Role, rest: string[]) => [r === 'front-desk' ? 'viewer' : 'users', ...rest];

const exportOf = (r: Role, inner: string) =>
  r === 'front-desk'
    ? '{ viewer { id } }'
    : `{ guestExport(id: "${r === 'venue' ? id.gB : id.gA}") { ${inner} } }`;
const exportPath = (r: Role, field: string) =>
  r === 'front-desk' ? ['viewer', field] : ['guestExport', field];

// Each parent is reached by the path that leaked before the fix: through a session or code at A
// whose guest is at B.
const table: Record<string, Row> = {
  'GuestSession.guest': {
    query: viaSessions('guest { id }'),
    path: ['guestSessions', 'guest'],
    unpinned: ['gA', 'gB'],
    pinned: ['gA'],
  },
  'GuestSession.device': {
    query: viaSessions('device { id }'),
    path: ['guestSessions', 'device'],
    unpinned: ['dA', 'dB'],
    pinned: ['dA'],
  },
  'GuestSession.location': {
    query: viaSessions('location { id }'),
    path: ['guestSessions', 'location'],
    unpinned: ['A', 'B'],
    pinned: ['A'],
  },
  'Guest.location': {
    query: viaSessions('guest { id location { id } }'),
    path: ['guestSessions', 'guest', 'location'],
    unpinned: ['A', 'B'],
    pinned: ['A'],
  },
  'Guest.sessions': {
    query: viaSessions(`guest { id ${conn('sessions')} }`),
    path: ['guestSessions', 'guest', 'sessions'],
    unpinned: fourSessions,
    pinned: ['sA'],
  },
  'Guest.devices': {
    query: viaSessions(`guest { id ${conn('devices')} }`),
    path: ['guestSessions', 'guest', 'devices'],
    unpinned: ['dA', 'dB'],
    pinned: ['dA'],
  },
  'GuestDevice.guest': {
    query: viaSessions('device { id guest { id } }'),
    path: ['guestSessions', 'device', 'guest'],
    unpinned: ['gA', 'gB'],
    pinned: ['gA'],
  },
  'GuestDevice.sessions': {
    query: viaSessions(`device { id ${conn('sessions')} }`),
    path: ['guestSessions', 'device', 'sessions'],
    unpinned: fourSessions,
    pinned: ['sA'],
  },
  'Location.guests': {
    query: viaSessions(`guest { id location { id ${conn('guests')} } }`),
    path: ['guestSessions', 'guest', 'location', 'guests'],
    unpinned: ['gA', 'gB'],
    pinned: ['gA'],
  },
  'Location.buildings': {
    query: viaSessions('guest { id location { id buildings { id } } }'),
    path: ['guestSessions', 'guest', 'location', 'buildings'],
    unpinned: ['bA', 'bB'],
    pinned: ['bA'],
  },
  'Building.floors': {
    query: viaSessions('guest { id location { id buildings { id floors { id } } } }'),
    path: ['guestSessions', 'guest', 'location', 'buildings', 'floors'],
    unpinned: ['fA', 'fB'],
    pinned: ['fA'],
  },
  'Floor.zones': {
    query: viaSessions('guest { id location { id buildings { id floors { id zones { id } } } } }'),
    path: ['guestSessions', 'guest', 'location', 'buildings', 'floors', 'zones'],
    unpinned: ['zA', 'zB'],
    pinned: ['zA'],
  },
  'AccessCode.guest': {
    query: viaCodes('guest { id }'),
    path: ['accessCodes', 'guest'],
    unpinned: ['gA', 'gB'],
    pinned: ['gA'],
  },
  'AccessCode.location': {
    query: viaCodes('location { id }'),
    path: ['accessCodes', 'location'],
    unpinned: ['A', 'B'],
    pinned: ['A'],
  },
  // Service profiles belong to the tenant, not to a location: every role reads them.
  'AccessCode.serviceProfile': {
    query: viaCodes('serviceProfile { id }'),
    path: ['accessCodes', 'serviceProfile'],
    unpinned: ['sp'],
    pinned: ['sp'],
  },
  // Redeeming with the device already known changes no guest: pinned users redeem at A, the others at B.
  'RedeemedAccessCode.accessCode': {
    query: (r) => {
      const at = pinnedRoles.includes(r) ? 'A' : 'B';
      return `mutation { redeemAccessCode(input: { code: "c${at}-${id.tenant}", locationId: "${id[at]}",
        mac: "${id[`mac${at}`]}" }) { accessCode { id location { id } } } }`;
    },
    path: ['redeemAccessCode', 'accessCode', 'location'],
    unpinned: ['B'],
    pinned: ['A'],
  },
  'User.location': {
    query: (r) => users(r, 'location { id }'),
    path: (r) => usersPath(r, ['location']),
    unpinned: ['A', 'B'],
    pinned: ['A'],
  },
  'User.currentTenant': {
    query: (r) => users(r, 'currentTenant { id }'),
    path: (r) => usersPath(r, ['currentTenant']),
    unpinned: ['tenant'],
    pinned: ['tenant'],
  },
  // API tokens are managed by tenant admins and support users only: a pinned user reaches none
  // (apiTokens and createApiToken answer FORBIDDEN, test/api-tokens.test.ts), so its row reads nothing.
  'ApiToken.user': {
    query: (r) =>
      pinnedRoles.includes(r)
        ? '{ viewer { id } }'
        : '{ apiTokens(first: 100) { edges { node { id user { id } } } } }',
    path: (r) => (pinnedRoles.includes(r) ? ['viewer', 'apiTokens'] : ['apiTokens', 'user']),
    unpinned: ['uFA', 'uS', 'uT', 'uVA', 'uVB'],
    pinned: [],
  },
  'CreateApiTokenPayload.apiToken': {
    query: (r) =>
      pinnedRoles.includes(r)
        ? '{ viewer { id } }'
        : // A venue admin's token: one for the API user (uT) holds guests.manage-global, which the
          // support caller lacks (403, test/api-tokens.test.ts).
          `mutation { createApiToken(input: { name: "Pinning", scopes: ["read"], userId: "${id.uVA}" }) {
            apiToken { id user { id } } } }`,
    path: (r) => (pinnedRoles.includes(r) ? ['viewer', 'apiToken'] : ['createApiToken', 'apiToken', 'user']),
    unpinned: ['uVA'],
    pinned: [],
  },
  // A webhook belongs to the tenant, not to a location: the payload's endpoint leads to no record of
  // either location (it has no relation). Pinned roles may not create one (test/webhooks.test.ts).
  'CreateWebhookPayload.webhook': {
    query: (r) =>
      pinnedRoles.includes(r)
        ? '{ viewer { id } }'
        : `mutation { createWebhook(input: { url: "https://93.184.215.14/pinning", events: ["webhook.disabled"] }) {
            webhook { id url } } }`,
    path: (r) => (pinnedRoles.includes(r) ? ['viewer', 'webhook'] : ['createWebhook', 'webhook', 'location']),
    unpinned: [],
    pinned: [],
  },
  // The copy of a guest: tenant admins and support read A's guest whole (its session at B too); a
  // venue admin pinned to A asks for B's guest and gets null (its cut of A's guest's copy is in
  // test/guests.erasure.test.ts); the front desk may not export (FORBIDDEN), so its row reads nothing.
  'GuestExport.guest': {
    query: (r) => exportOf(r, 'guest { id }'),
    path: (r) => exportPath(r, 'guest'),
    unpinned: ['gA'],
    pinned: [],
  },
  'GuestExport.devices': {
    query: (r) => exportOf(r, 'devices { id }'),
    path: (r) => exportPath(r, 'devices'),
    unpinned: ['dA'],
    pinned: [],
  },
  'GuestExport.sessions': {
    query: (r) => exportOf(r, 'sessions { id }'),
    path: (r) => exportPath(r, 'sessions'),
    unpinned: ['sA', 'sY'],
    pinned: [],
  },
  'GuestExport.locationSessions': {
    query: (r) => exportOf(r, 'locationSessions { id }'),
    path: (r) => exportPath(r, 'locationSessions'),
    unpinned: [],
    pinned: [],
  },
  'GuestExport.accessCodes': {
    query: (r) => exportOf(r, 'accessCodes { id }'),
    path: (r) => exportPath(r, 'accessCodes'),
    unpinned: ['cA'],
    pinned: [],
  },
  // Last: it creates codes. Pinned users generate at A (B is refused, see access-codes.test.ts).
  'GeneratedAccessCodes.accessCodes': {
    query: (r) =>
      `mutation { generateAccessCodes(input: { locationId: "${pinnedRoles.includes(r) ? id.A : id.B}",
        serviceProfileId: "${id.sp}", type: 2, quantity: 1 }) { accessCodes { id location { id } } } }`,
    path: ['generateAccessCodes', 'accessCodes', 'location'],
    unpinned: ['B'],
    pinned: ['A'],
  },
};

/**
 * The relation fields of the built schema: fields of object types (not the root types, not
 * connection or edge wrappers) whose type is a Prisma object or a connection of them.
 */
function relationFields(): string[] {
  const isPrisma = (type: GraphQLNamedType) =>
    typeof (type.extensions as { pothosPrismaModel?: unknown }).pothosPrismaModel === 'string';
  const isWrapper = (fields: Record<string, unknown>) => 'pageInfo' in fields || 'cursor' in fields;
  const roots = new Set(['Query', 'Mutation', 'Subscription']);
  const found: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || roots.has(type.name)) continue;
    if (isWrapper(type.getFields())) continue;
    for (const field of Object.values(type.getFields())) {
      let target = getNamedType(field.type);
      if (isObjectType(target) && 'pageInfo' in target.getFields()) {
        const edge = getNamedType(target.getFields().edges?.type ?? target);
        target = isObjectType(edge) ? getNamedType(edge.getFields().node?.type ?? edge) : edge;
      }
      if (isPrisma(target)) found.push(`${type.name}.${field.name}`);
    }
  }
  return found.sort();
}

describe.sequential('location pinning through nested relations', () => {
  it('has a row for every relation field of the schema', () => {
    expect(Object.keys(table).sort()).toEqual(relationFields());
  });

  it('the reported queries show a pinned user nothing of another location (verbatim)', async () => {
    const q1 =
      '{guestSessions(first:50,lastSessionFirst:true){edges{node{id guest{id location{id guests(first:100){edges{node{id}}}} sessions(first:10){edges{node{id}}} devices(first:10){edges{node{id}}}} location{id}}}}}';
    const q2 =
      '{accessCodes(first:50){edges{node{id location{id} guest{id location{id name guests(first:100){edges{node{id}}}} sessions(first:10){edges{node{id location{id}}}}}}}}}';
    for (const role of roles) {
      const pinned = pinnedRoles.includes(role);
      expect(names(allIds(await run(role, q1))), `${role}: query 1`).toEqual(
        pinned ? ['A', 'dA', 'gA', 'sA', 'sX'] : ['A', 'B', 'dA', 'dB', 'gA', 'gB', 'sA', 'sB', 'sX', 'sY'],
      );
      expect(names(allIds(await run(role, q2))), `${role}: query 2`).toEqual(
        pinned
          ? ['A', 'cA', 'cX', 'gA', 'sA']
          : ['A', 'B', 'cA', 'cB', 'cX', 'gA', 'gB', 'sA', 'sB', 'sX', 'sY'],
      );
    }
  });

  it('a pinned user reads the session at A with a null guest and device, the unpinned with both', async () => {
    const q = `{ guestSessions(first: 100) { edges { node { id guestId guest { id } device { id } } } } }`;
    const bySession = (data: Json) =>
      Object.fromEntries(
        collect(data, ['guestSessions']).map((s) => [
          names([s.id as string])[0],
          [(s.guest as Json | null)?.id ?? null, (s.device as Json | null)?.id ?? null],
        ]),
      );
    expect(bySession(await run('venue', q)).sX).toEqual([null, null]);
    expect(bySession(await run('tenant', q)).sX).toEqual([id.gB, id.dB]);
    const codes = `{ accessCodes(first: 100) { edges { node { id guestId guestName guest { id } } } } }`;
    const cX = (data: Json) => collect(data, ['accessCodes']).find((c) => c.id === id.cX);
    // The id stays (REST shows guest_id too); the guest's name and record do not.
    expect(cX(await run('front-desk', codes))).toEqual({
      id: id.cX,
      guestId: id.gB,
      guestName: '',
      guest: null,
    });
    expect(cX(await run('tenant', codes))).toMatchObject({ guestId: id.gB, guest: { id: id.gB } });
  });

  it('REST applies the same rule: no guest name or partner id of a guest outside the pin', async () => {
    const gB = await t.db.prisma.guest.update({ where: { id: id.gB }, data: { partnerId: 'P-B' } });
    const codeX = async (role: Role) => {
      const res = await t.request('GET', '/api/v1/access-codes?per_page=100', { token: token[role] });
      expect(res.status, res.text).toBe(200);
      const c = res.json.data.find((x: Json) => x.id === id.cX);
      return [c.guest_id, c.guest_name];
    };
    expect(await codeX('venue')).toEqual([id.gB, '']);
    expect(await codeX('tenant')).toEqual([id.gB, gB.name]);
    const dB = await t.db.prisma.guestDevice.update({
      where: { id: id.dB },
      data: { description: 'B phone' },
    });
    const sessionX = async (role: Role) => {
      const res = await t.request('GET', '/api/v1/sessions?per_page=100', { token: token[role] });
      expect(res.status, res.text).toBe(200);
      const s = res.json.data.find((x: Json) => x.id === id.sX);
      return [s.guest_id, s.partner_id, s.guest_device_mac, s.guest_device_description];
    };
    // The device is B's guest's too: neither its MAC nor its description (GraphQL's device is null).
    expect(await sessionX('front-desk')).toEqual([id.gB, null, '', '']);
    expect(await sessionX('support')).toEqual([id.gB, 'P-B', dB.mac, 'B phone']);
    // Nor do the filters on them find the session, one value at a time.
    const found = async (role: Role, filter: string) => {
      const list = await t.request('GET', `/api/v1/sessions?per_page=100&${filter}`, { token: token[role] });
      const count = await t.request('GET', `/api/v1/sessions/count?${filter}`, { token: token[role] });
      expect(count.json.count, filter).toBe(list.json.data.length);
      return list.json.data.map((x: Json) => x.id).includes(id.sX);
    };
    for (const filter of ['partner_id=P-B', `guest_device_mac=${encodeURIComponent(dB.mac)}`]) {
      expect(await found('venue', filter), filter).toBe(false);
      expect(await found('front-desk', filter), filter).toBe(false);
      expect(await found('tenant', filter), filter).toBe(true);
    }
  });

  it('a session found by address, at A, of a guest at B: no guest shown to a pinned user', async () => {
    const byIp = async (role: Role) => {
      const res = await t.request('GET', '/api/v1/sessions/10.0.0.1', { token: token[role] });
      expect(res.status, res.text).toBe(200);
      const { username, name, email } = res.json;
      return { username, name, email };
    };
    // The latest at A is sX (B's guest); unpinned, the latest anywhere is sY (A's guest).
    expect(await byIp('venue')).toEqual({ username: '', name: '', email: null });
    const gA = await t.db.prisma.guest.findUniqueOrThrow({ where: { id: id.gA } });
    expect(await byIp('tenant')).toEqual({ username: gA.username, name: gA.name, email: gA.email });
    const q = '{ sessionsByIp(ipAddresses: ["10.0.0.1"]) { username name email } }';
    expect(await run('front-desk', q)).toEqual({ sessionsByIp: [{ username: '', name: '', email: null }] });
  });

  it('loads the checked guest and device in the statement of the sessions (none per row)', async () => {
    const q = viaSessions('guest { id name } device { id mac guest { id } }');
    const { result, sql } = await recordStatements(t.db, () => t.graphql(token.venue, q));
    expect(result.json.errors, result.text).toBeUndefined();
    // Authentication, the page (with its relations), the count is not asked.
    expect(sql).toHaveLength(2);
  });

  for (const [field, row] of Object.entries(table)) {
    it.each(roles)(`${field} as %s`, async (role) => {
      const query = typeof row.query === 'function' ? row.query(role) : row.query;
      const path = typeof row.path === 'function' ? row.path(role) : row.path;
      const reached = names(collect(await run(role, query), path).map((r) => r.id as string));
      const pinned = pinnedRoles.includes(role);
      if (pinned)
        expect(
          reached.filter((n) => outsideA.includes(n)),
          'records outside A',
        ).toEqual([]);
      expect(reached).toEqual([...(pinned ? row.pinned : row.unpinned)].sort());
    });
  }
});

describe('a guest’s beacon for a pinned user', () => {
  it('is its latest BLE record at the pinned location, not a later one elsewhere', async () => {
    const p = t.db.prisma;
    const a = await newTenant(p);
    const tenantId = a.tenant_id;
    const far = await p.location.create({ data: { tenantId, name: 'Far venue' } });
    const zones: Record<string, { id: string; name: string }> = {};
    for (const [key, locationId] of [
      ['near', a.location_id],
      ['far', far.id],
    ] as const) {
      const building = await p.building.create({ data: { tenantId, locationId, name: key } });
      const floor = await p.floor.create({
        data: { tenantId, buildingId: building.id, name: key, level: 0, width: 10, length: 10 },
      });
      zones[key] = await p.zone.create({
        data: { tenantId, floorId: floor.id, name: `Zone ${key}`, coordinates: [{ x: 0, y: 0 }] },
      });
    }
    const guest = await addGuest(p, tenantId, a.location_id);
    const device = await addDevice(p, tenantId, guest.id);
    const seen = async (key: 'near' | 'far', locationId: string, at: string) =>
      p.presenceRecord.create({
        data: {
          tenantId,
          mac: device.mac,
          deviceId: device.id,
          guestId: guest.id,
          dataType: 2,
          locationId,
          zoneId: zones[key]?.id,
          seenAt: new Date(at),
        },
      });
    await seen('near', a.location_id, '2026-01-10T08:00:00Z');
    await seen('far', far.id, '2026-01-10T09:00:00Z');
    const venue = (await addUser(p, tenantId, 'venue', { locationId: a.location_id })).token;
    const beaconZone = async (as: string) => {
      const res = await t.request('GET', '/api/v1/guests?withBeacon=true', { token: as });
      expect(res.status, res.text).toBe(200);
      const gql = await t.graphql(as, `{ guest(id: "${guest.id}") { beacon { zone locationId } } }`);
      const beacon = gql.json.data.guest.beacon;
      expect(res.json.data[0].beacon?.zone ?? null).toBe(beacon?.zone ?? null);
      return beacon;
    };
    expect(await beaconZone(venue)).toEqual({ zone: 'Zone near', locationId: a.location_id });
    expect(await beaconZone(a.token)).toEqual({ zone: 'Zone far', locationId: far.id });
  });
  it('active sessions at the pinned location show a present device of a guest elsewhere without its profile', async () => {
    const p = t.db.prisma;
    const a = await newTenant(p);
    const tenantId = a.tenant_id;
    const far = await p.location.create({ data: { tenantId, name: 'Far venue' } });
    const guest = await addGuest(p, tenantId, far.id, {
      gender: 1,
      nationalityCode: 'ES',
      residencyCode: 'FR',
    });
    const tag = await p.tag.create({ data: { tenantId, name: 'VIP' } });
    await p.guestTag.create({ data: { tenantId, guestId: guest.id, tagId: tag.id } });
    const device = await addDevice(p, tenantId, guest.id);
    await p.currentPresence.create({
      data: {
        tenantId,
        mac: device.mac,
        recordId: 'r1',
        deviceId: device.id,
        guestId: guest.id,
        dataType: 1,
        locationId: a.location_id,
        seenAt: new Date(),
      },
    });
    const venue = (await addUser(p, tenantId, 'venue', { locationId: a.location_id })).token;
    const profile = async (as: string) => {
      const res = await t.request('GET', '/api/v1/locations-analytics/active-sessions', { token: as });
      expect(res.status, res.text).toBe(200);
      const row = (res.json.data as Record<string, unknown>[]).find((r) => r.mac_address === device.mac);
      const gql = await t.graphql(as, '{ activeSessions { guestId nationality segment { name } } }');
      expect(gql.json.errors, gql.text).toBeUndefined();
      const node = gql.json.data.activeSessions[0];
      return [row?.guest_id, row?.nationality, row?.country_of_residency, row?.segment, node];
    };
    expect(await profile(venue)).toEqual([
      guest.id,
      null,
      null,
      [],
      { guestId: guest.id, nationality: null, segment: [] },
    ]);
    expect(await profile(a.token)).toEqual([
      guest.id,
      'ES',
      'FR',
      [{ id: tag.id, name: 'VIP' }],
      { guestId: guest.id, nationality: 'ES', segment: [{ name: 'VIP' }] },
    ]);
    // Nor does the segment filter test the tags it hides: filtering tag by tag would tell them.
    const bySegment = async (as: string) => {
      const res = await t.request('GET', `/api/v1/locations-analytics/active-sessions?segment_id=${tag.id}`, {
        token: as,
      });
      expect(res.status, res.text).toBe(200);
      const gql = await t.graphql(
        as,
        `{ activeSessions(segmentId: "${tag.id}") { macAddress } presenceOccupancy(segmentId: "${tag.id}") { locations { present } } }`,
      );
      expect(gql.json.errors, gql.text).toBeUndefined();
      return [
        res.json.data.length,
        gql.json.data.activeSessions.length,
        gql.json.data.presenceOccupancy.locations,
      ];
    };
    expect(await bySegment(venue)).toEqual([0, 0, []]);
    expect(await bySegment(a.token)).toEqual([1, 1, [{ present: 1 }]]);
  });
});

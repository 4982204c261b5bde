// Records the OpenAPI document's examples from a real run: boots the app on an in-memory PGlite,
// bootstraps and seeds a tenant (the `admin seed` seeders), calls every route of the route table
// (its success and, where they apply, its 404 and 422), plus the answers every route shares (400,
// 401, 403, 410, 413, 429), and writes src/rest/openapi-examples.json. Every body is first checked
// against the document (test/helpers/contract.ts), so an example never contradicts its schema.
// `npm run openapi:examples` regenerates the file; the 500 example is the error renderer's own body.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { newSeedRun, seeders } from '../src/cli/seeders.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { seededRandom } from '../src/modules/locations/locations.seed.js';
import { bootstrapTenant, issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { EXAMPLES_FILE, type OpenApiExamples } from '../src/rest/openapi.js';
import { routeTable } from '../src/rest/route-table.js';
import { checkContract } from '../test/helpers/contract.js';

const BASE = 'http://127.0.0.1:4000';
const db = await openDatabase({ dataDir: 'memory://' });
// Webhooks are pointed at a local receiver (allowed here only), shown as https://crm.example.com.
const env = {
  RATE_LIMIT_PER_MINUTE: '100000',
  APP_URL: BASE,
  LOG_LEVEL: 'silent',
  WEBHOOKS_ALLOW_PRIVATE: '1',
  WEBHOOKS_DELIVERY: 'false',
};
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const RECEIVER = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const SHOWN_RECEIVER = 'https://crm.example.com';
const app = await buildApp({
  config: loadConfig({ ...env, LEGACY_ANALYTICS_SUNSET: '2099-01-01' }),
  db,
  logger: false,
});
const examples: OpenApiExamples = { '*': {} };
const keep = (route: string, status: number, body: unknown): void => {
  examples[route] = { ...examples[route], [status]: body };
};

const boot = await bootstrapTenant(db.prisma, { tenant: 'Acme Hotels', group: 'Acme Group' });
const rand = seededRandom(7);
const made = newSeedRun();
for (const seeder of seeders) {
  await seeder.run(db.prisma, { tenantId: boot.tenant_id, rand, guests: 12, progress: () => {} }, made);
}
const token = boot.token;

async function call(
  a: typeof app,
  method: string,
  url: string,
  opts: { body?: unknown; raw?: string; token?: string | null } = {},
): Promise<{ status: number; json: unknown; text: string }> {
  const auth = opts.token === null ? undefined : (opts.token ?? token);
  const payload = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await a.fastify.inject({
    method: method as 'GET',
    url,
    headers: {
      ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload !== undefined ? { payload } : {}),
  });
  checkContract(method, url, res.statusCode, res.body);
  return { status: res.statusCode, json: res.body ? JSON.parse(res.body) : undefined, text: res.body };
}

/** Calls `route` (e.g. `GET /guests/:id`) at `url` and records its answer, which must be `status`. */
async function record(
  route: string,
  status: number,
  url: string,
  opts: { body?: unknown; raw?: string; token?: string | null } = {},
): Promise<unknown> {
  const [method = 'GET'] = route.split(' ');
  const res = await call(app, method, `/api/v1${url}`, opts);
  if (res.status !== status)
    throw new Error(`${route} (${url}) answered ${res.status}, not ${status}: ${res.text}`);
  if (res.json !== undefined) keep(route, status, res.json);
  return res.json;
}

type AnyJson = Record<string, unknown> & { data: Record<string, unknown>[] };
const list = async (route: string, url: string): Promise<AnyJson> =>
  (await record(route, 200, url)) as AnyJson;

// Locations
await list('GET /locations', '/locations?per_page=2');
await record('GET /locations', 422, '/locations?per_page=500');
await record('GET /locations/count', 200, '/locations/count');
await record(
  'GET /locations/hierarchy',
  200,
  `/locations/hierarchy?location_id=${boot.location_id}&with_coordinates=1`,
);
const created = (await record('POST /locations', 201, '/locations', {
  body: { name: 'Harbour View', city: 'Lisbon', country_code: 'PT', lat: 38.7, lng: -9.1 },
})) as { data: { id: string } };
await record('POST /locations', 422, '/locations', { body: { name: 'Harbour View', lat: 91 } });
await record('PUT /locations/:id', 200, `/locations/${created.data.id}`, {
  body: { name: 'Harbour View Lisbon', description: 'By the river' },
});
await record('PUT /locations/:id', 404, '/locations/unknown', { body: { name: 'Nowhere' } });

// Guests
const guests = await list('GET /guests', '/guests?per_page=1&withBeacon=true');
await record('GET /guests', 422, '/guests?last_visit_date=2026-01-01,2026-03-01');
await record('GET /guests/count', 200, '/guests/count?online=true');
const guestId = String(guests.data[0]?.id);
await record('GET /guests/:id', 200, `/guests/${guestId}`);
await record('GET /guests/:id', 404, '/guests/unknown');
const guest = (await record('POST /guests', 201, '/guests', {
  body: { location_id: boot.location_id, name: 'Ada Lovelace', email: 'ada@example.com', tags: ['VIP'] },
})) as { data: { id: string } };
await record('POST /guests', 422, '/guests', { body: { email: 'not-an-email' } });
await record('PUT /guests/:id', 200, `/guests/${guest.data.id}`, {
  body: { location_id: boot.location_id, name: 'Ada King', room_no: 12 },
});
await record('GET /guests/:id/export', 200, `/guests/${guestId}/export`);
await record('GET /guests/:id/export', 404, '/guests/unknown/export');
await record('DELETE /guests/:id', 204, `/guests/${guest.data.id}`);
await record('DELETE /guests/:id', 404, `/guests/${guest.data.id}`);
await record('POST /guests/import', 200, '/guests/import?mode=skip_invalid&upsert_by=email', {
  body: [
    { location_id: boot.location_id, name: 'Grace Hopper', email: 'grace@example.com', tags: ['VIP'] },
    { location_id: boot.location_id, name: 'Alan Turing', email: 'not-an-email' },
    { location_id: 'unknown', name: 'Edsger Dijkstra' },
  ],
});
await record('POST /guests/import', 422, '/guests/import', {
  body: {
    rows: [
      { location_id: boot.location_id, name: 'Grace Hopper', email: 'grace@example.com' },
      { location_id: boot.location_id, email: 'GRACE@example.com' },
      { name: 'Barbara Liskov', gender: 'unknown' },
    ],
  },
});

// Tenants and users
await list('GET /tenants', '/tenants');
await record('GET /tenants/count', 200, '/tenants/count');
const users = await list('GET /users', '/users?per_page=2');
await record('GET /users/count', 200, '/users/count');
const user = (await record('POST /users', 200, '/users', {
  body: {
    name: 'Grace Hopper',
    email: 'grace@example.com',
    role: 'venue',
    status: 1,
    location_id: boot.location_id,
    password: 'Str0ng!pass',
    password_confirmation: 'Str0ng!pass',
  },
})) as { data: { id: string } };
await record('POST /users', 422, '/users', { body: { name: 'Al', role: 'venue' } });
await record('PUT /users/:id', 200, `/users/${user.data.id}`, {
  body: {
    name: 'Grace B. Hopper',
    email: 'grace@example.com',
    role: 'venue',
    status: 1,
    location_id: boot.location_id,
  },
});
await record('PUT /users/:id/deactivate', 204, `/users/${user.data.id}/deactivate`);
await record('PUT /users/:id/activate', 204, `/users/${user.data.id}/activate`);
await record('PUT /users/:id/activate', 404, '/users/unknown/activate');
void users;

// Devices, sessions
await list('GET /guest-devices', '/guest-devices?per_page=1');
await record('GET /guest-devices', 422, '/guest-devices?mac=nope');
await record('GET /guest-devices/count', 200, '/guest-devices/count');
const sessions = await list('GET /sessions', '/sessions?per_page=1');
await record('GET /sessions/count', 200, '/sessions/count?online=false');
const ip = String(sessions.data[0]?.guest_device_ip);
await record('GET /sessions/:ip_address', 200, `/sessions/${ip}`);
await record('GET /sessions/:ip_address', 404, '/sessions/192.0.2.1');
await record('GET /sessions/:ip_address', 422, '/sessions/192.0.2.1,not-an-ip');

// Advertisements, service profiles, access codes
await list('GET /advertisements', '/advertisements?per_page=1');
await record('GET /advertisements/count', 200, '/advertisements/count?status=1');
await list('GET /service-profiles', '/service-profiles');
await record('GET /service-profiles/count', 200, '/service-profiles/count');
await list('GET /access-codes', '/access-codes?per_page=1&type=2');
await record('GET /access-codes/count', 200, '/access-codes/count?type=1');
const generated = (await record('POST /access-codes', 201, '/access-codes', {
  body: { location_id: boot.location_id, service_profile_id: boot.service_profile_id, type: 2, quantity: 2 },
})) as { access_codes: { id: string; code: string }[] };
await record('POST /access-codes', 422, '/access-codes', { body: { type: 1, quantity: 5000 } });
const [voucher, withdrawn] = generated.access_codes;
const redeemBody = { code: voucher?.code, location_id: boot.location_id, mac: 'aa:bb:cc:00:00:42' };
await record('POST /access-codes/redeem', 200, '/access-codes/redeem', { body: redeemBody });
await record('POST /access-codes/redeem', 422, '/access-codes/redeem', { body: redeemBody });
await record('PUT /access-codes/:id/revoke', 200, `/access-codes/${withdrawn?.id}/revoke`);
await record('PUT /access-codes/:id/revoke', 404, '/access-codes/unknown/revoke');
await record('POST /access-codes/revoke', 200, '/access-codes/revoke', { body: { type: 2, status: 3 } });
await record('POST /access-codes/revoke', 422, '/access-codes/revoke', { body: {} });

// Analytics and the ingest
await record(
  'GET /locations-analytics/active-sessions',
  200,
  '/locations-analytics/active-sessions?data_type=1',
);
const locationSessions = await list(
  'GET /locations-analytics/sessions',
  '/locations-analytics/sessions?per_page=1',
);
await record('GET /locations-analytics/sessions/count', 200, '/locations-analytics/sessions/count');
await record(
  'GET /locations-analytics/sessions/:id',
  200,
  `/locations-analytics/sessions/${String(locationSessions.data[0]?.id)}`,
);
await record('GET /locations-analytics/sessions/:id', 404, '/locations-analytics/sessions/unknown');
await list('GET /locations-analytics/location-logs', '/locations-analytics/location-logs?per_page=1');
await record('GET /locations-analytics/location-logs/count', 200, '/locations-analytics/location-logs/count');
const now = new Date().toISOString();
await record('POST /ingest/presence', 200, '/ingest/presence', {
  body: {
    events: [
      {
        event_id: 'p-1',
        mac: 'aa:bb:cc:00:00:01',
        data_type: 1,
        x: 2,
        y: 3.5,
        location_id: boot.location_id,
        connected: true,
        seen_at: now,
      },
    ],
  },
});
await record('POST /ingest/presence', 422, '/ingest/presence', {
  body: { events: [{ event_id: 'p-2', mac: 'nope' }] },
});
await record('POST /ingest/sessions', 200, '/ingest/sessions', {
  body: {
    events: [
      {
        event_id: 's-1',
        kind: 'start',
        mac: 'aa:bb:cc:00:00:01',
        guest_id: guestId,
        ip: '10.0.0.7',
        location_id: boot.location_id,
        bytes_up: 0,
        bytes_down: 0,
        login_type: 'Click Through',
        at: now,
      },
    ],
  },
});

// API keys
const apiToken = (await record('POST /api-tokens', 201, '/api-tokens', {
  body: { name: 'Lobby kiosk', scopes: ['read', 'ingest'], expires_at: '2099-01-01T00:00:00Z' },
})) as { data: { id: string } };
await record('POST /api-tokens', 422, '/api-tokens', {
  body: { name: '', scopes: ['admin'], expires_at: '2020-01-01' },
});
await list('GET /api-tokens', '/api-tokens?per_page=2');
await record('GET /api-tokens', 422, '/api-tokens?status=live');
await record('GET /api-tokens/count', 200, '/api-tokens/count?status=active');
await record('DELETE /api-tokens/:id', 204, `/api-tokens/${apiToken.data.id}`);
await record('DELETE /api-tokens/:id', 404, '/api-tokens/unknown');

// Data retention
await record('PUT /settings/retention', 200, '/settings/retention', {
  body: {
    anonymize_inactive_guests_after_months: 13,
    delete_presence_records_after_days: 90,
    delete_location_logs_after_days: 90,
    delete_guest_sessions_after_days: null,
  },
});
await record('PUT /settings/retention', 422, '/settings/retention', {
  body: { anonymize_inactive_guests_after_months: 0, delete_presence_records_after_days: 'soon' },
});
await record('GET /settings/retention', 200, '/settings/retention');
// Webhooks
const hook = (await record('POST /webhooks', 201, '/webhooks', {
  body: {
    url: `${RECEIVER}/webhooks/wifi`,
    events: ['guest.created', 'guest.updated', 'presence.zone_entered'],
    description: 'CRM sync',
  },
})) as { data: { id: string } };
await record('POST /webhooks', 422, '/webhooks', {
  body: { url: 'ftp://crm.example.com', events: ['guest.created', 'guest.born'] },
});
await list('GET /webhooks', '/webhooks?is_active=true');
await record('GET /webhooks/count', 200, '/webhooks/count');
await record('PUT /webhooks/:id', 200, `/webhooks/${hook.data.id}`, {
  body: { events: ['*'], description: 'CRM sync (all events)' },
});
await record('PUT /webhooks/:id', 404, '/webhooks/unknown', { body: { is_active: true } });
await record('POST /webhooks/:id/test', 200, `/webhooks/${hook.data.id}/test`);
await record('GET /webhooks/:id/deliveries', 200, `/webhooks/${hook.data.id}/deliveries?per_page=5`);
await record('GET /webhooks/:id/deliveries', 422, `/webhooks/${hook.data.id}/deliveries?status=dead`);
await record('POST /webhooks/:id/replay', 200, `/webhooks/${hook.data.id}/replay`, {
  body: { since_event_id: 1 },
});
await record('POST /webhooks/:id/replay', 422, `/webhooks/${hook.data.id}/replay`, { body: {} });
await record('POST /webhooks/:id/rotate-secret', 200, `/webhooks/${hook.data.id}/rotate-secret`, {
  body: { previous_secret_hours: 24 },
});
await record('POST /webhooks/:id/rotate-secret', 422, `/webhooks/${hook.data.id}/rotate-secret`, {
  body: { previous_secret_hours: 200 },
});
// A second endpoint to delete (made outside `record`: the first one's answer stays the example).
const doomed = (
  await call(app, 'POST', '/api/v1/webhooks', { body: { url: `${RECEIVER}/old`, events: ['*'] } })
).json as { data: { id: string } };
await record('DELETE /webhooks/:id', 204, `/webhooks/${doomed.data.id}`);
await record('DELETE /webhooks/:id', 404, `/webhooks/${doomed.data.id}`);
receiver.close();
// The audit log: the writes above wrote it.
await list('GET /audit-logs', '/audit-logs?per_page=2&resource_type=api_token');
await record('GET /audit-logs', 422, '/audit-logs?resource_type=room&from=2026-13-01');
await record('GET /audit-logs/count', 200, '/audit-logs/count?action=apiTokens.create');
// The event log: the same writes' events.
await list('GET /events', '/events?after=0&per_page=2&types[]=location.created&types[]=location.updated');
await record('GET /events', 422, '/events?after=-1&types[]=guest.born');

// Last: creating a tenant moves the caller to it; its deactivation and activation, then back.
const tenant = (await record('POST /tenants', 200, '/tenants', {
  body: { name: 'Acme Resorts', city: 'Faro', country_code: 'PT' },
})) as { data: { id: string } };
await record('POST /tenants', 422, '/tenants', { body: { name: 'Acm', country_code: 'PRT' } });
await record('PUT /tenants/:id/switch', 200, `/tenants/${boot.tenant_id}/switch`);
await record('PUT /tenants/:id', 200, `/tenants/${tenant.data.id}`, {
  body: { name: 'Acme Resorts Algarve', description: 'Beach resorts' },
});
await record('PUT /tenants/:id/deactivate', 200, `/tenants/${tenant.data.id}/deactivate`, {
  body: { user_status: 0 },
});
await record('PUT /tenants/:id/activate', 200, `/tenants/${tenant.data.id}/activate`, {
  body: { user_status: 1 },
});
await record('PUT /tenants/:id', 404, '/tenants/unknown', { body: { name: 'Nobody here' } });

// The answers every route shares.
const shared = examples['*'] ?? {};
const frontDesk = await db.prisma.user.create({
  data: {
    tenantId: boot.tenant_id,
    name: 'Front Desk',
    username: 'front-desk',
    email: 'front-desk@example.com',
    role: 'front-desk',
    locationId: boot.location_id,
  },
});
const frontDeskToken = (await issueToken(db.prisma, frontDesk.id)).token;
const expect = (what: string, res: { status: number; json: unknown; text: string }, status: number) => {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}, not ${status}: ${res.text}`);
  shared[status] = res.json;
};
expect('malformed JSON', await call(app, 'POST', '/api/v1/locations', { raw: '{"name":' }), 400);
expect('no token', await call(app, 'GET', '/api/v1/locations', { token: null }), 401);
expect(
  'front desk creating a location',
  await call(app, 'POST', '/api/v1/locations', { token: frontDeskToken, body: { name: 'X' } }),
  403,
);
expect('unknown guest', await call(app, 'GET', '/api/v1/guests/unknown'), 404);
expect(
  'too large',
  await call(app, 'POST', '/api/v1/locations', { body: { name: 'x'.repeat(1024 * 1024) } }),
  413,
);
expect('per_page too large', await call(app, 'GET', '/api/v1/guests?per_page=101'), 422);
await app.close();

const sunset = await buildApp({
  config: loadConfig({ ...env, LEGACY_ANALYTICS_SUNSET: '2026-06-01' }),
  db,
  logger: false,
});
expect('a removed endpoint', await call(sunset, 'GET', '/api/v1/locations-analytics/sessions', {}), 410);
for (const path of ['sessions', 'sessions/count', 'location-logs', 'location-logs/count']) {
  const gone = await call(sunset, 'GET', `/api/v1/locations-analytics/${path}`);
  keep(`GET /locations-analytics/${path}`, 410, gone.json);
}
await sunset.close();

const limited = await buildApp({
  config: loadConfig({ ...env, RATE_LIMIT_PER_MINUTE: '1' }),
  db,
  logger: false,
});
await call(limited, 'GET', '/api/v1/locations/count');
expect('a spent budget', await call(limited, 'GET', '/api/v1/locations/count'), 429);
await limited.close();

const missing = routeTable.filter((r) => {
  const key = `${r.method} ${r.path}`;
  const ok = r.endpoint.status ?? (r.endpoint.response ? 200 : 204);
  return ok !== 204 && examples[key]?.[ok] === undefined;
});
if (missing.length > 0)
  throw new Error(`no success example for ${missing.map((r) => `${r.method} ${r.path}`).join(', ')}`);

const shown = JSON.stringify(examples, null, 2).replaceAll(RECEIVER, SHOWN_RECEIVER);
writeFileSync(EXAMPLES_FILE, `${shown}\n`);
await db.close();
console.error(`wrote ${EXAMPLES_FILE.pathname}: ${Object.keys(examples).length - 1} routes`);

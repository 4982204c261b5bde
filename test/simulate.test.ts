// `admin simulate`: a venue driven through the ingest, on the database or over a running server's
// REST API, until stopped; plain errors when it cannot start.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpSink, venueOverHttp } from '../src/cli/simulate-http.js';
import {
  databaseSink,
  type IngestSink,
  SimulationError,
  simulateVenue,
  venueFromDatabase,
} from '../src/modules/ingest/ingest.simulate.js';
import { seededRandom } from '../src/modules/locations/locations.seed.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addHierarchy, newTenant } from './helpers/fixtures.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startApp();
  await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.fastify.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => t.close());

/** Runs the simulation until `ticks` progress lines (one per tick at first, then every 5 s). */
function drive(venue: Parameters<typeof simulateVenue>[0], sink: IngestSink, ticks: number) {
  const stop = new AbortController();
  const lines: string[] = [];
  const done = simulateVenue(venue, sink, {
    devices: 30,
    intervalMs: 10,
    rand: seededRandom(7),
    signal: stop.signal,
    progress(line) {
      lines.push(line);
      if (lines.length >= ticks) stop.abort();
    },
  });
  // A progress line is printed on the first tick and then every 5 s: stop on time as well.
  const timer = setTimeout(() => stop.abort(), 6000);
  return done.finally(() => clearTimeout(timer)).then((summary) => ({ summary, lines }));
}

async function venueTenant() {
  const a = await newTenant(t.db.prisma);
  const locationId = await addHierarchy(t.db.prisma, a.tenant_id, { buildings: 1, floors: 2, zones: 3 });
  return { ...a, venue: locationId };
}

describe.concurrent('admin simulate', () => {
  it('over HTTP: reads the venue and its devices from the API and ingests through it', async () => {
    const a = await venueTenant();
    const client = { base, token: a.token, signal: new AbortController().signal, progress: () => {} };
    const venue = await venueOverHttp(client, 30);
    expect(venue.locationId).toBe(a.venue);
    expect(venue.zoneIds).toHaveLength(6);
    const { summary } = await drive(venue, httpSink(client), 1);
    expect(summary).toMatchObject({ location_id: a.venue, devices: 30, ticks: expect.any(Number) });
    expect(summary.presence_events).toBeGreaterThan(0);
    const active = await t.request(
      'GET',
      `/api/v1/locations-analytics/active-sessions?location_id=${a.venue}`,
      {
        token: a.token,
      },
    );
    expect(active.status).toBe(200);
    const macs = new Set(active.json.data.map((s: { mac_address: string }) => s.mac_address));
    // Every device detected at least once is an active session at the venue (none has left yet).
    expect(macs.size).toBeGreaterThan(0);
    expect(macs.size).toBeLessThanOrEqual(30);
    for (const s of active.json.data) expect(venue.zoneIds).toContain(s.zone_id);
  });

  it('on the database: the same venue through the ingest service functions', async () => {
    const a = await venueTenant();
    const venue = await venueFromDatabase(t.db.prisma, a.tenant_id, 30);
    expect(venue).toMatchObject({ tenantId: a.tenant_id, locationId: a.venue });
    const sink = await databaseSink(t.db.prisma, t.config, a.tenant_id);
    const { summary } = await drive(venue, sink, 1);
    expect(summary.tenant_id).toBe(a.tenant_id);
    const count = await t.db.prisma.currentPresence.count({ where: { tenantId: a.tenant_id } });
    expect(count).toBeGreaterThan(0);
  });

  it('waits out a 503 for its Retry-After, says so, and goes on', async () => {
    const a = await venueTenant();
    // A relay in front of the test server that refuses the first request as a busy server would.
    let refused = false;
    const front = createServer((req, res) => {
      if (!refused) {
        refused = true;
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end('{"message":"Service Unavailable"}');
        return;
      }
      void fetch(`${base}${req.url}`, { headers: { authorization: req.headers.authorization ?? '' } }).then(
        async (upstream) => {
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(await upstream.text());
        },
      );
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const address = front.address();
    const lines: string[] = [];
    const client = {
      base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
      token: a.token,
      signal: new AbortController().signal,
      progress: (line: string) => lines.push(line),
    };
    try {
      const venue = await venueOverHttp(client, 30);
      expect(venue.locationId).toBe(a.venue);
      expect(refused).toBe(true);
      expect(lines).toEqual(['the server is busy or its database unavailable (503): waiting 1 s']);
    } finally {
      await new Promise((resolve) => front.close(resolve));
    }
  });

  it('says plainly why it cannot start', async () => {
    const a = await newTenant(t.db.prisma);
    const signal = new AbortController().signal;
    const client = (token: string, at = base) => ({ base: at, token, signal, progress: () => {} });
    // The bootstrap location has no zones.
    await expect(venueOverHttp(client(a.token), 10)).rejects.toThrow(
      new SimulationError("The token's tenant has no zones: run `admin seed` first."),
    );
    await expect(venueFromDatabase(t.db.prisma, a.tenant_id, 10)).rejects.toThrow(SimulationError);
    await expect(venueFromDatabase(t.db.prisma, 'no-such-tenant', 10)).rejects.toThrow(
      'No tenant with id "no-such-tenant".',
    );
    await expect(venueOverHttp(client('wrong-token'), 10)).rejects.toThrow(
      'reading the locations: the server answered 401 Unauthenticated.',
    );
    // A port nobody listens on (the test server's, once closed, is not guaranteed free: use port 9).
    await expect(venueOverHttp(client(a.token, 'http://127.0.0.1:9'), 10)).rejects.toThrow(
      /cannot reach http:\/\/127\.0\.0\.1:9 .*Is the server running\?/,
    );
  });
});

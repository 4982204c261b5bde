// The dashboard's one round trip: a page of 100 guests with their devices and latest 5 sessions
// each, in the same SQL statements whatever the number of guests, devices and sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { newTenant, randomMac } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

// Page sizes as variables, as a dashboard sends them.
const DASHBOARD = `query Dashboard($guests: Int!, $sessions: Int!) {
  guests(first: $guests) {
    totalCount
    edges { node {
      id name
      devices { totalCount edges { node { id mac totalDownloadedDataHuman connectionStatusName } } }
      sessions(first: $sessions) { totalCount edges { node {
        id startTime endTime totalDuration startTimeFormatted serviceProfileName accessCode
        device { mac } location { name timezone }
      } } }
    } }
  }
}`;

const VARS = { guests: 100, sessions: 5 };

/** A tenant with `guests` guests × `devices` devices × `sessions` sessions each (closed, an hour apart). */
async function tenantWith(guests: number, devices: number, sessions: number) {
  const a = await newTenant(t.db.prisma);
  const tenantId = a.tenant_id;
  const base = Date.UTC(2026, 0, 1);
  const gs = await t.db.prisma.guest.createManyAndReturn({
    data: Array.from({ length: guests }, (_, i) => ({
      tenantId,
      locationId: a.location_id,
      username: `g${i}`,
      name: `Guest ${i}`,
      email: `g${i}-${tenantId}@example.test`,
      createdAt: new Date(base + i * 1000),
    })),
    select: { id: true },
  });
  const ds = await t.db.prisma.guestDevice.createManyAndReturn({
    data: gs.flatMap((g, gi) =>
      Array.from({ length: devices }, (_, d) => ({
        tenantId,
        guestId: g.id,
        mac: randomMac(),
        totalDownloadedData: 1536n,
        createdAt: new Date(base + gi * 1000 + d),
      })),
    ),
    select: { id: true, guestId: true },
  });
  await t.db.prisma.guestSession.createMany({
    data: ds.flatMap((d, di) =>
      Array.from({ length: sessions }, (_, s) => ({
        tenantId,
        guestId: d.guestId,
        deviceId: d.id,
        locationId: a.location_id,
        serviceProfileId: a.service_profile_id,
        ipAddress: `10.1.${di % 250}.${s}`,
        startTime: new Date(base + (s * devices + (di % devices)) * 3_600_000),
        endTime: new Date(base + (s * devices + (di % devices)) * 3_600_000 + 90_000),
      })),
    ),
  });
  return a;
}

describe('guest dashboard query', () => {
  it('issues the same statements for 5 guests and for 100 guests × 2 devices × 6 sessions', async () => {
    const small = await tenantWith(5, 1, 1);
    const large = await tenantWith(100, 2, 6);

    const s = await recordStatements(t.db, () => t.graphql(small.token, DASHBOARD, VARS));
    const l = await recordStatements(t.db, () => t.graphql(large.token, DASHBOARD, VARS));
    for (const r of [s.result, l.result]) {
      expect(r.status).toBe(200);
      expect(r.json.errors, r.text).toBeUndefined();
    }

    const smallConn = s.result.json.data.guests;
    expect(smallConn.totalCount).toBe(5);
    for (const e of smallConn.edges as Json[]) {
      expect(e.node.devices.totalCount).toBe(1);
      expect(e.node.sessions.totalCount).toBe(1);
    }

    const conn = l.result.json.data.guests;
    expect(conn.totalCount).toBe(100);
    expect(conn.edges).toHaveLength(100);
    for (const e of conn.edges as Json[]) {
      const g = e.node;
      expect(g.devices.totalCount).toBe(2);
      expect(g.devices.edges).toHaveLength(2);
      expect(g.devices.edges[0].node).toMatchObject({
        totalDownloadedDataHuman: '1.5 KB',
        connectionStatusName: 'Offline',
      });
      expect(g.sessions.totalCount).toBe(12);
      const latest = g.sessions.edges.map((x: Json) => x.node);
      expect(latest).toHaveLength(5);
      // Newest first: the last five of the guest's twelve hourly sessions.
      const starts = latest.map((x: Json) => x.startTime);
      expect(starts).toEqual([...starts].sort().reverse());
      expect(starts[0]).toBe(
        new Date(Date.UTC(2026, 0, 1) + 11 * 3_600_000).toISOString().replace('Z', '000Z'),
      );
      expect(latest[0]).toMatchObject({
        totalDuration: '00:01:30',
        serviceProfileName: 'Default',
        accessCode: null,
        location: { timezone: 'UTC' },
      });
      const macs = g.devices.edges.map((x: Json) => x.node.mac);
      expect(macs).toContain(latest[0].device.mac);
    }

    expect(s.sql.length).toBeGreaterThan(0);
    // Sorted: on PostgreSQL sibling reads run in parallel on the pool, in any order.
    expect([...l.sql].sort(), 'statements grow with guests, devices or sessions (N+1)').toEqual(
      [...s.sql].sort(),
    );
  });
});

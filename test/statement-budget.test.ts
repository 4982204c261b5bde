// Statement budgets of the dashboard's reads (bench/RESULTS.md): authentication is one statement,
// relations load in the statement of their parent, and a REST page is one statement that cuts the
// page before it builds the relations, so OFFSET never joins the relations of skipped rows. Counts,
// not times.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { addDevice, addGuest, addHierarchy, addSession, newTenant } from './helpers/fixtures.js';

let t: TestApp;
let token: string;
let guestIds: string[];

beforeAll(async () => {
  t = await startApp();
  const a = await newTenant(t.db.prisma);
  token = a.token;
  await addHierarchy(t.db.prisma, a.tenant_id, { buildings: 2, floors: 2, zones: 2 });
  guestIds = [];
  for (let i = 0; i < 3; i++) {
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id, {
      createdAt: new Date(Date.UTC(2026, 0, 1 + i)),
    });
    guestIds.push(g.id);
    const d = await addDevice(t.db.prisma, a.tenant_id, g.id);
    for (let s = 0; s < 7; s++) {
      await addSession(
        t.db.prisma,
        a.tenant_id,
        { guestId: g.id, deviceId: d.id, locationId: a.location_id },
        { startTime: new Date(Date.UTC(2026, 1, 1 + s, i)) },
      );
    }
  }
});
afterAll(async () => {
  await t.close();
});

const get = (url: string) => recordStatements(t.db, () => t.request('GET', url, { token }));

describe('statement budgets', () => {
  it('counts: authentication and the count, one statement each', async () => {
    const { result, sql } = await get('/api/v1/guests/count?gender=female');
    expect(result.status).toBe(200);
    expect(sql).toHaveLength(2);
  });

  it('guest pages: authentication, then the rows with location and tags', async () => {
    const first = await get('/api/v1/guests?per_page=100');
    expect(first.result.status).toBe(200);
    expect(first.result.json.data.map((g: { id: string }) => g.id)).toEqual(guestIds);
    expect(first.sql).toHaveLength(2);

    // A later page: the same three statements, the rows of that page in order.
    const deep = await get('/api/v1/guests?per_page=1&page=2');
    expect(deep.result.json.data.map((g: { id: string }) => g.id)).toEqual([guestIds[1]]);
    expect(deep.result.json.links.next).toBe('http://localhost/api/v1/guests?per_page=1&page=3');
    expect(deep.sql).toHaveLength(2);
    // The page's ids are cut in a subquery (LIMIT and OFFSET inside it); its rows and relations outside.
    expect(deep.sql[1]).toMatch(
      / FROM \(SELECT \w+\."id" FROM "Guest" \w+ WHERE .* LIMIT \$\? OFFSET \$\?\) \w+ JOIN "Guest" \w+ ON .* ORDER BY/,
    );

    const reversed = await get('/api/v1/guests?per_page=2&page=1&last_guest_first=true');
    expect(reversed.result.json.data.map((g: { id: string }) => g.id)).toEqual([guestIds[2], guestIds[1]]);
    expect(reversed.sql).toHaveLength(2);

    // Past the end: no rows, the same two statements.
    const empty = await get('/api/v1/guests?per_page=100&page=2');
    expect(empty.result.json.data).toEqual([]);
    expect(empty.sql).toHaveLength(2);
  });

  it('session pages: authentication, then the rows with their five relations', async () => {
    const page = await get('/api/v1/sessions?per_page=5&page=2&last_session_first=true');
    expect(page.result.status).toBe(200);
    const starts = page.result.json.data.map((s: { start_time: string }) => s.start_time);
    expect(starts).toHaveLength(5);
    expect([...starts].sort().reverse()).toEqual(starts);
    expect(page.sql).toHaveLength(2);
    expect(page.sql[1]).toMatch(
      / FROM \(SELECT \w+\."id" FROM "GuestSession" \w+ WHERE .* OFFSET \$\?\) \w+ JOIN "GuestSession" \w+ ON .* ORDER BY/,
    );
  });

  it('hierarchy: authentication and one statement for locations, buildings, floors and zones', async () => {
    const { result, sql } = await get('/api/v1/locations/hierarchy');
    expect(result.status).toBe(200);
    expect(sql).toHaveLength(2);
  });

  it('dashboard: guests with devices and their latest sessions in one statement after authentication', async () => {
    const { result, sql } = await recordStatements(t.db, () =>
      t.graphql(
        token,
        `{ guests(first: 100) { edges { node { id
          devices(first: 10) { edges { node { mac } } }
          sessions(first: 5) { edges { node { startTime } } } } } } }`,
      ),
    );
    expect(result.status).toBe(200);
    const nodes = result.json.data.guests.edges.map((e: { node: unknown }) => e.node);
    expect(nodes).toHaveLength(3);
    for (const n of nodes) {
      const starts = n.sessions.edges.map((e: { node: { startTime: string } }) => e.node.startTime);
      // The latest five of seven, newest first.
      expect(starts).toHaveLength(5);
      expect(starts[0] > starts[4]).toBe(true);
    }
    expect(sql).toHaveLength(2);
  });
});

// The floor: the same data read straight through the driver with hand-written SQL and written with
// JSON.stringify, served by a bare node:http server in the same process, so the load generator
// measures it exactly as it measures the gateway. No gateway can beat it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Rows = (sql: string, params: unknown[]) => Promise<unknown[]>;

export interface FloorQuery {
  /** Statements one request sends. */
  statements: number;
  run(rows: Rows): Promise<unknown>;
}

export async function startFloor(
  rows: Rows,
  routes: Map<string, FloorQuery>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const q = routes.get(req.url ?? '');
    if (!q) {
      res.writeHead(404).end();
      return;
    }
    q.run(rows).then(
      (body) => {
        const text = JSON.stringify(body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      },
      (err: unknown) => {
        res.writeHead(500).end(String(err));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const GUEST_TAGS = `COALESCE((SELECT json_agg(t.name ORDER BY t.name) FROM "GuestTag" gt
  JOIN "Tag" t ON t.id = gt."tagId" WHERE gt."tenantId" = g."tenantId" AND gt."guestId" = g.id), '[]'::json)`;

/** A page of guests with their location name and tags: the REST list's rows. */
export function guestPage(
  tenantId: string,
  opts: { where?: string; params?: unknown[]; offset?: number },
): FloorQuery {
  const params = [tenantId, ...(opts.params ?? [])];
  // The page first, then its relations: skipped rows never reach the tag subquery.
  const sql = `SELECT g.*, l.name AS "locationName", ${GUEST_TAGS} AS tags
    FROM (SELECT * FROM "Guest" g WHERE g."tenantId" = $1 ${opts.where ?? ''}
          ORDER BY g."createdAt", g.id LIMIT 101 OFFSET ${opts.offset ?? 0}) g
    JOIN "Location" l ON l.id = g."locationId"
    ORDER BY g."createdAt", g.id`;
  return { statements: 1, run: async (rows) => ({ data: await rows(sql, params) }) };
}

export function guestCount(tenantId: string, where: string, params: unknown[]): FloorQuery {
  const sql = `SELECT count(*)::int AS count FROM "Guest" g WHERE g."tenantId" = $1 ${where}`;
  return { statements: 1, run: async (rows) => (await rows(sql, [tenantId, ...params]))[0] };
}

export function sessionCount(tenantId: string, locationId: string): FloorQuery {
  const sql = `SELECT count(*)::int AS count FROM "GuestSession" s WHERE s."tenantId" = $1 AND s."locationId" = $2`;
  return { statements: 1, run: async (rows) => (await rows(sql, [tenantId, locationId]))[0] };
}

export function sessionPage(tenantId: string, locationId: string): FloorQuery {
  const sql = `SELECT s.*, l.name AS "locationName", l.timezone, d.description, d.mac, g."partnerId",
      ac.code AS "accessCode", sp.name AS "serviceProfile"
    FROM "GuestSession" s
    JOIN "Location" l ON l.id = s."locationId"
    JOIN "GuestDevice" d ON d.id = s."deviceId"
    JOIN "Guest" g ON g.id = s."guestId"
    LEFT JOIN "AccessCode" ac ON ac.id = s."accessCodeId"
    LEFT JOIN "ServiceProfile" sp ON sp.id = s."serviceProfileId"
    WHERE s."tenantId" = $1 AND s."locationId" = $2
    ORDER BY s."startTime", s.id LIMIT 101`;
  return { statements: 1, run: async (rows) => ({ data: await rows(sql, [tenantId, locationId]) }) };
}

export function hierarchy(tenantId: string): FloorQuery {
  const sql = `SELECT l.id, l.name, l.lat, l.lng, b.id AS "buildingId", b.name AS building, b.lat AS "bLat",
      b.lng AS "bLng", f.id AS "floorId", f.name AS floor, f."imageUrl", f."imageWidth", f."imageHeight",
      f.width, f.length, z.id AS "zoneId", z.name AS zone
    FROM "Location" l
    LEFT JOIN "Building" b ON b."locationId" = l.id AND b."tenantId" = l."tenantId"
    LEFT JOIN "Floor" f ON f."buildingId" = b.id AND f."tenantId" = l."tenantId"
    LEFT JOIN "Zone" z ON z."floorId" = f.id AND z."tenantId" = l."tenantId"
    WHERE l."tenantId" = $1 AND NOT l."isTrashed"
    ORDER BY l."createdAt", l.id, b."createdAt", b.id, f.level, f.id, z.name, z.id`;
  return { statements: 1, run: async (rows) => ({ data: await rows(sql, [tenantId]) }) };
}

/** The dashboard: 100 guests, each with its devices (first 10) and latest 5 sessions. */
export function dashboard(tenantId: string): FloorQuery {
  const sql = `SELECT g.id, g.name, g.email, g.online,
      COALESCE((SELECT json_agg(d) FROM (SELECT d.id, d.mac, d."typeName", d.online FROM "GuestDevice" d
        WHERE d."tenantId" = $1 AND d."guestId" = g.id ORDER BY d."createdAt", d.id LIMIT 10) d), '[]') AS devices,
      COALESCE((SELECT json_agg(s) FROM (SELECT s.id, s."startTime", s."endTime", s."ipAddress",
          s."downloadedData" FROM "GuestSession" s
        WHERE s."tenantId" = $1 AND s."guestId" = g.id ORDER BY s."startTime" DESC, s.id DESC LIMIT 5) s), '[]') AS sessions
    FROM "Guest" g WHERE g."tenantId" = $1 ORDER BY g."createdAt", g.id LIMIT 101`;
  return { statements: 1, run: async (rows) => ({ data: await rows(sql, [tenantId]) }) };
}

export function activeSessions(tenantId: string, locationId: string): FloorQuery {
  // The rows, then the tags of their guests (one statement each, as the service does), merged here.
  const sql = `SELECT cp."mac", cp."dataType", cp."x", cp."y",
      cp."locationId", l."name" AS "location", cp."buildingId", b."name" AS "building",
      cp."floorId", f."name" AS "floor", cp."zoneId", z."name" AS "zone",
      g."id" AS "guestId", g."gender", g."nationalityCode", g."residencyCode", cp."seenAt", cp."connected"
    FROM "CurrentPresence" cp
    LEFT JOIN "Location" l ON l."id" = cp."locationId" AND l."tenantId" = cp."tenantId"
    LEFT JOIN "Building" b ON b."id" = cp."buildingId" AND b."tenantId" = cp."tenantId"
    LEFT JOIN "Floor" f ON f."id" = cp."floorId" AND f."tenantId" = cp."tenantId"
    LEFT JOIN "Zone" z ON z."id" = cp."zoneId" AND z."tenantId" = cp."tenantId"
    LEFT JOIN "GuestDevice" d ON d."tenantId" = cp."tenantId" AND d."mac" = cp."mac"
    LEFT JOIN "Guest" g ON g."tenantId" = cp."tenantId" AND g."id" = COALESCE(d."guestId", cp."guestId")
    WHERE cp."tenantId" = $1 AND cp."locationId" = $2 AND cp."seenAt" > now() - interval '300 seconds'
    ORDER BY cp."seenAt" DESC, cp."mac" ASC`;
  const tagsSql = `SELECT gt."guestId", t."id", t."name"
    FROM "GuestTag" gt JOIN "Tag" t ON t."id" = gt."tagId" AND t."tenantId" = gt."tenantId"
    WHERE gt."tenantId" = $1 AND gt."guestId" = ANY($2::text[])
    ORDER BY t."name", t."id"`;
  type Present = { guestId: string | null; segment?: unknown[] };
  return {
    statements: 2,
    run: async (rows) => {
      const present = (await rows(sql, [tenantId, locationId])) as Present[];
      const ids = [...new Set(present.flatMap((r) => (r.guestId ? [r.guestId] : [])))];
      const tags = (await rows(tagsSql, [tenantId, ids])) as { guestId: string; id: string; name: string }[];
      const byGuest = new Map<string, { id: string; name: string }[]>();
      for (const t of tags) {
        const list = byGuest.get(t.guestId) ?? [];
        list.push({ id: t.id, name: t.name });
        byGuest.set(t.guestId, list);
      }
      for (const r of present) r.segment = (r.guestId && byGuest.get(r.guestId)) || [];
      return { data: present };
    },
  };
}

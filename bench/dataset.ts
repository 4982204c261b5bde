// The benchmark dataset, generated in the database with bulk SQL (INSERT … SELECT generate_series),
// never row by row. Tenants come from the real bootstrap (so their tokens authenticate); everything
// else is set-based. A marker table records the sizes and the tokens, so a second run on the same
// PostgreSQL database with the same sizes reuses the data.

import type { Prisma } from '../src/db/database.js';
import { bootstrapTenant } from '../src/modules/tenants/bootstrap.service.js';

export interface Sizes {
  tenants: number;
  guests: number;
  devices: number;
  sessions: number;
  present: number;
}

export const LOCATIONS_PER_TENANT = 4;
const BUILDINGS = 2;
const FLOORS = 3;
const ZONES = 4;

export interface BenchTenant {
  index: number;
  tenantId: string;
  token: string;
  locations: string[];
  profileId: string;
}

export interface Dataset {
  sizes: Sizes;
  tenants: BenchTenant[];
  /** A guest id of tenant 0 (targets of updates). */
  guestIds: string[];
}

const MARKER = 'bench_dataset';

const pad = (n: number) => String(n).padStart(7, '0');

/** Ids of tenant `t`'s generated rows: short, unique, sorted like their index. */
export const guestId = (t: number, i: number) => `b${t}g${pad(i)}`;

export const sizesKey = (s: Sizes) => `t${s.tenants}-g${s.guests}-d${s.devices}-s${s.sessions}-p${s.present}`;

type Log = (msg: string) => void;

/** The marker row for these sizes, if the dataset is already there. */
export async function existingDataset(prisma: Prisma, sizes: Sizes): Promise<Dataset | null> {
  const table = await prisma.$queryRawUnsafe<{ t: string | null }[]>(
    `SELECT to_regclass('${MARKER}')::text AS t`,
  );
  if (!table[0]?.t) return null;
  const rows = await prisma.$queryRawUnsafe<{ info: Dataset }[]>(
    `SELECT info FROM ${MARKER} WHERE key = $1`,
    sizesKey(sizes),
  );
  return rows[0]?.info ?? null;
}

/** Whether the database holds anything but an empty schema (then it must be reset before generating). */
export async function hasOtherData(prisma: Prisma): Promise<boolean> {
  const rows = await prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "Tenant"`);
  return (rows[0]?.n ?? 0) > 0;
}

export async function generateDataset(prisma: Prisma, sizes: Sizes, log: Log): Promise<Dataset> {
  const exec = (sql: string, ...params: unknown[]) => prisma.$executeRawUnsafe(sql, ...params);
  const G = Math.floor(sizes.guests / sizes.tenants);
  const D = Math.floor(sizes.devices / sizes.tenants);
  const S = Math.floor(sizes.sessions / sizes.tenants);
  const devicesPerGuest = Math.max(1, Math.floor(D / G));
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  const tenants: BenchTenant[] = [];
  const base = '2026-01-01T00:00:00Z';
  const now = new Date().toISOString();

  for (let t = 0; t < sizes.tenants; t++) {
    const a = await bootstrapTenant(prisma, { tenant: `Bench tenant ${t}` });
    const tid = a.tenant_id;
    const locs = [a.location_id];
    for (let l = 1; l < LOCATIONS_PER_TENANT; l++) locs.push(`b${t}loc${l}`);
    await exec(
      `INSERT INTO "Location" (id, "tenantId", name, city, "countryCode", lat, lng, timezone, "updatedAt")
       SELECT 'b' || $1 || 'loc' || l, $2, 'Venue ' || l, 'Dubai', 'AE', 25.2 + l / 100.0, 55.27, 'Asia/Dubai', now()
       FROM generate_series(1, $3::int) l`,
      String(t),
      tid,
      LOCATIONS_PER_TENANT - 1,
    );
    // Buildings × floors × zones under every location.
    await exec(
      `INSERT INTO "Building" (id, "tenantId", "locationId", name, lat, lng)
       SELECT loc || '-b' || b, $1, loc, 'Building ' || b, 25.2, 55.27
       FROM unnest($2::text[]) loc, generate_series(1, $3::int) b`,
      tid,
      locs,
      BUILDINGS,
    );
    await exec(
      `INSERT INTO "Floor" (id, "tenantId", "buildingId", name, level, width, length)
       SELECT b.id || '-f' || f, $1, b.id, 'Floor ' || f, f, 80, 60
       FROM "Building" b, generate_series(1, $2::int) f WHERE b."tenantId" = $1`,
      tid,
      FLOORS,
    );
    await exec(
      `INSERT INTO "Zone" (id, "tenantId", "floorId", name, coordinates)
       SELECT fl.id || '-z' || z, $1, fl.id, 'Zone ' || z,
         jsonb_build_array(jsonb_build_object('x', 0, 'y', 0), jsonb_build_object('x', 10.5, 'y', 0),
                           jsonb_build_object('x', 10.5, 'y', 8), jsonb_build_object('x', 0, 'y', 8))
       FROM "Floor" fl, generate_series(1, $2::int) z WHERE fl."tenantId" = $1`,
      tid,
      ZONES,
    );
    await exec(
      `INSERT INTO "Tag" (id, "tenantId", name, type)
       SELECT 'b' || $1 || 'tag' || n, $2, 'Segment ' || n, 1 FROM generate_series(1, 8) n`,
      String(t),
      tid,
    );
    // Guests: spread over the locations, one a minute from the base date, a twentieth online.
    await exec(
      `INSERT INTO "Guest" (id, "tenantId", "locationId", type, username, name, "firstName", "lastName",
         email, "birthDate", gender, phone, "nationalityCode", "residencyCode", "roomNo", "reservationNo",
         "partnerId", online, "lastVisitDate", "visitCount", "receiveMarketing", "lastLoginType",
         "connectionStatus", "lastSsidName", "totalDownloadedData", "totalUploadedData", "createdAt", "updatedAt")
       SELECT 'b' || $1 || 'g' || lpad(i::text, 7, '0'), $2, ($3::text[])[1 + i % cardinality($3::text[])],
         CASE WHEN i % 10 = 0 THEN 2 ELSE 1 END, 'user' || i, n.fn || ' ' || n.ln, n.fn, n.ln,
         'guest' || i || '@example.com', date '1960-01-01' + (i % 15000), i % 3,
         '+9715' || lpad(i::text, 8, '0'),
         (ARRAY['AE','DE','FR','GB','US','IN','CN','BR'])[1 + i % 8],
         (ARRAY['AE','GB','US','DE'])[1 + i % 4],
         (100 + i % 900)::text, 'R' || i, 'P' || (i % 1000), i % 20 = 0,
         $4::timestamptz - (i % 120) * interval '1 day', i % 30, i % 2, 'Email', (i % 20 = 0)::int,
         'Guest-WiFi', i::bigint * 1000003, i::bigint * 100003,
         $5::timestamptz + i * interval '1 minute', $5::timestamptz + i * interval '1 minute'
       FROM generate_series(1, $6::int) i,
       LATERAL (SELECT (ARRAY['Anna','Omar','Li','Maria','John','Fatima','Ivan','Sara','Ahmed','Julia'])[1 + i % 10] AS fn,
                       (ARRAY['Smith','Khan','Müller','García','Rossi','Haddad','Ivanova','Chen','Silva','Dubois'])[1 + (i / 10) % 10] AS ln) n`,
      String(t),
      tid,
      locs,
      now,
      base,
      G,
    );
    await exec(
      `INSERT INTO "GuestTag" ("tenantId", "guestId", "tagId")
       SELECT $2, 'b' || $1 || 'g' || lpad(i::text, 7, '0'), 'b' || $1 || 'tag' || (1 + i % 8)
       FROM generate_series(1, $3::int) i
       UNION ALL
       SELECT $2, 'b' || $1 || 'g' || lpad(i::text, 7, '0'), 'b' || $1 || 'tag' || (1 + (i + 3) % 8)
       FROM generate_series(3, $3::int, 3) i`,
      String(t),
      tid,
      G,
    );
    log(`  tenant ${t + 1}/${sizes.tenants}: ${G} guests (${elapsed()})`);
    // Devices: device j belongs to guest ((j-1) % G) + 1, so each guest has D/G devices.
    await exec(
      `INSERT INTO "GuestDevice" (id, "tenantId", "guestId", "typeName", mac, ip, description, platform,
         browser, online, "connectionStatus", "totalDownloadedData", "totalUploadedData", "lastSeenTime",
         "createdAt", "updatedAt")
       SELECT 'b' || $1 || 'd' || lpad(j::text, 7, '0'), $2,
         'b' || $1 || 'g' || lpad((((j - 1) % $3::int) + 1)::text, 7, '0'),
         (ARRAY['Phone','Laptop','Tablet'])[1 + j % 3],
         regexp_replace(lpad(to_hex($1::int * 16777216 + j), 12, '0'), '(..)(?!$)', '\\1:', 'g'),
         '10.' || ($1::int % 256) || '.' || ((j >> 8) % 256) || '.' || (j % 256),
         'Device ' || j, (ARRAY['iOS','Android','Windows','macOS'])[1 + j % 4], 'Safari', j % 20 = 0,
         (j % 20 = 0)::int, j::bigint * 7919, j::bigint * 3571, $4::timestamptz - (j % 90) * interval '1 day',
         $5::timestamptz + j * interval '1 second', $5::timestamptz + j * interval '1 second'
       FROM generate_series(1, $6::int) j`,
      String(t),
      tid,
      G,
      now,
      base,
      D,
    );
    log(`  tenant ${t + 1}/${sizes.tenants}: ${D} devices (${elapsed()})`);
    // Sessions: session k is guest g's (round robin), on one of its devices, at its location; start
    // times spread over the 120 days before now; the newest session of the online guests is open.
    const step = Math.max(1, Math.floor((120 * 86400) / S));
    await exec(
      `INSERT INTO "GuestSession" (id, "tenantId", "locationId", "guestId", "deviceId", "ipAddress",
         "loginType", "serviceProfileId", "downloadedData", "uploadedData", "startTime", "endTime", online,
         "connectionStatus", "createdAt", "updatedAt")
       SELECT 'b' || $1 || 's' || lpad(k::text, 8, '0'), $2, ($3::text[])[1 + g % cardinality($3::text[])],
         'b' || $1 || 'g' || lpad(g::text, 7, '0'),
         'b' || $1 || 'd' || lpad((g + $4::int * ((k - 1) / $4::int % $5::int))::text, 7, '0'),
         '10.' || ((k >> 16) % 256) || '.' || ((k >> 8) % 256) || '.' || (k % 256),
         (ARRAY['Email','Social','Access Code','SMS'])[1 + k % 4], $6, k::bigint * 104729, k::bigint * 7919,
         st, CASE WHEN k > $7::int - $4::int AND g % 20 = 0 THEN NULL ELSE st + (600 + k % 3600) * interval '1 second' END,
         k > $7::int - $4::int AND g % 20 = 0, (k > $7::int - $4::int AND g % 20 = 0)::int, st, st
       FROM generate_series(1, $7::int) k,
       LATERAL (SELECT ((k - 1) % $4::int) + 1 AS g,
                       $8::timestamptz - ($7::int - k) * $9::int * interval '1 second' AS st) x`,
      String(t),
      tid,
      locs,
      G,
      devicesPerGuest,
      a.service_profile_id,
      S,
      now,
      step,
    );
    log(`  tenant ${t + 1}/${sizes.tenants}: ${S} sessions (${elapsed()})`);
    tenants.push({
      index: t,
      tenantId: tid,
      token: a.token,
      locations: locs,
      profileId: a.service_profile_id,
    });
  }

  // Presence: every present device is in tenant 0's first location (a stadium): its registered
  // devices first, then unknown MACs; placed round robin over that location's zones.
  const t0 = tenants[0];
  if (t0 && sizes.present > 0) {
    const zones = await prisma.$queryRawUnsafe<{ zone: string; floor: string; building: string }[]>(
      `SELECT z.id AS zone, f.id AS floor, b.id AS building FROM "Zone" z
       JOIN "Floor" f ON f.id = z."floorId" JOIN "Building" b ON b.id = f."buildingId"
       WHERE b."locationId" = $1 ORDER BY z.id`,
      t0.locations[0],
    );
    await exec(
      `INSERT INTO "CurrentPresence" ("tenantId", mac, "recordId", "deviceId", "guestId", "dataType", x, y,
         "locationId", "buildingId", "floorId", "zoneId", connected, "seenAt")
       SELECT $1, CASE WHEN p <= $2::int
           THEN regexp_replace(lpad(to_hex(p), 12, '0'), '(..)(?!$)', '\\1:', 'g')
           ELSE regexp_replace(lpad(to_hex(255::bigint * 16777216 + p), 12, '0'), '(..)(?!$)', '\\1:', 'g') END,
         'b0r' || p,
         CASE WHEN p <= $2::int THEN 'b0d' || lpad(p::text, 7, '0') END,
         CASE WHEN p <= $2::int THEN 'b0g' || lpad((((p - 1) % $3::int) + 1)::text, 7, '0') END,
         1 + p % 2, (p % 80)::float8 + 0.5, (p % 60)::float8, $4,
         ($5::text[])[1 + p % cardinality($5::text[])], ($6::text[])[1 + p % cardinality($6::text[])],
         ($7::text[])[1 + p % cardinality($7::text[])], p % 3 <> 0, now()
       FROM generate_series(1, $8::int) p`,
      t0.tenantId,
      D,
      G,
      t0.locations[0],
      zones.map((z) => z.building),
      zones.map((z) => z.floor),
      zones.map((z) => z.zone),
      sizes.present,
    );
    log(`  ${sizes.present} present devices (${elapsed()})`);
  }
  log(`  VACUUM ANALYZE (${elapsed()})`);
  await exec('VACUUM ANALYZE');
  const dataset: Dataset = {
    sizes,
    tenants,
    guestIds: Array.from({ length: Math.min(G, 1000) }, (_, i) => guestId(0, i + 1)),
  };
  await exec(`CREATE TABLE IF NOT EXISTS ${MARKER} (key text PRIMARY KEY, info jsonb NOT NULL)`);
  await exec(
    `INSERT INTO ${MARKER} (key, info) VALUES ($1, $2::jsonb)`,
    sizesKey(sizes),
    JSON.stringify(dataset),
  );
  log(`  dataset ready (${elapsed()})`);
  return dataset;
}

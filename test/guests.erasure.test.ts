// A guest's data rights (issue 17): the copy (`GET /guests/:id/export`, GraphQL `guestExport`) and the
// erasure (`DELETE /guests/:id`, GraphQL `eraseGuest`). The erasure's goal: afterwards no text column
// of any table holds any of the guest's values (MACs in any notation), the avatar is gone from
// storage, and every location count is what it was, but for the guest's devices present then: they
// leave at the erasure (test/guests.erasure.presence.test.ts).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma as PrismaNS } from '../src/generated/prisma/client.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { addDevice, addHierarchy, addSession, addUser, newTenant, randomMac } from './helpers/fixtures.js';
import { type ScratchDatabase, scratchDatabase } from './helpers/scratch-database.js';

let t: TestApp;
let scratch: ScratchDatabase;
beforeAll(async () => {
  // A database of this file's own: the search below reads every row of every table, which in the
  // shared test database would be every earlier run's rows too.
  scratch = await scratchDatabase('erasure');
  // Avatars in the database (StoredFile), so the search below covers the avatar storage as well.
  t = await startApp({ MEDIA_STORAGE: 'database' }, { db: scratch.db });
});
afterAll(async () => {
  await t.close();
  await scratch.drop();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

const GUESTS = '/api/v1/guests';
const NOT_FOUND = '{"error":"Record not found."}';
const FORBIDDEN = '{"message":"This action is unauthorized."}';
const prisma = () => t.db.prisma;

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const avatar = `data:image/png;base64,${Buffer.concat([PNG_HEAD, Buffer.alloc(64, 7)]).toString('base64')}`;

let n = 0;
const eid = (): string => `erasure-${Date.now()}-${++n}-${randomBytes(3).toString('hex')}`;
const iso = (secondsAgo: number): string => new Date(Date.now() - secondsAgo * 1000).toISOString();
const tok = (): string => randomBytes(5).toString('hex');

/**
 * A tenant whose location has zones, and a guest at it with every personal field, an avatar, tags,
 * two devices (sessions through the ingest, one by an access code), presence with location sessions
 * and logs; plus a second guest whose data must survive the erasure untouched.
 */
async function world() {
  const a = await newTenant(prisma());
  const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 2 });
  const [z0, z1] = await prisma().zone.findMany({
    where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
    orderBy: { name: 'asc' },
  });
  if (!z0 || !z1) throw new Error('zones');
  const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
  const s = tok();
  const values = {
    first: `Zelda${s}`,
    last: `Quux${s}`,
    email: `zelda.${s}@erase.test`,
    phone: `+97155${parseInt(s, 16).toString().slice(0, 7)}`,
    passport: `PX${s}`,
    room: `R${s}`,
    reservation: `RES-${s}`,
    partner: `PARTNER-${s}`,
    social: `SOCIAL-${s}`,
    c1: `cf1-${s}`,
    c2: `cf2-${s}`,
    c3: `cf3-${s}`,
    customData: `secret-${s}`,
    tag: `tag-${s}`,
    agent: `Agent/${s}`,
    deviceDescription: `Zelda phone ${s}`,
    ip: `10.${parseInt(s.slice(0, 2), 16)}.${parseInt(s.slice(2, 4), 16)}.${parseInt(s.slice(4, 6), 16)}`,
  };
  const created = await t.request('POST', GUESTS, {
    token: a.token,
    body: {
      location_id: locationId,
      first_name: values.first,
      last_name: values.last,
      email: values.email,
      phone: values.phone,
      passport_no: values.passport,
      birth_date: '1987-06-05',
      gender: 'female',
      nationality: 'AE',
      residency: 'GB',
      room_no: values.room,
      reservation_no: values.reservation,
      partner_id: values.partner,
      custom_field_1: values.c1,
      custom_field_2: values.c2,
      custom_field_3: values.c3,
      custom_data: JSON.stringify({ note: values.customData }),
      tags: [values.tag],
      avatar,
    },
  });
  expect(created.status, created.text).toBe(201);
  const guestId: string = created.json.data.id;
  await prisma().guest.update({ where: { id: guestId }, data: { socialId: values.social } });
  const imagePath = (await prisma().guest.findUniqueOrThrow({ where: { id: guestId } })).imagePath;
  expect(imagePath).toMatch(/^avatar-/);

  const macs = [randomMac(), randomMac()] as [string, string];
  // A session through the ingest (lower-case dashes: stored canonical), one through a code.
  const started = await t.request('POST', '/api/v1/ingest/sessions', {
    token: ingest,
    body: {
      events: [
        {
          event_id: eid(),
          kind: 'start',
          mac: macs[0].toLowerCase().replaceAll(':', '-'),
          ip: values.ip,
          guest_id: guestId,
          location_id: locationId,
          bytes_up: 10,
          bytes_down: 20,
          login_type: 'Email',
          at: iso(600),
        },
      ],
    },
  });
  expect(started.status, started.text).toBe(200);
  const code = await t.request('POST', '/api/v1/access-codes', {
    token: a.token,
    body: { location_id: locationId, service_profile_id: a.service_profile_id, type: 2 },
  });
  expect(code.status, code.text).toBe(201);
  const codeValue: string = code.json.access_codes[0].code;
  const redeemed = await t.request('POST', '/api/v1/access-codes/redeem', {
    token: a.token,
    body: {
      code: codeValue,
      location_id: locationId,
      mac: macs[1],
      guest_id: guestId,
      start_session: true,
      ip_address: values.ip,
    },
  });
  expect(redeemed.status, redeemed.text).toBe(200);
  await prisma().guestDevice.updateMany({
    where: { tenantId: a.tenant_id, guestId },
    data: { userAgent: values.agent, description: values.deviceDescription },
  });
  // Presence of both devices, moving between zones: location sessions and logs.
  const presence = await t.request('POST', '/api/v1/ingest/presence', {
    token: ingest,
    body: {
      events: [
        { mac: macs[0], zone_id: z0.id, seen_at: iso(120) },
        { mac: macs[0], zone_id: z1.id, seen_at: iso(60) },
        { mac: macs[1].toLowerCase(), zone_id: z0.id, seen_at: iso(30), data_type: 2 },
      ].map((e) => ({ event_id: eid(), data_type: 1, connected: true, ...e })),
    },
  });
  expect(presence.status, presence.text).toBe(200);

  // Another guest of the same location: nothing of theirs changes.
  const other = await t.request('POST', GUESTS, {
    token: a.token,
    body: { location_id: locationId, name: `Other Guest ${s}`, email: `other.${s}@erase.test` },
  });
  expect(other.status, other.text).toBe(201);
  const otherMac = randomMac();
  const otherStart = await t.request('POST', '/api/v1/ingest/sessions', {
    token: ingest,
    body: {
      events: [
        {
          event_id: eid(),
          kind: 'start',
          mac: otherMac,
          ip: '10.200.0.9',
          guest_id: other.json.data.id,
          location_id: locationId,
          bytes_up: 1,
          bytes_down: 2,
          login_type: 'Email',
          at: iso(500),
        },
      ],
    },
  });
  expect(otherStart.status, otherStart.text).toBe(200);
  const otherPresence = await t.request('POST', '/api/v1/ingest/presence', {
    token: ingest,
    body: {
      events: [
        { event_id: eid(), mac: otherMac, zone_id: z1.id, data_type: 1, connected: true, seen_at: iso(20) },
      ],
    },
  });
  expect(otherPresence.status, otherPresence.text).toBe(200);

  return {
    a,
    locationId,
    guestId,
    values,
    macs,
    imagePath: imagePath as string,
    codeValue,
    other: other.json.data,
    otherMac,
  };
}
type World = Awaited<ReturnType<typeof world>>;

/** Every count a location shows, on REST. */
async function counts(w: World) {
  const q = `location_id=${w.locationId}`;
  const get = async (path: string): Promise<Json> => {
    const res = await t.request('GET', `/api/v1${path}`, { token: w.a.token });
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.json;
  };
  const active = await get(`/locations-analytics/active-sessions?${q}`);
  return {
    guestSessions: (await get(`/sessions/count?${q}`)).count,
    devices: (await get('/guest-devices/count')).count,
    // The analytics lists of location sessions and logs are gone (410): their tables, counted.
    locationSessions: await prisma().locationSession.count({ where: { locationId: w.locationId } }),
    locationLogs: await prisma().locationLog.count({ where: { locationId: w.locationId } }),
    active: (active.data ?? active).length,
    activeMacs: new Set((active.data ?? active).map((r: Json) => r.mac_address)).size,
    codes: (await get(`/access-codes/count?${q}`)).count,
    presence: await prisma().presenceRecord.count({ where: { tenantId: w.a.tenant_id } }),
    current: await prisma().currentPresence.count({ where: { tenantId: w.a.tenant_id } }),
  };
}

/** Every text-like column of every table of the schema (arrays and JSON cast to text). */
async function textColumns(): Promise<{ table: string; column: string }[]> {
  const rows = await prisma().$queryRaw<{ table: string; column: string }[]>(PrismaNS.sql`
    SELECT table_name AS table, column_name AS column FROM information_schema.columns
    WHERE table_schema = current_schema()
      AND (data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
           OR (data_type = 'ARRAY' AND udt_name IN ('_text', '_varchar')))
    ORDER BY table_name, column_name`);
  return rows;
}

/**
 * Where any of `needles` (case-insensitive) is found: `Table.column` names. One scan per table (its
 * text-like columns joined, one regular expression), then the columns of a table that matched.
 */
async function findAnywhere(needles: string[]): Promise<string[]> {
  const regex = needles.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const byTable = new Map<string, string[]>();
  for (const { table, column } of await textColumns())
    byTable.set(table, [...(byTable.get(table) ?? []), column]);
  const found: string[] = [];
  const hit = async (table: string, columns: string[]): Promise<boolean> => {
    const text = columns.map((c) => `coalesce("${c}"::text, '')`).join(` || ' ' || `);
    const [row] = await prisma().$queryRaw<{ n: bigint }[]>(PrismaNS.sql`
      SELECT count(*) AS n FROM ${PrismaNS.raw(`"${table}"`)} WHERE (${PrismaNS.raw(text)}) ~* ${regex}`);
    return (row?.n ?? 0n) > 0n;
  };
  for (const [table, columns] of byTable) {
    if (!(await hit(table, columns))) continue;
    for (const column of columns) if (await hit(table, [column])) found.push(`${table}.${column}`);
  }
  return found;
}

/** A MAC in every notation a writer may have used. */
const notations = (mac: string): string[] => {
  const hex = mac.replaceAll(':', '');
  return [mac, mac.replaceAll(':', '-'), hex].flatMap((m) => [m, m.toLowerCase()]);
};

const erase = (token: string, id: string) => t.request('DELETE', `${GUESTS}/${id}`, { token });

describe.concurrent('DELETE /guests/:id (erasure)', () => {
  it('leaves none of the guest’s values in any text column of any table, nor its avatar, and keeps every count but its present devices', async () => {
    const w = await world();
    const needles = [
      ...Object.values(w.values),
      `${w.values.first} ${w.values.last}`,
      ...w.macs.flatMap(notations),
      w.imagePath,
    ];
    // The search finds them all before (it would find them after, were they left).
    const before = await findAnywhere(needles);
    expect(before).toEqual(
      expect.arrayContaining([
        'Guest.email',
        'Guest.name',
        'Guest.passportNo',
        'Guest.socialId',
        'Guest.customData',
        'Guest.imagePath',
        'GuestDevice.mac',
        'GuestDevice.userAgent',
        'GuestSession.ipAddress',
        'PresenceRecord.mac',
        'CurrentPresence.mac',
        'LocationSession.mac',
        'LocationLog.guestMac',
        'StoredFile.key',
        'Tag.name',
      ]),
    );
    const countsBefore = await counts(w);
    expect(countsBefore).toMatchObject({ guestSessions: 3, devices: 3, locationSessions: 3, activeMacs: 3 });
    const guestsBefore = (await t.request('GET', `${GUESTS}/count`, { token: w.a.token })).json.count;

    const res = await erase(w.a.token, w.guestId);
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');

    // The tag itself is the tenant's (other guests may carry it); only its link to the guest goes.
    const left = await findAnywhere(needles.filter((v) => v !== w.values.tag));
    expect(left).toEqual([]);
    expect(await prisma().guestTag.count({ where: { guestId: w.guestId } })).toBe(0);
    expect(await prisma().storedFile.count({ where: { key: { contains: w.imagePath } } })).toBe(0);
    // Its two devices present at the erasure left then (as its open sessions ended): the other guest's stays.
    expect(await counts(w)).toEqual({
      ...countsBefore,
      active: countsBefore.active - 2,
      activeMacs: 1,
      current: countsBefore.current - 2,
    });
    expect((await t.request('GET', `${GUESTS}/count`, { token: w.a.token })).json.count).toBe(
      guestsBefore - 1,
    );

    // The stand-ins: locally administered MACs, one per device, the same in every table.
    const devices = await prisma().guestDevice.findMany({
      where: { guestId: w.guestId },
      orderBy: { mac: 'asc' },
    });
    expect(devices).toHaveLength(2);
    for (const d of devices) {
      expect(d.mac).toMatch(/^02(:[0-9A-F]{2}){5}$/);
      expect(await prisma().presenceRecord.count({ where: { deviceId: d.id, mac: { not: d.mac } } })).toBe(0);
      expect(await prisma().locationSession.count({ where: { deviceId: d.id, mac: { not: d.mac } } })).toBe(
        0,
      );
    }
    // The other guest is untouched.
    const other = await t.request('GET', `${GUESTS}/${w.other.id}`, { token: w.a.token });
    expect(other.json.data.name).toBe(w.other.name);
    expect(await prisma().guestDevice.count({ where: { mac: w.otherMac } })).toBe(1);
    expect(await prisma().currentPresence.count({ where: { mac: w.otherMac } })).toBe(1);
  }, 120_000);

  it('empties the MAC in every event of the log that holds one, also from before the device was the guest’s', async () => {
    const a = await newTenant(prisma());
    const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const guest = async (name: string) => {
      const res = await t.request('POST', GUESTS, {
        token: a.token,
        body: { location_id: locationId, name, email: `${name.replace(' ', '.')}.${tok()}@erase.test` },
      });
      expect(res.status, res.text).toBe(201);
      return res.json.data.id as string;
    };
    const erased = await guest('Erin Erasable');
    const other = await guest('Other Person');
    const mac = randomMac();
    const ip = `10.77.${1 + (n % 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const post = async (path: string, event: Record<string, unknown>) => {
      const res = await t.request('POST', `/api/v1/ingest/${path}`, {
        token: ingest,
        body: { events: [{ event_id: eid(), location_id: locationId, ...event }] },
      });
      expect(res.status, res.text).toBe(200);
    };
    const session = (guestId: string, at: number, address: string) => ({
      kind: 'start',
      mac: mac.toLowerCase(),
      ip: address,
      guest_id: guestId,
      bytes_up: 1,
      bytes_down: 2,
      login_type: 'Email',
      at: iso(at),
    });
    // Seen as no one's, then the other guest's (its IP then), then the erased guest's; in the zone
    // (a detection without one makes no zone visit, no location log).
    const zone = (await prisma().zone.findFirstOrThrow({ where: { tenantId: a.tenant_id } })).id;
    await post('presence', { mac, data_type: 1, connected: true, zone_id: zone, seen_at: iso(600) });
    await post('sessions', session(other, 480, ip));
    await post('sessions', session(erased, 300, '10.88.0.1'));
    await post('presence', { mac, data_type: 1, connected: true, zone_id: zone, seen_at: iso(10) });
    const needles = notations(mac);
    expect(await findAnywhere(needles)).toEqual(expect.arrayContaining(['Event.payload']));
    // The copy holds what the erasure treats as the guest's: the device's presence from before it was
    // anyone's (no guest then), beside its own; the other guest's rows stay the other guest's.
    const copy = await t.request('GET', `${GUESTS}/${erased}/export`, { token: a.token });
    expect(copy.status, copy.text).toBe(200);
    const guestIds = (rows: Json[]) => rows.map((r) => r.guest_id ?? null);
    // Its two detections: the one before the device was anyone's, and the one after it was the guest's.
    expect(copy.json.data.presence_records).toHaveLength(2);
    expect(guestIds(copy.json.data.location_sessions)).toEqual([erased, null]);
    expect(new Set(guestIds(copy.json.data.location_logs))).toEqual(new Set([erased, null]));
    const gql = await t.graphql(
      a.token,
      'query($id: ID!) { guestExport(id: $id) { presenceRecords { id } locationSessions { id } locationLogs { id } } }',
      { id: erased },
    );
    expect(gql.json.data.guestExport).toEqual({
      presenceRecords: [expect.any(Object), expect.any(Object)],
      locationSessions: copy.json.data.location_sessions.map((r: Json) => ({ id: r.id })),
      locationLogs: copy.json.data.location_logs.map(() => expect.any(Object)),
    });
    const otherCopy = await t.request('GET', `${GUESTS}/${other}/export`, { token: a.token });
    expect(otherCopy.json.data.presence_records).toEqual([]);

    expect((await erase(a.token, erased)).status).toBe(204);
    expect(await findAnywhere(needles)).toEqual([]);
    // The device's own event loses what the erasure empties on the device (its address then too).
    const [seen] = await prisma().event.findMany({
      where: { tenantId: a.tenant_id, type: 'device.first_seen' },
    });
    expect(seen?.payload).toMatchObject({ mac: '', ip: '', guest_id: other });
    // The other guest's own session keeps its address: it is the other guest's data.
    const sessions = await t.request('GET', `/api/v1/sessions?guest_id=${other}`, { token: a.token });
    expect(sessions.json.data.map((x: Json) => x.guest_device_ip)).toEqual([ip]);
  }, 120_000);

  it('wins over writes sent at the same moment: an update, an ingest batch, a redeem; none answers 500', async () => {
    const w = await world();
    const ingest = (await issueToken(prisma(), w.a.user_id, ['ingest'])).token;
    const zone = await prisma().zone.findFirstOrThrow({ where: { tenantId: w.a.tenant_id } });
    const [erasure, ...others] = await Promise.all([
      erase(w.a.token, w.guestId),
      t.request('PUT', `${GUESTS}/${w.guestId}`, {
        token: w.a.token,
        body: { location_id: w.locationId, name: 'Back Again', email: `back.${tok()}@erase.test` },
      }),
      t.request('POST', '/api/v1/ingest/presence', {
        token: ingest,
        body: {
          events: w.macs.map((mac) => ({
            event_id: eid(),
            mac,
            data_type: 1,
            connected: true,
            zone_id: zone.id,
            seen_at: iso(1),
          })),
        },
      }),
      t.request('POST', '/api/v1/ingest/sessions', {
        token: ingest,
        body: {
          events: w.macs.map((mac) => ({
            event_id: eid(),
            kind: 'start',
            mac,
            ip: w.values.ip,
            location_id: w.locationId,
            bytes_up: 1,
            bytes_down: 1,
            login_type: 'Email',
            at: iso(1),
          })),
        },
      }),
    ]);
    expect(erasure?.status).toBe(204);
    // The update came before (then erased with the rest) or after (then the guest was absent).
    const [update, presence, sessions] = others;
    expect([200, 404]).toContain(update?.status);
    expect(presence?.status, presence?.text).toBe(200);
    // After the erasure the MACs are no known device: a start then needs its guest_id.
    expect([200, 422], sessions?.text).toContain(sessions?.status);
    if (sessions?.status === 422)
      expect(sessions.json.errors['events.0.guest_id']).toEqual([
        'The events.0.guest_id field is required when events.0.mac is not a known device.',
      ]);
    // Whatever the order, nothing of the guest is left: no name, no address anywhere, and no row
    // linked to it holds a MAC as it was. (A batch that came after the erasure saw MACs of no known
    // device: what it wrote is a new sighting, of no one.)
    const needles = [...Object.values(w.values), 'Back Again'].filter((v) => v !== w.values.tag);
    expect(await findAnywhere(needles)).toEqual([]);
    const raw = { in: w.macs.flatMap(notations) };
    const linked = { tenantId: w.a.tenant_id, guestId: w.guestId };
    expect([
      await prisma().presenceRecord.count({ where: { ...linked, mac: raw } }),
      await prisma().currentPresence.count({ where: { ...linked, mac: raw } }),
      await prisma().locationSession.count({ where: { ...linked, mac: raw } }),
      await prisma().locationLog.count({ where: { ...linked, guestMac: raw } }),
      await prisma().guestDevice.count({ where: { ...linked, mac: raw } }),
      await prisma().guestSession.count({ where: { ...linked, ipAddress: { not: '0.0.0.0' } } }),
    ]).toEqual([0, 0, 0, 0, 0, 0]);
    const events = await prisma().event.findMany({ where: { tenantId: w.a.tenant_id } });
    const mentions = events.filter((e) => {
      const p = e.payload as Record<string, unknown>;
      return p.guest_id === w.guestId && w.macs.flatMap(notations).some((m) => JSON.stringify(p).includes(m));
    });
    expect(mentions).toEqual([]);
    const row = await prisma().guest.findUniqueOrThrow({ where: { id: w.guestId } });
    expect([row.name, row.email, row.erasedAt !== null]).toEqual(['', null, true]);
  }, 120_000);

  it('wins over redeems sent at the same moment: of codes issued to the guest, and naming the guest', async () => {
    const w = await world();
    const issued = await t.request('POST', '/api/v1/access-codes', {
      token: w.a.token,
      body: {
        location_id: w.locationId,
        service_profile_id: w.a.service_profile_id,
        type: 2,
        quantity: 3,
        guest_id: w.guestId,
      },
    });
    expect(issued.status, issued.text).toBe(201);
    const codes: string[] = issued.json.access_codes.map((c: { code: string }) => c.code);
    const more = await t.request('POST', '/api/v1/access-codes', {
      token: w.a.token,
      body: { location_id: w.locationId, service_profile_id: w.a.service_profile_id, type: 2, quantity: 2 },
    });
    const spare: string[] = more.json.access_codes.map((c: { code: string }) => c.code);
    const sent: string[] = [];
    const redeem = (code: string, delayMs: number, extra: Record<string, unknown> = {}) =>
      new Promise((r) => setTimeout(r, delayMs)).then(() =>
        t.request('POST', '/api/v1/access-codes/redeem', {
          token: w.a.token,
          body: {
            code,
            location_id: w.locationId,
            mac: sent[sent.push(randomMac()) - 1],
            start_session: true,
            ip_address: '10.33.0.7',
            ...extra,
          },
        }),
      );
    const [erasure, ...redeems] = await Promise.all([
      erase(w.a.token, w.guestId),
      ...codes.map((code, i) => redeem(code, i)),
      ...spare.map((code, i) => redeem(code, i, { guest_id: w.guestId })),
    ]);
    expect(erasure?.status).toBe(204);
    for (const res of redeems.slice(0, codes.length)) expect(res.status, res.text).toBe(200);
    // Naming the guest: before the erasure (then erased with the rest), or after it: as absent.
    for (const res of redeems.slice(codes.length)) {
      expect([200, 422], res.text).toContain(res.status);
      if (res.status === 422)
        expect(res.json.errors).toEqual({ guest_id: ['The selected guest id is invalid.'] });
    }
    // Nothing written after the erasure is the erased guest's: no code, device, session or event.
    const linked = { tenantId: w.a.tenant_id, guestId: w.guestId };
    expect([
      await prisma().accessCode.count({ where: linked }),
      await prisma().guestDevice.count({ where: { ...linked, mac: { in: sent } } }),
      await prisma().guestSession.count({ where: { ...linked, ipAddress: { not: '0.0.0.0' } } }),
    ]).toEqual([0, 0, 0]);
    const events = await prisma().event.findMany({
      where: { tenantId: w.a.tenant_id },
      orderBy: { id: 'asc' },
    });
    const erasedAt = events.findIndex((e) => e.type === 'guest.erased');
    const after = events.slice(erasedAt + 1).filter((e) => JSON.stringify(e.payload).includes(w.guestId));
    expect(after.map((e) => e.type)).toEqual([]);
    const row = await prisma().guest.findUniqueOrThrow({ where: { id: w.guestId } });
    expect(row.online).toBe(false);
  });

  it('makes the guest absent everywhere: 404 on REST, null on GraphQL, gone from lists and relations', async () => {
    const w = await world();
    expect((await erase(w.a.token, w.guestId)).status).toBe(204);
    const token = w.a.token;
    expect((await t.request('GET', `${GUESTS}/${w.guestId}`, { token })).text).toBe(NOT_FOUND);
    const put = await t.request('PUT', `${GUESTS}/${w.guestId}`, {
      token,
      body: { location_id: w.locationId, name: 'Back again' },
    });
    expect(put.status).toBe(404);
    expect((await t.request('GET', `${GUESTS}/${w.guestId}/export`, { token })).text).toBe(NOT_FOUND);
    // A second erasure.
    const again = await erase(token, w.guestId);
    expect(again.status).toBe(404);
    expect(again.text).toBe(NOT_FOUND);
    const list = await t.request('GET', `${GUESTS}?per_page=100`, { token });
    expect(list.json.data.map((g: Json) => g.id)).toEqual([w.other.id]);
    // Its sessions answer no address: neither the one they had nor the 0.0.0.0 they have now.
    for (const ip of [w.values.ip, '0.0.0.0'])
      expect((await t.request('GET', `/api/v1/sessions/${ip}`, { token })).text).toBe(NOT_FOUND);
    const byIp = await t.request('GET', `/api/v1/sessions/${w.values.ip},0.0.0.0,10.200.0.9`, { token });
    expect(byIp.json.map((x: Json) => x.ip_address)).toEqual(['10.200.0.9']);

    const gql = await t.graphql(
      token,
      `query($id: ID!, $loc: ID!) {
        guest(id: $id) { id }
        guestExport(id: $id) { guest { id } }
        guests { totalCount edges { node { id } } }
        location(id: $loc) { guests { totalCount edges { node { id } } } }
        guestSessions(first: 10) { edges { node { guestId guest { id } } } }
        guestDevices(first: 10) { edges { node { guestId guest { id } } } }
        accessCodes { edges { node { guestId guest { id } guestName } } }
        sessionsByIp(ipAddresses: ["0.0.0.0"]) { ipAddress }
      }`,
      { id: w.guestId, loc: w.locationId },
    );
    expect(gql.json.errors, gql.text).toBeUndefined();
    const d = gql.json.data;
    expect(d.guest).toBeNull();
    expect(d.guestExport).toBeNull();
    expect(d.sessionsByIp).toEqual([]);
    expect(d.guests).toEqual({ totalCount: 1, edges: [{ node: { id: w.other.id } }] });
    expect(d.location.guests).toEqual({ totalCount: 1, edges: [{ node: { id: w.other.id } }] });
    // Sessions stay as anonymous records: linked by id, the guest itself absent.
    const mine = d.guestSessions.edges.filter((e: Json) => e.node.guestId === w.guestId);
    expect(mine).toHaveLength(2);
    for (const e of mine) expect(e.node.guest).toBeNull();
    // So do its devices.
    const devices = d.guestDevices.edges.filter((e: Json) => e.node.guestId === w.guestId);
    expect(devices).toHaveLength(2);
    for (const e of devices) expect(e.node.guest).toBeNull();
    // The code it used is let go.
    expect(d.accessCodes.edges.map((e: Json) => e.node)).toEqual([
      { guestId: null, guest: null, guestName: '' },
    ]);
    // The redeem does not reach the erased guest either.
    const redeem = await t.request('POST', '/api/v1/access-codes/redeem', {
      token,
      body: { code: w.codeValue, location_id: w.locationId, mac: randomMac(), guest_id: w.guestId },
    });
    expect(redeem.status).toBe(422);
    expect(redeem.json.errors.guest_id).toEqual(['The selected guest id is invalid.']);

    const gqlErase = await t.graphql(token, 'mutation($id: ID!) { eraseGuest(id: $id) { id erased } }', {
      id: w.guestId,
    });
    expect(gqlErase.json.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('frees the e-mail: the same address registers again', async () => {
    const w = await world();
    expect((await erase(w.a.token, w.guestId)).status).toBe(204);
    const again = await t.request('POST', GUESTS, {
      token: w.a.token,
      body: { location_id: w.locationId, email: w.values.email.toUpperCase(), name: 'Zelda Again' },
    });
    expect(again.status, again.text).toBe(201);
    expect(again.json.data.id).not.toBe(w.guestId);
  });

  it('erases through GraphQL `eraseGuest` alike', async () => {
    const w = await world();
    const res = await t.graphql(w.a.token, 'mutation($id: ID!) { eraseGuest(id: $id) { id erased } }', {
      id: w.guestId,
    });
    expect(res.json).toEqual({ data: { eraseGuest: { id: w.guestId, erased: true } } });
    expect(await findAnywhere([w.values.email, w.values.passport, ...w.macs.flatMap(notations)])).toEqual([]);
    expect((await t.request('GET', `${GUESTS}/${w.guestId}`, { token: w.a.token })).status).toBe(404);
  }, 120_000);

  it('is the tenant admin’s (and support’s): 403 for venue and front-desk users, 404 across tenants', async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const g = await t.request('POST', GUESTS, {
      token: a.token,
      body: { location_id: a.location_id, name: 'Some One' },
    });
    const id: string = g.json.data.id;
    const venue = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    for (const u of [venue, desk]) {
      const res = await erase(u.token, id);
      expect(res.status).toBe(403);
      expect(res.text).toBe(FORBIDDEN);
      const gql = await t.graphql(u.token, 'mutation($id: ID!) { eraseGuest(id: $id) { id } }', { id });
      expect(gql.json.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const foreign = await erase(b.token, id);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(NOT_FOUND);
    const gqlForeign = await t.graphql(b.token, 'mutation($id: ID!) { eraseGuest(id: $id) { id } }', { id });
    expect(gqlForeign.json.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await erase(a.token, 'missing-id')).text).toBe(NOT_FOUND);
    const support = await addUser(prisma(), a.tenant_id, 'support');
    expect((await erase(support.token, id)).status).toBe(204);
  });
});

describe.concurrent('erasure of a device another guest has now, of an open session, of a redeem’s guest', () => {
  /** A tenant with a zone, its ingest token, and a session accounting event builder. */
  async function venue() {
    const a = await newTenant(prisma());
    const locationId = await addHierarchy(prisma(), a.tenant_id, { buildings: 1, floors: 1, zones: 1 });
    const zone = await prisma().zone.findFirstOrThrow({
      where: { tenantId: a.tenant_id, floor: { building: { locationId } } },
    });
    const ingest = (await issueToken(prisma(), a.user_id, ['ingest'])).token;
    const guest = async (name: string): Promise<string> => {
      const res = await t.request('POST', GUESTS, {
        token: a.token,
        body: { location_id: locationId, name },
      });
      expect(res.status, res.text).toBe(201);
      return res.json.data.id;
    };
    const accounting = async (...events: Record<string, unknown>[]) => {
      const res = await t.request('POST', '/api/v1/ingest/sessions', {
        token: ingest,
        body: {
          events: events.map((e) => ({
            event_id: eid(),
            ip: '10.1.2.3',
            location_id: locationId,
            bytes_up: 1,
            bytes_down: 2,
            login_type: 'Email',
            at: iso(60),
            ...e,
          })),
        },
      });
      return res;
    };
    const presence = async (mac: string, secondsAgo: number) => {
      const res = await t.request('POST', '/api/v1/ingest/presence', {
        token: ingest,
        body: {
          events: [
            {
              event_id: eid(),
              mac,
              zone_id: zone.id,
              data_type: 1,
              connected: true,
              seen_at: iso(secondsAgo),
            },
          ],
        },
      });
      expect(res.status, res.text).toBe(200);
    };
    /** The anonymous guest a redeem of a shared code without a guest makes for `mac` (named after it). */
    const anonymousGuest = async (mac: string, session: Record<string, unknown> = {}) => {
      const code = `ANON${tok()}`;
      const created = await t.request('POST', '/api/v1/access-codes', {
        token: a.token,
        body: { location_id: locationId, service_profile_id: a.service_profile_id, type: 1, code },
      });
      expect(created.status, created.text).toBe(201);
      const redeemed = await t.request('POST', '/api/v1/access-codes/redeem', {
        token: ingest,
        body: { code, location_id: locationId, mac, ...session },
      });
      expect(redeemed.status, redeemed.text).toBe(200);
      return prisma().guest.findFirstOrThrow({ where: { tenantId: a.tenant_id, username: mac } });
    };
    return { a, locationId, ingest, guest, accounting, presence, anonymousGuest };
  }

  it('leaves the device another guest has now as it is (its MAC, its accounting); the erased guest’s rows move to a stand-in', async () => {
    const v = await venue();
    const [before, now] = [await v.guest('Before Owner'), await v.guest('Current Owner')];
    const mac = randomMac();
    // The erased guest's session and presence on the device, then the device moves to another guest.
    expect((await v.accounting({ kind: 'start', mac, guest_id: before, at: iso(900) })).status).toBe(200);
    await v.presence(mac, 800);
    expect((await v.accounting({ kind: 'stop', mac, at: iso(700) })).status).toBe(200);
    expect((await v.accounting({ kind: 'start', mac, guest_id: now, at: iso(600) })).status).toBe(200);
    await v.presence(mac, 500);
    const device = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: v.a.tenant_id, mac } });
    expect(device.guestId).toBe(now);

    expect((await erase(v.a.token, before)).status).toBe(204);

    // The other guest's device, sessions and presence keep the MAC; its accounting goes on.
    expect(await prisma().guestDevice.findUniqueOrThrow({ where: { id: device.id } })).toMatchObject({
      mac,
      guestId: now,
    });
    expect(await prisma().presenceRecord.count({ where: { guestId: now, mac } })).toBe(1);
    const stop = await v.accounting({ kind: 'stop', mac, at: iso(30) });
    expect(stop.status, stop.text).toBe(200);
    const theirs = await t.request('GET', `/api/v1/sessions?guest_id=${now}`, { token: v.a.token });
    expect(theirs.json.data.map((s: Json) => [s.guest_device_mac, s.connection_status])).toEqual([
      [mac, 'Offline'],
    ]);
    // The erased guest's rows: a device of its own under the stand-in, no row pointing at the live one.
    const copy = await prisma().guestDevice.findFirstOrThrow({ where: { guestId: before } });
    expect(copy.mac).toMatch(/^02(:[0-9A-F]{2}){5}$/);
    for (const rows of [
      await prisma().guestSession.findMany({ where: { guestId: before } }),
      await prisma().presenceRecord.findMany({ where: { guestId: before } }),
    ]) {
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.deviceId === copy.id)).toBe(true);
    }
    expect(await prisma().presenceRecord.count({ where: { guestId: before, mac: { not: copy.mac } } })).toBe(
      0,
    );
    // The log: the erased guest's session events lost the MAC; the other guest's kept it.
    const events = await t.request('GET', '/api/v1/events?types[]=guest_session.started', {
      token: v.a.token,
    });
    const macOf = (guest: string) =>
      events.json.data
        .filter((e: Json) => e.payload.guest_id === guest)
        .map((e: Json) => e.payload.guest_device_mac);
    expect(macOf(before)).toEqual(['']);
    expect(macOf(now)).toEqual([mac]);
  });

  it('hides the MAC of a device it used only for sessions (no presence) and that another guest has now', async () => {
    const v = await venue();
    const [before, now] = [await v.guest('Sessions Only'), await v.guest('Next Owner')];
    const mac = randomMac();
    expect((await v.accounting({ kind: 'start', mac, guest_id: before, at: iso(900) })).status).toBe(200);
    expect((await v.accounting({ kind: 'stop', mac, at: iso(800) })).status).toBe(200);
    expect((await v.accounting({ kind: 'start', mac, guest_id: now, at: iso(600) })).status).toBe(200);
    const session = await prisma().guestSession.findFirstOrThrow({ where: { guestId: before } });

    expect((await erase(v.a.token, before)).status).toBe(204);

    const exported = await t.request('GET', '/api/v1/sessions/export?format=ndjson', { token: v.a.token });
    const line = exported.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((r: Json) => r.id === session.id);
    expect(line.guest_device_mac).toMatch(/^02(:[0-9A-F]{2}){5}$/);
    expect(exported.text.match(new RegExp(mac, 'g'))).toHaveLength(1);
  });

  it('ends the guest’s open sessions: offline, a guest_session.ended event with nothing of the guest', async () => {
    const v = await venue();
    const guest = await v.guest('Still Online');
    const mac = randomMac();
    expect((await v.accounting({ kind: 'start', mac, guest_id: guest, at: iso(300) })).status).toBe(200);
    const session = await prisma().guestSession.findFirstOrThrow({ where: { guestId: guest } });
    expect(session.endTime).toBeNull();

    expect((await erase(v.a.token, guest)).status).toBe(204);

    const ended = await prisma().guestSession.findUniqueOrThrow({ where: { id: session.id } });
    expect(ended).toMatchObject({ online: false, connectionStatus: 0 });
    expect(ended.endTime).not.toBeNull();
    expect(await prisma().guestDevice.findFirstOrThrow({ where: { guestId: guest } })).toMatchObject({
      online: false,
      connectionStatus: 0,
    });
    const events = await t.request('GET', '/api/v1/events?types[]=guest_session.ended', { token: v.a.token });
    const event = events.json.data.find((e: Json) => e.resource_id === session.id);
    expect(event.payload).toMatchObject({
      id: session.id,
      guest_device_ip: '0.0.0.0',
      connection_status: 'Offline',
    });
    expect(JSON.stringify(event.payload)).not.toContain(mac);
    expect(JSON.stringify(event.payload)).not.toContain('Still Online');
  });

  it('erased_at is not after its event: the event’s time and the audit entry’s are one, the session ends at erased_at (probe D)', async () => {
    const v = await venue();
    const guest = await v.guest('One Moment');
    expect(
      (await v.accounting({ kind: 'start', mac: randomMac(), guest_id: guest, at: iso(300) })).status,
    ).toBe(200);
    expect((await erase(v.a.token, guest)).status).toBe(204);
    const erased = await prisma().guest.findUniqueOrThrow({ where: { id: guest } });
    const event = await prisma().event.findFirstOrThrow({
      where: { tenantId: v.a.tenant_id, type: 'guest.erased', resourceId: guest },
    });
    const audit = await prisma().auditLog.findFirstOrThrow({
      where: { tenantId: v.a.tenant_id, resourceId: guest, action: 'guests.erase' },
    });
    const session = await prisma().guestSession.findFirstOrThrow({ where: { guestId: guest } });
    const erasedAt = erased.erasedAt as Date;
    expect(session.endTime).toEqual(erasedAt);
    expect(audit.createdAt).toEqual(event.occurredAt);
    expect(erasedAt.getTime()).toBeLessThanOrEqual(event.occurredAt.getTime());
    expect((event.payload as { erased_at: string }).erased_at.slice(0, 23)).toBe(
      erasedAt.toISOString().slice(0, 23),
    );
  });

  it('erases with it the anonymous guest a redeem named after its device’s MAC', async () => {
    const v = await venue();
    const guest = await v.guest('Signed In Later');
    const mac = randomMac();
    const anonymous = await v.anonymousGuest(mac, { start_session: true, ip_address: '10.9.8.80' });
    expect(anonymous.name).toBe(mac);
    // The device then signs in as the guest, who is erased.
    expect((await v.accounting({ kind: 'start', mac, guest_id: guest, at: iso(30) })).status).toBe(200);

    expect((await erase(v.a.token, guest)).status).toBe(204);

    expect((await t.request('GET', `${GUESTS}/${anonymous.id}`, { token: v.a.token })).text).toBe(NOT_FOUND);
    expect(await prisma().guest.findUniqueOrThrow({ where: { id: anonymous.id } })).toMatchObject({
      name: '',
      erasedAt: expect.any(Date),
    });
    const byIp = await t.request('GET', '/api/v1/sessions/10.9.8.80', { token: v.a.token });
    expect(byIp.status, byIp.text).toBe(404);
    // Nothing of the MAC anywhere in the tenant's rows (events and audit entries included).
    const left = await prisma().$queryRaw<{ n: bigint }[]>(PrismaNS.sql`
      SELECT (SELECT count(*) FROM "Event" WHERE "tenantId" = ${v.a.tenant_id} AND "payload"::text ~* ${mac})
        + (SELECT count(*) FROM "AuditLog" WHERE "tenantId" = ${v.a.tenant_id} AND "changes"::text ~* ${mac})
        + (SELECT count(*) FROM "Guest" WHERE "tenantId" = ${v.a.tenant_id} AND (name ~* ${mac} OR username ~* ${mac}))
        AS n`);
    expect(left[0]?.n).toBe(0n);
  });

  it('replaces the MACs of the anonymous guest erased with it too: its other devices, and its rows on a device another guest has now', async () => {
    const v = await venue();
    const [owner, other] = [await v.guest('Owner Later'), await v.guest('Live Other')];
    const [m3, m4, m5] = [randomMac(), randomMac(), randomMac()];
    const anonymous = await v.anonymousGuest(m3);
    // The anonymous guest's own second device (open session), and a device it used that another guest has now.
    expect(
      (await v.accounting({ kind: 'start', mac: m4, guest_id: anonymous.id, at: iso(900) })).status,
    ).toBe(200);
    expect(
      (await v.accounting({ kind: 'start', mac: m5, guest_id: anonymous.id, at: iso(800) })).status,
    ).toBe(200);
    expect((await v.accounting({ kind: 'stop', mac: m5, at: iso(700) })).status).toBe(200);
    expect((await v.accounting({ kind: 'start', mac: m5, guest_id: other, at: iso(600) })).status).toBe(200);
    expect((await v.accounting({ kind: 'start', mac: m3, guest_id: owner, at: iso(500) })).status).toBe(200);
    const live = await prisma().guestDevice.findFirstOrThrow({ where: { tenantId: v.a.tenant_id, mac: m5 } });

    expect((await erase(v.a.token, owner)).status).toBe(204);

    const hits = async (mac: string) =>
      (
        await prisma().$queryRaw<{ n: bigint }[]>(PrismaNS.sql`
          SELECT (SELECT count(*) FROM "GuestDevice" WHERE "tenantId" = ${v.a.tenant_id} AND mac = ${mac})
            + (SELECT count(*) FROM "Event" WHERE "tenantId" = ${v.a.tenant_id} AND "payload"::text ~* ${mac}) AS n`)
      )[0]?.n;
    expect(await hits(m3)).toBe(0n);
    expect(await hits(m4)).toBe(0n);
    // The live guest's device keeps its MAC; the anonymous guest's session on it moved to a copy.
    expect(await prisma().guestDevice.findUniqueOrThrow({ where: { id: live.id } })).toMatchObject({
      mac: m5,
      guestId: other,
    });
    const sessions = await prisma().guestSession.findMany({ where: { guestId: anonymous.id } });
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.filter((x) => x.deviceId === live.id)).toEqual([]);
    expect(sessions.every((x) => x.endTime !== null)).toBe(true);
  });

  it('leaves a visit still open of a device another guest has now to that guest: no second entry at the next detection', async () => {
    const v = await venue();
    const [before, now] = [await v.guest('Earlier Owner'), await v.guest('Owner Now')];
    const mac = randomMac();
    expect((await v.accounting({ kind: 'start', mac, guest_id: before, at: iso(600) })).status).toBe(200);
    await v.presence(mac, 500);
    await v.presence(mac, 400);
    expect((await v.accounting({ kind: 'start', mac, guest_id: now, at: iso(300) })).status).toBe(200);
    await v.presence(mac, 200);

    expect((await erase(v.a.token, before)).status).toBe(204);
    const since = (
      await prisma().event.findFirstOrThrow({
        where: { tenantId: v.a.tenant_id },
        orderBy: { id: 'desc' },
      })
    ).id;
    await v.presence(mac, 100);

    const open = await prisma().locationSession.findMany({
      where: { tenantId: v.a.tenant_id, endedAt: null },
    });
    expect(open.map((x) => [x.mac, x.guestId])).toEqual([[mac, now]]);
    const entered = await prisma().event.count({
      where: {
        tenantId: v.a.tenant_id,
        id: { gt: since },
        type: { in: ['presence.location_entered', 'presence.zone_entered'] },
      },
    });
    expect(entered).toBe(0);
  });
});

describe.concurrent('the copy and codes of other guests', () => {
  it('shows a code the guest logged in with without its holder (another guest), on REST and GraphQL', async () => {
    const w = await world();
    const holder = await t.request('POST', GUESTS, {
      token: w.a.token,
      body: { location_id: w.locationId, name: `Xavier Holder ${tok()}` },
    });
    const code = await t.request('POST', '/api/v1/access-codes', {
      token: w.a.token,
      body: {
        location_id: w.locationId,
        service_profile_id: w.a.service_profile_id,
        type: 2,
        max_uses: 5,
        guest_id: holder.json.data.id,
      },
    });
    expect(code.status, code.text).toBe(201);
    const redeemed = await t.request('POST', '/api/v1/access-codes/redeem', {
      token: w.a.token,
      body: {
        code: code.json.access_codes[0].code,
        location_id: w.locationId,
        mac: randomMac(),
        guest_id: w.guestId,
        start_session: true,
        ip_address: '10.3.3.3',
      },
    });
    expect(redeemed.status, redeemed.text).toBe(200);
    const copy = await t.request('GET', `${GUESTS}/${w.guestId}/export`, { token: w.a.token });
    expect(copy.status, copy.text).toBe(200);
    const used = copy.json.data.access_codes.find((c: Json) => c.id === code.json.access_codes[0].id);
    expect(used).toMatchObject({ guest_id: null, guest_name: '' });
    expect(copy.text).not.toContain(holder.json.data.id);
    expect(copy.text).not.toContain(holder.json.data.name);
    // Its own code still names it.
    expect(copy.json.data.access_codes.find((c: Json) => c.code === w.codeValue)).toMatchObject({
      guest_id: w.guestId,
    });
    const gql = await t.graphql(
      w.a.token,
      'query($id: ID!) { guestExport(id: $id) { accessCodes { id guestId guestName guest { id } } } }',
      { id: w.guestId },
    );
    expect(gql.json.errors, gql.text).toBeUndefined();
    expect(
      gql.json.data.guestExport.accessCodes.find((c: Json) => c.id === code.json.access_codes[0].id),
    ).toEqual({
      id: code.json.access_codes[0].id,
      guestId: null,
      guestName: '',
      guest: null,
    });
  });
});

describe.concurrent('GET /guests/:id/export (copy)', () => {
  it('holds everything on the guest, newest first, in the lists’ item shapes', async () => {
    const w = await world();
    const res = await t.request('GET', `${GUESTS}/${w.guestId}/export`, { token: w.a.token });
    expect(res.status, res.text).toBe(200);
    const c = res.json.data;
    expect(Object.keys(c)).toEqual([
      'guest',
      'custom_data',
      'tags',
      'devices',
      'sessions',
      'presence_records',
      'location_sessions',
      'location_logs',
      'access_codes',
    ]);
    const detail = await t.request('GET', `${GUESTS}/${w.guestId}`, { token: w.a.token });
    expect(c.guest).toEqual(detail.json.data);
    expect(c.custom_data).toBe(JSON.stringify({ note: w.values.customData }));
    expect(c.tags).toEqual([{ name: w.values.tag, type: null, group_name: null }]);
    expect(c.devices.map((d: Json) => d.mac).sort()).toEqual([...w.macs].sort());
    expect(c.devices[0].user_agent).toBe(w.values.agent);
    // The same items as the lists show them.
    const devices = await t.request(
      'GET',
      `/api/v1/guest-devices?guest_id=${w.guestId}&last_guest_device_first=1`,
      {
        token: w.a.token,
      },
    );
    expect(c.devices).toEqual(devices.json.data);
    expect(c.sessions).toHaveLength(2);
    expect(c.sessions.every((s: Json) => s.guest_id === w.guestId && s.partner_id === w.values.partner)).toBe(
      true,
    );
    expect(c.sessions[0].start_time >= c.sessions[1].start_time).toBe(true);
    expect(c.presence_records).toHaveLength(3);
    expect(c.presence_records.map((p: Json) => p.seen_at)).toEqual(
      [...c.presence_records.map((p: Json) => p.seen_at)].sort().reverse(),
    );
    expect(c.presence_records[0]).toMatchObject({ mac_address: w.macs[1], data_type: 2, connected: 1 });
    expect(c.location_sessions).toHaveLength(2);
    expect(c.location_logs.length).toBeGreaterThanOrEqual(3);
    expect(c.location_logs.every((l: Json) => l.guest_id === w.guestId)).toBe(true);
    expect(c.access_codes).toHaveLength(1);
    expect(c.access_codes[0]).toMatchObject({ code: w.codeValue, guest_id: w.guestId, use_count: 1 });
    expect(c.access_codes[0].guest_name).toBe(`${w.values.first} ${w.values.last}`);

    const gql = await t.graphql(
      w.a.token,
      `query($id: ID!) { guestExport(id: $id) {
        guest { id email passportNo customData }
        tags { name }
        devices { mac }
        sessions { id }
        presenceRecords { macAddress dataType seenAt }
        locationSessions { id mac }
        locationLogs { guestMac }
        accessCodes { code }
      } }`,
      { id: w.guestId },
    );
    expect(gql.json.errors, gql.text).toBeUndefined();
    const e = gql.json.data.guestExport;
    expect(e.guest).toEqual({
      id: w.guestId,
      email: w.values.email,
      passportNo: w.values.passport,
      customData: c.custom_data,
    });
    expect(e.tags).toEqual([{ name: w.values.tag }]);
    expect(e.devices.map((d: Json) => d.mac)).toEqual(c.devices.map((d: Json) => d.mac));
    expect(e.sessions.map((s: Json) => s.id)).toEqual(c.sessions.map((s: Json) => s.id));
    expect(e.presenceRecords.map((p: Json) => p.macAddress)).toEqual(
      c.presence_records.map((p: Json) => p.mac_address),
    );
    expect(e.locationSessions.map((s: Json) => s.id)).toEqual(c.location_sessions.map((s: Json) => s.id));
    expect(e.locationLogs).toHaveLength(c.location_logs.length);
    expect(e.accessCodes).toEqual([{ code: w.codeValue }]);
  });

  it('is 404 across tenants and for a pinned caller at another location, 403 for the front desk', async () => {
    const a = await newTenant(prisma());
    const b = await newTenant(prisma());
    const elsewhere = await prisma().location.create({
      data: { tenantId: a.tenant_id, name: `Other ${tok()}` },
    });
    const g = await t.request('POST', GUESTS, {
      token: a.token,
      body: { location_id: a.location_id, name: 'Some One' },
    });
    const id: string = g.json.data.id;
    const here = await addUser(prisma(), a.tenant_id, 'venue', { locationId: a.location_id });
    const there = await addUser(prisma(), a.tenant_id, 'venue', { locationId: elsewhere.id });
    const desk = await addUser(prisma(), a.tenant_id, 'front-desk', { locationId: a.location_id });
    const q = 'query($id: ID!) { guestExport(id: $id) { guest { id } } }';

    const ok = await t.request('GET', `${GUESTS}/${id}/export`, { token: here.token });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data.guest.id).toBe(id);
    expect((await t.graphql(here.token, q, { id })).json).toEqual({
      data: { guestExport: { guest: { id } } },
    });

    for (const token of [b.token, there.token]) {
      const res = await t.request('GET', `${GUESTS}/${id}/export`, { token });
      expect(res.status).toBe(404);
      expect(res.text).toBe(NOT_FOUND);
      expect((await t.graphql(token, q, { id })).json).toEqual({ data: { guestExport: null } });
    }
    // A venue admin's copy holds what its location holds: not the guest's session elsewhere.
    const device = await addDevice(prisma(), a.tenant_id, id);
    const at = { guestId: id, deviceId: device.id };
    const hereSession = await addSession(prisma(), a.tenant_id, { ...at, locationId: a.location_id });
    await addSession(prisma(), a.tenant_id, { ...at, locationId: elsewhere.id });
    const sessionIds = async (token: string) => {
      const rest = await t.request('GET', `${GUESTS}/${id}/export`, { token });
      const gql = await t.graphql(token, 'query($id: ID!) { guestExport(id: $id) { sessions { id } } }', {
        id,
      });
      const restIds = rest.json.data.sessions.map((x: Json) => x.id);
      expect(gql.json.data.guestExport.sessions.map((x: Json) => x.id)).toEqual(restIds);
      return restIds;
    };
    expect(await sessionIds(here.token)).toEqual([hereSession.id]);
    expect(await sessionIds(a.token)).toHaveLength(2);

    const deskRes = await t.request('GET', `${GUESTS}/${id}/export`, { token: desk.token });
    expect(deskRes.status).toBe(403);
    expect(deskRes.text).toBe(FORBIDDEN);
    const deskGql = await t.graphql(desk.token, q, { id });
    expect(deskGql.json.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await t.request('GET', `${GUESTS}/missing-id/export`, { token: a.token })).text).toBe(NOT_FOUND);
  });
});

describe('the copy’s statements', () => {
  it('do not grow with the guest’s history', async () => {
    const a = await newTenant(prisma());
    const guestWith = async (devices: number, sessions: number) => {
      const g = await t.request('POST', GUESTS, {
        token: a.token,
        body: { location_id: a.location_id, name: `History ${tok()}`, tags: ['x', 'y'] },
      });
      const id: string = g.json.data.id;
      for (let d = 0; d < devices; d++) {
        const device = await addDevice(prisma(), a.tenant_id, id);
        for (let s = 0; s < sessions; s++) {
          await addSession(prisma(), a.tenant_id, {
            guestId: id,
            deviceId: device.id,
            locationId: a.location_id,
          });
        }
      }
      return id;
    };
    const small = await guestWith(1, 1);
    const large = await guestWith(3, 4);
    const copy = (id: string) =>
      recordStatements(t.db, () => t.request('GET', `${GUESTS}/${id}/export`, { token: a.token }));
    const one = await copy(small);
    const many = await copy(large);
    expect(one.result.json.data.sessions).toHaveLength(1);
    expect(many.result.json.data.sessions).toHaveLength(12);
    expect(many.sql.length).toBe(one.sql.length);
  });
});

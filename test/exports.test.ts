// Streamed exports, `GET /{guests,guest-devices,sessions,access-codes}/export` (src/rest/export.ts):
// the CSV bytes (RFC 4180, header row, quoting, formula neutralisation, BOM), NDJSON lines equal to the
// list's items, the list's filters and 422s, pinned callers, other tenants, scopes, and an export of
// several batches complete and in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../src/auth/principal.js';
import { requestContext } from '../src/context.js';
import { findManyRows } from '../src/db/raw-rows.js';
import { tenantTurns } from '../src/http/request-gate.js';
import { guestSessionsQuery, listSessions } from '../src/modules/guest-sessions/guest-sessions.service.js';
import { csvCell, EXPORT_BATCH, rowsAfter, StreamAnswer, type StreamEnv } from '../src/rest/export.js';
import { routeTable } from '../src/rest/route-table.js';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { addDevice, addGuest, addSession, addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const API = '/api/v1';

/** The raw answer: status, headers and bytes. */
async function raw(token: string, url: string) {
  const res = await t.app.fastify.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, text: res.body };
}

/** An independent CSV writer for the expectations: RFC 4180, CRLF, `'` before formula starts. */
function csvOf(columns: string[], items: Record<string, unknown>[]): string {
  const cell = (v: unknown): string => {
    let s =
      v === null || v === undefined
        ? ''
        : typeof v === 'string'
          ? v
          : JSON.stringify(v).replaceAll('/', '\\/');
    if (['=', '+', '-', '@', '\t', '\r'].includes(s.charAt(0))) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [columns, ...items.map((i) => columns.map((c) => i[c]))]
    .map((row) => `${row.map(cell).join(',')}\r\n`)
    .join('');
}

/** Every item of a list (up to 100) and the list's raw text. */
async function listed(token: string, path: string, query = '') {
  const res = await t.request('GET', `${API}${path}?per_page=100${query ? `&${query}` : ''}`, { token });
  expect(res.status, res.text).toBe(200);
  return { items: res.json.data as Record<string, unknown>[], text: res.text };
}

/** The NDJSON lines written as the list writes its items: `{"data":[line,line…]` starts the list's text. */
async function ndjsonEqualsList(token: string, path: string, query = '') {
  const res = await raw(token, `${API}${path}/export?format=ndjson${query ? `&${query}` : ''}`);
  expect(res.status, res.text).toBe(200);
  expect(res.headers['content-type']).toBe('application/x-ndjson');
  const lines = res.text === '' ? [] : res.text.replace(/\n$/, '').split('\n');
  expect(res.text === '' || res.text.endsWith('\n')).toBe(true);
  const list = await listed(token, path, query);
  expect(list.text.startsWith(`{"data":[${lines.join(',')}]`), `${res.text}\n---\n${list.text}`).toBe(true);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function tenantWithSessions() {
  const a = await newTenant(t.db.prisma);
  const guest = await addGuest(t.db.prisma, a.tenant_id, a.location_id, { partnerId: 'P-1' });
  const device = await addDevice(t.db.prisma, a.tenant_id, guest.id, { description: 'Phone, "Pixel"' });
  const at = { guestId: guest.id, deviceId: device.id, locationId: a.location_id };
  return { a, guest, device, at };
}

// -------------------------------------------------------------------------------------------------
describe('CSV cells', () => {
  it('writes null empty, strings as they are, other values as JSON, quotes and neutralises', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('one\ntwo')).toBe('"one\ntwo"');
    expect(csvCell('one\r\ntwo')).toBe('"one\r\ntwo"');
    expect(csvCell('=SUM(A1:A2)')).toBe("'=SUM(A1:A2)");
    expect(csvCell('+1 555')).toBe("'+1 555");
    expect(csvCell('-2')).toBe("'-2");
    expect(csvCell('@cmd')).toBe("'@cmd");
    // Quotes before a formula get one more (an import drops one); other leading quotes stay.
    expect(csvCell("'=x")).toBe("''=x");
    expect(csvCell("'Tis")).toBe("'Tis");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe('"\'\rx"');
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(12)).toBe('12');
    expect(csvCell(['vip', 'a/b'])).toBe('"[""vip"",""a\\/b""]"');
    expect(csvCell([])).toBe('[]');
    expect(csvCell('café')).toBe('café');
  });
});

describe('GET /guests/export', () => {
  it('writes the list items as CSV: header of the item keys, RFC 4180, formulas neutralised', async () => {
    const a = await newTenant(t.db.prisma);
    await addGuest(t.db.prisma, a.tenant_id, a.location_id, {
      name: '=SUM(A1:A9)',
      phone: '+44 20 7946 0000',
      customField1: 'a,b',
      customField2: 'say "hi"',
      customField3: 'line one\nline two',
      roomNo: '@12',
      createdAt: new Date(Date.UTC(2026, 0, 1)),
    });
    await addGuest(t.db.prisma, a.tenant_id, a.location_id, {
      name: 'Zoë Café',
      online: true,
      createdAt: new Date(Date.UTC(2026, 0, 2)),
    });
    const res = await raw(a.token, `${API}/guests/export`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="guests-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(res.headers['x-request-id']).toBeTruthy();
    const list = await listed(a.token, '/guests');
    const columns = Object.keys(list.items[0] ?? {});
    expect(columns[0]).toBe('id');
    expect(columns).not.toContain('beacon');
    expect(res.text).toBe(csvOf(columns, list.items));
    // The header literally, and the tricky cells as they stand in the file.
    expect(res.text.split('\r\n')[0]).toBe(
      'id,username,name,email,birth_date,gender,phone,passport_no,nationality,nationality_code,residency,' +
        'residency_code,room_number,reservation_no,hotel_status,social_id,partner_id,custom_field_1,' +
        'custom_field_2,custom_field_3,online,location_id,location_name,last_visit_date,last_attempt_time,' +
        'visit_count,receive_marketing,last_login_type,connection_status,last_connection_time,last_ssid_name,' +
        'created_at,updated_at,tags,type,checkin_date,checkout_date',
    );
    expect(res.text).toContain(",'=SUM(A1:A9),");
    expect(res.text).toContain(",'+44 20 7946 0000,");
    expect(res.text).toContain(`,'@12,`);
    expect(res.text).toContain(',"a,b","say ""hi""","line one\nline two",false,');
    expect(res.text).toContain(',Zoë Café,');
    expect(res.text.endsWith('\r\n')).toBe(true);
    // Two records and the header: three CRLF-ended lines outside quotes.
    expect(res.text.match(/\r\n/g)).toHaveLength(3);
  });

  it('starts with a UTF-8 BOM when asked, and only then', async () => {
    const a = await newTenant(t.db.prisma);
    await addGuest(t.db.prisma, a.tenant_id, a.location_id, { name: 'Zoë' });
    const plain = await raw(a.token, `${API}/guests/export`);
    const bom = await raw(a.token, `${API}/guests/export?bom=1`);
    expect([...plain.bytes.subarray(0, 3)]).toEqual([...Buffer.from('id,')]);
    expect([...bom.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bom.bytes.subarray(3).equals(plain.bytes)).toBe(true);
    const off = await raw(a.token, `${API}/guests/export?bom=false&format=csv`);
    expect(off.bytes.equals(plain.bytes)).toBe(true);
  });

  it('writes only the header for an empty result', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await raw(a.token, `${API}/access-codes/export?code=nothing-like-this`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      'id,location_id,location_name,code,type,type_name,description,service_profile_id,service_profile_name,' +
        'start_date,expiry_date,status,status_name,use_count,used_at,guest_id,guest_name,created_at,max_uses,revoked_at\r\n',
    );
    const nd = await raw(a.token, `${API}/access-codes/export?format=ndjson&code=nothing-like-this`);
    expect(nd.status).toBe(200);
    expect(nd.text).toBe('');
  });

  it('takes the list filters and withBeacon; NDJSON lines are the list items', async () => {
    const a = await newTenant(t.db.prisma);
    await addGuest(t.db.prisma, a.tenant_id, a.location_id, { name: 'Ann Smith', online: true });
    await addGuest(t.db.prisma, a.tenant_id, a.location_id, { name: 'Bob Jones' });
    const all = await ndjsonEqualsList(a.token, '/guests');
    expect(all.map((g) => g.name)).toEqual(['Ann Smith', 'Bob Jones']);
    const some = await ndjsonEqualsList(a.token, '/guests', 'name=smith');
    expect(some.map((g) => g.name)).toEqual(['Ann Smith']);
    const reversed = await ndjsonEqualsList(a.token, '/guests', 'last_guest_first=1');
    expect(reversed.map((g) => g.name)).toEqual(['Bob Jones', 'Ann Smith']);
    const beacons = await ndjsonEqualsList(a.token, '/guests', 'withBeacon=1');
    expect(beacons.map((g) => g.beacon)).toEqual([null, null]);
    const csv = await raw(a.token, `${API}/guests/export?withBeacon=1&online=1`);
    const header = csv.text.split('\r\n')[0] ?? '';
    expect(header.endsWith(',checkout_date,beacon')).toBe(true);
    expect(csv.text.split('\r\n')[1]?.endsWith(',')).toBe(true);
    expect(csv.text.split('\r\n')).toHaveLength(3);
  });

  it('answers the list’s 422s, with its own for format and bom, all at once, before any byte', async () => {
    const a = await newTenant(t.db.prisma);
    const list = await t.request('GET', `${API}/guests?online=abc&email=${'x'.repeat(256)}`, {
      token: a.token,
    });
    expect(list.status).toBe(422);
    const res = await t.request(
      'GET',
      `${API}/guests/export?online=abc&email=${'x'.repeat(256)}&format=xlsx&bom=maybe`,
      {
        token: a.token,
      },
    );
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual(
      unprocessable({
        ...list.json.errors,
        format: ['The selected format is invalid.'],
        bom: ['The bom field must be true or false.'],
      }),
    );
    const arr = await t.request('GET', `${API}/sessions/export?format[]=csv`, { token: a.token });
    expect(arr.json).toEqual(
      unprocessable({ format: ['The format field must be a string.', 'The selected format is invalid.'] }),
    );
    const upper = await t.request('GET', `${API}/guest-devices/export?format=CSV`, { token: a.token });
    expect(upper.json).toEqual(unprocessable({ format: ['The selected format is invalid.'] }));
    // An empty format is the default.
    const empty = await raw(a.token, `${API}/guest-devices/export?format=&bom=`);
    expect(empty.status).toBe(200);
    expect(empty.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it('answers HEAD with the headers alone', async () => {
    const a = await newTenant(t.db.prisma);
    await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const res = await t.app.fastify.inject({
      method: 'HEAD',
      url: `${API}/guests/export?format=ndjson`,
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    // The GET's body is streamed (chunked): its length is not known ahead, so HEAD states none.
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.body).toBe('');
  });

  it('is not taken for a guest id', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await raw(a.token, `${API}/guests/export`);
    expect(res.status).toBe(200);
    const show = await t.request('GET', `${API}/guests/exports`, { token: a.token });
    expect(show.status).toBe(404);
  });
});

describe('GET /sessions/export, /guest-devices/export, /access-codes/export', () => {
  it('write the list items in the list order, with the list filters', async () => {
    const { a, at, guest } = await tenantWithSessions();
    for (let i = 0; i < 3; i++) {
      await addSession(t.db.prisma, a.tenant_id, at, { startTime: new Date(Date.UTC(2026, 0, 10 + i, 8)) });
    }
    const other = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const od = await addDevice(t.db.prisma, a.tenant_id, other.id);
    await addSession(t.db.prisma, a.tenant_id, {
      guestId: other.id,
      deviceId: od.id,
      locationId: a.location_id,
    });
    const sessions = await ndjsonEqualsList(a.token, '/sessions');
    expect(sessions).toHaveLength(4);
    const newest = await ndjsonEqualsList(a.token, '/sessions', 'last_session_first=1');
    expect(newest.map((s) => s.id)).toEqual(sessions.map((s) => s.id).reverse());
    const mine = await ndjsonEqualsList(a.token, '/sessions', `guest_id=${guest.id}`);
    expect(mine).toHaveLength(3);
    const csv = await raw(a.token, `${API}/sessions/export`);
    const list = await listed(a.token, '/sessions');
    expect(csv.text).toBe(csvOf(Object.keys(list.items[0] ?? {}), list.items));
    expect(csv.text).toContain(',"Phone, ""Pixel""",');
    expect(csv.headers['content-disposition']).toMatch(/filename="sessions-\d{4}-\d{2}-\d{2}\.csv"/);

    await ndjsonEqualsList(a.token, '/guest-devices');
    const devices = await raw(a.token, `${API}/guest-devices/export`);
    const dl = await listed(a.token, '/guest-devices');
    expect(devices.text).toBe(csvOf(Object.keys(dl.items[0] ?? {}), dl.items));
    expect(dl.items).toHaveLength(2);

    const code = await t.request('POST', `${API}/access-codes`, {
      token: a.token,
      body: {
        type: 2,
        quantity: 3,
        location_id: a.location_id,
        service_profile_id: a.service_profile_id,
        description: '-5 off',
      },
    });
    expect(code.status, code.text).toBe(201);
    const codes = await ndjsonEqualsList(a.token, '/access-codes');
    expect(codes).toHaveLength(3);
    const ac = await raw(a.token, `${API}/access-codes/export`);
    const al = await listed(a.token, '/access-codes');
    expect(ac.text).toBe(csvOf(Object.keys(al.items[0] ?? {}), al.items));
    expect(ac.text).toContain(",'-5 off,");
    expect(ac.headers['content-disposition']).toMatch(/filename="access-codes-\d{4}-\d{2}-\d{2}\.csv"/);
  });

  it('keeps to the caller’s tenant and a pinned caller’s location', async () => {
    const { a, at } = await tenantWithSessions();
    await addSession(t.db.prisma, a.tenant_id, at);
    const elsewhere = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Annex' } });
    const g2 = await addGuest(t.db.prisma, a.tenant_id, elsewhere.id);
    const d2 = await addDevice(t.db.prisma, a.tenant_id, g2.id);
    await addSession(t.db.prisma, a.tenant_id, { guestId: g2.id, deviceId: d2.id, locationId: elsewhere.id });
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: elsewhere.id });
    const pinned = await ndjsonEqualsList(venue.token, '/sessions');
    expect(pinned.map((s) => s.location_id)).toEqual([elsewhere.id]);
    expect(await ndjsonEqualsList(venue.token, '/sessions', `location_id=${a.location_id}`)).toEqual([]);
    expect((await ndjsonEqualsList(venue.token, '/guests')).map((g) => g.id)).toEqual([g2.id]);
    expect((await ndjsonEqualsList(venue.token, '/guest-devices')).map((d) => d.id)).toEqual([d2.id]);

    const b = await newTenant(t.db.prisma);
    for (const path of ['/guests', '/guest-devices', '/sessions', '/access-codes']) {
      expect(await ndjsonEqualsList(b.token, path)).toEqual([]);
    }
    expect(await ndjsonEqualsList(b.token, '/sessions', `guest_id=${at.guestId}`)).toEqual([]);
    const csv = await raw(b.token, `${API}/guests/export`);
    expect(csv.text.split('\r\n')).toEqual([expect.stringMatching(/^id,username,/), '']);
  });

  it('refuses a token whose scope does not list (403, JSON), and an unknown token (401)', async () => {
    const a = await newTenant(t.db.prisma);
    const created = await t.request('POST', `${API}/api-tokens`, {
      token: a.token,
      body: { name: 'Controller', scopes: ['ingest'] },
    });
    expect(created.status, created.text).toBe(201);
    for (const path of ['/guests', '/guest-devices', '/sessions', '/access-codes']) {
      const res = await t.request('GET', `${API}${path}/export?format=xlsx`, {
        token: created.json.data.token,
      });
      expect(res.status, path).toBe(403);
      expect(res.text).toBe('{"message":"This action is unauthorized."}');
    }
    const none = await t.request('GET', `${API}/sessions/export`, { token: 'nope' });
    expect(none.status).toBe(401);
  });
});

/** A tenant with `n` sessions over ten start times only, and their ids in the list's order. */
async function manySessions(n: number) {
  const { a, at } = await tenantWithSessions();
  // Ten start times only: many rows share each, so the id decides between them across batches.
  await t.db.prisma.guestSession.createMany({
    data: Array.from({ length: n }, (_, i) => ({
      tenantId: a.tenant_id,
      ...at,
      ipAddress: `10.0.${Math.floor(i / 250)}.${i % 250}`,
      startTime: new Date(Date.UTC(2026, 0, 1 + (i % 10), 8)),
    })),
  });
  const expected = await t.db.prisma.guestSession.findMany({
    where: { tenantId: a.tenant_id },
    orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  return { a, ids: expected.map((e) => e.id) };
}

describe('batches', () => {
  /** The batches of a tenant's session export, read as the export reads them, `between` run after each. */
  async function exported(
    token: string,
    between: (batch: string[], n: number) => Promise<void>,
    filters: Record<string, unknown> = {},
  ) {
    const principal = await authenticate(t.db.prisma, token);
    const ctx = requestContext({ prisma: t.db.prisma, config: t.config }, { principal, id: 'test' });
    const q = await guestSessionsQuery.query(ctx, filters);
    const turns = tenantTurns(1, 1000);
    const env: StreamEnv = {
      turn: (signal) => turns.acquire(principal.tenantId, signal),
      closing: new AbortController().signal,
      abort: () => {},
      log: { error: () => {}, warn: () => {} },
    };
    const read = (page: object) => listSessions(ctx, q, { ...page, select: { id: true } });
    const present = async (ids: string[]) =>
      new Set(
        (
          await findManyRows<{ id: string }>(t.db.prisma, 'GuestSession', {
            where: { id: { in: ids } },
            select: { id: true },
          })
        ).map((r) => r.id),
      );
    const out: string[] = [];
    let n = 0;
    for await (const batch of rowsAfter(
      await read({ take: EXPORT_BATCH }),
      read,
      present,
      env,
      new AbortController().signal,
      (rows) => rows.map((r) => r.id),
    )) {
      out.push(...batch);
      await between(batch, n++);
      expect(turns.load(principal.tenantId)).toEqual({ running: 0, waiting: 0 });
    }
    return out;
  }

  it('go on after the last row sent when it is deleted meanwhile, nothing twice, nothing missed', async () => {
    const { a, ids } = await manySessions(EXPORT_BATCH * 2 + 10);
    const got = await exported(a.token, async (batch, n) => {
      // The last three rows of the first batch go: the next batch starts after the fourth from last.
      if (n === 0) await t.db.prisma.guestSession.deleteMany({ where: { id: { in: batch.slice(-3) } } });
    });
    expect(got).toEqual(ids);
  });

  it('go on after the last row sent when it no longer matches the filters: every other row once', async () => {
    const { a, ids } = await manySessions(EXPORT_BATCH * 2 + 10);
    const elsewhere = await t.db.prisma.location.create({
      data: { tenantId: a.tenant_id, name: 'Elsewhere' },
    });
    let moved = '';
    const got = await exported(
      a.token,
      async (batch, n) => {
        // The last row sent moves to another location: it no longer matches `location_id`.
        if (n !== 0) return;
        moved = batch.at(-1) as string;
        await t.db.prisma.guestSession.update({ where: { id: moved }, data: { locationId: elsewhere.id } });
      },
      { location_id: a.location_id },
    );
    expect(got).toEqual(ids);
    expect(moved).toBe(ids[EXPORT_BATCH - 1]);
  });

  it('end with an error when a whole batch was deleted meanwhile', async () => {
    const { a } = await manySessions(EXPORT_BATCH + 5);
    await expect(
      exported(a.token, async (batch) => {
        await t.db.prisma.guestSession.deleteMany({ where: { id: { in: batch } } });
      }),
    ).rejects.toThrow('the rows of the last batch were deleted while the export ran');
  });
});

describe.sequential('an export of several batches', () => {
  it('reads each batch in one statement', async () => {
    const { a, ids } = await manySessions(EXPORT_BATCH * 2 + 3);
    const { result, sql } = await recordStatements(t.db, () => raw(a.token, `${API}/sessions/export`));
    expect(result.text.trimEnd().split('\r\n')).toHaveLength(ids.length + 1);
    // The token, then three batches.
    expect(sql).toHaveLength(4);
  });

  it('is complete and in the list order, ties on the order column included', async () => {
    const { a, at } = await tenantWithSessions();
    const n = EXPORT_BATCH * 2 + 37;
    // Ten start times only: many rows share each, so the id decides between them across batches.
    await t.db.prisma.guestSession.createMany({
      data: Array.from({ length: n }, (_, i) => ({
        tenantId: a.tenant_id,
        ...at,
        ipAddress: `10.0.${Math.floor(i / 250)}.${i % 250}`,
        startTime: new Date(Date.UTC(2026, 0, 1 + (i % 10), 8)),
      })),
    });
    const expected = await t.db.prisma.guestSession.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: [{ startTime: 'asc' }, { id: 'asc' }],
      select: { id: true },
    });
    const res = await raw(a.token, `${API}/sessions/export?format=ndjson`);
    expect(res.status).toBe(200);
    const ids = res.text
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toHaveLength(n);
    expect(ids).toEqual(expected.map((e) => e.id));

    const csv = await raw(a.token, `${API}/sessions/export?last_session_first=1`);
    const rows = csv.text.trimEnd().split('\r\n');
    expect(rows).toHaveLength(n + 1);
    // An id starting with `-` is neutralised like any such cell: `'-…`.
    expect(rows.slice(1).map((r) => (r.split(',')[0] ?? '').replace(/^'-/, '-'))).toEqual(
      expected.map((e) => e.id).reverse(),
    );
  });
});

describe('the event loop', () => {
  it('turns between an export’s batches, so other requests are served meanwhile (probe F)', async () => {
    const { a } = await manySessions(EXPORT_BATCH * 4);
    let turns = 0;
    let counting = true;
    const turn = () => {
      turns++;
      if (counting) setImmediate(turn);
    };
    setImmediate(turn);
    const res = await raw(a.token, `${API}/sessions/export?format=ndjson`);
    counting = false;
    expect(res.status).toBe(200);
    expect(res.text.trimEnd().split('\n').length).toBeGreaterThanOrEqual(EXPORT_BATCH * 4);
    // At least one turn for each batch after the first.
    expect(turns).toBeGreaterThanOrEqual(4);
  });
});

describe('shutdown', () => {
  it('a dozen exports running at once print no warning (one shutdown listener each)', async () => {
    const { a } = await manySessions(EXPORT_BATCH + 5);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => raw(a.token, `${API}/sessions/export?format=ndjson`)),
      );
      for (const res of answers) expect(res.text.trimEnd().split('\n')).toHaveLength(EXPORT_BATCH + 5);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('cuts a running export short when the server stops: the response is ended unterminated', async () => {
    const { a, ids } = await manySessions(EXPORT_BATCH * 3);
    const route = routeTable.find((r) => r.path === '/sessions/export');
    if (!route) throw new Error('no /sessions/export');
    const principal = await authenticate(t.db.prisma, a.token);
    const ctx = requestContext({ prisma: t.db.prisma, config: t.config }, { principal, id: 'test' });
    const answer = await route.endpoint.handle({
      ctx,
      params: {},
      query: { format: 'ndjson' },
      body: {},
      envelope: { path: '', query: {} },
    });
    if (!(answer instanceof StreamAnswer)) throw new Error('not a stream');
    const turns = tenantTurns(1, 1000);
    const closing = new AbortController();
    let aborted = 0;
    const warned: string[] = [];
    const stream = answer.open({
      turn: (signal) => turns.acquire(principal.tenantId, signal),
      closing: closing.signal,
      abort: () => {
        aborted++;
      },
      log: { error: () => {}, warn: (_o, msg) => warned.push(msg) },
    });
    const first = await new Promise<Buffer>((resolve) => stream.once('data', resolve));
    stream.pause();
    expect(first.toString().split('\n')).toHaveLength(EXPORT_BATCH + 1);
    let failed: Error | undefined;
    stream.once('error', (err) => {
      failed = err;
    });
    const closed = new Promise((resolve) => stream.once('close', resolve));
    closing.abort();
    await closed;
    // Closed without an error: Fastify then logs no second line, with a stack, for the same cut.
    expect(failed).toBeUndefined();
    expect(aborted).toBe(1);
    expect(warned).toEqual(['export cut short: the server is stopping']);
    expect(stream.destroyed).toBe(true);
    expect(ids.length).toBeGreaterThan(EXPORT_BATCH);
    // No turn is left taken.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(turns.load(principal.tenantId)).toEqual({ running: 0, waiting: 0 });
  });
});

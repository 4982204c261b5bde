// REST /api/v1/locations (spec 2.1, 2.2, 4.1 and the decisions): exact statuses and PHP-style bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { expectChain, fieldChanges } from './helpers/audit-chain.js';
import { addHierarchy, addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const URL = '/api/v1/locations';
// As PHP's json_encode writes them: every `/` escaped.
const LINK = String.raw`http:\/\/localhost\/api\/v1\/locations`;

const tenant = () => newTenant(t.db.prisma);

function addLocation(
  tenantId: string,
  name: string,
  data: { isTrashed?: boolean; createdAt?: Date; lat?: number; lng?: number } = {},
) {
  return t.db.prisma.location.create({ data: { tenantId, name, ...data } });
}

/** A list item of a location created with only a name (spec 2.1 list item, keys in order). */
const listItem = (id: string, name: string, trashed = false): string =>
  `{"id":"${id}","name":"${name}","description":null,"login_page_name":null,"login_page_id":null,` +
  `"post_login_page_name":null,"post_login_page_id":null,"is_trashed":${trashed}}`;

// -------------------------------------------------------------------------------------------------
// Alone: it counts every statement sent while its own request runs.
describe.sequential('GET /locations/hierarchy statement count', () => {
  it('sends the same number of statements for 1×1×1 and for 3×4×5', async () => {
    const small = await tenant();
    const large = await tenant();
    await addHierarchy(t.db.prisma, small.tenant_id, { buildings: 1, floors: 1, zones: 1 });
    await addHierarchy(t.db.prisma, large.tenant_id, { buildings: 3, floors: 4, zones: 5 });

    const countFor = async (token: string, query: string) => {
      const { result: res, sql } = await recordStatements(t.db, () =>
        t.request('GET', `${URL}/hierarchy${query}`, { token }),
      );
      expect(res.status).toBe(200);
      return { sql, res };
    };
    for (const query of ['', '?with_coordinates=1&scale_floor_dimensions=1']) {
      const a = await countFor(small.token, query);
      const b = await countFor(large.token, query);
      // The large tree really was read in full.
      const zones = (r: typeof b.res) =>
        r.json.data.flatMap((l: { buildings: { floors: { zones: unknown[] }[] }[] }) =>
          l.buildings.flatMap((bl) => bl.floors.flatMap((f) => f.zones)),
        ).length;
      expect(zones(a.res)).toBe(1);
      expect(zones(b.res)).toBe(60);
      expect(a.sql.length).toBeGreaterThan(0);
      // The same statements, not only as many: parameters differ, the SQL does not.
      expect(b.sql).toEqual(a.sql);
    }
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /locations', () => {
  it('answers the exact envelope with default paging', async () => {
    const a = await tenant();
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const name = (await t.db.prisma.location.findUniqueOrThrow({ where: { id: a.location_id } })).name;
    expect(res.text).toBe(
      `{"data":[${listItem(a.location_id, name)}],` +
        `"links":{"first":"${LINK}?page=1","last":null,"prev":null,"next":null},` +
        `"meta":{"current_page":1,"from":1,"to":1,"path":"${LINK}","per_page":10}}`,
    );
  });

  it('writes every list item field in spec order, non-ASCII as \\u escapes', async () => {
    const a = await tenant();
    const loc = await t.db.prisma.location.create({
      data: {
        tenantId: a.tenant_id,
        name: 'Café/Bar',
        description: 'Zürich',
        loginPageName: 'Login',
        loginPageId: 'lp1',
        postLoginPageName: 'Welcome',
        postLoginPageId: 'plp1',
      },
    });
    // `é/`: no other location of the tenant matches (its default one has a hex name, which `caf` can be in).
    const res = await t.request('GET', `${URL}?name=${encodeURIComponent('é/b')}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      String.raw`"data":[{"id":"${loc.id}","name":"Caf\u00e9\/Bar","description":"Z\u00fcrich",` +
        `"login_page_name":"Login","login_page_id":"lp1","post_login_page_name":"Welcome",` +
        `"post_login_page_id":"plp1","is_trashed":false}]`,
    );
  });

  it('pages 10 by default, in creation order', async () => {
    const a = await tenant();
    const base = Date.UTC(2026, 0, 1);
    // Created in reverse so the order can only come from createdAt.
    const ids: string[] = [];
    for (let i = 11; i >= 0; i--) {
      const l = await addLocation(a.tenant_id, `Spot ${String(i).padStart(2, '0')}`, {
        createdAt: new Date(base + i * 1000),
      });
      ids[i] = l.id;
    }
    const res = await t.request('GET', `${URL}?name=spot`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.json.data.map((l: { id: string }) => l.id)).toEqual(ids.slice(0, 10));
    expect(res.json.links).toEqual({
      first: 'http://localhost/api/v1/locations?name=spot&page=1',
      last: null,
      prev: null,
      next: 'http://localhost/api/v1/locations?name=spot&page=2',
    });
    expect(res.json.meta).toEqual({
      current_page: 1,
      from: 1,
      to: 10,
      path: 'http://localhost/api/v1/locations',
      per_page: 10,
    });
    const next = await t.request('GET', `${URL}?name=spot&page=2`, { token: a.token });
    expect(next.json.data.map((l: { id: string }) => l.id)).toEqual(ids.slice(10));
    expect(next.json.links.next).toBeNull();
    expect(next.json.meta).toMatchObject({ current_page: 2, from: 11, to: 12 });
  });

  it('filters name by case-insensitive substring, wildcards taken literally', async () => {
    const a = await tenant();
    const roof = await addLocation(a.tenant_id, 'Rooftop BAR');
    const cafe = await addLocation(a.tenant_id, 'Le Café');
    await addLocation(a.tenant_id, 'Lobby');
    const pct = await addLocation(a.tenant_id, '100% Pool');
    const slash = await addLocation(a.tenant_id, 'Back\\slash');
    const names = async (q: string) =>
      (await t.request('GET', `${URL}?name=${q}`, { token: a.token })).json.data.map(
        (l: { id: string }) => l.id,
      );
    expect(await names('top%20bar')).toEqual([roof.id]);
    expect(await names('CAFÉ')).toEqual([cafe.id]);
    expect(await names('%25')).toEqual([pct.id]);
    expect(await names('_')).toEqual([]);
    expect(await names('%5C')).toEqual([slash.id]);
    expect(await names('k%5Cs')).toEqual([slash.id]);
    expect(await names('nothing-like-this')).toEqual([]);
  });

  it('status: omitted or 0 active only, 1 trashed only', async () => {
    const a = await tenant();
    const live = await addLocation(a.tenant_id, 'Live one');
    const gone = await addLocation(a.tenant_id, 'Gone one', { isTrashed: true });
    const ids = async (q: string) =>
      (await t.request('GET', `${URL}?name=one${q}`, { token: a.token })).json.data.map(
        (l: { id: string }) => l.id,
      );
    expect(await ids('')).toEqual([live.id]);
    expect(await ids('&status=0')).toEqual([live.id]);
    expect(await ids('&status=1')).toEqual([gone.id]);
    const res = await t.request('GET', `${URL}?status=1`, { token: a.token });
    expect(res.text).toContain(`"data":[${listItem(gone.id, 'Gone one', true)}]`);
  });

  it('empty filters (`?name=&status=`) mean no filter, as Laravel reads them: null, and nullable', async () => {
    const a = await tenant();
    await addLocation(a.tenant_id, 'Second');
    await addLocation(a.tenant_id, 'Gone', { isTrashed: true });
    const res = await t.request('GET', `${URL}?name=&status=&page=&per_page=`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(2);
    expect(res.json.meta).toMatchObject({ current_page: 1, per_page: 10 });
    // A filter is trimmed like every other string.
    const trimmed = await t.request('GET', `${URL}?name=%20second%20`, { token: a.token });
    expect(trimmed.json.data.map((l: { name: string }) => l.name)).toEqual(['Second']);
  });

  it('status 2 or abc is 422', async () => {
    const a = await tenant();
    const two = await t.request('GET', `${URL}?status=2`, { token: a.token });
    expect(two.status).toBe(422);
    expect(two.text).toBe(
      '{"message":"The selected status is invalid.","errors":{"status":["The selected status is invalid."]}}',
    );
    // As Laravel, `in` still judges a value that failed `integer`.
    const abc = await t.request('GET', `${URL}?status=abc`, { token: a.token });
    expect(abc.status).toBe(422);
    expect(abc.text).toBe(
      '{"message":"The status field must be an integer. (and 1 more error)","errors":{"status":["The status field must be an integer.","The selected status is invalid."]}}',
    );
  });

  it('never lists another tenant’s locations', async () => {
    const a = await tenant();
    const b = await tenant();
    await addLocation(b.tenant_id, 'Shared Name');
    const mine = await addLocation(a.tenant_id, 'Shared Name');
    const res = await t.request('GET', `${URL}?per_page=100`, { token: a.token });
    expect(res.json.data.map((l: { id: string }) => l.id)).toEqual([a.location_id, mine.id]);
    await addLocation(b.tenant_id, 'B trashed', { isTrashed: true });
    const trashed = await t.request('GET', `${URL}?status=1`, { token: a.token });
    expect(trashed.json.data).toEqual([]);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /locations pagination edges', () => {
  it('page=0 and page=abc are 422', async () => {
    const a = await tenant();
    const zero = await t.request('GET', `${URL}?page=0`, { token: a.token });
    expect(zero.status).toBe(422);
    expect(zero.text).toBe(
      '{"message":"The page field must be at least 1.","errors":{"page":["The page field must be at least 1."]}}',
    );
    const abc = await t.request('GET', `${URL}?page=abc`, { token: a.token });
    expect(abc.status).toBe(422);
    expect(abc.text).toBe(
      '{"message":"The page field must be an integer.","errors":{"page":["The page field must be an integer."]}}',
    );
  });

  it('per_page 101, 0 and abc are 422; 100 and 1 are fine', async () => {
    const a = await tenant();
    const cases: [string, string][] = [
      ['101', 'The per page field must not be greater than 100.'],
      ['0', 'The per page field must be at least 1.'],
      ['abc', 'The per page field must be an integer.'],
      ['1.5', 'The per page field must be an integer.'],
      // PHP's FILTER_VALIDATE_INT (Laravel's `integer`): a leading zero is no integer.
      ['010', 'The per page field must be an integer.'],
    ];
    for (const [value, message] of cases) {
      const res = await t.request('GET', `${URL}?per_page=${value}`, { token: a.token });
      expect(res.status).toBe(422);
      expect(res.text).toBe(`{"message":"${message}","errors":{"per_page":["${message}"]}}`);
    }
    // `%2B5` is `+5`, a sign FILTER_VALIDATE_INT takes.
    for (const [value, perPage] of [
      ['100', 100],
      ['1', 1],
      ['%2B5', 5],
    ] as const) {
      const res = await t.request('GET', `${URL}?per_page=${value}`, { token: a.token });
      expect(res.status).toBe(200);
      expect(res.json.meta.per_page).toBe(perPage);
    }
  });

  it('links keep the other query parameters in place and replace page', async () => {
    const a = await tenant();
    for (let i = 0; i < 5; i++) await addLocation(a.tenant_id, `Blue bar ${i}`);
    const res = await t.request('GET', `${URL}?name=blue%20bar&page=2&per_page=2`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      `"links":{"first":"${LINK}?name=blue%20bar&page=1&per_page=2","last":null,` +
        `"prev":"${LINK}?name=blue%20bar&page=1&per_page=2",` +
        `"next":"${LINK}?name=blue%20bar&page=3&per_page=2"},` +
        `"meta":{"current_page":2,"from":3,"to":4,"path":"${LINK}","per_page":2}}`,
    );
    // Following next reads the same set: the last page has no next.
    const last = await t.request('GET', res.json.links.next.replace('http://localhost', ''), {
      token: a.token,
    });
    expect(last.json.data.map((l: { name: string }) => l.name)).toEqual(['Blue bar 4']);
    expect(last.json.links).toEqual({
      first: 'http://localhost/api/v1/locations?name=blue%20bar&page=1&per_page=2',
      last: null,
      prev: 'http://localhost/api/v1/locations?name=blue%20bar&page=2&per_page=2',
      next: null,
    });
    expect(last.json.meta).toEqual({
      current_page: 3,
      from: 5,
      to: 5,
      path: 'http://localhost/api/v1/locations',
      per_page: 2,
    });
  });

  it("links write the query as Laravel's paginator does: trimmed, empty values left out, lists indexed", async () => {
    const a = await tenant();
    for (let i = 0; i < 3; i++) await addLocation(a.tenant_id, `Blue bar ${i}`);
    // A repeated key keeps its first place and its last value (parse_str); `page=` is the default
    // page, and its place is kept; an unknown list is kept, by index, its empty element left out.
    const res = await t.request(
      'GET',
      `${URL}?per_page=5&name=%20blue%20bar%20&description=&page=&per_page=2&extra[]=x&extra[]=&extra[]=y`,
      { token: a.token },
    );
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(2);
    const query = (page: number) => `per_page=2&name=blue%20bar&page=${page}&extra%5B0%5D=x&extra%5B2%5D=y`;
    expect(res.json.links).toEqual({
      first: `http://localhost/api/v1/locations?${query(1)}`,
      last: null,
      prev: null,
      next: `http://localhost/api/v1/locations?${query(2)}`,
    });
    const next = await t.request('GET', res.json.links.next.replace('http://localhost', ''), {
      token: a.token,
    });
    expect(next.json.data.map((l: { name: string }) => l.name)).toEqual(['Blue bar 2']);
  });

  it('a page exactly full has no next', async () => {
    const a = await tenant();
    for (let i = 0; i < 4; i++) await addLocation(a.tenant_id, `Full ${i}`);
    const res = await t.request('GET', `${URL}?name=full&per_page=2&page=2`, { token: a.token });
    expect(res.json.data).toHaveLength(2);
    expect(res.json.links.next).toBeNull();
    expect(res.json.meta).toMatchObject({ from: 3, to: 4 });
  });

  it('a page beyond the end is empty with from/to null, prev set, next null', async () => {
    const a = await tenant();
    const res = await t.request('GET', `${URL}?per_page=5&page=4`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[],"links":{"first":"${LINK}?per_page=5&page=1","last":null,` +
        `"prev":"${LINK}?per_page=5&page=3","next":null},` +
        `"meta":{"current_page":4,"from":null,"to":null,"path":"${LINK}","per_page":5}}`,
    );
  });

  it('paging one by one reads every record once, ties on createdAt broken by id', async () => {
    const a = await tenant();
    const at = new Date(Date.UTC(2026, 1, 1));
    for (let i = 0; i < 6; i++) await addLocation(a.tenant_id, `Tie ${i}`, { createdAt: at });
    const all = await t.request('GET', `${URL}?name=tie&per_page=100`, { token: a.token });
    const order = all.json.data.map((l: { id: string }) => l.id);
    expect(order).toHaveLength(6);
    const paged: string[] = [];
    for (let page = 1; page <= 6; page++) {
      const res = await t.request('GET', `${URL}?name=tie&per_page=1&page=${page}`, { token: a.token });
      paged.push(...res.json.data.map((l: { id: string }) => l.id));
    }
    expect(paged).toEqual(order);
    expect(new Set(paged).size).toBe(6);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /locations/count', () => {
  it('counts with the same filters as the list', async () => {
    const a = await tenant();
    await addLocation(a.tenant_id, 'Count Alpha');
    await addLocation(a.tenant_id, 'count beta');
    await addLocation(a.tenant_id, 'Count gone', { isTrashed: true });
    const b = await tenant();
    await addLocation(b.tenant_id, 'Count other tenant');
    const count = async (q: string) => {
      const res = await t.request('GET', `${URL}/count${q}`, { token: a.token });
      expect(res.status).toBe(200);
      return res.text;
    };
    expect(await count('')).toBe('{"count":3}');
    expect(await count('?name=COUNT')).toBe('{"count":2}');
    expect(await count('?name=count&status=0')).toBe('{"count":2}');
    expect(await count('?status=1')).toBe('{"count":1}');
    expect(await count('?name=zzz')).toBe('{"count":0}');
    const bad = await t.request('GET', `${URL}/count?status=2`, { token: a.token });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual(unprocessable({ status: ['The selected status is invalid.'] }));
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /locations/hierarchy', () => {
  async function tree() {
    const a = await tenant();
    const prisma = t.db.prisma;
    const loc = await addLocation(a.tenant_id, 'Tower Plaza', { lat: 41.3851, lng: 2.1734 });
    const building = await prisma.building.create({
      data: { tenantId: a.tenant_id, locationId: loc.id, name: 'North', lat: 41.5, lng: -2.25 },
    });
    const floor = await prisma.floor.create({
      data: {
        tenantId: a.tenant_id,
        buildingId: building.id,
        name: 'Ground',
        level: 0,
        imageUrl: 'https://cdn.example.com/floors/ground.png',
        imageWidth: 1200,
        imageHeight: 800,
        width: 100,
        length: 100,
      },
    });
    const zone = await prisma.zone.create({
      data: {
        tenantId: a.tenant_id,
        floorId: floor.id,
        name: 'Entrée',
        coordinates: [
          { x: 0, y: 0 },
          { x: 10.5, y: 0 },
          { x: 10.5, y: 20 },
        ],
      },
    });
    return { a, loc, building, floor, zone };
  }

  it('answers the 2.2 shape: lat/lng strings, floor image and dimensions, zones without coordinates', async () => {
    const { a, loc, building, floor, zone } = await tree();
    const res = await t.request('GET', `${URL}/hierarchy?location_id=${loc.id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[{"id":"${loc.id}","name":"Tower Plaza","lat":"41.3851","lng":"2.1734","buildings":[` +
        `{"id":"${building.id}","name":"North","lat":"41.5","lng":"-2.25","floors":[` +
        `{"id":"${floor.id}","name":"Ground",` +
        String.raw`"image":{"name":"https:\/\/cdn.example.com\/floors\/ground.png","width":1200,"height":800},` +
        `"dimensions":{"width":100.0,"length":100.0},` +
        String.raw`"zones":[{"id":"${zone.id}","name":"Entr\u00e9e"}]}]}]}]}`,
    );
  });

  it('writes lat/lng as plain decimal text, never in exponent form', async () => {
    const a = await tenant();
    const put = await t.request('PUT', `${URL}/${a.location_id}`, {
      token: a.token,
      body: { name: 'Null Island', lat: 0.0000001, lng: -0.00002 },
    });
    expect(put.status).toBe(200);
    const b = await t.db.prisma.building.create({
      data: { tenantId: a.tenant_id, locationId: a.location_id, name: 'Hut', lat: -1.5e-7, lng: 0 },
    });
    const res = await t.request('GET', `${URL}/hierarchy?location_id=${a.location_id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[{"id":"${a.location_id}","name":"Null Island","lat":"0.0000001","lng":"-0.00002","buildings":[` +
        `{"id":"${b.id}","name":"Hut","lat":"-0.00000015","lng":"0","floors":[]}]}]}`,
    );
  });

  it('with_coordinates=1 adds the zone polygon as float points', async () => {
    const { a, loc, zone } = await tree();
    const res = await t.request('GET', `${URL}/hierarchy?location_id=${loc.id}&with_coordinates=1`, {
      token: a.token,
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      String.raw`"zones":[{"id":"${zone.id}","name":"Entr\u00e9e","coordinates":` +
        '[{"x":0.0,"y":0.0},{"x":10.5,"y":0.0},{"x":10.5,"y":20.0}]}]',
    );
    const off = await t.request('GET', `${URL}/hierarchy?location_id=${loc.id}&with_coordinates=0`, {
      token: a.token,
    });
    expect(off.text).not.toContain('coordinates');
    // Another spelling of 1 the rule takes is 1 (probe O: accepted, then ignored).
    for (const one of ['%2B1', '%201%20']) {
      const other = await t.request('GET', `${URL}/hierarchy?location_id=${loc.id}&with_coordinates=${one}`, {
        token: a.token,
      });
      expect([other.status, other.text], one).toEqual([200, res.text]);
    }
  });

  it('lists every active location of the tenant, empty levels as [] and missing values as null', async () => {
    const { a, loc } = await tree();
    await addLocation(a.tenant_id, 'Trashed Plaza', { isTrashed: true });
    const res = await t.request('GET', `${URL}/hierarchy`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.json.data.map((l: { id: string }) => l.id)).toEqual([a.location_id, loc.id]);
    expect(res.text).toContain(`{"id":"${a.location_id}","name":"`);
    expect(res.json.data[0]).toMatchObject({ lat: null, lng: null, buildings: [] });
    expect(res.text.indexOf(`"lat":null,"lng":null,"buildings":[]}`)).toBeGreaterThan(0);
  });

  it('a floor without image or zones', async () => {
    const a = await tenant();
    const loc = await addLocation(a.tenant_id, 'Bare');
    const b = await t.db.prisma.building.create({
      data: { tenantId: a.tenant_id, locationId: loc.id, name: 'B' },
    });
    const f = await t.db.prisma.floor.create({
      data: { tenantId: a.tenant_id, buildingId: b.id, name: 'F' },
    });
    const res = await t.request('GET', `${URL}/hierarchy?location_id=${loc.id}&with_coordinates=1`, {
      token: a.token,
    });
    expect(res.text).toBe(
      `{"data":[{"id":"${loc.id}","name":"Bare","lat":null,"lng":null,"buildings":[` +
        `{"id":"${b.id}","name":"B","lat":null,"lng":null,"floors":[{"id":"${f.id}","name":"F",` +
        `"image":{"name":null,"width":null,"height":null},"dimensions":{"width":0.0,"length":0.0},"zones":[]}]}]}]}`,
    );
  });

  it('filters by location_id and by name (case-insensitive substring)', async () => {
    const { a, loc } = await tree();
    const other = await addLocation(a.tenant_id, 'Harbour Hall');
    const ids = async (q: string) =>
      (await t.request('GET', `${URL}/hierarchy${q}`, { token: a.token })).json.data.map(
        (l: { id: string }) => l.id,
      );
    expect(await ids(`?location_id=${other.id}`)).toEqual([other.id]);
    expect(await ids('?name=TOWER')).toEqual([loc.id]);
    expect(await ids('?name=harb')).toEqual([other.id]);
    expect(await ids(`?name=tower&location_id=${other.id}`)).toEqual([]);
    expect(await ids('?location_id=unknown-id')).toEqual([]);
  });

  it('rejects with_coordinates and scale_floor_dimensions other than 0/1', async () => {
    const a = await tenant();
    const res = await t.request('GET', `${URL}/hierarchy?with_coordinates=2&scale_floor_dimensions=x`, {
      token: a.token,
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual(
      unprocessable({
        with_coordinates: ['The selected with coordinates is invalid.'],
        scale_floor_dimensions: [
          'The scale floor dimensions field must be an integer.',
          'The selected scale floor dimensions is invalid.',
        ],
      }),
    );
  });

  it('scale_floor_dimensions=1 scales grids over 3000 cells to the largest whole grid keeping the ratio', async () => {
    const a = await tenant();
    const loc = await addLocation(a.tenant_id, 'Scaled');
    const b = await t.db.prisma.building.create({
      data: { tenantId: a.tenant_id, locationId: loc.id, name: 'B' },
    });
    const floors: [number, number][] = [
      [100, 100], // 10000 cells -> 54 × 54 = 2916
      [200, 30], // 6000 -> 141 × 21 = 2961
      [61, 50], // 3050 -> 60 × 49 = 2940
      [60, 50], // exactly 3000: unchanged
      [10, 10],
    ];
    for (const [level, [width, length]] of floors.entries()) {
      await t.db.prisma.floor.create({
        data: { tenantId: a.tenant_id, buildingId: b.id, name: `F${level}`, level, width, length },
      });
    }
    const dims = async (q: string) => {
      const res = await t.request('GET', `${URL}/hierarchy?location_id=${loc.id}${q}`, { token: a.token });
      expect(res.status).toBe(200);
      return [...res.text.matchAll(/"dimensions":(\{[^}]*\})/g)].map((m) => m[1]);
    };
    expect(await dims('&scale_floor_dimensions=1')).toEqual([
      '{"width":54.0,"length":54.0}',
      '{"width":141.0,"length":21.0}',
      '{"width":60.0,"length":49.0}',
      '{"width":60.0,"length":50.0}',
      '{"width":10.0,"length":10.0}',
    ]);
    const unscaled = [
      '{"width":100.0,"length":100.0}',
      '{"width":200.0,"length":30.0}',
      '{"width":61.0,"length":50.0}',
      '{"width":60.0,"length":50.0}',
      '{"width":10.0,"length":10.0}',
    ];
    expect(await dims('')).toEqual(unscaled);
    expect(await dims('&scale_floor_dimensions=0')).toEqual(unscaled);
  });

  it('never shows another tenant’s locations, even by location_id', async () => {
    const { loc } = await tree();
    const b = await tenant();
    const res = await t.request('GET', `${URL}/hierarchy`, { token: b.token });
    expect(res.json.data.map((l: { id: string }) => l.id)).toEqual([b.location_id]);
    const byId = await t.request('GET', `${URL}/hierarchy?location_id=${loc.id}`, { token: b.token });
    expect(byId.status).toBe(200);
    expect(byId.text).toBe('{"data":[]}');
    const byName = await t.request('GET', `${URL}/hierarchy?name=tower%20plaza`, { token: b.token });
    expect(byName.text).toBe('{"data":[]}');
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /locations and PUT /locations/:id', () => {
  it('updates sent at once take turns: one entry for identical ones, a chain of old values for different ones', async () => {
    const a = await tenant();
    const put = (city: string) =>
      t.request('PUT', `${URL}/${a.location_id}`, { token: a.token, body: { name: 'Chained', city } });
    for (const res of await Promise.all(Array.from({ length: 8 }, () => put('Same City'))))
      expect(res.status, res.text).toBe(200);
    const once = await fieldChanges(t.db.prisma, a.tenant_id, a.location_id, 'city');
    expect(once).toEqual([{ old: null, new: 'Same City' }]);
    const cities = Array.from({ length: 8 }, (_, i) => `City ${i}`);
    for (const res of await Promise.all(cities.map(put))) expect(res.status, res.text).toBe(200);
    const final = (await t.db.prisma.location.findUniqueOrThrow({ where: { id: a.location_id } })).city;
    const changes = (await fieldChanges(t.db.prisma, a.tenant_id, a.location_id, 'city')).slice(1);
    expect(changes).toHaveLength(8);
    expectChain(changes, 'Same City', final);
  });

  const full = {
    name: 'Café Central',
    description: 'Main hall',
    address: '1 Main St/2',
    post_code: '08001',
    city: 'Barcelona',
    country_code: 'ES',
    lat: 41,
    lng: '2.17',
    smart_login: 1,
    smart_login_frequency: 3,
    smart_login_frequency_type: 2,
    unknown_field: 'ignored',
  };

  it('creates: 201 with the 2.1 create/update shape, floats written with a fraction', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, { token: a.token, body: full });
    expect(res.status).toBe(201);
    const id = res.json.data.id as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(res.text).toBe(
      String.raw`{"data":{"id":"${id}","name":"Caf\u00e9 Central","description":"Main hall",` +
        String.raw`"address":"1 Main St\/2","post_code":"08001","city":"Barcelona","state":null,` +
        `"country_code":"ES","lat":41.0,"lng":2.17,"is_trashed":false}}`,
    );
    const row = await t.db.prisma.location.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      tenantId: a.tenant_id,
      lat: 41,
      lng: 2.17,
      smartLogin: 1,
      smartLoginFrequency: 3,
      smartLoginFrequencyType: 2,
    });
    // Listed at once.
    const list = await t.request('GET', `${URL}?name=central`, { token: a.token });
    expect(list.json.data.map((l: { id: string }) => l.id)).toEqual([id]);
  });

  it('creates with only a name: every other field null', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, { token: a.token, body: { name: 'Just a name' } });
    expect(res.status).toBe(201);
    expect(res.text).toBe(
      `{"data":{"id":"${res.json.data.id}","name":"Just a name","description":null,"address":null,` +
        `"post_code":null,"city":null,"state":null,"country_code":null,"lat":null,"lng":null,"is_trashed":false}}`,
    );
  });

  it('reads the query string beside the body, the body winning, as Laravel’s all() does (probe P)', async () => {
    const a = await tenant();
    const query = await t.request('POST', `${URL}?name=From%20Query&city=QCity`, {
      token: a.token,
      body: { description: 'from the body' },
    });
    expect(query.status, query.text).toBe(201);
    expect(query.json.data).toMatchObject({
      name: 'From Query',
      city: 'QCity',
      description: 'from the body',
    });
    const both = await t.request('POST', `${URL}?name=Query%20Name&city=QCity`, {
      token: a.token,
      body: { name: 'Body Name' },
    });
    expect(both.json.data).toMatchObject({ name: 'Body Name', city: 'QCity' });
    // A bad value in the query is refused as in the body.
    const bad = await t.request('PUT', `${URL}/${both.json.data.id}?lat=91`, {
      token: a.token,
      body: { name: 'Body Name' },
    });
    expect([bad.status, bad.json.errors]).toEqual([
      422,
      { lat: ['The lat field must be between -90 and 90.'] },
    ]);
  });

  it('updates: 200 with the same shape, keeping its own name', async () => {
    const a = await tenant();
    const created = await t.request('POST', URL, { token: a.token, body: full });
    const id = created.json.data.id as string;
    const res = await t.request('PUT', `${URL}/${id}`, {
      token: a.token,
      body: { name: 'CAFÉ central', lat: -90, lng: 180, city: null, smart_login: 0 },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      String.raw`{"data":{"id":"${id}","name":"CAF\u00c9 central","description":"Main hall",` +
        String.raw`"address":"1 Main St\/2","post_code":"08001","city":null,"state":null,` +
        `"country_code":"ES","lat":-90.0,"lng":180.0,"is_trashed":false}}`,
    );
    const same = await t.request('PUT', `${URL}/${id}`, { token: a.token, body: { name: 'CAFÉ central' } });
    expect(same.status).toBe(200);
    const row = await t.db.prisma.location.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ name: 'CAFÉ central', smartLogin: 0, smartLoginFrequency: 3 });
  });

  async function expect422(method: 'POST' | 'PUT', body: unknown, errors: Record<string, string[]>) {
    const a = await tenant();
    const url = method === 'POST' ? URL : `${URL}/${a.location_id}`;
    const res = await t.request(method, url, { token: a.token, body });
    expect(res.status, JSON.stringify(body)).toBe(422);
    expect(res.json).toEqual(unprocessable(errors));
    expect(res.text).toBe(JSON.stringify(unprocessable(errors)));
  }
  async function expectOk(method: 'POST' | 'PUT', body: Record<string, unknown>) {
    const a = await tenant();
    const url = method === 'POST' ? URL : `${URL}/${a.location_id}`;
    const res = await t.request(method, url, { token: a.token, body });
    expect(res.status, JSON.stringify(body)).toBe(method === 'POST' ? 201 : 200);
    return res;
  }

  for (const method of ['POST', 'PUT'] as const) {
    describe(method, () => {
      it('name: required, string, at most 50 characters', async () => {
        await expect422(method, {}, { name: ['The name field is required.'] });
        await expect422(method, { name: '   ' }, { name: ['The name field is required.'] });
        await expect422(method, { name: null }, { name: ['The name field is required.'] });
        await expect422(method, { name: 123 }, { name: ['The name field must be a string.'] });
        await expect422(method, { name: ['x'] }, { name: ['The name field must be a string.'] });
        await expect422(method, { name: { a: 1 } }, { name: ['The name field must be a string.'] });
        await expect422(
          method,
          { name: 'n'.repeat(51) },
          {
            name: ['The name field must not be greater than 50 characters.'],
          },
        );
        const ok = await expectOk(method, {
          name: `${'n'.repeat(40)}${Math.random().toString(36).slice(2).padEnd(10, 'x').slice(0, 10)}`,
        });
        expect(ok.json.data.name).toHaveLength(50);
        // Characters, not bytes.
        const e = await expectOk(method, { name: 'é'.repeat(50) });
        expect(e.text).toContain(`"name":"${'\\u00e9'.repeat(50)}"`);
      });

      it('name: unique in the tenant case-insensitively, wildcards literal', async () => {
        const a = await tenant();
        await addLocation(a.tenant_id, 'Garden Room');
        await addLocation(a.tenant_id, 'Lobby');
        const target = method === 'POST' ? URL : `${URL}/${a.location_id}`;
        for (const name of ['Garden Room', 'GARDEN room', 'garden room']) {
          const res = await t.request(method, target, { token: a.token, body: { name } });
          expect(res.status).toBe(422);
          expect(res.text).toBe(
            '{"message":"The name has already been taken.","errors":{"name":["The name has already been taken."]}}',
          );
        }
        // Not a pattern: `L%` and `_obby` are free names.
        const pct = await t.request(method, target, { token: a.token, body: { name: 'L%' } });
        expect(pct.status).toBe(method === 'POST' ? 201 : 200);
        const under = await t.request(method, target, { token: a.token, body: { name: '_obby' } });
        expect(under.status).toBe(method === 'POST' ? 201 : 200);
        // Another tenant's name is free.
        const b = await tenant();
        const other = await t.request(method, method === 'POST' ? URL : `${URL}/${b.location_id}`, {
          token: b.token,
          body: { name: 'Garden Room' },
        });
        expect(other.status).toBe(method === 'POST' ? 201 : 200);
      });

      it('country_code: upper-case ISO alpha-2', async () => {
        await expectOk(method, { name: 'CC ok', country_code: 'US' });
        await expectOk(method, { name: 'CC null', country_code: null });
        const invalid = ['The selected country code is invalid.'];
        await expect422(method, { name: 'x', country_code: 'us' }, { country_code: invalid });
        await expect422(method, { name: 'x', country_code: 'XX' }, { country_code: invalid });
        await expect422(
          method,
          { name: 'x', country_code: 'USA' },
          {
            country_code: [
              'The country code field must be 2 characters.',
              'The selected country code is invalid.',
            ],
          },
        );
        await expect422(
          method,
          { name: 'x', country_code: 12 },
          {
            country_code: [
              'The country code field must be a string.',
              'The selected country code is invalid.',
            ],
          },
        );
      });

      it('address: at most 255 characters', async () => {
        const ok = await expectOk(method, { name: 'Addr', address: 'a'.repeat(255) });
        expect(ok.json.data.address).toHaveLength(255);
        await expect422(
          method,
          { name: 'x', address: 'a'.repeat(256) },
          {
            address: ['The address field must not be greater than 255 characters.'],
          },
        );
      });

      it('lat within -90..90, lng within -180..180, numbers only', async () => {
        const low = await expectOk(method, { name: 'Edges low', lat: -90, lng: -180 });
        expect(low.text).toContain('"lat":-90.0,"lng":-180.0,');
        const high = await expectOk(method, { name: 'Edges high', lat: '90', lng: 180 });
        expect(high.text).toContain('"lat":90.0,"lng":180.0,');
        await expect422(
          method,
          { name: 'x', lat: 90.1, lng: 180.5 },
          {
            lat: ['The lat field must be between -90 and 90.'],
            lng: ['The lng field must be between -180 and 180.'],
          },
        );
        await expect422(
          method,
          { name: 'x', lat: -90.5 },
          { lat: ['The lat field must be between -90 and 90.'] },
        );
        await expect422(
          method,
          { name: 'x', lat: 'abc', lng: [1] },
          {
            lat: ['The lat field must be a number.'],
            lng: ['The lng field must be a number.'],
          },
        );
      });

      it('smart_login: 0, 1 or null', async () => {
        for (const smart_login of [0, null])
          await expectOk(method, { name: `SL ${smart_login}`, smart_login });
        await expectOk(method, {
          name: 'SL 1',
          smart_login: 1,
          smart_login_frequency: 1,
          smart_login_frequency_type: 3,
        });
        await expect422(
          method,
          { name: 'x', smart_login: 2 },
          { smart_login: ['The selected smart login is invalid.'] },
        );
        await expect422(
          method,
          { name: 'x', smart_login: 'yes' },
          {
            smart_login: [
              'The smart login field must be an integer.',
              'The selected smart login is invalid.',
            ],
          },
        );
      });

      it('smart_login=1 requires frequency (min 1) and type (2 or 3)', async () => {
        await expect422(
          method,
          { name: 'x', smart_login: 1 },
          {
            smart_login_frequency: ['The smart login frequency field is required when smart login is 1.'],
            smart_login_frequency_type: [
              'The smart login frequency type field is required when smart login is 1.',
            ],
          },
        );
        await expect422(
          method,
          { name: 'x', smart_login: '1', smart_login_frequency: null },
          {
            smart_login_frequency: ['The smart login frequency field is required when smart login is 1.'],
            smart_login_frequency_type: [
              'The smart login frequency type field is required when smart login is 1.',
            ],
          },
        );
        await expect422(
          method,
          { name: 'x', smart_login: 1, smart_login_frequency: 0, smart_login_frequency_type: 1 },
          {
            smart_login_frequency: ['The smart login frequency field must be at least 1.'],
            smart_login_frequency_type: ['The selected smart login frequency type is invalid.'],
          },
        );
        await expect422(
          method,
          { name: 'x', smart_login: 1, smart_login_frequency: 2, smart_login_frequency_type: 4 },
          {
            smart_login_frequency_type: ['The selected smart login frequency type is invalid.'],
          },
        );
        // At most what its column holds (it was a 500 beyond).
        for (const frequency of [2147483648, '1700000000000']) {
          await expect422(
            method,
            { name: 'x', smart_login: 1, smart_login_frequency: frequency, smart_login_frequency_type: 2 },
            {
              smart_login_frequency: ['The smart login frequency field must not be greater than 2147483647.'],
            },
          );
        }
        // Not required when smart login is off.
        await expectOk(method, { name: 'SL off', smart_login: 0 });
      });

      it('null and blank values: trimmed, empty read as null, null judged by every rule unless nullable', async () => {
        // `timezone` is not nullable: null (or blank text, which Laravel's middleware turns into null)
        // meets `string` and the time zone check, as Laravel's `string|timezone` would.
        for (const timezone of [null, '', '   ']) {
          await expect422(
            method,
            { name: 'TZ', timezone },
            {
              timezone: [
                'The timezone field must be a string.',
                'The timezone field must be a valid timezone.',
              ],
            },
          );
        }
        // Nullable fields take null and blank text as null; every string is trimmed before the rules.
        const ok = await expectOk(method, {
          name: '  Trimmed  ',
          address: null,
          city: '   ',
          description: '',
          post_code: ' 1000 ',
          lat: '',
          smart_login: null,
          timezone: ' Europe/Lisbon ',
        });
        expect(ok.json.data).toMatchObject({
          name: 'Trimmed',
          address: null,
          city: null,
          description: null,
          post_code: '1000',
          lat: null,
        });
        const row = await t.db.prisma.location.findUniqueOrThrow({ where: { id: ok.json.data.id } });
        expect(row).toMatchObject({
          name: 'Trimmed',
          postCode: '1000',
          timezone: 'Europe/Lisbon',
          smartLogin: null,
        });
        // A trimmed name that is too long still is.
        await expect422(
          method,
          { name: ` ${'n'.repeat(51)} ` },
          { name: ['The name field must not be greater than 50 characters.'] },
        );
      });

      it('takes a time zone as PHP names it, exactly (Laravel’s timezone rule), not any name ICU reads', async () => {
        for (const timezone of [
          'europe/lisbon',
          'US/Eastern',
          'GMT',
          'EST',
          'Asia/Calcutta',
          'Etc/GMT-14',
          'Mars/Base',
        ]) {
          await expect422(
            method,
            { name: 'TZ', timezone },
            { timezone: ['The timezone field must be a valid timezone.'] },
          );
        }
        for (const timezone of ['Asia/Kolkata', 'Europe/Kyiv', 'America/Argentina/Buenos_Aires', 'UTC']) {
          const ok = await expectOk(method, { name: `TZ ${timezone}`.slice(0, 50), timezone });
          const row = await t.db.prisma.location.findUniqueOrThrow({ where: { id: ok.json.data.id } });
          expect(row.timezone).toBe(timezone);
        }
      });

      it('summarizes several errors as "(and N more errors)", in rule order', async () => {
        const a = await tenant();
        const url = method === 'POST' ? URL : `${URL}/${a.location_id}`;
        const res = await t.request(method, url, {
          token: a.token,
          body: { lng: 200, country_code: 'usa', name: '', smart_login: 1 },
        });
        expect(res.status).toBe(422);
        expect(res.text).toBe(
          '{"message":"The name field is required. (and 5 more errors)","errors":{' +
            '"name":["The name field is required."],' +
            '"country_code":["The country code field must be 2 characters.","The selected country code is invalid."],' +
            '"lng":["The lng field must be between -180 and 180."],' +
            '"smart_login_frequency":["The smart login frequency field is required when smart login is 1."],' +
            '"smart_login_frequency_type":["The smart login frequency type field is required when smart login is 1."]}}',
        );
        const two = await t.request(method, url, { token: a.token, body: { name: 5, lat: 'x' } });
        expect(two.json.message).toBe('The name field must be a string. (and 1 more error)');
      });
    });
  }

  it('PUT: null or blank text clears a nullable field; the exact 422 for a null that is not allowed', async () => {
    const a = await tenant();
    const created = await t.request('POST', URL, { token: a.token, body: full });
    const id = created.json.data.id as string;
    const cleared = await t.request('PUT', `${URL}/${id}`, {
      token: a.token,
      body: { name: 'Cleared', address: null, city: '  ', description: '', country_code: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.text).toBe(
      `{"data":{"id":"${id}","name":"Cleared","description":null,"address":null,"post_code":"08001",` +
        `"city":null,"state":null,"country_code":null,"lat":41.0,"lng":2.17,"is_trashed":false}}`,
    );
    const refused = await t.request('PUT', `${URL}/${id}`, {
      token: a.token,
      body: { name: 'Cleared', timezone: null },
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toBe(
      '{"message":"The timezone field must be a string. (and 1 more error)","errors":{"timezone":' +
        '["The timezone field must be a string.","The timezone field must be a valid timezone."]}}',
    );
    expect((await t.db.prisma.location.findUniqueOrThrow({ where: { id } })).timezone).toBe('UTC');
  });

  it('PUT with an unknown id or another tenant’s id is 404, the other location unchanged', async () => {
    const a = await tenant();
    const b = await tenant();
    const before = await t.db.prisma.location.findUniqueOrThrow({ where: { id: b.location_id } });
    for (const id of ['does-not-exist', b.location_id]) {
      const res = await t.request('PUT', `${URL}/${id}`, {
        token: a.token,
        body: { name: 'Hijacked', lat: 1 },
      });
      expect(res.status).toBe(404);
      expect(res.text).toBe('{"error":"Record not found."}');
    }
    // Also before validating the body.
    const invalid = await t.request('PUT', `${URL}/${b.location_id}`, { token: a.token, body: {} });
    expect(invalid.status).toBe(404);
    const after = await t.db.prisma.location.findUniqueOrThrow({ where: { id: b.location_id } });
    expect(after).toEqual(before);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('roles', () => {
  it('front-desk: 403 on POST and PUT, even for its own location', async () => {
    const a = await tenant();
    const fd = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const forbidden = '{"message":"This action is unauthorized."}';
    const post = await t.request('POST', URL, { token: fd.token, body: { name: 'By front desk' } });
    expect(post.status).toBe(403);
    expect(post.text).toBe(forbidden);
    const put = await t.request('PUT', `${URL}/${a.location_id}`, {
      token: fd.token,
      body: { name: 'Renamed' },
    });
    expect(put.status).toBe(403);
    expect(put.text).toBe(forbidden);
    expect(await t.db.prisma.location.count({ where: { tenantId: a.tenant_id } })).toBe(1);
    const list = await t.request('GET', URL, { token: fd.token });
    expect(list.json.data.map((l: { id: string }) => l.id)).toEqual([a.location_id]);
  });

  it('venue: sees only its location, updates it, 404 on another, 403 on create', async () => {
    const a = await tenant();
    const other = await addLocation(a.tenant_id, 'Other venue');
    await addHierarchy(t.db.prisma, a.tenant_id, { name: 'Third venue', buildings: 1, floors: 1, zones: 1 });
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });

    const list = await t.request('GET', `${URL}?per_page=100`, { token: venue.token });
    expect(list.json.data.map((l: { id: string }) => l.id)).toEqual([a.location_id]);
    expect((await t.request('GET', `${URL}?name=venue`, { token: venue.token })).json.data).toEqual([]);
    expect((await t.request('GET', `${URL}/count`, { token: venue.token })).text).toBe('{"count":1}');
    const tree = await t.request('GET', `${URL}/hierarchy`, { token: venue.token });
    expect(tree.json.data.map((l: { id: string }) => l.id)).toEqual([a.location_id]);
    const byId = await t.request('GET', `${URL}/hierarchy?location_id=${other.id}`, { token: venue.token });
    expect(byId.text).toBe('{"data":[]}');

    const own = await t.request('PUT', `${URL}/${a.location_id}`, {
      token: venue.token,
      body: { name: 'My venue', city: 'Porto' },
    });
    expect(own.status).toBe(200);
    expect(own.json.data).toMatchObject({ id: a.location_id, name: 'My venue', city: 'Porto' });
    // Uniqueness still spans the whole tenant.
    const taken = await t.request('PUT', `${URL}/${a.location_id}`, {
      token: venue.token,
      body: { name: 'other VENUE' },
    });
    expect(taken.status).toBe(422);
    expect(taken.json.errors).toEqual({ name: ['The name has already been taken.'] });

    const theirs = await t.request('PUT', `${URL}/${other.id}`, {
      token: venue.token,
      body: { name: 'Mine now' },
    });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe('{"error":"Record not found."}');
    expect((await t.db.prisma.location.findUniqueOrThrow({ where: { id: other.id } })).name).toBe(
      'Other venue',
    );

    const create = await t.request('POST', URL, { token: venue.token, body: { name: 'New venue' } });
    expect(create.status).toBe(403);
    expect(create.text).toBe('{"message":"This action is unauthorized."}');
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('bad input and authentication', () => {
  it('malformed JSON is 400', async () => {
    const a = await tenant();
    for (const [method, url] of [
      ['POST', URL],
      ['PUT', `${URL}/${a.location_id}`],
    ] as const) {
      const res = await t.request(method, url, { token: a.token, rawBody: '{"name": "x",' });
      expect(res.status).toBe(400);
      expect(res.text).toBe('{"message":"Malformed JSON body."}');
    }
  });

  it('a JSON array or scalar body is no input: 422 name required', async () => {
    const a = await tenant();
    for (const rawBody of ['["name"]', '[{"name":"Array body"}]', '"Array body"', '42']) {
      const res = await t.request('POST', URL, { token: a.token, rawBody });
      expect(res.status, rawBody).toBe(422);
      expect(res.text).toBe(
        '{"message":"The name field is required.","errors":{"name":["The name field is required."]}}',
      );
    }
  });

  it('missing or unknown token is 401 on every location endpoint', async () => {
    const a = await tenant();
    const calls: [string, string][] = [
      ['GET', URL],
      ['GET', `${URL}/count`],
      ['GET', `${URL}/hierarchy`],
      ['POST', URL],
      ['PUT', `${URL}/${a.location_id}`],
    ];
    for (const [method, url] of calls) {
      const variants: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-a-real-token' },
        { authorization: a.token },
      ];
      for (const headers of variants) {
        const res = await t.request(method, url, { headers, body: { name: 'Anonymous' } });
        expect(res.status, `${method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.text).toBe('{"message":"Unauthenticated."}');
      }
    }
    expect(await t.db.prisma.location.count({ where: { tenantId: a.tenant_id } })).toBe(1);
  });
});

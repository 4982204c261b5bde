// REST /api/v1/advertisements and GraphQL `advertisements` (spec 2.12, 4.8 and the decisions):
// every filter, every ordering in both directions, paging with the default of 25, exact bodies,
// permissions and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

const URL = '/api/v1/advertisements';
const LINK = String.raw`http:\/\/localhost\/api\/v1\/advertisements`;

const tenant = () => newTenant(t.db.prisma);

interface AdData {
  title?: string;
  url?: string | null;
  type?: number;
  method?: number;
  conditionValue?: number;
  impressionCount?: number;
  clickCount?: number;
  status?: number;
  startDate?: Date | null;
  endDate?: Date | null;
  createdAt?: Date;
}

async function addAd(tenantId: string, data: AdData = {}, tagIds: string[] = []) {
  return t.db.prisma.advertisement.create({
    data: {
      tenantId,
      title: data.title ?? 'Ad',
      ...data,
      tags: { create: tagIds.map((tagId) => ({ tenantId, tagId })) },
    },
  });
}

function addTag(tenantId: string, name: string, groupName: string | null = 'Campaigns') {
  return t.db.prisma.tag.create({ data: { tenantId, name, groupName } });
}

const ids = (res: TestResponse): string[] => res.json.data.map((a: Json) => a.id);

function ok(res: TestResponse): TestResponse {
  expect(res.status, res.text).toBe(200);
  return res;
}

const invalid = (field: string, message: string) => ({ message, errors: { [field]: [message] } });

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /advertisements', () => {
  it('answers the exact envelope and item shape, tags by name with their group', async () => {
    const a = await tenant();
    const vip = await addTag(a.tenant_id, 'VIP', 'Segments');
    const cafe = await addTag(a.tenant_id, 'Cafe', null);
    const ad = await addAd(
      a.tenant_id,
      {
        title: 'Caf\u00e9 / Summer',
        url: 'https://example.com/summer',
        type: 1,
        method: 2,
        conditionValue: 3,
        impressionCount: 40,
        clickCount: 5,
        status: 1,
        startDate: new Date('2026-06-01T08:00:00.123Z'),
        endDate: new Date('2026-08-31T20:00:00Z'),
      },
      [vip.id, cafe.id],
    );
    const res = ok(await t.request('GET', URL, { token: a.token }));
    expect(res.text).toBe(
      `{"data":[{"id":"${ad.id}","title":"Caf\\u00e9 \\/ Summer","type":1,"method":2,"condition_value":3,` +
        `"impression_count":40,"click_count":5,"status":1,"start_date":"2026-06-01T08:00:00.123000Z",` +
        `"end_date":"2026-08-31T20:00:00.000000Z","tags":[{"id":"${cafe.id}","name":"Cafe","group_name":""},` +
        `{"id":"${vip.id}","name":"VIP","group_name":"Segments"}]}],` +
        `"links":{"first":"${LINK}?page=1","last":null,"prev":null,"next":null},` +
        `"meta":{"current_page":1,"from":1,"to":1,"path":"${LINK}","per_page":25}}`,
    );
  });

  it('writes null dates and an empty tag list', async () => {
    const a = await tenant();
    const ad = await addAd(a.tenant_id, { title: 'Plain' });
    const res = ok(await t.request('GET', URL, { token: a.token }));
    expect(res.json.data).toEqual([
      {
        id: ad.id,
        title: 'Plain',
        type: 0,
        method: 0,
        condition_value: 0,
        impression_count: 0,
        click_count: 0,
        status: 0,
        start_date: null,
        end_date: null,
        tags: [],
      },
    ]);
  });

  it('pages by 25 by default, oldest first, and keeps filters in the links', async () => {
    const a = await tenant();
    const created: string[] = [];
    for (let i = 0; i < 27; i++) {
      const ad = await addAd(a.tenant_id, {
        title: `Ad ${i}`,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      });
      created.push(ad.id);
    }
    const first = ok(await t.request('GET', `${URL}?title=ad`, { token: a.token }));
    expect(ids(first)).toEqual(created.slice(0, 25));
    expect(first.json.links.next).toBe('http://localhost/api/v1/advertisements?title=ad&page=2');
    expect(first.json.meta).toEqual({
      current_page: 1,
      from: 1,
      to: 25,
      path: 'http://localhost/api/v1/advertisements',
      per_page: 25,
    });
    const second = ok(await t.request('GET', `${URL}?title=ad&page=2`, { token: a.token }));
    expect(ids(second)).toEqual(created.slice(25));
    expect(second.json.links.next).toBeNull();
    expect(second.json.meta.from).toBe(26);
    const small = ok(await t.request('GET', `${URL}?per_page=100`, { token: a.token }));
    expect(ids(small)).toEqual(created);
    // order_direction alone reverses the default order.
    const desc = ok(await t.request('GET', `${URL}?per_page=100&order_direction=desc`, { token: a.token }));
    expect(ids(desc)).toEqual([...created].reverse());
  });

  it('refuses bad paging', async () => {
    const a = await tenant();
    const res = await t.request('GET', `${URL}?per_page=101`, { token: a.token });
    expect(res.status).toBe(422);
    expect(res.json).toEqual(invalid('per_page', 'The per page field must not be greater than 100.'));
    const page = await t.request('GET', `${URL}?page=0`, { token: a.token });
    expect(page.status).toBe(422);
    expect(page.json).toEqual(invalid('page', 'The page field must be at least 1.'));
  });

  it('filters by title and url (case-insensitive substring, literal % and _)', async () => {
    const a = await tenant();
    const summer = await addAd(a.tenant_id, { title: 'Summer SALE', url: 'https://shop.example/summer' });
    const winter = await addAd(a.tenant_id, { title: 'winter sale', url: 'https://shop.example/winter' });
    const pct = await addAd(a.tenant_id, { title: '50% off', url: null });
    await addAd(a.tenant_id, { title: 'Coffee', url: 'https://cafe.example/' });
    const q = async (query: string) => ids(ok(await t.request('GET', `${URL}?${query}`, { token: a.token })));
    expect(await q('title=Sale')).toEqual([summer.id, winter.id]);
    expect(await q('title=%25')).toEqual([pct.id]);
    expect(await q('title=_')).toEqual([]);
    expect(await q('url=SHOP.EXAMPLE')).toEqual([summer.id, winter.id]);
    expect(await q('url=winter')).toEqual([winter.id]);
    expect(await q('title=sale&url=summer')).toEqual([summer.id]);
    const count = ok(await t.request('GET', `${URL}/count?title=sale`, { token: a.token }));
    expect(count.text).toBe('{"count":2}');
  });

  it('filters by type and status, refusing other values', async () => {
    const a = await tenant();
    const textDraft = await addAd(a.tenant_id, { type: 0, status: 0 });
    const imageDraft = await addAd(a.tenant_id, { type: 1, status: 0 });
    const textLive = await addAd(a.tenant_id, { type: 0, status: 1 });
    const q = async (query: string) => ids(ok(await t.request('GET', `${URL}?${query}`, { token: a.token })));
    expect(await q('type=0')).toEqual([textDraft.id, textLive.id]);
    expect(await q('type=1')).toEqual([imageDraft.id]);
    expect(await q('status=1')).toEqual([textLive.id]);
    expect(await q('status=0&type=1')).toEqual([imageDraft.id]);
    const badType = await t.request('GET', `${URL}?type=2`, { token: a.token });
    expect(badType.status).toBe(422);
    expect(badType.json).toEqual(invalid('type', 'The selected type is invalid.'));
    const badStatus = await t.request('GET', `${URL}/count?status=yes`, { token: a.token });
    expect(badStatus.status).toBe(422);
    expect(badStatus.json).toEqual(
      unprocessable({ status: ['The status field must be an integer.', 'The selected status is invalid.'] }),
    );
  });

  it('filters by tag id: the exact id or a part of it, never another tenant’s tag', async () => {
    const a = await tenant();
    const b = await tenant();
    const vip = await addTag(a.tenant_id, 'VIP');
    const other = await addTag(a.tenant_id, 'Other');
    const foreign = await addTag(b.tenant_id, 'VIP');
    const tagged = await addAd(a.tenant_id, { title: 'Tagged' }, [vip.id, other.id]);
    const onlyOther = await addAd(a.tenant_id, { title: 'Other' }, [other.id]);
    await addAd(a.tenant_id, { title: 'None' });
    await addAd(b.tenant_id, { title: 'Foreign' }, [foreign.id]);
    const q = async (query: string) => ids(ok(await t.request('GET', `${URL}?${query}`, { token: a.token })));
    expect(await q(`tag_id=${vip.id}`)).toEqual([tagged.id]);
    expect(await q(`tag_id=${encodeURIComponent(vip.id.slice(2, 9))}`)).toContain(tagged.id);
    expect(await q(`tag_id=${other.id}`)).toEqual([tagged.id, onlyOther.id]);
    expect(await q(`tag_id=${foreign.id}`)).toEqual([]);
    expect(await q('tag_id=%25')).toEqual([]);
    const count = ok(await t.request('GET', `${URL}/count?tag_id=${other.id}`, { token: a.token }));
    expect(count.json).toEqual({ count: 2 });
  });

  it('filters by start_date (started on or after) and end_date (ended on or before), in UTC days', async () => {
    const a = await tenant();
    const before = await addAd(a.tenant_id, {
      startDate: new Date('2026-03-09T23:59:59.999Z'),
      endDate: new Date('2026-04-11T00:00:00Z'),
    });
    const onDay = await addAd(a.tenant_id, {
      startDate: new Date('2026-03-10T00:00:00Z'),
      endDate: new Date('2026-04-10T23:59:59.999Z'),
    });
    const later = await addAd(a.tenant_id, {
      startDate: new Date('2026-03-11T12:00:00Z'),
      endDate: new Date('2026-04-01T00:00:00Z'),
    });
    await addAd(a.tenant_id, { startDate: null, endDate: null });
    const q = async (query: string) => ids(ok(await t.request('GET', `${URL}?${query}`, { token: a.token })));
    expect(await q('start_date=2026-03-10')).toEqual([onDay.id, later.id]);
    expect(await q('end_date=2026-04-10')).toEqual([onDay.id, later.id]);
    expect(await q('end_date=2026-04-11')).toEqual([before.id, onDay.id, later.id]);
    expect(await q('start_date=2026-03-10&end_date=2026-04-09')).toEqual([later.id]);
    for (const bad of ['2026-3-10', '2026-02-30', '10-03-2026', '2026-03-10 10:00']) {
      const res = await t.request('GET', `${URL}?start_date=${encodeURIComponent(bad)}`, { token: a.token });
      expect(res.status).toBe(422);
      expect(res.json).toEqual(invalid('start_date', 'The start date field must match the format Y-m-d.'));
    }
    const res = await t.request('GET', `${URL}/count?end_date=tomorrow`, { token: a.token });
    expect(res.status).toBe(422);
    expect(res.json).toEqual(invalid('end_date', 'The end date field must match the format Y-m-d.'));
  });

  it('orders by title, type, method and status in both directions with the id as tie-breaker', async () => {
    const a = await tenant();
    // Two rows share every value, so each ordering needs the tie-breaker.
    const rows: AdData[] = [
      { title: 'Charlie', type: 1, method: 3, status: 0 },
      { title: 'Alpha', type: 0, method: 1, status: 1 },
      { title: 'Bravo', type: 1, method: 2, status: 1 },
      { title: 'Bravo', type: 1, method: 2, status: 1 },
      { title: 'Delta', type: 0, method: 0, status: 0 },
    ];
    for (const r of rows) await addAd(a.tenant_id, r);
    const keys = { title: 'title', type: 'type', method: 'method', status: 'status' } as const;
    for (const [param, key] of Object.entries(keys)) {
      const asc = ok(await t.request('GET', `${URL}?order_by=${param}`, { token: a.token })).json.data;
      const explicitAsc = ok(
        await t.request('GET', `${URL}?order_by=${param}&order_direction=asc`, { token: a.token }),
      ).json.data;
      const desc = ok(
        await t.request('GET', `${URL}?order_by=${param}&order_direction=desc`, { token: a.token }),
      ).json.data;
      expect(explicitAsc).toEqual(asc);
      const values = asc.map((x: Json) => x[key]);
      expect(values).toEqual([...values].sort((p, q) => (p < q ? -1 : p > q ? 1 : 0)));
      expect(values[0]).not.toEqual(values[values.length - 1]);
      // The unique tie-breaker runs in the same direction: desc is exactly asc reversed.
      expect(desc.map((x: Json) => x.id)).toEqual(asc.map((x: Json) => x.id).reverse());
      // Paging one by one reads the same rows in the same order.
      const paged: string[] = [];
      for (let page = 1; page <= 5; page++) {
        const res = ok(
          await t.request('GET', `${URL}?order_by=${param}&order_direction=desc&per_page=1&page=${page}`, {
            token: a.token,
          }),
        );
        paged.push(...ids(res));
      }
      expect(paged).toEqual(desc.map((x: Json) => x.id));
    }
  });

  it('refuses an unknown order_by or order_direction with Laravel’s message', async () => {
    const a = await tenant();
    for (const value of ['created_at', 'id', 'TITLE', '']) {
      const res = await t.request('GET', `${URL}?order_by=${value}&order_direction=asc`, { token: a.token });
      if (value === '') {
        // An empty parameter is no parameter (Laravel's ConvertEmptyStringsToNull).
        expect(res.status).toBe(200);
        continue;
      }
      expect(res.status).toBe(422);
      expect(res.text).toBe(
        '{"message":"The selected order by is invalid.","errors":{"order_by":["The selected order by is invalid."]}}',
      );
    }
    for (const value of ['up', 'ASC', 'descending']) {
      const res = await t.request('GET', `${URL}?order_by=title&order_direction=${value}`, {
        token: a.token,
      });
      expect(res.status).toBe(422);
      expect(res.json).toEqual(invalid('order_direction', 'The selected order direction is invalid.'));
    }
    const both = await t.request('GET', `${URL}?order_by=x&order_direction=y`, { token: a.token });
    expect(both.json).toEqual({
      message: 'The selected order by is invalid. (and 1 more error)',
      errors: {
        order_by: ['The selected order by is invalid.'],
        order_direction: ['The selected order direction is invalid.'],
      },
    });
  });

  it('counts with every filter and ignores paging', async () => {
    const a = await tenant();
    const tag = await addTag(a.tenant_id, 'Promo');
    await addAd(a.tenant_id, { title: 'One', type: 1, status: 1 }, [tag.id]);
    await addAd(a.tenant_id, { title: 'Two', type: 1, status: 0 });
    await addAd(a.tenant_id, { title: 'Three', type: 0, status: 1 });
    const count = async (query: string) =>
      ok(await t.request('GET', `${URL}/count${query}`, { token: a.token })).json.count;
    expect(await count('')).toBe(3);
    expect(await count('?type=1')).toBe(2);
    expect(await count('?type=1&status=1')).toBe(1);
    expect(await count(`?tag_id=${tag.id}`)).toBe(1);
    expect(await count('?title=t')).toBe(2);
    expect(await count('?order_by=title&order_direction=desc')).toBe(3);
  });

  it('shows only the caller’s tenant', async () => {
    const a = await tenant();
    const b = await tenant();
    const mine = await addAd(a.tenant_id, { title: 'Mine' });
    await addAd(b.tenant_id, { title: 'Theirs' });
    expect(ids(ok(await t.request('GET', URL, { token: a.token })))).toEqual([mine.id]);
    expect(ok(await t.request('GET', `${URL}/count`, { token: a.token })).json).toEqual({ count: 1 });
    expect(ok(await t.request('GET', `${URL}?title=Theirs`, { token: a.token })).json.data).toEqual([]);
  });

  it('lets venue users read every advertisement of the tenant; front-desk users get 403', async () => {
    const a = await tenant();
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Elsewhere' } });
    const ad = await addAd(a.tenant_id);
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: other.id });
    const frontDesk = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: other.id });
    const support = await addUser(t.db.prisma, a.tenant_id, 'support');
    expect(ids(ok(await t.request('GET', URL, { token: venue.token })))).toEqual([ad.id]);
    expect(ids(ok(await t.request('GET', URL, { token: support.token })))).toEqual([ad.id]);
    for (const path of [URL, `${URL}/count`]) {
      const res = await t.request('GET', path, { token: frontDesk.token });
      expect(res.status).toBe(403);
      expect(res.text).toBe('{"message":"This action is unauthorized."}');
    }
    expect((await t.request('GET', URL)).status).toBe(401);
    expect((await t.request('GET', `${URL}/count`)).status).toBe(401);
  });
});

// -------------------------------------------------------------------------------------------------
// Alone: it counts every statement sent while its own request runs.
describe.sequential('GET /advertisements statement count', () => {
  it('sends the same statements for 1 advertisement with 1 tag and 20 with 3 tags each', async () => {
    const small = await tenant();
    const large = await tenant();
    const tag = await addTag(small.tenant_id, 'T');
    await addAd(small.tenant_id, {}, [tag.id]);
    const tags = await Promise.all(['A', 'B', 'C'].map((n) => addTag(large.tenant_id, n)));
    for (let i = 0; i < 20; i++)
      await addAd(
        large.tenant_id,
        { title: `Ad ${i}` },
        tags.map((x) => x.id),
      );
    const run = async (token: string) => {
      const { result, sql } = await recordStatements(t.db, () =>
        t.request('GET', `${URL}?order_by=title`, { token }),
      );
      expect(result.status).toBe(200);
      return {
        sql,
        rows: result.json.data.length,
        tags: result.json.data.flatMap((a: Json) => a.tags).length,
      };
    };
    const a = await run(small.token);
    const b = await run(large.token);
    expect([a.rows, a.tags]).toEqual([1, 1]);
    expect([b.rows, b.tags]).toEqual([20, 60]);
    expect(b.sql).toEqual(a.sql);
  });
});

// -------------------------------------------------------------------------------------------------
const GQL = `query Ads($first: Int, $after: String, $title: String, $url: String, $type: Int, $status: Int,
  $tagId: String, $startDate: String, $endDate: String, $orderBy: String, $orderDirection: String) {
  advertisements(first: $first, after: $after, title: $title, url: $url, type: $type, status: $status,
    tagId: $tagId, startDate: $startDate, endDate: $endDate, orderBy: $orderBy, orderDirection: $orderDirection) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { node { id title type method status startDate endDate tags { id name groupName } } }
  }
}`;

function gqlData(res: TestResponse): Json {
  expect(res.json?.errors, res.text).toBeUndefined();
  return res.json.data;
}

describe.concurrent('GraphQL advertisements', () => {
  it('serves the same rows, filters and order as REST, with totalCount', async () => {
    const a = await tenant();
    const tag = await addTag(a.tenant_id, 'Promo', 'Campaigns');
    await addAd(
      a.tenant_id,
      { title: 'Bravo', type: 1, status: 1, startDate: new Date('2026-05-01T00:00:00Z') },
      [tag.id],
    );
    await addAd(a.tenant_id, { title: 'Alpha', type: 1, status: 1 });
    await addAd(a.tenant_id, { title: 'Charlie', type: 0, status: 1 }, [tag.id]);
    const variants: [Record<string, unknown>, string][] = [
      [{}, ''],
      [{ orderBy: 'title', orderDirection: 'desc' }, 'order_by=title&order_direction=desc'],
      [{ type: 1, orderBy: 'title' }, 'type=1&order_by=title'],
      [{ tagId: tag.id }, `tag_id=${tag.id}`],
      [{ startDate: '2026-04-30' }, 'start_date=2026-04-30'],
    ];
    for (const [vars, query] of variants) {
      const conn = gqlData(await t.graphql(a.token, GQL, { first: 100, ...vars })).advertisements;
      const rest = ok(await t.request('GET', `${URL}?${query}`, { token: a.token })).json.data;
      expect(conn.edges.map((e: Json) => e.node.id)).toEqual(rest.map((x: Json) => x.id));
      expect(conn.totalCount).toBe(rest.length);
    }
    const first = gqlData(await t.graphql(a.token, GQL, { first: 1, orderBy: 'title' })).advertisements;
    expect(first.edges[0].node).toEqual({
      id: expect.any(String),
      title: 'Alpha',
      type: 1,
      method: 0,
      status: 1,
      startDate: null,
      endDate: null,
      tags: [],
    });
    const withTag = gqlData(await t.graphql(a.token, GQL, { first: 1, title: 'Bravo' })).advertisements;
    expect(withTag.edges[0].node.tags).toEqual([{ id: tag.id, name: 'Promo', groupName: 'Campaigns' }]);
    expect(withTag.edges[0].node.startDate).toBe('2026-05-01T00:00:00.000000Z');
    // Cursor paging in a custom order reads every row once.
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 5; i++) {
      const conn: Json = gqlData(
        await t.graphql(a.token, GQL, { first: 1, after, orderBy: 'title', orderDirection: 'desc' }),
      ).advertisements;
      seen.push(...conn.edges.map((e: Json) => e.node.title));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toEqual(['Charlie', 'Bravo', 'Alpha']);
  });

  it('refuses invalid ordering with REST’s messages and hides other tenants', async () => {
    const a = await tenant();
    const b = await tenant();
    await addAd(b.tenant_id, { title: 'Theirs' });
    const res = await t.graphql(a.token, GQL, { orderBy: 'id', orderDirection: 'sideways' });
    expect(res.json.errors).toHaveLength(1);
    expect(res.json.errors[0].message).toBe('The selected order by is invalid. (and 1 more error)');
    expect(res.json.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: {
        orderBy: ['The selected order by is invalid.'],
        orderDirection: ['The selected order direction is invalid.'],
      },
    });
    const conn = gqlData(await t.graphql(a.token, GQL, {})).advertisements;
    expect(conn).toEqual({ totalCount: 0, pageInfo: { hasNextPage: false, endCursor: null }, edges: [] });
    const big = await t.graphql(a.token, GQL, { first: 101 });
    expect(big.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('seed', () => {
  it('adds a dozen tagged advertisements and codes per location, the same for the same seed', async () => {
    const { seedAdvertisementsAndAccessCodes } = await import(
      '../src/modules/advertisements/advertisements.seed.js'
    );
    const { seededRandom } = await import('../src/modules/locations/locations.seed.js');
    const snapshot = async (tenantId: string) => {
      const ads = await t.db.prisma.advertisement.findMany({
        where: { tenantId },
        orderBy: { title: 'asc' },
        include: { tags: { include: { tag: true }, orderBy: { tag: { name: 'asc' } } } },
      });
      const codes = await t.db.prisma.accessCode.findMany({ where: { tenantId }, orderBy: { code: 'asc' } });
      return {
        ads: ads.map((a) => [a.title, a.type, a.status, a.method, a.tags.map((x) => x.tag.groupName)]),
        // Shared codes start with the location's name, which differs between tenants.
        codes: codes.map((c) => [c.type === 1 ? c.code.split('-').pop() : c.code, c.type]).sort(),
      };
    };
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const a = await tenant();
      const counts = await seedAdvertisementsAndAccessCodes(t.db.prisma, a.tenant_id, seededRandom(7));
      expect(counts).toEqual({ advertisements: 12, access_codes: 7 });
      const again = await seedAdvertisementsAndAccessCodes(t.db.prisma, a.tenant_id, seededRandom(8));
      expect(again).toEqual({ advertisements: 0, access_codes: 0 });
      runs.push(await snapshot(a.tenant_id));
      const res = ok(await t.request('GET', `${URL}/count?type=1`, { token: a.token }));
      expect(res.json.count).toBe(6);
    }
    expect(runs[1]).toEqual(runs[0]);
    const first = runs[0] as Json;
    expect(new Set(first.ads.map((a: Json) => a[2]))).toEqual(new Set([0, 1]));
    expect(first.ads.every((a: Json) => a[4].length > 0 && a[4].every((g: string) => g !== null))).toBe(true);
    expect(
      first.codes.filter((c: Json) => c[1] === 2).every((c: Json) => NO_LOOK_ALIKES_TEST.test(c[0])),
    ).toBe(true);
  });
});

const NO_LOOK_ALIKES_TEST = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/;

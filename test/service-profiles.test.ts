// REST /api/v1/service-profiles and GraphQL `serviceProfiles` (beyond the spec; README documents the
// shape): the bootstrap default, filters, order, paging, permissions and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted against literals.
type Json = any;

const URL = '/api/v1/service-profiles';
const LINK = String.raw`http:\/\/localhost\/api\/v1\/service-profiles`;

const tenant = () => newTenant(t.db.prisma);

function addProfile(
  tenantId: string,
  name: string,
  data: { bandwidthUp?: number; bandwidthDown?: number; sessionDuration?: number; dataQuota?: bigint } = {},
) {
  return t.db.prisma.serviceProfile.create({ data: { tenantId, name, ...data } });
}

describe.concurrent('GET /service-profiles', () => {
  it('lists the bootstrap default in the exact shape', async () => {
    const a = await tenant();
    const profile = await t.db.prisma.serviceProfile.findUniqueOrThrow({
      where: { id: a.service_profile_id },
    });
    const created = `${profile.createdAt.toISOString().slice(0, 23)}000Z`;
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      `{"data":[{"id":"${a.service_profile_id}","name":"Default","bandwidth_up":0,"bandwidth_down":0,` +
        `"session_duration":0,"data_quota":null,"is_default":true,"created_at":"${created}"}],` +
        `"links":{"first":"${LINK}?page=1","last":null,"prev":null,"next":null},` +
        `"meta":{"current_page":1,"from":1,"to":1,"path":"${LINK}","per_page":10}}`,
    );
  });

  it('orders the default first, then by name; filters by name and is_default; counts', async () => {
    const a = await tenant();
    const gold = await addProfile(a.tenant_id, 'Gold', {
      bandwidthUp: 5000,
      bandwidthDown: 20000,
      sessionDuration: 120,
      dataQuota: 5n * 1024n ** 3n,
    });
    const basic = await addProfile(a.tenant_id, 'Basic');
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.json.data.map((p: Json) => p.id)).toEqual([a.service_profile_id, basic.id, gold.id]);
    expect(res.json.data[2]).toMatchObject({
      bandwidth_up: 5000,
      bandwidth_down: 20000,
      session_duration: 120,
      data_quota: 5368709120,
      is_default: false,
    });
    const named = await t.request('GET', `${URL}?name=OL`, { token: a.token });
    expect(named.json.data.map((p: Json) => p.id)).toEqual([gold.id]);
    const notDefault = await t.request('GET', `${URL}?is_default=false`, { token: a.token });
    expect(notDefault.json.data.map((p: Json) => p.id)).toEqual([basic.id, gold.id]);
    expect((await t.request('GET', `${URL}/count`, { token: a.token })).text).toBe('{"count":3}');
    expect((await t.request('GET', `${URL}/count?is_default=1`, { token: a.token })).json).toEqual({
      count: 1,
    });
    const bad = await t.request('GET', `${URL}?is_default=maybe`, { token: a.token });
    expect(bad.status).toBe(422);
    expect(bad.json).toEqual({
      message: 'The is default field must be true or false.',
      errors: { is_default: ['The is default field must be true or false.'] },
    });
    const paged = await t.request('GET', `${URL}?per_page=2&page=2`, { token: a.token });
    expect(paged.json.data.map((p: Json) => p.id)).toEqual([gold.id]);
    expect(paged.json.meta.from).toBe(3);
  });

  it('shows only the caller’s tenant, to every role', async () => {
    const a = await tenant();
    const b = await tenant();
    await addProfile(b.tenant_id, 'Theirs');
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.json.data.map((p: Json) => p.id)).toEqual([a.service_profile_id]);
    expect((await t.request('GET', `${URL}?name=Theirs`, { token: a.token })).json.data).toEqual([]);
    expect((await t.request('GET', `${URL}/count`, { token: a.token })).json).toEqual({ count: 1 });
    for (const role of ['venue', 'front-desk', 'support'] as const) {
      const user = await addUser(t.db.prisma, a.tenant_id, role, { locationId: a.location_id });
      const list = await t.request('GET', URL, { token: user.token });
      expect(list.status).toBe(200);
      expect(list.json.data.map((p: Json) => p.id)).toEqual([a.service_profile_id]);
    }
    expect((await t.request('GET', URL)).status).toBe(401);
  });
});

describe.concurrent('GraphQL serviceProfiles', () => {
  it('serves the same rows with totalCount and hides other tenants', async () => {
    const a = await tenant();
    const b = await tenant();
    const gold = await addProfile(a.tenant_id, 'Gold', { dataQuota: 1024n });
    await addProfile(b.tenant_id, 'Theirs');
    const query = `query($name: String, $isDefault: Boolean) {
      serviceProfiles(first: 10, name: $name, isDefault: $isDefault) {
        totalCount edges { node { id name bandwidthUp bandwidthDown sessionDuration dataQuota isDefault } }
      }
    }`;
    const res = await t.graphql(a.token, query, {});
    expect(res.json.errors, res.text).toBeUndefined();
    expect(res.json.data.serviceProfiles.totalCount).toBe(2);
    expect(res.json.data.serviceProfiles.edges.map((e: Json) => e.node)).toEqual([
      {
        id: a.service_profile_id,
        name: 'Default',
        bandwidthUp: 0,
        bandwidthDown: 0,
        sessionDuration: 0,
        dataQuota: null,
        isDefault: true,
      },
      {
        id: gold.id,
        name: 'Gold',
        bandwidthUp: 0,
        bandwidthDown: 0,
        sessionDuration: 0,
        dataQuota: 1024,
        isDefault: false,
      },
    ]);
    const theirs = await t.graphql(a.token, query, { name: 'Theirs' });
    expect(theirs.json.data.serviceProfiles).toEqual({ totalCount: 0, edges: [] });
    const onlyDefault = await t.graphql(a.token, query, { isDefault: true });
    expect(onlyDefault.json.data.serviceProfiles.totalCount).toBe(1);
  });
});

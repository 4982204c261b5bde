// The per-token budget as an API caller sees it, in one instance and shared by two through Redis.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_BUDGET_FACTOR } from '../src/app.js';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { REDIS_URL, redisAnswers } from './helpers/redis.js';

const TOO_MANY = '{"message":"Too Many Attempts."}';

const hasRedis = await redisAnswers();

function expectThrottled(res: TestResponse): void {
  expect(res.status).toBe(429);
  expect(res.text).toBe(TOO_MANY);
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  const reset = Number(res.headers['x-ratelimit-reset']);
  const now = Date.now() / 1000;
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThan(now);
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + 61);
  expect(res.headers['x-ratelimit-limit']).toBe('3');
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
}

describe('one instance, RATE_LIMIT_PER_MINUTE=3', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('allows three requests, then answers 429; budgets are per token', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    const remaining: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.request('GET', '/api/v1/locations', { token: a.token });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['retry-after']).toBeUndefined();
      remaining.push(res.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);

    expectThrottled(await t.request('GET', '/api/v1/locations', { token: a.token }));
    // REST and GraphQL spend the same budget.
    const gql = await t.graphql(a.token, '{ __typename }');
    expect(gql.status).toBe(429);
    expect(gql.headers['retry-after']).toBeDefined();

    const other = await t.request('GET', '/api/v1/locations', { token: b.token });
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('2');
  });

  it(`the avatars spend a budget of their own per address, ${MEDIA_BUDGET_FACTOR} times the API's (probe F: each load was an unthrottled storage read)`, async () => {
    const media = (remoteAddress: string) =>
      t.app.fastify.inject({
        method: 'GET',
        url: '/media/avatars/avatar-000000000000000000000000.png',
        remoteAddress,
      });
    const budget = 3 * MEDIA_BUDGET_FACTOR;
    for (let i = 0; i < budget; i++) {
      const res = await media('10.9.8.7');
      expect(res.statusCode).toBe(404);
      expect(res.headers['x-ratelimit-limit']).toBe(String(budget));
      expect(res.headers['x-ratelimit-remaining']).toBe(String(budget - 1 - i));
    }
    const spent = await media('10.9.8.7');
    expect(spent.statusCode).toBe(429);
    expect(spent.body).toBe(TOO_MANY);
    expect(Number(spent.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address, and the API's own budget of that address, are untouched.
    expect((await media('10.9.8.6')).statusCode).toBe(404);
    const api = await t.app.fastify.inject({
      method: 'GET',
      url: '/api/v1/locations',
      remoteAddress: '10.9.8.7',
    });
    expect(api.statusCode).toBe(401);
    expect(api.headers['x-ratelimit-remaining']).toBe('2');
  });
});

describe('one instance, RATE_LIMIT_PER_MINUTE=3: OPTIONS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a plain OPTIONS spends the budget (it names a route’s methods); a CORS preflight does not', async () => {
    const a = await newTenant(t.db.prisma);
    // OPTIONS is no operation of the OpenAPI document: sent past the contract check.
    const options = async (url: string, headers: Record<string, string> = {}) => {
      const res = await t.app.fastify.inject({
        method: 'OPTIONS',
        url,
        headers: { authorization: `Bearer ${a.token}`, ...headers },
      });
      return { status: res.statusCode, text: res.body, headers: res.headers } as TestResponse;
    };
    const remaining: unknown[] = [];
    for (const path of ['/api/v1/locations', '/api/v1/nope', '/api/v1/webhooks/x/replay']) {
      const res = await options(path);
      expect(res.status, path).toBe(path === '/api/v1/nope' ? 404 : 200);
      remaining.push(res.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expectThrottled(await options('/api/v1/locations'));
    const preflight = await options('/api/v1/locations', {
      origin: 'https://partner.example',
      'access-control-request-method': 'GET',
    });
    expect(preflight.status).toBe(204);
  });
});

describe.skipIf(!hasRedis)('two instances sharing Redis', () => {
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('share one budget per token', { timeout: 30_000 }, async () => {
    a = await startApp({ RATE_LIMIT_PER_MINUTE: '3', REDIS_URL });
    b = await startApp({ RATE_LIMIT_PER_MINUTE: '3', REDIS_URL }, { db: a.db });
    // A fresh tenant, hence a fresh token id and fresh Redis keys whatever earlier runs left behind.
    const tenant = await newTenant(a.db.prisma);
    const get = (app: TestApp) => app.request('GET', '/api/v1/locations', { token: tenant.token });

    const first = await get(a);
    const second = await get(a);
    const third = await get(b);
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    expect([first, second, third].map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0']);

    expectThrottled(await get(a));
    expectThrottled(await get(b));
  });
});

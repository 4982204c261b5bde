// Unauthenticated callers (guessed tokens) spend a per-address budget of RATE_LIMIT_PER_MINUTE.
// The address is the socket's unless the socket is a configured proxy (TRUSTED_PROXIES): a caller
// cannot escape the budget by writing its own X-Forwarded-For.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';

const BAD_TOKEN = 'Bearer not-a-real-token';
/** A fresh documentation address (TEST-NET-3), so no two tests share a budget. */
let addresses = 0;
/** An address no other test of this file uses (each has a budget of its own). */
const someAddress = (net = '203.0.113'): string => `${net}.${++addresses}`;
let forwarded = 0;
/** A new address each call, as a caller rotating X-Forwarded-For would send. */
const nextForwarded = (): string => {
  forwarded++;
  return `198.51.${Math.floor(forwarded / 250) % 250}.${(forwarded % 250) + 1}`;
};

function badTokenRequest(t: TestApp, remoteAddress: string, xff?: string) {
  return t.app.fastify.inject({
    method: 'GET',
    url: '/api/v1/locations',
    remoteAddress,
    headers: { authorization: BAD_TOKEN, ...(xff ? { 'x-forwarded-for': xff } : {}) },
  });
}

/** Statuses of `n` bad-token requests. */
async function statuses(n: number, send: () => ReturnType<typeof badTokenRequest>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).statusCode);
  return out;
}

const times = (n: number, status: number): number[] => Array.from({ length: n }, () => status);

describe('without TRUSTED_PROXIES (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '60' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('ignores X-Forwarded-For: 60 bad tokens from one socket, each with a new forwarded address, then 429', async () => {
    const socket = someAddress();
    const got = await statuses(61, () => badTokenRequest(t, socket, nextForwarded()));
    expect(got).toEqual([...times(60, 401), 429]);
    const last = await badTokenRequest(t, socket, nextForwarded());
    expect(last.statusCode).toBe(429);
    expect(last.body).toBe('{"message":"Too Many Attempts."}');
    expect(last.headers['x-ratelimit-limit']).toBe('60');
    // Another socket address has a budget of its own.
    const other = await badTokenRequest(t, someAddress('192.0.2'), nextForwarded());
    expect(other.statusCode).toBe(401);
    expect(other.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('GraphQL spends the same per-address budget', async () => {
    const socket = someAddress('192.0.2');
    for (let i = 0; i < 60; i++) await badTokenRequest(t, socket, nextForwarded());
    const res = await t.app.fastify.inject({
      method: 'POST',
      url: '/graphql',
      remoteAddress: socket,
      headers: {
        authorization: BAD_TOKEN,
        'content-type': 'application/json',
        'x-forwarded-for': '10.9.9.9',
      },
      payload: '{"query":"{ __typename }"}',
    });
    expect(res.statusCode).toBe(429);
  });
});

describe('TRUSTED_PROXIES=127.0.0.1,10.0.0.0/8', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '3', TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('from a trusted proxy, budgets each forwarded client separately', async () => {
    const a = someAddress();
    const b = someAddress('192.0.2');
    expect(await statuses(4, () => badTokenRequest(t, '127.0.0.1', a))).toEqual([401, 401, 401, 429]);
    // Another client behind the same proxy (a CIDR entry this time) still has its budget.
    const other = await badTokenRequest(t, '10.1.2.3', b);
    expect(other.statusCode).toBe(401);
    expect(other.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('takes the address the proxy saw, not what the client wrote before it', async () => {
    const client = someAddress();
    // The proxy appends the address it saw; a client-written first entry changes every time.
    const got = await statuses(4, () => badTokenRequest(t, '127.0.0.1', `${nextForwarded()}, ${client}`));
    expect(got).toEqual([401, 401, 401, 429]);
  });

  it('counts one client however its forwarded address is written, and a non-address as the proxy', async () => {
    // A balancer that appends the port (a new one per connection), IPv6 spellings and brackets,
    // an IPv4-mapped IPv6 address, addresses of one IPv6 /56: one client each time (probe S).
    const client = someAddress('198.18.0');
    for (const forms of [
      [`${client}:1001`, `${client}:1002`, ` ${client} `, client],
      ['2001:db8:5::1', '2001:0DB8:0005:0:0::1', '[2001:db8:5::1]:443', '2001:db8:5:ff::2'],
      ['::ffff:198.18.1.7', '::ffff:c612:107', '198.18.1.7', '::FFFF:198.18.1.7'],
    ]) {
      let i = 0;
      const got = await statuses(4, () => badTokenRequest(t, '127.0.0.1', forms[i++]));
      expect(got, forms.join(' ')).toEqual([401, 401, 401, 429]);
    }
    // Another /56 is another client.
    expect((await badTokenRequest(t, '127.0.0.1', '2001:db8:5:100::1')).statusCode).toBe(401);
    // What holds no address spends the budget of the proxy that sent it.
    let n = 0;
    const proxy = '10.77.0.1';
    expect(await statuses(4, () => badTokenRequest(t, proxy, `garbage-${n++}`))).toEqual([
      401, 401, 401, 429,
    ]);
    expect((await badTokenRequest(t, proxy, 'unknown')).statusCode).toBe(429);
  });

  it('from an untrusted socket address, ignores X-Forwarded-For', async () => {
    const socket = someAddress();
    expect(await statuses(4, () => badTokenRequest(t, socket, nextForwarded()))).toEqual([
      401, 401, 401, 429,
    ]);
  });

  it('builds links from APP_URL whatever X-Forwarded-Host/-Proto say', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.app.fastify.inject({
      method: 'GET',
      url: '/api/v1/locations',
      remoteAddress: '127.0.0.1',
      headers: {
        authorization: `Bearer ${a.token}`,
        'x-forwarded-for': someAddress(),
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().links.first).toBe('http://localhost/api/v1/locations?page=1');
    expect(res.json().meta.path).toBe('http://localhost/api/v1/locations');
  });
});

describe('loadConfig TRUSTED_PROXIES', () => {
  it('defaults to no proxy', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: '' }).trustedProxies).toEqual([]);
  });

  it('reads comma-separated addresses and CIDR ranges, IPv4 and IPv6', () => {
    expect(loadConfig({ TRUSTED_PROXIES: ' 127.0.0.1,10.0.0.0/8 , ::1,fd00::/8,' }).trustedProxies).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
  });

  it.each(['proxy.local', '10.0.0.0/33', '10.0.0.0/', '::1/129', '300.1.1.1', '*', '10.0.0.0/8/8', 'true'])(
    'refuses %j with a message naming the setting',
    (value) => {
      const load = () => loadConfig({ TRUSTED_PROXIES: `127.0.0.1,${value}` });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(
        `TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (10.0.0.0/8); got "${value}".`,
      );
    },
  );
});

// One webhook attempt, without a database: the SSRF rule (every address range), the pinned look-up,
// the Standard Webhooks signature (verified by the `standardwebhooks` package), how each answer is
// judged (2xx, 3xx not followed, 4xx, 410, 429, 5xx, timeouts, refused connections), the retry
// schedule and its 24 h window, and the sealed secrets.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedLookup, refusedAddress, resolveTarget, TargetRefused } from '../src/events/webhook-address.js';
import { eventMessage, storedEventMessage, testMessage } from '../src/events/webhook-message.js';
import { nextRetryDelay, RETRY_STEPS, RETRY_WINDOW_STEPS } from '../src/events/webhook-retry.js';
import {
  newWebhookSecret,
  openSecret,
  SecretUnreadable,
  sealSecret,
  signingSecrets,
  signMessage,
} from '../src/events/webhook-secret.js';
import { outcomeOf, sendWebhook, webhookConnections } from '../src/events/webhook-sender.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver((r) => {
    const status = Number(r.path.split('/').pop());
    if (r.path.includes('/hold/')) return 'hold';
    if (r.path.includes('/redirect')) return { status: 302, headers: { location: `${receiver.url}/target` } };
    return Number.isInteger(status) && status >= 200 ? status : 204;
  });
});
afterAll(() => receiver.close());

const secret = newWebhookSecret();
const message = eventMessage({
  tenantId: 'tenant123456',
  id: 42n,
  type: 'guest.created',
  occurredAt: new Date('2026-11-21T09:05:03.123Z'),
  payload: { id: 'g1', name: 'Ann / Ünal', lat: 41.5 },
});
const send = (url: string, opts: Partial<Parameters<typeof sendWebhook>[3]> = {}) =>
  sendWebhook(url, [secret], message, { timeoutMs: 2000, allowPrivate: true, ...opts });

describe('the SSRF rule', () => {
  it('allows public unicast addresses only', () => {
    for (const ok of ['93.184.215.14', '8.8.8.8', '2a00:1450:4001:81b::200e', '2606:4700::1111']) {
      expect(refusedAddress(ok), ok).toBeNull();
    }
    const refused: [string, string][] = [
      ['127.0.0.1', 'a loopback address'],
      ['127.9.9.9', 'a loopback address'],
      ['::1', 'a loopback address'],
      ['10.1.2.3', 'a private address'],
      ['172.16.0.1', 'a private address'],
      ['172.31.255.255', 'a private address'],
      ['192.168.0.1', 'a private address'],
      ['fc00::1', 'a private (unique local) address'],
      ['fd12:3456::1', 'a private (unique local) address'],
      ['169.254.169.254', 'a link-local address'],
      ['fe80::1', 'a link-local address'],
      ['0.0.0.0', 'an unspecified address'],
      ['::', 'an unspecified address'],
      ['224.0.0.1', 'a multicast address'],
      ['ff02::1', 'a multicast address'],
      ['255.255.255.255', 'a broadcast address'],
      ['100.64.0.1', 'a carrier-grade NAT address'],
      ['100.127.255.254', 'a carrier-grade NAT address'],
      ['::ffff:127.0.0.1', 'an IPv4-mapped address'],
      ['::ffff:8.8.8.8', 'an IPv4-mapped address'],
      ['192.0.2.1', 'a reserved address'],
      // IPv4-compatible (::/96, in reserved ::/8), as a URL writes `[::127.0.0.1]` and `[::8.8.8.8]`.
      ['::7f00:1', 'a reserved address'],
      ['::808:808', 'a reserved address'],
      ['::a00:1', 'a reserved address'],
      ['64:ff9b::a00:1', 'a special-purpose (rfc6052) address'],
      ['2002:a00:1::1', 'a special-purpose (6to4) address'],
    ];
    for (const [address, kind] of refused) expect(refusedAddress(address), address).toBe(kind);
  });

  it('resolves the host and checks every address; WEBHOOKS_ALLOW_PRIVATE lifts the rule', async () => {
    await expect(resolveTarget('localhost', { allowPrivate: false })).rejects.toThrow(
      /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
    await expect(resolveTarget('10.0.0.1', { allowPrivate: false })).rejects.toBeInstanceOf(TargetRefused);
    await expect(resolveTarget('10.0.0.1', { allowPrivate: false })).rejects.toThrow(
      'refused: 10.0.0.1 is a private address',
    );
    expect(await resolveTarget('93.184.215.14', { allowPrivate: false })).toEqual([
      { address: '93.184.215.14', family: 4 },
    ]);
    const local = await resolveTarget('localhost', { allowPrivate: true });
    expect(local.map((a) => a.address)).toContain('127.0.0.1');
    await expect(resolveTarget('no-such-host.invalid', { allowPrivate: true })).rejects.toThrow(
      /^the host no-such-host\.invalid could not be resolved/,
    );
  });

  it('the connection goes to the checked addresses, whatever the name would resolve to later', async () => {
    const lookup = pinnedLookup([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
    const one = await new Promise((resolve) =>
      lookup('rebinding.example', {}, (err, address, family) => resolve({ err, address, family })),
    );
    expect(one).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    const all = await new Promise((resolve) =>
      lookup('rebinding.example', { all: true }, (_err, address) => resolve(address)),
    );
    expect(all).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
    const v6 = await new Promise((resolve) =>
      lookup('rebinding.example', { family: 6 }, (_err, address) => resolve(address)),
    );
    expect(v6).toBe('2606:4700::1111');
  });

  it('a refused target is a failed attempt naming the address, and nothing is sent', async () => {
    const before = receiver.received.length;
    const result = await send(`${receiver.url}/204`, { allowPrivate: false });
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: null,
      error: 'refused: 127.0.0.1 is a loopback address',
    });
    const viaName = await send(`http://localhost:${receiver.port}/hooks/204`, { allowPrivate: false });
    expect(viaName.error).toMatch(/^refused: localhost resolves to/);
    expect(receiver.received.length).toBe(before);
  });

  it('a host name is resolved and checked when a connection is made: a kept-alive connection is not looked up again', async () => {
    const lookups: string[] = [];
    const resolver = (host: string) => {
      lookups.push(host);
      return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    };
    const connections = webhookConnections({ allowPrivate: true, timeoutMs: 2000, resolver, connections: 1 });
    try {
      const url = `http://receiver.example:${receiver.port}/hooks/204`;
      for (let i = 0; i < 3; i++) {
        expect(await send(url, { resolver, connections })).toMatchObject({
          outcome: 'succeeded',
          statusCode: 204,
        });
      }
      // Three attempts on one connection: one look-up, one check.
      expect(lookups).toEqual(['receiver.example']);
      // Without a kept-alive connection, each attempt connects, so each is looked up and checked.
      await send(url, { resolver });
      await send(url, { resolver });
      expect(lookups).toHaveLength(3);
    } finally {
      await connections.destroy();
    }
  });

  it('a host name resolving to a refused address at connection time: a failed attempt naming it, nothing sent', async () => {
    const before = receiver.received.length;
    const resolver = () => Promise.resolve([{ address: '10.1.2.3', family: 4 }]);
    expect(
      await send(`http://rebinding.example:${receiver.port}/hooks/204`, { allowPrivate: false, resolver }),
    ).toMatchObject({
      outcome: 'failed',
      statusCode: null,
      error: 'refused: rebinding.example resolves to 10.1.2.3, a private address',
    });
    const unresolved = () => Promise.reject(Object.assign(new Error('no'), { code: 'ENOTFOUND' }));
    expect(
      await send(`http://gone.example:${receiver.port}/hooks/204`, { resolver: unresolved }),
    ).toMatchObject({
      outcome: 'retry',
      statusCode: null,
      error: 'the host gone.example could not be resolved (ENOTFOUND)',
    });
    expect(receiver.received.length).toBe(before);
  });
});

describe('an attempt', () => {
  it('from the payload as the log stores it (JSON text): the same body as from the payload', () => {
    const payload = { id: 'g1', name: 'Ann / Ünal', lat: 41.5, tags: [{ id: 't1' }], note: null };
    const e = {
      tenantId: 'tenant123456',
      id: 42n,
      type: 'guest.created',
      occurredAt: new Date('2026-11-21T09:05:03.123Z'),
    };
    expect(storedEventMessage({ ...e, payloadJson: JSON.stringify(payload) })).toEqual(
      eventMessage({ ...e, payload }),
    );
    // An id beyond 2^53 is its decimal text.
    const big = { ...e, id: 2n ** 60n };
    expect(storedEventMessage({ ...big, payloadJson: '{}' })).toEqual(eventMessage({ ...big, payload: {} }));
    expect(JSON.parse(storedEventMessage({ ...big, payloadJson: '{}' }).body).event_id).toBe(
      '1152921504606846976',
    );
  });

  it('is signed as Standard Webhooks says: the standardwebhooks package verifies it', async () => {
    const result = await send(`${receiver.url}/200`);
    expect(result).toMatchObject({ outcome: 'succeeded', statusCode: 200, error: null });
    const got = receiver.received.at(-1);
    if (!got) throw new Error('nothing received');
    expect(got.headers['webhook-id']).toBe('evt_tenant123456_42');
    expect(got.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(got.headers['webhook-signature']).toBe(
      signMessage(secret, 'evt_tenant123456_42', Number(got.headers['webhook-timestamp']), got.body),
    );
    expect(got.body).toBe(
      '{"type":"guest.created","timestamp":"2026-11-21T09:05:03.123000Z","event_id":42,"tenant_id":"tenant123456","data":{"id":"g1","name":"Ann / Ünal","lat":41.5}}',
    );
    expect(receiver.verify(got, secret)).toEqual(JSON.parse(got.body));
    // Another secret, or a changed body, does not verify.
    expect(() => receiver.verify(got, newWebhookSecret())).toThrow();
    expect(() => receiver.verify({ ...got, body: got.body.replace('Ann', 'Bob') }, secret)).toThrow();
  });

  it('the test ping has a message id of its own each time', () => {
    const a = testMessage('t1', 'w1', new Date('2026-01-01T00:00:00Z'));
    const b = testMessage('t1', 'w1', new Date('2026-01-01T00:00:00Z'));
    expect(a.id).toMatch(/^msg_test_[A-Za-z0-9_-]{12}$/);
    expect(a.id).not.toBe(b.id);
    expect(JSON.parse(a.body)).toEqual({
      type: 'webhook.test',
      timestamp: '2026-01-01T00:00:00.000000Z',
      event_id: null,
      tenant_id: 't1',
      data: {
        webhook_id: 'w1',
        message: 'A test ping: this endpoint receives the events it subscribes to.',
      },
    });
  });

  it('judges the answer: 2xx succeeded; 5xx and 429 retried; 410 gone; 3xx and other 4xx failed', async () => {
    expect([200, 201, 204, 299].map(outcomeOf)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect([500, 502, 503, 504, 429].map(outcomeOf)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry']);
    expect(outcomeOf(410)).toBe('gone');
    expect([301, 302, 307, 400, 401, 403, 404, 413, 422].map(outcomeOf)).toEqual(Array(9).fill('failed'));
    expect(await send(`${receiver.url}/503`)).toMatchObject({
      outcome: 'retry',
      statusCode: 503,
      error: 'HTTP 503',
    });
    expect(await send(`${receiver.url}/429`)).toMatchObject({ outcome: 'retry', statusCode: 429 });
    expect(await send(`${receiver.url}/410`)).toMatchObject({
      outcome: 'gone',
      statusCode: 410,
      error: 'HTTP 410',
    });
    expect(await send(`${receiver.url}/400`)).toMatchObject({
      outcome: 'failed',
      statusCode: 400,
      error: 'HTTP 400',
    });
  });

  it('does not follow a redirect', async () => {
    const before = receiver.received.length;
    expect(await send(`${receiver.url}/redirect`)).toMatchObject({
      outcome: 'failed',
      statusCode: 302,
      error: 'HTTP 302',
    });
    expect(receiver.received.slice(before).map((r) => r.path)).toEqual(['/hooks/redirect']);
  });

  it('an answer streaming without end is judged by its status: read up to 64 KiB, then the connection closed', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 97);
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => {
        clearInterval(timer);
        closed();
      });
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const port = (endless.address() as AddressInfo).port;
      const started = Date.now();
      expect(await send(`http://127.0.0.1:${port}/`, { timeoutMs: 4000 })).toMatchObject({
        outcome: 'succeeded',
        statusCode: 200,
        error: null,
      });
      expect(Date.now() - started).toBeLessThan(3000);
      await gone;
    } finally {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  it('credentials in the URL are sent as Basic authorization', async () => {
    const before = receiver.received.length;
    const url = `http://hook%20user:p%40ss@127.0.0.1:${receiver.port}/hooks/204?x=1`;
    expect(await send(url)).toMatchObject({ outcome: 'succeeded', statusCode: 204 });
    const [got] = receiver.received.slice(before);
    expect(got?.path).toBe('/hooks/204?x=1');
    expect(got?.headers.authorization).toBe(`Basic ${Buffer.from('hook user:p@ss').toString('base64')}`);
  });

  it('gives up after its time limit, and on a refused connection: both retried', async () => {
    const started = Date.now();
    const late = await send(`${receiver.url}/hold/1`, { timeoutMs: 300 });
    expect(late).toMatchObject({ outcome: 'retry', statusCode: null, error: 'timed out after 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
    const refused = await send('http://127.0.0.1:9/closed');
    expect(refused.outcome).toBe('retry');
    expect(refused.error).toMatch(/ECONNREFUSED/);
    expect(await send('ftp://127.0.0.1/x')).toMatchObject({ outcome: 'failed' });
  });
});

describe('the retry schedule', () => {
  const first = new Date('2026-01-01T00:00:00Z');
  const at = (ms: number) => new Date(first.getTime() + ms);
  const middle = () => 0.5;

  it('5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, then 12 h; ±20 % jitter', () => {
    const delays = Array.from({ length: 11 }, (_, i) => nextRetryDelay(i + 1, first, first, 5000, middle));
    expect(delays).toEqual([
      5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 43_200_000,
      43_200_000,
    ]);
    expect(nextRetryDelay(1, first, first, 5000, () => 0)).toBe(4_000);
    expect(nextRetryDelay(1, first, first, 5000, () => 0.999_999)).toBe(6_000);
  });

  it('goes on for at least 24 h: an attempt failing 24 h after the first is the last', () => {
    // The attempts' times with the schedule's delays (no jitter): the last retry comes after 24 h.
    let now = 0;
    let attempts = 1;
    for (;;) {
      const delay = nextRetryDelay(attempts, first, at(now), 5000, middle);
      if (delay === null) break;
      now += delay;
      attempts++;
    }
    expect(attempts).toBe(11);
    expect(now).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(now / 3_600_000).toBeCloseTo(34.7, 1);
    expect(nextRetryDelay(10, first, at(24 * 3_600_000 - 1), 5000, middle)).toBe(43_200_000);
    expect(nextRetryDelay(10, first, at(24 * 3_600_000), 5000, middle)).toBeNull();
    // WEBHOOKS_RETRY_BASE_MS scales the schedule and the window together.
    expect(nextRetryDelay(1, first, first, 10, middle)).toBe(10);
    expect(nextRetryDelay(3, first, at(RETRY_WINDOW_STEPS * 10), 10, middle)).toBeNull();
    expect(RETRY_STEPS.length).toBe(9);
  });
});

describe('sealed secrets', () => {
  const key = Buffer.alloc(32, 7);

  it('whsec_ + base64 of 32 random bytes; sealed under a key, plain without; recoverable', () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    const sealed = sealSecret(s, key);
    expect(sealed).toMatch(/^aes-256-gcm:[\w-]+:[\w-]+:[\w-]+$/);
    expect(sealed).not.toContain(s.slice(6));
    expect(sealSecret(s, key)).not.toBe(sealed);
    expect(openSecret(sealed, key)).toBe(s);
    expect(sealSecret(s, undefined)).toBe(`plain:${s}`);
    expect(openSecret(`plain:${s}`, key)).toBe(s);
  });

  it('another key, or none, cannot open a sealed secret: a clear error', () => {
    const sealed = sealSecret(newWebhookSecret(), key);
    expect(() => openSecret(sealed, Buffer.alloc(32, 8))).toThrow(SecretUnreadable);
    expect(() => openSecret(sealed, Buffer.alloc(32, 8))).toThrow(/WEBHOOKS_SECRETS_KEY is not the key/);
    expect(() => openSecret(sealed, undefined)).toThrow(/WEBHOOKS_SECRETS_KEY is not set/);
  });

  it('signs with the current secret alone when the previous one cannot be opened (its key lost)', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const open = (stored: string) => openSecret(stored, undefined);
    // Rotated after the key was lost: the new secret is stored plain, the previous one sealed.
    const row = { secret: sealSecret(current, undefined), previousSecret: sealSecret(previous, key) };
    expect(signingSecrets(row, open)).toEqual([current]);
    expect(signingSecrets({ ...row, previousSecret: sealSecret(previous, undefined) }, open)).toEqual([
      current,
      previous,
    ]);
    // The current one unreadable is still the attempt's failure.
    expect(() => signingSecrets({ secret: sealSecret(current, key), previousSecret: null }, open)).toThrow(
      /WEBHOOKS_SECRETS_KEY is not set/,
    );
  });
});

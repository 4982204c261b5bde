// The webhook settings (WEBHOOKS_*): defaults, bounds and plain messages for bad values, as the other
// settings are read.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('WEBHOOKS_* settings', () => {
  it('defaults: delivery on (on a thread of its own), private targets refused, 256 at once (128 to one endpoint), 5 s per attempt, a 5 s retry base, a 30 s lease', () => {
    expect(loadConfig({}).webhooks).toEqual({
      deliver: true,
      thread: true,
      allowPrivate: false,
      concurrency: 256,
      concurrencyPerEndpoint: 128,
      timeoutMs: 5000,
      retryBaseMs: 5000,
      leaseMs: 30_000,
      pollMs: 1000,
      disableAfterDays: 5,
      historyDays: 30,
      secretsKey: undefined,
    });
  });

  it('reads each one; the lease follows a longer timeout; the key is the SHA-256 of the text', () => {
    const key = 'x'.repeat(40);
    const w = loadConfig({
      WEBHOOKS_DELIVERY: 'false',
      WEBHOOKS_THREAD: 'false',
      WEBHOOKS_ALLOW_PRIVATE: '1',
      WEBHOOKS_CONCURRENCY: '2',
      WEBHOOKS_CONCURRENCY_PER_ENDPOINT: '1',
      WEBHOOKS_TIMEOUT_MS: '30000',
      WEBHOOKS_RETRY_BASE_MS: '10',
      WEBHOOKS_POLL_MS: '50',
      WEBHOOKS_DISABLE_AFTER_DAYS: '2',
      WEBHOOKS_HISTORY_DAYS: '7',
      WEBHOOKS_SECRETS_KEY: key,
    }).webhooks;
    expect(w).toMatchObject({
      deliver: false,
      thread: false,
      allowPrivate: true,
      concurrency: 2,
      concurrencyPerEndpoint: 1,
      timeoutMs: 30_000,
      retryBaseMs: 10,
      leaseMs: 40_000,
      pollMs: 50,
      disableAfterDays: 2,
      historyDays: 7,
    });
    expect(w.secretsKey).toEqual(createHash('sha256').update(key).digest());
  });

  it('an endpoint never gets more than the instance: the default WEBHOOKS_CONCURRENCY_PER_ENDPOINT follows a smaller WEBHOOKS_CONCURRENCY; one set equal to it is kept', () => {
    expect(loadConfig({ WEBHOOKS_CONCURRENCY: '4' }).webhooks).toMatchObject({
      concurrency: 4,
      concurrencyPerEndpoint: 4,
    });
    expect(
      loadConfig({ WEBHOOKS_CONCURRENCY: '16', WEBHOOKS_CONCURRENCY_PER_ENDPOINT: '16' }).webhooks,
    ).toMatchObject({ concurrency: 16, concurrencyPerEndpoint: 16 });
    expect(loadConfig({ WEBHOOKS_CONCURRENCY_PER_ENDPOINT: '256' }).webhooks).toMatchObject({
      concurrency: 256,
      concurrencyPerEndpoint: 256,
    });
  });

  it.each([
    [
      { WEBHOOKS_CONCURRENCY_PER_ENDPOINT: '0' },
      'WEBHOOKS_CONCURRENCY_PER_ENDPOINT must be an integer from 1 to 256; got "0".',
    ],
    [{ WEBHOOKS_CONCURRENCY: '0' }, 'WEBHOOKS_CONCURRENCY must be an integer from 1 to 256; got "0".'],
    [
      { WEBHOOKS_TIMEOUT_MS: 'fast' },
      'WEBHOOKS_TIMEOUT_MS must be an integer from 100 to 60000; got "fast".',
    ],
    [{ WEBHOOKS_ALLOW_PRIVATE: 'yes' }, 'WEBHOOKS_ALLOW_PRIVATE must be true or false; got "yes".'],
    [
      { WEBHOOKS_TIMEOUT_MS: '5000', WEBHOOKS_LEASE_MS: '5000' },
      'WEBHOOKS_LEASE_MS must be longer than WEBHOOKS_TIMEOUT_MS (5000); got "5000".',
    ],
    [
      // Set above the total, it was lowered without a word; README says "at most WEBHOOKS_CONCURRENCY".
      { WEBHOOKS_CONCURRENCY: '16', WEBHOOKS_CONCURRENCY_PER_ENDPOINT: '200' },
      'WEBHOOKS_CONCURRENCY_PER_ENDPOINT must not be greater than WEBHOOKS_CONCURRENCY (16); got "200".',
    ],
    [
      { WEBHOOKS_CONCURRENCY: '4', WEBHOOKS_CONCURRENCY_PER_ENDPOINT: '5' },
      'WEBHOOKS_CONCURRENCY_PER_ENDPOINT must not be greater than WEBHOOKS_CONCURRENCY (4); got "5".',
    ],
    [
      { WEBHOOKS_SECRETS_KEY: 'short' },
      'WEBHOOKS_SECRETS_KEY must be at least 32 characters (e.g. `openssl rand -base64 32`).',
    ],
  ])('refuses %j with a plain message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

// Configuration the service refuses to start with: one line naming the variable (ConfigError).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('DATA_DIR', () => {
  it.each(['', ' ', '  ', '\t'])('refuses %j: blank (set, but to no path)', (value) => {
    expect(() => loadConfig({ DATA_DIR: value })).toThrow(
      new ConfigError(`DATA_DIR must be a path, not blank (unset, it is ./data); got "${value}".`),
    );
  });

  it.each([' /srv/data', '/srv/data '])('refuses %j: spaces around the path', (value) => {
    expect(() => loadConfig({ DATA_DIR: value })).toThrow(
      new ConfigError(`DATA_DIR must be a path without spaces around it; got "${value}".`),
    );
  });

  it('takes a path (relative to the working folder), and ./data when unset', () => {
    expect(loadConfig({ DATA_DIR: 'var/gw' }).dataDir).toBe(path.resolve('var/gw'));
    expect(loadConfig({}).dataDir).toBe(path.resolve('data'));
  });
});

describe('HOST', () => {
  it('is refused when it is no host name nor address, APP_URL set or not (probe F)', () => {
    for (const host of ['a b', '127.0.0.1/8', 'host:4000', 'user@host', '[::1]']) {
      for (const appUrl of [{}, { APP_URL: 'http://example.com' }]) {
        expect(() => loadConfig({ HOST: host, ...appUrl }), host).toThrow(
          new ConfigError(`HOST must be a host name or an IP address; got "${host}".`),
        );
      }
    }
    for (const host of ['localhost', '0.0.0.0', '::', '::1', 'gateway-1.internal', 'Gateway.Example.COM']) {
      expect(loadConfig({ HOST: host, APP_URL: 'http://example.com' }).host, host).toBe(host);
    }
  });
});

describe('DATABASE_URL ?schema=', () => {
  it('is refused, naming the driver’s way (the tables went to public; probe F)', () => {
    for (const url of [
      'postgresql://u@db:5432/app?schema=fleet1',
      'postgresql://u@db:5432/app?sslmode=disable&SCHEMA=fleet1',
    ]) {
      expect(() => loadConfig({ DATABASE_URL: url })).toThrow(
        new ConfigError(
          'DATABASE_URL: ?schema= is not read here (the tables would go to public); name the schema as ?options=-c%20search_path%3Dmyschema,public (public keeps the pg_trgm extension), or give the service a database of its own.',
        ),
      );
    }
    const options = 'postgresql://u@db:5432/app?options=-c%20search_path%3Dfleet1,public';
    expect(loadConfig({ DATABASE_URL: options }).databaseUrl).toBe(options);
  });
});

describe('DATABASE_URL sslmode', () => {
  it('names prefer, require and verify-ca as node-postgres reads them, verify-full (no SECURITY WARNING at start)', () => {
    const cases: [string, string][] = [
      ['postgresql://u@db/app?sslmode=require', 'postgresql://u@db/app?sslmode=verify-full'],
      ['postgresql://u@db/app?sslmode=prefer', 'postgresql://u@db/app?sslmode=verify-full'],
      [
        'postgresql://u@db/app?application_name=x&sslmode=verify-ca&sslrootcert=/ca.pem',
        'postgresql://u@db/app?application_name=x&sslmode=verify-full&sslrootcert=/ca.pem',
      ],
    ];
    for (const [url, loaded] of cases)
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl, url).toBe(loaded);
  });

  it('leaves the other modes, a value that only starts like one, and libpq’s meanings asked with uselibpqcompat=true', () => {
    for (const url of [
      'postgresql://u@db/app?sslmode=verify-full',
      'postgresql://u@db/app?sslmode=disable',
      'postgresql://u@db/app?sslmode=no-verify',
      'postgresql://u@db/app?sslmode=requirex',
      'postgresql://u@db/app?application_name=sslmode=require',
      'postgresql://u@db/app?uselibpqcompat=true&sslmode=require',
      'postgresql://u@db/app?sslmode=require&uselibpqcompat=true',
      'postgresql://u@db/app',
    ]) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl, url).toBe(url);
    }
  });
});

describe('REDIS_URL credentials', () => {
  it.each(['redis://:pa%ss@127.0.0.1:6379/1', 'redis://us%zzer:pw@127.0.0.1:6379'])(
    'refuses %j, a bad percent escape, naming REDIS_URL and never the password (probe V)',
    (url) => {
      expect(() => loadConfig({ REDIS_URL: url })).toThrow(
        new ConfigError(
          'REDIS_URL has a user name or password that is not percent-encoded right (write % as %25).',
        ),
      );
    },
  );

  it('takes a percent-encoded password', () => {
    expect(loadConfig({ REDIS_URL: 'redis://:pa%25ss@127.0.0.1:6379/1' }).redisUrl).toBe(
      'redis://:pa%25ss@127.0.0.1:6379/1',
    );
  });
});

describe('REDIS_URL database number', () => {
  it.each([
    ['redis://127.0.0.1:6379/abc', '/abc'],
    ['redis://127.0.0.1:6379/-1', '/-1'],
    ['redis://127.0.0.1:6379/2.5', '/2.5'],
    ['redis://127.0.0.1:6379/1/2', '/1/2'],
    ['redis://:secret@127.0.0.1:6379/2x', '/2x'],
    ['redis://127.0.0.1:6379?db=x', '?db=x'],
  ])('refuses %s (ioredis would stay on database 0)', (url, got) => {
    const message = `REDIS_URL must end in a database number (redis://host:6379/2), or in none for 0; got "${got}".`;
    // The path only, never the URL (it may carry a password: `secret` is not in the message).
    expect(() => loadConfig({ REDIS_URL: url })).toThrow(new ConfigError(message));
  });

  it.each([
    'redis://127.0.0.1:6379',
    'redis://127.0.0.1:6379/',
    'redis://127.0.0.1:6379/0',
    'rediss://:pw@redis.example.net:6380/15',
    'redis://127.0.0.1:6379?db=3',
  ])('takes %s (whether Redis has that database is known when it answers)', (url) => {
    expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
  });
});

describe('S3 settings without MEDIA_STORAGE', () => {
  it.each([
    'S3_BUCKET',
    'S3_ENDPOINT',
    'S3_REGION',
    'S3_PREFIX',
    'S3_ACCESS_KEY_ID',
    'S3_SECRET_ACCESS_KEY',
    'S3_FORCE_PATH_STYLE',
  ])('%s alone stops the start as a forgotten MEDIA_STORAGE=s3', (name) => {
    expect(() => loadConfig({ [name]: 'x' })).toThrow(
      new ConfigError(`${name} is set but MEDIA_STORAGE is not: set MEDIA_STORAGE=s3 to use the bucket.`),
    );
  });
});

describe('WEBHOOKS_TIMEOUT_MS within SHUTDOWN_TIMEOUT_SECONDS', () => {
  it.each([
    [{ WEBHOOKS_TIMEOUT_MS: '30000' }, 'SHUTDOWN_TIMEOUT_SECONDS (25 s); got "30000"'],
    [{ WEBHOOKS_TIMEOUT_MS: '25000' }, 'SHUTDOWN_TIMEOUT_SECONDS (25 s); got "25000"'],
    [
      { SHUTDOWN_TIMEOUT_SECONDS: '3', WEBHOOKS_TIMEOUT_MS: '3000' },
      'SHUTDOWN_TIMEOUT_SECONDS (3 s); got "3000"',
    ],
  ])(
    'refuses %j while this instance delivers: a stopping server would not wait for the attempt',
    (env, tail) => {
      expect(() => loadConfig(env)).toThrow(
        new ConfigError(`WEBHOOKS_TIMEOUT_MS must be shorter than ${tail}.`),
      );
    },
  );

  it('takes a shorter one, and any when this instance does not deliver', () => {
    expect(loadConfig({ WEBHOOKS_TIMEOUT_MS: '24999' }).webhooks.timeoutMs).toBe(24_999);
    const off = loadConfig({ WEBHOOKS_TIMEOUT_MS: '30000', WEBHOOKS_DELIVERY: 'false' }).webhooks;
    expect(off).toMatchObject({ deliver: false, timeoutMs: 30_000 });
  });

  it('defaults to 5 s, and to half the shutdown timeout when that is shorter than 10 s', () => {
    expect(loadConfig({}).webhooks.timeoutMs).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '10' }).webhooks.timeoutMs).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '4' }).webhooks.timeoutMs).toBe(2_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '1' }).webhooks).toMatchObject({
      timeoutMs: 500,
      leaseMs: 30_000,
    });
  });
});

describe('EVENT_LOOP_STALL_SECONDS', () => {
  it('defaults to 60 and takes 0 (no watchdog) to 3600', () => {
    expect(loadConfig({}).eventLoopStallSeconds).toBe(60);
    expect(loadConfig({ EVENT_LOOP_STALL_SECONDS: '0' }).eventLoopStallSeconds).toBe(0);
    expect(loadConfig({ EVENT_LOOP_STALL_SECONDS: '3600' }).eventLoopStallSeconds).toBe(3600);
  });

  it.each(['-1', '3601', '1.5', 'soon'])('refuses %j, naming it', (value) => {
    expect(() => loadConfig({ EVENT_LOOP_STALL_SECONDS: value })).toThrow(
      /^EVENT_LOOP_STALL_SECONDS must be/,
    );
  });
});

// SHUTDOWN_TIMEOUT_SECONDS, REQUEST_TIMEOUT_SECONDS and AUDIT_RETENTION_DAYS read and checked like the other settings.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openFailure } from '../../src/db/database.js';

describe('SHUTDOWN_TIMEOUT_SECONDS', () => {
  it('defaults to 25 and takes 1 to 3600', () => {
    expect(loadConfig({}).shutdownTimeoutSeconds).toBe(25);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '' }).shutdownTimeoutSeconds).toBe(25);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '1' }).shutdownTimeoutSeconds).toBe(1);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '3600' }).shutdownTimeoutSeconds).toBe(3600);
  });

  it.each(['0', '3601', '2.5', '-1', 'ten'])('refuses %j with a plain message', (raw) => {
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: raw })).toThrow(
      `SHUTDOWN_TIMEOUT_SECONDS must be an integer from 1 to 3600; got "${raw}".`,
    );
  });
});

describe('REQUEST_TIMEOUT_SECONDS', () => {
  it('defaults to 300 (Node’s own) and takes 1 to 3600', () => {
    expect(loadConfig({}).requestTimeoutSeconds).toBe(300);
    expect(loadConfig({ REQUEST_TIMEOUT_SECONDS: '1' }).requestTimeoutSeconds).toBe(1);
    expect(loadConfig({ REQUEST_TIMEOUT_SECONDS: '3600' }).requestTimeoutSeconds).toBe(3600);
  });

  it.each(['0', '3601', '2.5'])('refuses %j with a plain message', (raw) => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: raw })).toThrow(
      `REQUEST_TIMEOUT_SECONDS must be an integer from 1 to 3600; got "${raw}".`,
    );
  });
});

describe('AUDIT_RETENTION_DAYS', () => {
  it('unset or empty keeps entries for good; takes 1 to 36500', () => {
    expect(loadConfig({}).auditRetentionDays).toBeUndefined();
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '' }).auditRetentionDays).toBeUndefined();
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '1' }).auditRetentionDays).toBe(1);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '36500' }).auditRetentionDays).toBe(36_500);
  });

  it.each(['0', '36501', '1.5', 'forever'])('refuses %j with a plain message', (raw) => {
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: raw })).toThrow(
      `AUDIT_RETENTION_DAYS must be an integer from 1 to 36500; got "${raw}".`,
    );
  });
});

describe('LOG_LEVEL, APP_URL, HOST and LEGACY_ANALYTICS_SUNSET', () => {
  it('take pino’s levels, http(s) URLs, hosts and real calendar days', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    expect(loadConfig({ LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(loadConfig({ APP_URL: 'https://wifi.example.com/' }).appUrl).toBe('https://wifi.example.com');
    expect(loadConfig({ HOST: '::1', PORT: '4000' }).appUrl).toBe('http://[::1]:4000');
    expect(loadConfig({ LEGACY_ANALYTICS_SUNSET: '2028-02-29' }).legacyAnalyticsSunset.toISOString()).toBe(
      '2028-02-29T00:00:00.000Z',
    );
  });

  it.each([
    [
      { LOG_LEVEL: 'verbose' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose".',
    ],
    [
      { APP_URL: 'ftp://example.com' },
      'APP_URL must be an absolute http:// or https:// URL; got "ftp://example.com".',
    ],
    [
      { APP_URL: 'javascript:alert(1)' },
      'APP_URL must be an absolute http:// or https:// URL; got "javascript:alert(1)".',
    ],
    // Probe F: each of these made every link a broken one, or showed the password in each.
    [{ APP_URL: 'http:///path' }, 'APP_URL must be an absolute http:// or https:// URL; got "http:///path".'],
    // As set, not trimmed of its slashes (probe Z4: `http://` was quoted as `http:`).
    [{ APP_URL: 'http://' }, 'APP_URL must be an absolute http:// or https:// URL; got "http://".'],
    [
      { APP_URL: 'http://gw.example/#frag' },
      'APP_URL must not have a query or a fragment (links add their path to it); got "http://gw.example/#frag".',
    ],
    [
      { APP_URL: 'http://gw.example/?a=1' },
      'APP_URL must not have a query or a fragment (links add their path to it); got "http://gw.example/?a=1".',
    ],
    [
      { APP_URL: 'https://user:secret@gw.example' },
      'APP_URL must not hold a user name or password (every link shows it).',
    ],
    [{ HOST: '999.1.1.1' }, 'HOST must be a host name or an IP address; got "999.1.1.1".'],
    // 0 would listen on a port the links (APP_URL's default) could not name.
    [{ PORT: '0' }, 'PORT must be an integer from 1 to 65535; got "0".'],
    [
      { LEGACY_ANALYTICS_SUNSET: '2026-02-30' },
      'LEGACY_ANALYTICS_SUNSET must be a date YYYY-MM-DD; got "2026-02-30".',
    ],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});

describe('openFailure: why the database did not open, in one line naming DATABASE_URL', () => {
  const failure = (databaseUrl: string, message: string) =>
    openFailure({ databaseUrl, dataDir: '/data', dbConnectTimeoutMs: 5000 }, new Error(message));

  it('shows the URL without its user and password', () => {
    expect(failure('postgresql://app:secret@db.example:5432/gw?sslmode=require', 'boom')).toBe(
      'DATABASE_URL postgresql://db.example:5432/gw: boom',
    );
  });

  it("keeps the reason for libpq's socket form, which is no URL to new URL (probe F: it was 'Invalid URL')", () => {
    expect(
      failure(
        'postgresql://root:secret@/gw?host=/tmp/nosuchdir&password=secret',
        'connect ENOENT /tmp/nosuchdir/.s.PGSQL.5432',
      ),
    ).toBe('DATABASE_URL postgresql:///gw?host=/tmp/nosuchdir: connect ENOENT /tmp/nosuchdir/.s.PGSQL.5432');
  });
});

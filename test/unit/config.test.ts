// SHUTDOWN_TIMEOUT_SECONDS and AUDIT_RETENTION_DAYS read and checked like the other settings.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

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

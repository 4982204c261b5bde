// SHUTDOWN_TIMEOUT_SECONDS read and checked like the other settings.
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

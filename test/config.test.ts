// Configuration the service refuses to start with: one line naming the variable (ConfigError).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('DATA_DIR', () => {
  it.each([' ', '  ', ' /srv/data', '/srv/data '])(
    'refuses %j: blank, or spaces around the path',
    (value) => {
      expect(() => loadConfig({ DATA_DIR: value })).toThrow(
        new ConfigError(`DATA_DIR must be a path without spaces around it; got "${value}".`),
      );
    },
  );

  it('takes a path (relative to the working folder), and ./data when unset or empty', () => {
    expect(loadConfig({ DATA_DIR: 'var/gw' }).dataDir).toBe(path.resolve('var/gw'));
    expect(loadConfig({}).dataDir).toBe(path.resolve('data'));
    expect(loadConfig({ DATA_DIR: '' }).dataDir).toBe(path.resolve('data'));
  });
});

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

describe('S3 settings without MEDIA_STORAGE', () => {
  it.each(['S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_PREFIX', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'])(
    '%s alone stops the start as a forgotten MEDIA_STORAGE=s3',
    (name) => {
      expect(() => loadConfig({ [name]: 'x' })).toThrow(
        new ConfigError(`${name} is set but MEDIA_STORAGE is not: set MEDIA_STORAGE=s3 to use the bucket.`),
      );
    },
  );
});

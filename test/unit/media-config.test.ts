// MEDIA_STORAGE and the S3_* settings: their defaults, and a plain message naming the variable for
// each malformed value (never a stack trace at start, never a secret echoed).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const PG = 'postgresql://root@127.0.0.1:5432/x';
const s3 = (env: Record<string, string> = {}) => ({
  MEDIA_STORAGE: 's3',
  S3_BUCKET: 'gateway-media',
  ...env,
});

describe('MEDIA_STORAGE', () => {
  it('defaults to the database with DATABASE_URL and to the local folder on the embedded database', () => {
    expect(loadConfig({}).mediaStorage).toBe('local');
    expect(loadConfig({ DATABASE_URL: PG }).mediaStorage).toBe('database');
    expect(loadConfig({ DATABASE_URL: PG, MEDIA_STORAGE: 'local' }).mediaStorage).toBe('local');
    expect(loadConfig({ MEDIA_STORAGE: 'database' }).mediaStorage).toBe('database');
    expect(loadConfig({}).s3).toBeUndefined();
  });

  it.each(['s4', 'LOCAL', 'db', ' local'])('refuses %j', (raw) => {
    expect(() => loadConfig({ MEDIA_STORAGE: raw })).toThrow(
      new ConfigError(`MEDIA_STORAGE must be local, database or s3; got "${raw}".`),
    );
  });

  it('refuses a bucket configured while MEDIA_STORAGE is left to its default', () => {
    expect(() => loadConfig({ DATABASE_URL: PG, S3_BUCKET: 'gateway-media' })).toThrow(
      'S3_BUCKET is set but MEDIA_STORAGE is not: set MEDIA_STORAGE=s3 to use the bucket.',
    );
    // Chosen explicitly, another backend ignores the S3 settings.
    expect(loadConfig({ MEDIA_STORAGE: 'database', S3_BUCKET: 'x' }).s3).toBeUndefined();
  });
});

describe('S3 settings', () => {
  it('reads a MinIO-style configuration, path-style by default with an endpoint', () => {
    const config = loadConfig(
      s3({
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_REGION: 'eu-west-1',
        S3_ACCESS_KEY_ID: 'id',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_PREFIX: '/venues//media/',
      }),
    );
    expect(config.mediaStorage).toBe('s3');
    expect(config.s3).toEqual({
      bucket: 'gateway-media',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
      prefix: 'venues/media/',
    });
  });

  it('on AWS: us-east-1, virtual-hosted requests and the SDK default credentials unless told otherwise', () => {
    expect(loadConfig(s3()).s3).toEqual({
      bucket: 'gateway-media',
      region: 'us-east-1',
      endpoint: undefined,
      credentials: undefined,
      forcePathStyle: false,
      prefix: '',
    });
    expect(loadConfig(s3({ S3_FORCE_PATH_STYLE: 'true' })).s3?.forcePathStyle).toBe(true);
    expect(
      loadConfig(s3({ S3_ENDPOINT: 'https://s3.example.net', S3_FORCE_PATH_STYLE: '0' })).s3?.forcePathStyle,
    ).toBe(false);
  });

  const refused: [string, Record<string, string>, string][] = [
    ['no bucket', { MEDIA_STORAGE: 's3' }, 'S3_BUCKET is required when MEDIA_STORAGE=s3.'],
    [
      'a bucket name S3 does not allow',
      s3({ S3_BUCKET: 'Gateway_Media' }),
      'S3_BUCKET must be a bucket name (3 to 63 lowercase letters, digits, dots and hyphens); got "Gateway_Media".',
    ],
    [
      'an endpoint that is not a URL',
      s3({ S3_ENDPOINT: 'minio:9000' }),
      'S3_ENDPOINT must be an http:// or https:// URL; got "minio:9000".',
    ],
    [
      'an endpoint of another scheme',
      s3({ S3_ENDPOINT: 'ftp://minio' }),
      'S3_ENDPOINT must be an http:// or https:// URL; got "ftp://minio".',
    ],
    [
      'credentials in the endpoint (not echoed)',
      s3({ S3_ENDPOINT: 'http://id:hunter2@minio:9000' }),
      'S3_ENDPOINT must not carry credentials; set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.',
    ],
    [
      'a key id without its secret',
      s3({ S3_ACCESS_KEY_ID: 'id' }),
      "S3_SECRET_ACCESS_KEY is missing: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together, or neither for the AWS SDK's default credentials.",
    ],
    [
      'a secret without its key id (not echoed)',
      s3({ S3_SECRET_ACCESS_KEY: 'hunter2' }),
      "S3_ACCESS_KEY_ID is missing: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together, or neither for the AWS SDK's default credentials.",
    ],
    [
      'a region that is no name',
      s3({ S3_REGION: 'eu west' }),
      'S3_REGION must be a region name such as eu-west-1; got "eu west".',
    ],
    [
      'a yes/no that is neither',
      s3({ S3_FORCE_PATH_STYLE: 'yes' }),
      'S3_FORCE_PATH_STYLE must be true or false; got "yes".',
    ],
    [
      'a prefix that climbs out',
      s3({ S3_PREFIX: 'media/../other' }),
      'S3_PREFIX must be a folder such as gateway/media (letters, digits, ".", "_", "-" between slashes); got "media/../other".',
    ],
    [
      'a prefix with other characters',
      s3({ S3_PREFIX: 'media?x=1' }),
      'S3_PREFIX must be a folder such as gateway/media (letters, digits, ".", "_", "-" between slashes); got "media?x=1".',
    ],
  ];
  it.each(refused)('refuses %s, naming the variable', (_what, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

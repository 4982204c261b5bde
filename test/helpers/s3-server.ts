// A real S3-compatible server in the test process: @20minutes/s3rver (a maintained fork of s3rver)
// on a free loopback port, its objects in a temporary folder. The AWS SDK talks HTTP to it with
// signed requests, exactly as it would to MinIO or AWS.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';

// The package ships no types: the part of its API the tests use.
interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as S3rverClass;

/** s3rver's fixed account. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface OwnS3 {
  endpoint: string;
  bucket: string;
  credentials: typeof CREDENTIALS;
  /** An AWS SDK client of this server, to look at the bucket behind the gateway's back. */
  client(): S3Client;
  /** The settings of a gateway that keeps its media in this bucket. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function ownS3(bucket = 'gateway-media'): Promise<OwnS3> {
  // Quiet: the SDK's notice that its releases from 2027 on need Node 22 says nothing about the tests.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const directory = mkdtempSync(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    credentials: CREDENTIALS,
    client: () =>
      new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS }),
    env: (extra = {}) => ({
      MEDIA_STORAGE: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      ...extra,
    }),
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

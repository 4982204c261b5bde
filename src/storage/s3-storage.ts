// MEDIA_STORAGE=s3: files in an S3 bucket or an S3-compatible server (MinIO, …) through the AWS SDK.
// Objects are `<S3_PREFIX><folder>/<key>`; the gateway serves them itself (the media route), so the
// bucket stays private and the avatar URLs do not change with the backend.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.js';
import { serviceUnavailable } from '../errors.js';
import { contentTypeOf, newKey } from './keys.js';
import type { FileStorage, StoredFile } from './storage.js';

/**
 * A server that stops answering fails the request (503) within about 40 s instead of holding it:
 * 5 s to connect, 15 s without data (the handler's socket timeout), and one retry, not the SDK's two.
 */
const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 15_000;
const MAX_ATTEMPTS = 2;

/**
 * The bucket's own refusals (403 AccessDenied, 404 NoSuchBucket: a configuration to fix) stay
 * errors as they are (500, logged); a server that is down, slow or failing (5xx, no answer) is a
 * 503 with Retry-After, as for the database.
 */
function translate(err: unknown): unknown {
  const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
  return status !== undefined && status < 500 ? err : serviceUnavailable(err);
}

export class S3Storage implements FileStorage {
  private readonly client: S3Client;

  constructor(
    private readonly settings: S3Settings,
    private readonly folder: string,
  ) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      maxAttempts: MAX_ATTEMPTS,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    });
  }

  private objectKey(key: string): string {
    return `${this.settings.prefix}${this.folder}/${key}`;
  }

  async put(prefix: string, bytes: Buffer, ext: string): Promise<string> {
    const key = newKey(prefix, ext);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(key),
          Body: bytes,
          ContentType: contentTypeOf(key) ?? 'application/octet-stream',
        }),
      );
    } catch (err) {
      throw translate(err);
    }
    return key;
  }

  async get(key: string): Promise<StoredFile | null> {
    // The type follows from the key, whatever else the object may say (the route serves images only).
    const contentType = contentTypeOf(key);
    if (contentType === null) return null;
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }),
      );
      if (!object.Body) return null;
      return { bytes: Buffer.from(await object.Body.transformToByteArray()), contentType };
    } catch (err) {
      if (err instanceof NoSuchKey) return null;
      throw translate(err);
    }
  }

  async remove(key: string): Promise<void> {
    if (contentTypeOf(key) === null) return;
    try {
      // S3 answers 204 for a missing object too.
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }),
      );
    } catch (err) {
      throw translate(err);
    }
  }
}

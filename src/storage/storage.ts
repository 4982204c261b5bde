// A small storage interface for uploaded files (guest avatars), with three backends chosen by
// MEDIA_STORAGE: a local folder (the embedded default), the database (the default with
// DATABASE_URL: every instance of a fleet serves every file) or an S3 bucket.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config, S3Settings } from '../config.js';
import type { Prisma } from '../db/database.js';
import { contentTypeOf, newKey } from './keys.js';
import { PostgresStorage } from './postgres-storage.js';

export interface StoredFile {
  bytes: Buffer;
  contentType: string;
}

export interface FileStorage {
  /** Stores `bytes` under a new unguessable key ending in `.ext` and returns the key. */
  put(prefix: string, bytes: Buffer, ext: string): Promise<string>;
  /** The file, or null for an unknown key or one not of our shape (src/storage/keys.ts). */
  get(key: string): Promise<StoredFile | null>;
  /** A missing file is not an error. */
  remove(key: string): Promise<void>;
}

export class LocalFolderStorage implements FileStorage {
  constructor(readonly dir: string) {}

  async put(prefix: string, bytes: Buffer, ext: string): Promise<string> {
    const key = newKey(prefix, ext);
    await mkdir(this.dir, { recursive: true });
    await writeFile(path.join(this.dir, key), bytes);
    return key;
  }

  async get(key: string): Promise<StoredFile | null> {
    const contentType = contentTypeOf(key);
    if (contentType === null) return null;
    try {
      return { bytes: await readFile(path.join(this.dir, key)), contentType };
    } catch {
      return null;
    }
  }

  async remove(key: string): Promise<void> {
    if (contentTypeOf(key) === null) return;
    await rm(path.join(this.dir, key), { force: true });
  }
}

/**
 * An S3 bucket (src/storage/s3-storage.ts) whose SDK is loaded at its first use: a process that
 * never stores to S3 does not load it (about 180 ms of every start and admin command).
 */
class S3OnFirstUse implements FileStorage {
  private storage: Promise<FileStorage> | undefined;

  constructor(
    private readonly settings: S3Settings,
    private readonly folder: string,
  ) {}

  private bucket(): Promise<FileStorage> {
    this.storage ??= import('./s3-storage.js').then(
      ({ S3Storage }) => new S3Storage(this.settings, this.folder),
    );
    return this.storage;
  }

  async put(prefix: string, bytes: Buffer, ext: string): Promise<string> {
    return (await this.bucket()).put(prefix, bytes, ext);
  }

  async get(key: string): Promise<StoredFile | null> {
    return (await this.bucket()).get(key);
  }

  async remove(key: string): Promise<void> {
    return (await this.bucket()).remove(key);
  }
}

const AVATARS = 'avatars';
// One S3 client per configuration (it keeps its connections), not one per request.
const buckets = new WeakMap<S3Settings, FileStorage>();

/** Where guest avatars live: `DATA_DIR/avatars`, `avatars/…` rows of StoredFile, or `<S3_PREFIX>avatars/…`. */
export function avatarStorage(deps: { config: Config; prisma: Prisma }): FileStorage {
  const { config } = deps;
  if (config.mediaStorage === 'database') return new PostgresStorage(deps.prisma, AVATARS);
  if (config.mediaStorage === 's3') {
    if (!config.s3) throw new Error('MEDIA_STORAGE=s3 needs the S3 settings (loadConfig reads them).');
    let storage = buckets.get(config.s3);
    if (!storage) {
      storage = new S3OnFirstUse(config.s3, AVATARS);
      buckets.set(config.s3, storage);
    }
    return storage;
  }
  return new LocalFolderStorage(path.join(config.dataDir, AVATARS));
}

/** Public path of an avatar, served by the media route outside /api/v1. */
export const AVATAR_PATH = '/media/avatars';

export function avatarUrl(config: Pick<Config, 'appUrl'>, key: string | null): string | null {
  return key ? `${config.appUrl}${AVATAR_PATH}/${key}` : null;
}

// A small storage interface for uploaded files (guest avatars), so another backend (an object
// store) can replace the local folder without touching the services.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';

export interface StoredFile {
  bytes: Buffer;
  contentType: string;
}

export interface FileStorage {
  /** Stores `bytes` under a new unguessable key ending in `.ext` and returns the key. */
  put(prefix: string, bytes: Buffer, ext: string): Promise<string>;
  get(key: string): Promise<StoredFile | null>;
  /** Best effort: a missing file is not an error. */
  remove(key: string): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** Keys are flat file names we generated: `<prefix>-<random>.<ext>`; anything else is refused. */
const KEY = /^[A-Za-z0-9_-]{1,64}\.(png|jpg|gif|webp)$/;

export class LocalFolderStorage implements FileStorage {
  constructor(readonly dir: string) {}

  async put(prefix: string, bytes: Buffer, ext: string): Promise<string> {
    const key = `${prefix.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32)}-${randomBytes(12).toString('hex')}.${ext}`;
    await mkdir(this.dir, { recursive: true });
    await writeFile(path.join(this.dir, key), bytes);
    return key;
  }

  async get(key: string): Promise<StoredFile | null> {
    const match = KEY.exec(key);
    if (!match) return null;
    try {
      const bytes = await readFile(path.join(this.dir, key));
      return { bytes, contentType: CONTENT_TYPES[match[1] ?? ''] ?? 'application/octet-stream' };
    } catch {
      return null;
    }
  }

  async remove(key: string): Promise<void> {
    if (!KEY.test(key)) return;
    await rm(path.join(this.dir, key), { force: true });
  }
}

/** Where guest avatars live: `DATA_DIR/avatars`. */
export function avatarStorage(config: Pick<Config, 'dataDir'>): FileStorage {
  return new LocalFolderStorage(path.join(config.dataDir, 'avatars'));
}

/** Public path of an avatar, served by the media route outside /api/v1. */
export const AVATAR_PATH = '/media/avatars';

export function avatarUrl(config: Pick<Config, 'appUrl'>, key: string | null): string | null {
  return key ? `${config.appUrl}${AVATAR_PATH}/${key}` : null;
}

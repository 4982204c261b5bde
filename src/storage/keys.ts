// The one rule for stored file names, shared by every backend: `<prefix>-<random>.<ext>`, flat, of
// an image type we accept. The key is what a public media URL carries, so a key of any other shape
// is refused before any backend sees it (no path traversal, no other object of a bucket).
import { randomBytes } from 'node:crypto';

const CONTENT_TYPES = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
} as const;

export type StoredExt = keyof typeof CONTENT_TYPES;

const KEY = /^[A-Za-z0-9_-]{1,64}\.(png|jpg|gif|webp)$/;

/** A new unguessable key (96 random bits); `ext` must be one of the image types above. */
export function newKey(prefix: string, ext: string): string {
  if (!Object.hasOwn(CONTENT_TYPES, ext)) throw new Error(`Cannot store a file of type "${ext}".`);
  return `${prefix.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32)}-${randomBytes(12).toString('hex')}.${ext}`;
}

/** The content type a key stands for, or null when the key is not of our shape. */
export function contentTypeOf(key: string): string | null {
  const match = KEY.exec(key);
  return match ? CONTENT_TYPES[match[1] as StoredExt] : null;
}

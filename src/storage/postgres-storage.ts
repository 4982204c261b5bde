// MEDIA_STORAGE=database: files as `bytea` rows of StoredFile, in the database every instance
// shares, so any instance of a fleet serves any avatar. Avatars are at most 2 MB each.
import type { Prisma } from '../db/database.js';
import { contentTypeOf, newKey } from './keys.js';
import type { FileStorage, StoredFile } from './storage.js';

export class PostgresStorage implements FileStorage {
  /** `folder` namespaces the rows (`avatars/<key>`), as a directory does for the local backend. */
  constructor(
    private readonly prisma: Prisma,
    private readonly folder: string,
  ) {}

  async put(prefix: string, bytes: Buffer, ext: string): Promise<string> {
    const key = newKey(prefix, ext);
    await this.prisma.storedFile.create({
      data: {
        key: `${this.folder}/${key}`,
        contentType: contentTypeOf(key) ?? 'application/octet-stream',
        // A copy typed as Prisma wants it (a Buffer may, in principle, sit on shared memory).
        bytes: new Uint8Array(bytes),
      },
      select: { key: true },
    });
    return key;
  }

  async get(key: string): Promise<StoredFile | null> {
    if (contentTypeOf(key) === null) return null;
    const row = await this.prisma.storedFile.findUnique({
      where: { key: `${this.folder}/${key}` },
      select: { bytes: true, contentType: true },
    });
    if (!row) return null;
    return {
      bytes: Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength),
      contentType: row.contentType,
    };
  }

  async remove(key: string): Promise<void> {
    if (contentTypeOf(key) === null) return;
    await this.prisma.storedFile.deleteMany({ where: { key: `${this.folder}/${key}` } });
  }
}

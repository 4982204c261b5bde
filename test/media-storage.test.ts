// The storage contract every MEDIA_STORAGE backend keeps (a local folder, the database, an S3
// bucket), each run against the real thing: a temporary folder, the test database (PGlite or
// TEST_DATABASE_URL) and an S3-compatible server on loopback (test/helpers/s3-server.ts).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig, type MediaStorage } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { AppError } from '../src/errors.js';
import { avatarStorage, type FileStorage } from '../src/storage/storage.js';
import { openTestDatabase, startApp } from './helpers/app.js';
import { addGuest, newTenant } from './helpers/fixtures.js';
import { freePort } from './helpers/processes.js';
import { type OwnS3, ownS3 } from './helpers/s3-server.js';
import { startTcpProxy } from './helpers/tcp-proxy.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'media-storage-'));
let db: Database;
let s3: OwnS3;
let raw: S3Client;
const configs = {} as Record<MediaStorage, Config>;

beforeAll(async () => {
  db = await openTestDatabase();
  s3 = await ownS3();
  raw = s3.client();
  configs.local = loadConfig({ DATA_DIR: dataDir, MEDIA_STORAGE: 'local' });
  configs.database = loadConfig({ DATA_DIR: dataDir, MEDIA_STORAGE: 'database' });
  configs.s3 = loadConfig({ DATA_DIR: dataDir, ...s3.env({ S3_PREFIX: '/fleet/one/' }) });
});
afterAll(async () => {
  raw?.destroy();
  await s3?.close();
  await db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const storageOf = (kind: MediaStorage): FileStorage =>
  avatarStorage({ config: configs[kind], prisma: db.prisma });

/** Every byte value, so no backend may treat the file as text. */
const everyByte = (extra: number): Buffer =>
  Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.alloc(extra, 0xab)]);

const UNKNOWN = 'avatar-000000000000000000000000.png';
const REFUSED = [
  '',
  '.png',
  '..',
  '../secret.png',
  '..%2Fsecret.png',
  'avatars/x.png',
  'a/b.png',
  'x.txt',
  'x.svg',
  'x.PNG',
  'x.png.txt',
  'x .png',
  `${'a'.repeat(65)}.png`,
];

/** A file at `rel` from the avatar folder, written behind the storage's back. */
async function plant(kind: MediaStorage, rel: string): Promise<void> {
  const bytes = everyByte(0);
  if (kind === 'local') {
    const file = path.join(dataDir, 'avatars', rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes);
  } else if (kind === 'database') {
    await db.prisma.storedFile.upsert({
      where: { key: `avatars/${rel}` },
      create: { key: `avatars/${rel}`, contentType: 'image/png', bytes: new Uint8Array(bytes) },
      update: {},
    });
  } else {
    const key = path.posix.normalize(`fleet/one/avatars/${rel}`);
    await raw.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes }));
  }
}

describe.each(['local', 'database', 's3'] as const)('%s storage', (kind) => {
  it('keeps the bytes of each image type and answers its content type', async () => {
    const storage = storageOf(kind);
    const types = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };
    for (const [ext, contentType] of Object.entries(types)) {
      const bytes = everyByte(ext === 'png' ? 2048 * 1024 - 256 : 10);
      const key = await storage.put('avatar', bytes, ext);
      expect(key).toMatch(new RegExp(`^avatar-[0-9a-f]{24}\\.${ext}$`));
      const file = await storage.get(key);
      expect(file?.contentType).toBe(contentType);
      expect(file?.bytes.equals(bytes), ext).toBe(true);
    }
  });

  it('gives every file a key of its own and keeps only letters, digits, _ and - of the prefix', async () => {
    const storage = storageOf(kind);
    const bytes = everyByte(0);
    const [a, b] = [await storage.put('avatar', bytes, 'png'), await storage.put('avatar', bytes, 'png')];
    expect(a).not.toBe(b);
    expect((await storage.get(a))?.bytes.equals(bytes)).toBe(true);
    expect((await storage.get(b))?.bytes.equals(bytes)).toBe(true);
    expect(await storage.put('../../x y', bytes, 'gif')).toMatch(/^xy-[0-9a-f]{24}\.gif$/);
  });

  it('answers null for an unknown key and for every key not of its shape', async () => {
    const storage = storageOf(kind);
    // Files where a storage that trusted the key would find something.
    for (const rel of ['../secret.png', 'a/b.png', 'x.txt', 'x.svg', 'x.PNG', 'x.png.txt', 'x .png']) {
      await plant(kind, rel);
    }
    expect(await storage.get(UNKNOWN)).toBeNull();
    for (const key of REFUSED) expect(await storage.get(key), key).toBeNull();
  });

  it('refuses to store a type it does not serve', async () => {
    const storage = storageOf(kind);
    for (const ext of ['svg', 'PNG', 'html', '../png', '']) {
      await expect(storage.put('avatar', everyByte(0), ext)).rejects.toThrow(
        `Cannot store a file of type "${ext}".`,
      );
    }
  });

  it('removes a file; a second removal, an unknown key or a refused shape is no error', async () => {
    const storage = storageOf(kind);
    const keep = await storage.put('avatar', everyByte(1), 'png');
    const gone = await storage.put('avatar', everyByte(2), 'png');
    await storage.remove(gone);
    expect(await storage.get(gone)).toBeNull();
    await storage.remove(gone);
    await storage.remove(UNKNOWN);
    for (const key of REFUSED) await storage.remove(key);
    expect((await storage.get(keep))?.bytes.equals(everyByte(1))).toBe(true);
  });
});

describe('where each backend keeps a file', () => {
  it('local: DATA_DIR/avatars/<key>', async () => {
    const key = await storageOf('local').put('avatar', everyByte(0), 'png');
    expect(existsSync(path.join(dataDir, 'avatars', key))).toBe(true);
  });

  it('database: a StoredFile row avatars/<key> with its content type, gone once removed', async () => {
    const storage = storageOf('database');
    const key = await storage.put('avatar', everyByte(0), 'webp');
    const row = await db.prisma.storedFile.findUnique({ where: { key: `avatars/${key}` } });
    expect(row?.contentType).toBe('image/webp');
    expect(Buffer.from(row?.bytes ?? []).equals(everyByte(0))).toBe(true);
    await storage.remove(key);
    expect(await db.prisma.storedFile.findUnique({ where: { key: `avatars/${key}` } })).toBeNull();
  });

  it('s3: the object <S3_PREFIX>/avatars/<key> with its content type; nothing else of the bucket is reachable', async () => {
    const key = await storageOf('s3').put('avatar', everyByte(0), 'jpg');
    const object = await raw.send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: `fleet/one/avatars/${key}` }),
    );
    expect(object.ContentType).toBe('image/jpeg');
    expect(Buffer.from((await object.Body?.transformToByteArray()) ?? []).equals(everyByte(0))).toBe(true);
    // An object beside the avatar folder has a valid name but is not an avatar.
    await raw.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'fleet/one/other.png', Body: 'x' }));
    expect(await storageOf('s3').get('other.png')).toBeNull();
  });
});

describe('an S3 server that does not answer', () => {
  it('is a 503 with Retry-After, for the media route and for the storage itself', async () => {
    const closed = await freePort(); // nothing listens there
    const env = s3.env({ S3_ENDPOINT: `http://127.0.0.1:${closed}`, DATA_DIR: dataDir });
    const storage = avatarStorage({ config: loadConfig(env), prisma: db.prisma });
    const unavailable = { code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '5' } };
    await expect(storage.put('avatar', everyByte(0), 'png')).rejects.toMatchObject(unavailable);
    await expect(storage.get(UNKNOWN)).rejects.toBeInstanceOf(AppError);
    await expect(storage.remove(UNKNOWN)).rejects.toMatchObject(unavailable);

    const t = await startApp(env, { db });
    try {
      const res = await t.request('GET', `/media/avatars/${UNKNOWN}`);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json).toEqual({ message: 'Service Unavailable' });
      // A refused shape never reaches the bucket: still a plain 404.
      expect((await t.request('GET', '/media/avatars/x.txt')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe('a bucket that refuses', () => {
  it('is an error (500, logged), not a missing avatar', async () => {
    const t = await startApp({ DATA_DIR: dataDir, ...s3.env({ S3_BUCKET: 'no-such-bucket' }) }, { db });
    try {
      const res = await t.request('GET', `/media/avatars/${UNKNOWN}`);
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ message: 'Server Error' });
    } finally {
      await t.close();
    }
  });
});

describe('a file let go while the S3 server does not answer (probe F)', () => {
  it('answers the committed write (204, 200), serves the file no more, and removes it once the server is back', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    const t = await startApp(
      { DATA_DIR: dataDir, ...s3.env({ S3_ENDPOINT: `http://127.0.0.1:${proxy.port}` }) },
      {
        db,
      },
    );
    try {
      const a = await newTenant(db.prisma);
      const png = Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        everyByte(0),
      ]);
      const avatar = `data:image/png;base64,${png.toString('base64')}`;
      const keys: string[] = [];
      const guests: string[] = [];
      for (const name of ['Erased Guest', 'Plain Guest']) {
        const g = await addGuest(db.prisma, a.tenant_id, a.location_id, { name });
        const res = await t.request('PUT', `/api/v1/guests/${g.id}`, {
          token: a.token,
          body: { location_id: a.location_id, avatar },
        });
        expect(res.status, res.text).toBe(200);
        keys.push((res.json.data.image_url as string).split('/').pop() as string);
        guests.push(g.id);
      }
      const [erasedKey, replacedKey] = keys as [string, string];
      const inBucket = (key: string) =>
        raw.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `avatars/${key}` })).then(
          () => true,
          () => false,
        );
      expect((await t.request('GET', `/media/avatars/${erasedKey}`)).status).toBe(200);

      await proxy.set('refuse');
      // Erasure and an avatar removed are committed: their answers say so (a 503 invited a retry).
      const erased = await t.request('DELETE', `/api/v1/guests/${guests[0]}`, { token: a.token });
      expect(erased.status, erased.text).toBe(204);
      expect((await t.request('GET', `/api/v1/guests/${guests[0]}`, { token: a.token })).status).toBe(404);
      const removed = await t.request('PUT', `/api/v1/guests/${guests[1]}`, {
        token: a.token,
        body: { location_id: a.location_id, avatar: null },
      });
      expect(removed.status, removed.text).toBe(200);
      expect(removed.json.data.image_url).toBeNull();
      const marked = () =>
        db.prisma.fileRemoval.findMany({
          where: { key: { in: keys } },
          select: { key: true },
          orderBy: { key: 'asc' },
        });
      expect((await marked()).map((r) => r.key)).toEqual([...keys].sort());
      // A pass while the server is still away leaves them named.
      await t.app.fileRemovals.run();
      expect(await marked()).toHaveLength(2);

      await proxy.set('pass');
      // Still in the bucket, but served no more: the erased guest's photo is not public from the commit on.
      expect(await inBucket(erasedKey)).toBe(true);
      for (const key of keys) {
        const res = await t.request('GET', `/media/avatars/${key}`);
        expect(res.status).toBe(404);
        expect(res.json).toEqual({ message: 'Not Found.' });
      }
      // The next pass removes them, and their names.
      await t.app.fileRemovals.run();
      expect(await marked()).toEqual([]);
      expect(await inBucket(erasedKey)).toBe(false);
      expect(await inBucket(replacedKey)).toBe(false);
    } finally {
      await t.close();
      await proxy.close();
    }
  });
});

// Avatars in a fleet: with MEDIA_STORAGE=database (the default with DATABASE_URL) an avatar
// uploaded through one instance is served by any other on the same database, and replacing or
// removing an avatar removes its stored file, whichever backend keeps it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import { openTestDatabase, startApp, type TestApp } from './helpers/app.js';
import { addGuest, newTenant } from './helpers/fixtures.js';
import { form } from './helpers/multipart.js';
import { type OwnS3, ownS3 } from './helpers/s3-server.js';

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (size: number, fill: number): Buffer =>
  Buffer.concat([PNG_HEAD, Buffer.alloc(size - PNG_HEAD.length, fill)]);
const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
const mediaPath = (url: string) => url.replace('http://localhost', '');
const keyOf = (url: string) => url.split('/').pop() ?? '';

const newDir = () => mkdtempSync(path.join(tmpdir(), 'media-fleet-'));
const dirs = { one: newDir(), two: newDir(), three: newDir() };
// One database for the file (PGlite migrates once); each app is built on it.
let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
  for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
});

describe('MEDIA_STORAGE=database: two instances on one database', () => {
  let one: TestApp;
  let two: TestApp;
  // On PostgreSQL the second instance has a pool of its own, as another process would; the
  // embedded database has one owner, so there both instances share it.
  let secondDb: Database | undefined;

  beforeAll(async () => {
    one = await startApp({ MEDIA_STORAGE: 'database', DATA_DIR: dirs.one }, { db });
    secondDb = process.env.TEST_DATABASE_URL ? await openTestDatabase() : undefined;
    two = await startApp({ MEDIA_STORAGE: 'database', DATA_DIR: dirs.two }, { db: secondDb ?? db });
  });
  afterAll(async () => {
    await two?.close();
    await secondDb?.close();
    await one?.close();
  });

  it('serves an avatar uploaded through the other instance, and forgets it on both once replaced', async () => {
    const a = await newTenant(one.db.prisma);
    const g = await addGuest(one.db.prisma, a.tenant_id, a.location_id);
    const bytes = png(2048 * 1024, 7);
    const { body, contentType } = form([
      { name: 'location_id', value: a.location_id },
      { name: 'avatar', file: bytes, type: 'image/png', filename: 'me.png' },
    ]);
    const upload = await one.app.fastify.inject({
      method: 'PUT',
      url: `/api/v1/guests/${g.id}`,
      headers: { authorization: `Bearer ${a.token}`, 'content-type': contentType },
      payload: body,
    });
    expect(upload.statusCode, upload.body.slice(0, 300)).toBe(200);
    const url: string = JSON.parse(upload.body).data.image_url;
    expect(url).toMatch(/^http:\/\/localhost\/media\/avatars\/avatar-[0-9a-f]{24}\.png$/);

    const served = await two.app.fastify.inject({ method: 'GET', url: mediaPath(url) });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toBe('private, max-age=86400');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.rawPayload.equals(bytes)).toBe(true);
    // Nothing went to either instance's folder.
    expect(existsSync(path.join(dirs.one, 'avatars'))).toBe(false);
    expect(existsSync(path.join(dirs.two, 'avatars'))).toBe(false);

    // The second instance replaces it: the old file is gone for both, the new one served by both.
    const replaced = await two.request('PUT', `/api/v1/guests/${g.id}`, {
      token: a.token,
      body: { location_id: a.location_id, avatar: dataUrl(png(100, 9)) },
    });
    expect(replaced.status).toBe(200);
    const newUrl: string = replaced.json.data.image_url;
    expect(newUrl).not.toBe(url);
    expect((await one.request('GET', mediaPath(url))).status).toBe(404);
    expect((await two.request('GET', mediaPath(url))).json).toEqual({ message: 'Not Found.' });
    expect(await one.db.prisma.storedFile.findUnique({ where: { key: `avatars/${keyOf(url)}` } })).toBeNull();
    const again = await one.app.fastify.inject({ method: 'GET', url: mediaPath(newUrl) });
    expect(again.rawPayload.equals(png(100, 9))).toBe(true);

    // null removes the avatar and its row.
    const removed = await one.request('PUT', `/api/v1/guests/${g.id}`, {
      token: a.token,
      body: { location_id: a.location_id, avatar: null },
    });
    expect(removed.json.data.image_url).toBeNull();
    expect((await two.request('GET', mediaPath(newUrl))).status).toBe(404);
    expect(
      await one.db.prisma.storedFile.findUnique({ where: { key: `avatars/${keyOf(newUrl)}` } }),
    ).toBeNull();
  });
});

/** Where a backend keeps the file of an avatar URL, and whether it is there. */
type Probe = (url: string) => Promise<boolean>;

describe.each(['local', 'database', 's3'] as const)('MEDIA_STORAGE=%s: a replaced avatar', (kind) => {
  let t: TestApp;
  let s3: OwnS3 | undefined;
  let raw: S3Client | undefined;
  let stored: Probe;

  beforeAll(async () => {
    const dataDir = dirs.three;
    if (kind === 's3') {
      s3 = await ownS3();
      raw = s3.client();
    }
    t = await startApp({ DATA_DIR: dataDir, ...(s3 ? s3.env() : { MEDIA_STORAGE: kind }) }, { db });
    stored = {
      local: async (url: string) => existsSync(path.join(dataDir, 'avatars', keyOf(url))),
      database: async (url: string) =>
        (await t.db.prisma.storedFile.findUnique({ where: { key: `avatars/${keyOf(url)}` } })) !== null,
      s3: async (url: string) =>
        (raw as S3Client)
          .send(new GetObjectCommand({ Bucket: (s3 as OwnS3).bucket, Key: `avatars/${keyOf(url)}` }))
          .then(() => true)
          .catch((err: { name?: string }) => (err.name === 'NoSuchKey' ? false : Promise.reject(err))),
    }[kind];
  });
  afterAll(async () => {
    await t?.close();
    raw?.destroy();
    await s3?.close();
  });

  it('is removed from the storage, and the new one is served', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const put = (avatar: string | null) =>
      t.request('PUT', `/api/v1/guests/${g.id}`, {
        token: a.token,
        body: { location_id: a.location_id, avatar },
      });
    const first: string = (await put(dataUrl(png(64, 1)))).json.data.image_url;
    expect(await stored(first)).toBe(true);
    const second: string = (await put(dataUrl(png(64, 2)))).json.data.image_url;
    expect(await stored(first)).toBe(false);
    expect(await stored(second)).toBe(true);
    expect((await t.request('GET', mediaPath(first))).status).toBe(404);
    const file = await t.app.fastify.inject({ method: 'GET', url: mediaPath(second) });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(png(64, 2))).toBe(true);
    expect((await put(null)).json.data.image_url).toBeNull();
    expect(await stored(second)).toBe(false);
  });
});

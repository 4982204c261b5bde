// The media route as a browser and a download tool use it: a strong ETag (the file's key, which
// names one content for good) for revalidation (304), and one byte range (206, Content-Range) for a
// resumed or partial download; a range past the end is a 416, anything else the whole file (200), as
// Symfony's file response answers them, within RFC 9110 §14 (probe Y: a suffix longer than the file
// and an invalid range were 416). The same for each backend that serves from this process (a
// folder, the database).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import { openTestDatabase, startApp, type TestApp } from './helpers/app.js';
import { addGuest, newTenant } from './helpers/fixtures.js';

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A PNG of `size` bytes whose every byte after the signature tells its position (mod 251). */
const png = (size: number): Buffer =>
  Buffer.concat([PNG_HEAD, Buffer.from(Array.from({ length: size - PNG_HEAD.length }, (_, i) => i % 251))]);
const SIZE = 5000;

const dataDir = mkdtempSync(path.join(tmpdir(), 'media-route-'));
let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe.each(['local', 'database'] as const)('MEDIA_STORAGE=%s', (storage) => {
  let t: TestApp;
  let token: string;
  let locationId: string;
  let guestId: string;
  const bytes = png(SIZE);
  /** The avatar's path and key, uploaded once for the describe. */
  let file = '';
  let key = '';

  beforeAll(async () => {
    t = await startApp({ MEDIA_STORAGE: storage, DATA_DIR: dataDir }, { db });
    const a = await newTenant(db.prisma);
    token = a.token;
    locationId = a.location_id;
    guestId = (await addGuest(db.prisma, a.tenant_id, a.location_id)).id;
    const res = await t.request('PUT', `/api/v1/guests/${guestId}`, {
      token,
      body: { location_id: locationId, avatar: `data:image/png;base64,${bytes.toString('base64')}` },
    });
    expect(res.status, res.text).toBe(200);
    file = (res.json.data.image_url as string).replace('http://localhost', '');
    key = file.split('/').pop() ?? '';
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.fastify.inject({ method, url: file, headers });

  it('answers the whole file with its ETag (the key), Accept-Ranges and its length', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(SIZE),
      etag: `"${key}"`,
      'accept-ranges': 'bytes',
      'cache-control': 'private, max-age=86400',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers['content-range']).toBeUndefined();
  });

  it('answers 304 without a body to a client holding the ETag (strong, weak, in a list, or *)', async () => {
    for (const held of [`"${key}"`, `W/"${key}"`, `"avatar-0.png", "${key}"`, '*']) {
      const res = await get({ 'if-none-match': held });
      expect(res.statusCode, held).toBe(304);
      expect(res.rawPayload.length, held).toBe(0);
      expect(res.headers.etag).toBe(`"${key}"`);
      expect(res.headers['cache-control']).toBe('private, max-age=86400');
    }
    const other = await get({ 'if-none-match': '"avatar-0.png"' });
    expect(other.statusCode).toBe(200);
    expect(other.rawPayload.equals(bytes)).toBe(true);
  });

  it('answers one range with 206 and Content-Range: from the start, to the end, the last bytes, past the end', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-9', 0, 9],
      ['bytes=100-199', 100, 199],
      ['bytes=4990-', 4990, SIZE - 1],
      ['bytes=-7', SIZE - 7, SIZE - 1],
      ['bytes=4000-999999', 4000, SIZE - 1],
      ['bytes=0-0', 0, 0],
      [`bytes=-${SIZE - 1}`, 1, SIZE - 1],
      ['bytes=007-010', 7, 10],
      ['Bytes=10-19', 10, 19],
    ];
    for (const [range, start, end] of cases) {
      const res = await get({ range });
      expect(res.statusCode, range).toBe(206);
      expect(res.headers['content-range'], range).toBe(`bytes ${start}-${end}/${SIZE}`);
      expect(res.headers['content-length'], range).toBe(String(end - start + 1));
      expect(res.headers['content-type'], range).toBe('image/png');
      expect(res.headers.etag, range).toBe(`"${key}"`);
      expect(res.rawPayload.equals(bytes.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it('answers a range that starts past the end with 416, Content-Range bytes */size and no body', async () => {
    for (const range of [
      `bytes=${SIZE}-`,
      `bytes=${SIZE + 10}-${SIZE + 20}`,
      'bytes=-0',
      'bytes=99999999999999999999-',
    ]) {
      const res = await get({ range });
      expect(res.statusCode, range).toBe(416);
      expect(res.headers['content-range'], range).toBe(`bytes */${SIZE}`);
      expect(res.headers['content-length'], range).toBe('0');
      expect(res.rawPayload.length, range).toBe(0);
      // Nothing of the file's freshness on an answer that holds none of it.
      expect(res.headers['cache-control'], range).toBe('no-store');
      expect(res.headers.etag, range).toBeUndefined();
    }
  });

  it('answers the whole file to a range covering it, several ranges, another unit, an invalid or malformed Range, or an If-Range of another version', async () => {
    const whole: Record<string, string>[] = [
      { range: 'bytes=0-' },
      { range: `bytes=0-${SIZE - 1}` },
      { range: 'bytes=0-99999999999999999999' },
      { range: `bytes=-${SIZE}` },
      // A suffix longer than the file is the whole file (RFC 9110 §14.1.3).
      { range: `bytes=-${SIZE + 500}` },
      // Several ranges, overlapping or not, satisfiable or not.
      { range: 'bytes=0-9,100-109' },
      { range: 'bytes=0-4,5-9,3-6' },
      { range: `bytes=0-1,${SIZE + 1}-${SIZE + 9}` },
      // Last before first: an invalid range, ignored (RFC 9110 §14.1.1).
      { range: 'bytes=9-3' },
      { range: 'bytes=-' },
      { range: 'items=0-9' },
      { range: 'bytes=abc' },
      { range: 'bytes' },
      // No spaces around "=" in RFC 9110's grammar.
      { range: 'bytes = 10-19' },
      { range: 'bytes=0-9', 'if-range': '"avatar-0.png"' },
      { range: 'bytes=0-9', 'if-range': `W/"${key}"` },
      { range: 'bytes=0-9', 'if-range': 'Sun, 29 Nov 2026 12:00:00 GMT' },
    ];
    for (const headers of whole) {
      const res = await get(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(res.headers['content-range']).toBeUndefined();
      expect(res.rawPayload.equals(bytes), JSON.stringify(headers)).toBe(true);
    }
    const current = await get({ range: 'bytes=0-9', 'if-range': `"${key}"` });
    expect(current.statusCode).toBe(206);
    expect(current.rawPayload.equals(bytes.subarray(0, 10))).toBe(true);
  });

  it('answers HEAD with the headers of the whole file and no body, whatever the Range', async () => {
    const res = await get({ range: 'bytes=0-9' }, 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBe(0);
    expect(res.headers).toMatchObject({
      etag: `"${key}"`,
      'accept-ranges': 'bytes',
      'content-type': 'image/png',
    });
    expect(res.headers['content-range']).toBeUndefined();
  });

  it('answers 404 for a replaced avatar, to a client holding its ETag or asking a range of it', async () => {
    const before = { file, key };
    const replaced = await t.request('PUT', `/api/v1/guests/${guestId}`, {
      token,
      body: { location_id: locationId, avatar: `data:image/png;base64,${png(100).toString('base64')}` },
    });
    expect(replaced.status).toBe(200);
    for (const headers of [{}, { 'if-none-match': `"${before.key}"` }, { range: 'bytes=0-9' }]) {
      const res = await t.app.fastify.inject({ method: 'GET', url: before.file, headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(404);
      expect(res.body).toBe('{"message":"Not Found."}');
      expect(res.headers.etag).toBeUndefined();
    }
  });
});

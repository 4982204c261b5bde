// PUT /guests/:id as multipart/form-data: the avatar as a file part (decisions, "Resource details"),
// judged by the same rule as a data URL; fields and `tags[]` read as a JSON body would be.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers/app.js';
import { addGuest, newTenant } from './helpers/fixtures.js';
import { form, type Part } from './helpers/multipart.js';

let t: TestApp;
const dataDir = mkdtempSync(path.join(tmpdir(), 'guests-multipart-'));
beforeAll(async () => {
  t = await startApp({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (size: number): Buffer => Buffer.concat([PNG_HEAD, Buffer.alloc(size - PNG_HEAD.length, 7)]);

async function put(token: string, id: string, parts: Part[]) {
  const { body, contentType } = form(parts);
  const res = await t.app.fastify.inject({
    method: 'PUT',
    url: `/api/v1/guests/${id}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    payload: body,
  });
  return { status: res.statusCode, json: res.body ? JSON.parse(res.body) : undefined, text: res.body };
}

describe.concurrent('PUT /guests/:id as multipart/form-data', () => {
  it('stores a 2048 KB file part as the avatar, with the other fields and tags[]', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const bytes = png(2048 * 1024);
    const res = await put(a.token, g.id, [
      { name: 'location_id', value: a.location_id },
      { name: 'name', value: 'Multipart Guest' },
      { name: 'room_no', value: '42' },
      { name: 'tags[]', value: 'vip' },
      { name: 'tags[]', value: 'late checkout' },
      { name: 'avatar', file: bytes, type: 'image/png', filename: 'me.png' },
    ]);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.json.data.name).toBe('Multipart Guest');
    expect(res.json.data.room_no).toBe('42');
    expect([...res.json.data.tags].sort()).toEqual(['late checkout', 'vip']);
    const url: string = res.json.data.image_url;
    expect(url).toMatch(/^http:\/\/localhost\/media\/avatars\/avatar-[0-9a-f]{24}\.png$/);
    const file = await t.request('GET', url.replace('http://localhost', ''));
    expect(file.status).toBe(200);
    expect(Number(file.headers['content-length'])).toBe(bytes.length);
  });

  it('judges the file by the avatar rule: one byte over 2048 KB, or not an image, is a 422', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const big = await put(a.token, g.id, [
      { name: 'location_id', value: a.location_id },
      { name: 'avatar', file: png(2048 * 1024 + 1), type: 'image/png', filename: 'big.png' },
    ]);
    expect(big.status).toBe(422);
    expect(big.json).toEqual({
      message: 'The avatar field must not be greater than 2048 kilobytes.',
      errors: { avatar: ['The avatar field must not be greater than 2048 kilobytes.'] },
    });
    const text = await put(a.token, g.id, [
      { name: 'location_id', value: a.location_id },
      { name: 'avatar', file: Buffer.from('hello'), type: 'text/plain', filename: 'a.txt' },
    ]);
    expect(text.status).toBe(422);
    expect(text.json.errors).toEqual({ avatar: ['The avatar field must be an image.'] });
    // Neither: both, as Laravel's image|max:2048 tells (probe X).
    const both = await put(a.token, g.id, [
      { name: 'location_id', value: a.location_id },
      { name: 'avatar', file: Buffer.alloc(2048 * 1024 + 1, 7), type: 'image/png', filename: 'big.png' },
    ]);
    expect(both.json.errors).toEqual({
      avatar: [
        'The avatar field must be an image.',
        'The avatar field must not be greater than 2048 kilobytes.',
      ],
    });
  });

  it('takes the type the bytes are, not the one the part declares (as Laravel’s image rule)', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    for (const type of ['application/octet-stream', 'image/jpeg', 'image/x-png']) {
      const res = await put(a.token, g.id, [
        { name: 'location_id', value: a.location_id },
        { name: 'avatar', file: png(100), type, filename: 'me.bin' },
      ]);
      expect(res.status, `${type}: ${res.text}`).toBe(200);
      expect(res.json.data.image_url, type).toMatch(/\.png$/);
    }
    // Text declared as a PNG is still no image.
    const fake = await put(a.token, g.id, [
      { name: 'location_id', value: a.location_id },
      { name: 'avatar', file: Buffer.from('hello, not a picture'), type: 'image/png', filename: 'a.png' },
    ]);
    expect(fake.json.errors).toEqual({ avatar: ['The avatar field must be an image.'] });
  });

  it('concurrent replacements leave one file, the current one: each removes the avatar it replaced', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const parts = (): Part[] => [
      { name: 'location_id', value: a.location_id },
      { name: 'avatar', file: png(200), type: 'image/png', filename: 'me.png' },
    ];
    const first = await put(a.token, g.id, parts());
    expect(first.status).toBe(200);
    const answers = await Promise.all([1, 2, 3, 4].map(() => put(a.token, g.id, parts())));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const current = (await t.db.prisma.guest.findUniqueOrThrow({ where: { id: g.id } })).imagePath;
    const urls = [first, ...answers].map((r) => r.json.data.image_url as string);
    const served = [];
    for (const url of urls) {
      const file = await t.request('GET', url.replace('http://localhost', ''));
      if (file.status === 200) served.push(url);
      else expect(file.status).toBe(404);
    }
    expect(served).toHaveLength(1);
    expect(served[0]).toContain(current as string);
  });

  it('requires location_id as in JSON, answers 413 past the upload limit and 400 for a broken form', async () => {
    const a = await newTenant(t.db.prisma);
    const g = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
    const missing = await put(a.token, g.id, [{ name: 'name', value: 'Nobody Here' }]);
    expect(missing.status).toBe(422);
    expect(missing.json.errors.location_id).toEqual(['The location id field is required.']);

    const huge = await put(a.token, g.id, [
      { name: 'location_id', value: a.location_id },
      { name: 'avatar', file: png(3 * 1024 * 1024 + 10), type: 'image/png', filename: 'huge.png' },
    ]);
    expect(huge.status).toBe(413);
    expect(huge.json).toEqual({ message: 'Payload Too Large.' });

    const broken = await t.app.fastify.inject({
      method: 'PUT',
      url: `/api/v1/guests/${g.id}`,
      headers: { authorization: `Bearer ${a.token}`, 'content-type': 'multipart/form-data; boundary=xyz' },
      payload: '--xyz\r\nContent-Disposition: form-data; name="location_id"\r\n\r\nabc',
    });
    expect(broken.statusCode).toBe(400);
    expect(JSON.parse(broken.body)).toEqual({ message: 'Malformed multipart body.' });
  });
});

describe('the OpenAPI document', () => {
  it('documents the multipart form of POST and PUT /guests with the avatar as a file part', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json;
    for (const op of [doc.paths['/guests'].post, doc.paths['/guests/{id}'].put]) {
      const form = op.requestBody.content['multipart/form-data'].schema;
      expect(form.properties.avatar).toMatchObject({
        type: 'string',
        contentMediaType: 'application/octet-stream',
      });
      expect(Object.keys(form.properties)).toEqual(
        Object.keys(op.requestBody.content['application/json'].schema.properties),
      );
    }
    // Every body route reads an HTML form as well, as README says (probe O); without file parts.
    const location = doc.paths['/locations'].post.requestBody.content;
    expect(Object.keys(location)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
      expect(Object.keys(location[type].schema.properties), type).toEqual(
        Object.keys(location['application/json'].schema.properties),
      );
      expect(JSON.stringify(location[type].schema), type).not.toContain('octet-stream');
    }
  });
});

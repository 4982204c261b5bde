// Query strings, form bodies and multipart forms read as PHP and Laravel read them (README, "REST
// conventions"): one nesting for all three (src/http/query-string.ts), the last assignment winning,
// PHP's keys, bytewise decoding; a file part is a file, which only a file field takes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../src/rest/route-table.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';
import { form, type Part } from './helpers/multipart.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function sendParts(method: 'POST' | 'PUT', url: string, token: string, parts: Part[]) {
  const { body, contentType } = form(parts);
  return sendRaw(method, url, token, body, contentType);
}

async function sendRaw(
  method: 'POST' | 'PUT',
  url: string,
  token: string,
  body: Buffer,
  contentType: string,
) {
  const res = await t.app.fastify.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    payload: body,
  });
  return { status: res.statusCode, text: res.body, json: res.body ? JSON.parse(res.body) : undefined };
}

const textFile = (name: string): Part => ({
  name,
  file: Buffer.from('hello'),
  type: 'text/plain',
  filename: 'f.txt',
});

describe.concurrent('multipart/form-data fields, nested as a form body’s', () => {
  it('reads tags[0], tags[1] as the list a URL-encoded body gives', async () => {
    const a = await newTenant(t.db.prisma);
    const multi = await sendParts('POST', '/api/v1/guests', a.token, [
      { name: 'location_id', value: a.location_id },
      { name: 'tags[0]', value: 'vip' },
      { name: 'tags[1]', value: 'late' },
    ]);
    expect(multi.status, multi.text).toBe(201);
    expect([...multi.json.data.tags].sort()).toEqual(['late', 'vip']);
    const encoded = await t.request('POST', '/api/v1/guests', {
      token: a.token,
      headers: FORM,
      rawBody: `location_id=${a.location_id}&tags[0]=vip&tags[1]=late`,
    });
    expect(encoded.status, encoded.text).toBe(201);
    expect([...encoded.json.data.tags].sort()).toEqual(['late', 'vip']);
  });

  it('answers name[a] as the URL-encoded body does: a map is no string', async () => {
    const a = await newTenant(t.db.prisma);
    const expected = unprocessable({ name: ['The name field must be a string.'] });
    const multi = await sendParts('POST', '/api/v1/locations', a.token, [{ name: 'name[a]', value: 'x' }]);
    expect(multi.status).toBe(422);
    expect(multi.json).toEqual(expected);
    const encoded = await t.request('POST', '/api/v1/locations', {
      token: a.token,
      headers: FORM,
      rawBody: 'name[a]=x',
    });
    expect(encoded.status).toBe(422);
    expect(encoded.json).toEqual(expected);
  });

  it('keeps the last of a repeated plain field, and lets a plain field replace a list', async () => {
    const a = await newTenant(t.db.prisma);
    const repeated = await sendParts('POST', '/api/v1/locations', a.token, [
      { name: 'name', value: 'N2' },
      { name: 'name', value: 'N2b' },
    ]);
    expect(repeated.status, repeated.text).toBe(201);
    expect(repeated.json.data.name).toBe('N2b');
    const replaced = await sendParts('POST', '/api/v1/locations', a.token, [
      { name: 'name[]', value: 'a' },
      { name: 'name', value: 'Plain after list' },
    ]);
    expect(replaced.status, replaced.text).toBe(201);
    expect(replaced.json.data.name).toBe('Plain after list');
  });

  it('reads integer keys as a list: tags[5] then tags[] are the tags (a JSON object is still refused)', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await sendParts('POST', '/api/v1/guests', a.token, [
      { name: 'location_id', value: a.location_id },
      { name: 'tags[5]', value: 'vip' },
      { name: 'tags[]', value: 'late' },
    ]);
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.tags).toEqual(['late', 'vip']);
    const json = await t.request('POST', '/api/v1/guests', {
      token: a.token,
      body: { location_id: a.location_id, tags: { 5: 'vip', 6: 'late' } },
    });
    expect(json.json).toEqual(unprocessable({ tags: ['The tags field must be an array.'] }));
  });

  it('reads a field part sent as application/json as its text, as PHP does', async () => {
    const a = await newTenant(t.db.prisma);
    const boundary = `----w${randomBytes(6).toString('hex')}`;
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="location_id"\r\n\r\n${a.location_id}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="custom_data"\r\nContent-Type: application/json\r\n\r\n` +
        `{"floor":3}\r\n--${boundary}--\r\n`,
    );
    const res = await sendRaw(
      'POST',
      '/api/v1/guests',
      a.token,
      body,
      `multipart/form-data; boundary=${boundary}`,
    );
    expect(res.status, res.text).toBe(201);
    const stored = await t.db.prisma.guest.findUniqueOrThrow({ where: { id: res.json.data.id } });
    expect(stored.customData).toBe('{"floor":3}');
  });
});

describe.concurrent('a file part in a text field', () => {
  it('is no string: PUT /locations/:id description, POST /locations name, POST /guests name', async () => {
    const a = await newTenant(t.db.prisma);
    const put = await sendParts('PUT', `/api/v1/locations/${a.location_id}`, a.token, [
      { name: 'name', value: 'Probe W loc' },
      textFile('description'),
    ]);
    expect(put.status).toBe(422);
    expect(put.json).toEqual(unprocessable({ description: ['The description field must be a string.'] }));
    const stored = await t.db.prisma.location.findUniqueOrThrow({ where: { id: a.location_id } });
    expect(stored.description).toBeNull();

    // A required string field: a file is present (required passes) but no string.
    const post = await sendParts('POST', '/api/v1/locations', a.token, [textFile('name')]);
    expect(post.status).toBe(422);
    expect(post.json).toEqual(unprocessable({ name: ['The name field must be a string.'] }));

    const guest = await sendParts('POST', '/api/v1/guests', a.token, [
      { name: 'location_id', value: a.location_id },
      { ...textFile('name'), type: 'image/png' },
    ]);
    expect(guest.status).toBe(422);
    expect(guest.json).toEqual(unprocessable({ name: ['The name field must be a string.'] }));
  });

  it('is sized in kilobytes by a text field’s size rules, as Laravel sizes an UploadedFile', async () => {
    const a = await newTenant(t.db.prisma);
    // `size:2`: 5 bytes are not 2 KB.
    const code = await sendParts('PUT', `/api/v1/locations/${a.location_id}`, a.token, [
      { name: 'name', value: 'Probe K loc' },
      textFile('country_code'),
    ]);
    expect(code.status).toBe(422);
    expect(code.json).toEqual(
      unprocessable({
        country_code: [
          'The country code field must be a string.',
          'The country code field must be 2 kilobytes.',
          'The selected country code is invalid.',
        ],
      }),
    );
    // A location's name is `max:50`: 51 KB is more; 50 KB exactly is not.
    for (const [kb, errors] of [
      [51, ['The name field must be a string.', 'The name field must not be greater than 50 kilobytes.']],
      [50, ['The name field must be a string.']],
    ] as const) {
      const big = await sendParts('POST', '/api/v1/locations', a.token, [
        { ...textFile('name'), file: Buffer.alloc(kb * 1024, 'a') },
      ]);
      expect(big.status).toBe(422);
      expect(big.json).toEqual(unprocessable({ name: [...errors] }));
    }
  });

  it('wins over a text field of the same name, before or after it (files are laid over the fields)', async () => {
    const a = await newTenant(t.db.prisma);
    for (const parts of [
      [{ name: 'name', value: 'Text first' }, textFile('name')],
      [textFile('name'), { name: 'name', value: 'Text after' }],
    ]) {
      const res = await sendParts('POST', '/api/v1/locations', a.token, parts);
      expect(res.status).toBe(422);
      expect(res.json.errors).toEqual({ name: ['The name field must be a string.'] });
    }
  });

  it('every route whose body takes an avatar lists it in fileFields (its file part read as the avatar, and documented)', () => {
    let avatars = 0;
    for (const r of routeTable) {
      const body = typeof r.endpoint.body === 'function' ? r.endpoint.body() : r.endpoint.body;
      for (const [name, rules] of Object.entries(body ?? {})) {
        if (!rules.some((rule) => rule.name === 'avatar')) continue;
        avatars++;
        expect(r.endpoint.fileFields, `${r.method} ${r.path}`).toContain(name);
      }
    }
    expect(avatars).toBeGreaterThan(0);
  });
});

describe.concurrent('query strings and form bodies', () => {
  it('let a plain value replace a list: ?name[]=a&name=Probe filters by "Probe"', async () => {
    const a = await newTenant(t.db.prisma);
    await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Probe Hall' } });
    const res = await t.request('GET', '/api/v1/locations?name[]=a&name=Probe', { token: a.token });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.map((l: { name: string }) => l.name)).toEqual(['Probe Hall']);
  });

  it('reads integer keys as a list in PHP’s order, sparse ones too (an array_filter’ed list)', async () => {
    const a = await newTenant(t.db.prisma);
    // The usual lists keep their messages.
    const list = await t.request('GET', '/api/v1/events?types[]=guest.created&types[]=bogus', {
      token: a.token,
    });
    expect(list.status).toBe(422);
    expect(list.json).toEqual(unprocessable({ 'types.1': ['The selected types.1 (bogus) is invalid.'] }));
    const indexed = await t.request('GET', '/api/v1/events?types[0]=guest.created&types[1]=bogus', {
      token: a.token,
    });
    expect(indexed.json).toEqual(list.json);
    // Sparse keys, or `types[]` after `types[5]` (key 6): a list all the same, named by position.
    const sparse = await t.request('GET', '/api/v1/events?types[0]=guest.created&types[2]=location.created', {
      token: a.token,
    });
    expect(sparse.status, sparse.text).toBe(200);
    const late = await t.request('GET', '/api/v1/events?types[]=guest.created&types[5]=bogus&types[]=zz', {
      token: a.token,
    });
    expect(late.json).toEqual(
      unprocessable({
        'types.1': ['The selected types.1 (bogus) is invalid.'],
        'types.2': ['The selected types.2 (zz) is invalid.'],
      }),
    );
  });

  it('decode every valid escape: Caf%C3%A9+Bar is stored and found as "Café Bar"; a byte that is no UTF-8 is U+FFFD', async () => {
    const a = await newTenant(t.db.prisma);
    const created = await t.request('POST', '/api/v1/locations', {
      token: a.token,
      headers: FORM,
      rawBody: 'name=Caf%C3%A9+Bar',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.data.name).toBe('Café Bar');
    const found = await t.request('GET', '/api/v1/locations?name=Caf%C3%A9+B', { token: a.token });
    expect(found.json.data.map((l: { name: string }) => l.name)).toEqual(['Café Bar']);
    const invalid = await t.request('POST', '/api/v1/locations', {
      token: a.token,
      headers: FORM,
      rawBody: 'name=Caf%C3%A9+Bar%E9',
    });
    expect(invalid.status, invalid.text).toBe(201);
    expect(invalid.json.data.name).toBe('Café Bar\uFFFD');
  });

  it('keep PHP’s bounds: 64 levels of nesting (deeper drops the variable), 1000 variables', async () => {
    const a = await newTenant(t.db.prisma);
    const nested = (levels: number) => `per_page${'[a]'.repeat(levels)}=5`;
    const at64 = await t.request('GET', `/api/v1/locations?${nested(64)}`, { token: a.token });
    expect(at64.status).toBe(422);
    expect(at64.json.errors.per_page[0]).toBe('The per page field must be an integer.');
    const at65 = await t.request('GET', `/api/v1/locations?${nested(65)}`, { token: a.token });
    expect(at65.status, at65.text).toBe(200);
    expect(at65.json.meta.per_page).toBe(10);

    const filler = (n: number) => Array.from({ length: n }, (_, i) => `x${i}=1`).join('&');
    const counted = await t.request('GET', `/api/v1/locations?${filler(999)}&per_page=abc`, {
      token: a.token,
    });
    expect(counted.status).toBe(422);
    const past = await t.request('GET', `/api/v1/locations?${filler(1000)}&per_page=abc`, { token: a.token });
    expect(past.status, past.text).toBe(200);
  });
});

describe('a file input left empty', () => {
  it('sends no file (UPLOAD_ERR_NO_FILE): an optional avatar passes, and an edit keeps the avatar there', async () => {
    const a = await newTenant(t.db.prisma);
    const boundary = `----e${randomBytes(6).toString('hex')}`;
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="location_id"\r\n\r\n${a.location_id}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nNo photo\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename=""\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n\r\n--${boundary}--\r\n`,
    );
    const res = await sendRaw(
      'POST',
      '/api/v1/guests',
      a.token,
      body,
      `multipart/form-data; boundary=${boundary}`,
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.name).toBe('No photo');
    expect(res.json.data.image_url).toBeNull();
    // An edit form saved without choosing a new file: the avatar stays.
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(64, 7),
    ]);
    const withAvatar = await t.request('PUT', `/api/v1/guests/${res.json.data.id}`, {
      token: a.token,
      body: {
        name: 'Photo',
        location_id: a.location_id,
        avatar: `data:image/png;base64,${png.toString('base64')}`,
      },
    });
    expect(withAvatar.status, withAvatar.text).toBe(200);
    const url = withAvatar.json.data.image_url;
    expect(url).toEqual(expect.any(String));
    const edited = await sendRaw(
      'PUT',
      `/api/v1/guests/${res.json.data.id}`,
      a.token,
      Buffer.from(body.toString('latin1').replace('No photo', 'Renamed'), 'latin1'),
      `multipart/form-data; boundary=${boundary}`,
    );
    expect(edited.status, edited.text).toBe(200);
    expect(edited.json.data.name).toBe('Renamed');
    expect(edited.json.data.image_url).toBe(url);
  });
});

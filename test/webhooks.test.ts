// Webhook endpoints (beyond the spec): POST/GET/PUT/DELETE /webhooks, /webhooks/count, the test ping,
// the deliveries list and replay's validation, the secret's rotation, and GraphQL `webhooks`,
// `createWebhook`, `updateWebhook`, `deleteWebhook`, `testWebhook`, `rotateWebhookSecret`. The secret is shown once and stored recoverable
// (sealed under WEBHOOKS_SECRETS_KEY when set); every bad field answers Laravel's message (an unknown
// event type named); the SSRF rule refuses non-public targets at creation; tenant admins only; another
// tenant's endpoints and attempts are out of reach on both transports. Delivery itself:
// test/webhooks.delivery.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../src/events/event-types.js';
import { openSecret, sealSecret } from '../src/events/webhook-secret.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { isoMicros } from '../src/shared/format.js';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';
import { unprocessable as unprocessableBody } from './helpers/laravel.js';
import { besideWriter } from './helpers/lock-waits.js';
import { type ScratchDatabase, scratchDatabase } from './helpers/scratch-database.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const KEY = 'test-key-of-at-least-thirty-two-characters';
let scratch: ScratchDatabase;
let t: TestApp;
let strict: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  // A database of its own: a delivering server of another test file (shutdown, fleet) on the shared
  // one would otherwise send these endpoints their events and add attempts the tests count.
  scratch = await scratchDatabase('webhooks_api');
  t = await startApp({ WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_SECRETS_KEY: KEY }, { db: scratch.db });
  // The same database without WEBHOOKS_ALLOW_PRIVATE: the SSRF rule applies.
  strict = await startApp({ WEBHOOKS_SECRETS_KEY: KEY }, { db: t.db });
  // `/fail` answers 503; `/hold` keeps the request open until the test releases it.
  receiver = await startReceiver((r) =>
    r.path.endsWith('/fail') ? 503 : r.path.endsWith('/hold') ? 'hold' : 204,
  );
});
afterAll(async () => {
  await strict?.close();
  await t?.close();
  await receiver?.close();
  await scratch?.drop();
});

const URL = '/api/v1/webhooks';
const FORBIDDEN = '{"message":"This action is unauthorized."}';
const NOT_FOUND = '{"error":"Record not found."}';
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

const tenant = () => newTenant(t.db.prisma);
const php = (value: unknown): string => JSON.stringify(value).replaceAll('/', '\\/');
const unprocessable = (errors: Record<string, string[]>) => php(unprocessableBody(errors));
const ids = (res: TestResponse) => res.json.data.map((x: { id: string }) => x.id);

/** The REST item of an endpoint, keys in order, from its row. */
async function item(id: string): Promise<Record<string, unknown>> {
  const w = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id } });
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    is_active: w.isActive,
    disabled_reason: w.disabledReason,
    disabled_at: isoMicros(w.disabledAt),
    secret_rotated_at: isoMicros(w.secretRotatedAt),
    previous_secret_expires_at: isoMicros(w.previousSecretExpiresAt),
    created_at: isoMicros(w.createdAt),
    updated_at: isoMicros(w.updatedAt),
  };
}

async function create(token: string, body: Record<string, unknown>, app: TestApp = t) {
  const res = await app.request('POST', URL, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; secret: string; [key: string]: unknown };
}

// biome-ignore lint/suspicious/noExplicitAny: GraphQL bodies are asserted against literals.
const data = (res: TestResponse): any => {
  expect(res.json?.errors, res.text).toBeUndefined();
  return res.json.data;
};
const errorCodes = (res: TestResponse): unknown[] =>
  ((res.json?.errors ?? []) as { extensions?: { code?: string } }[]).map((e) => e.extensions?.code);

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /webhooks', () => {
  it('201 with the endpoint and its secret once; stored sealed, recoverable; the list never shows it', async () => {
    const a = await tenant();
    const res = await t.request('POST', URL, {
      token: a.token,
      body: { url: `  ${receiver.url}  `, events: ['guest.created', 'guest.updated'], description: ' CRM ' },
    });
    expect(res.status, res.text).toBe(201);
    const created = res.json.data;
    expect(created.secret).toMatch(SECRET);
    const { id, url, events, description, ...rest } = await item(created.id);
    expect(res.text).toBe(php({ data: { id, url, events, description, secret: created.secret, ...rest } }));
    expect(created).toMatchObject({
      url: receiver.url,
      events: ['guest.created', 'guest.updated'],
      description: 'CRM',
      is_active: true,
      disabled_reason: null,
    });
    // Sealed with AES-256-GCM under the key: not readable in the row, but recoverable for signing.
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secret).toMatch(/^aes-256-gcm:/);
    expect(row.secret).not.toContain(created.secret.slice(6, 20));
    expect(openSecret(row.secret, t.config.webhooks.secretsKey)).toBe(created.secret);
    const list = await t.request('GET', URL, { token: a.token });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.secret);
    expect(list.json.data).toEqual([await item(created.id)]);
  });

  it('without WEBHOOKS_SECRETS_KEY the secret is stored as it is (plain:)', async () => {
    const a = await tenant();
    const plain = await startApp({}, { db: t.db });
    try {
      const created = await create(a.token, { url: 'https://93.184.215.14/hook', events: ['*'] }, plain);
      const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: created.id } });
      expect(row.secret).toBe(`plain:${created.secret}`);
      expect(created).toMatchObject({ events: ['*'], description: null });
    } finally {
      await plain.close();
    }
  });

  it('every bad field answers Laravel’s message; an unknown event type is named', async () => {
    const a = await tenant();
    const bad = async (body: unknown, errors: Record<string, string[]>) => {
      const res = await t.request('POST', URL, { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.text, JSON.stringify(body)).toBe(unprocessable(errors));
    };
    await bad({}, { url: ['The url field is required.'], events: ['The events field is required.'] });
    await bad(
      { url: 'not a url', events: 'guest.created', description: 'x'.repeat(256) },
      {
        url: ['The url field must be a valid URL.'],
        events: ['The events field must be an array.'],
        description: ['The description field must not be greater than 255 characters.'],
      },
    );
    for (const url of [
      'http:///x',
      'https:////example.com/x',
      'http://\\example.com/x',
      'http://?x',
      'http://#x',
      // Read as host 8.8.8.8 (WHATWG reads a backslash as a slash) while a person reads 127.0.0.1.
      'http://8.8.8.8\\@127.0.0.1:4548/s4',
      'http://example.com/a\\b',
    ]) {
      await bad({ url, events: ['*'] }, { url: ['The url field must be a valid URL.'] });
    }
    await bad(
      { url: 'ftp://example.com/x', events: [] },
      {
        url: ['The url field must be a valid URL.'],
        events: ['The events field is required.'],
      },
    );
    await bad(
      { url: `https://example.com/${'a'.repeat(2048)}`, events: ['guest.created', 'guest.born'] },
      {
        url: ['The url field must not be greater than 2048 characters.'],
        'events.1': ['The selected events.1 (guest.born) is invalid.'],
      },
    );
    await bad(
      { url: 123, events: ['guest.created', 'guest.created'] },
      {
        url: ['The url field must be a string.', 'The url field must be a valid URL.'],
        'events.0': ['The events.0 field has a duplicate value.'],
        'events.1': ['The events.1 field has a duplicate value.'],
      },
    );
    // Every bad element, each under its own key, as Laravel's `events.*` rules answer.
    await bad(
      { url: receiver.url, events: ['guest.born', 'guest.created', 'guest.created', 5, null, ['x']] },
      {
        'events.0': ['The selected events.0 (guest.born) is invalid.'],
        'events.1': ['The events.1 field has a duplicate value.'],
        'events.2': ['The events.2 field has a duplicate value.'],
        'events.3': ['The events.3 field must be a string.', 'The selected events.3 is invalid.'],
        'events.4': ['The events.4 field must be a string.', 'The selected events.4 is invalid.'],
        'events.5': ['The events.5 field must be a string.', 'The selected events.5 is invalid.'],
      },
    );
    await bad(
      { url: receiver.url, events: ['*', 'guest.created'] },
      {
        'events.0': ['The events.0 field must be the only item when it is "*".'],
      },
    );
    await bad(
      { url: receiver.url, events: [1] },
      { 'events.0': ['The events.0 field must be a string.', 'The selected events.0 is invalid.'] },
    );
    await bad(
      { url: receiver.url, events: { a: 'guest.created' } },
      {
        events: ['The events field must be an array.'],
      },
    );
    await bad({ url: 'http://', events: ['*'] }, { url: ['The url field must be a valid URL.'] });
    expect(await t.db.prisma.webhook.count({ where: { tenantId: a.tenant_id } })).toBe(0);
  });

  it('every event type is accepted, and "*"', async () => {
    const a = await tenant();
    const all = await create(a.token, { url: receiver.url, events: [...EVENT_TYPES] });
    expect(all.events).toEqual([...EVENT_TYPES]);
  });

  it('SSRF: a loopback, private, link-local, CGNAT, unspecified or mapped target is refused; an unresolvable host too', async () => {
    const a = await tenant();
    const notPublic = unprocessable({
      url: ['The url field must not point to a loopback, private, link-local or other non-public address.'],
    });
    for (const url of [
      receiver.url,
      'http://localhost:8080/x',
      'http://10.0.0.8/x',
      'http://172.16.5.4/x',
      'http://192.168.1.1/x',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/x',
      'http://0.0.0.0/x',
      'http://224.0.0.1/x',
      'http://[::1]/x',
      'http://[fd00::1]/x',
      'http://[fe80::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://[::ffff:8.8.8.8]/x',
      'http://[::127.0.0.1]/x',
      'http://192.0.2.1/x',
    ]) {
      const res = await strict.request('POST', URL, { token: a.token, body: { url, events: ['*'] } });
      expect(res.status, url).toBe(422);
      expect(res.text, url).toBe(notPublic);
    }
    const unresolvable = await strict.request('POST', URL, {
      token: a.token,
      body: { url: 'https://no-such-host.invalid/x', events: ['*'] },
    });
    expect(unresolvable.text).toBe(unprocessable({ url: ['The url field must be a valid URL.'] }));
    // An update to such a target is refused the same way.
    const ok = await create(a.token, { url: 'https://93.184.215.14/hook', events: ['*'] }, strict);
    const moved = await strict.request('PUT', `${URL}/${ok.id}`, {
      token: a.token,
      body: { url: 'http://127.0.0.1:9/x' },
    });
    expect(moved.text).toBe(notPublic);
    expect(await t.db.prisma.webhook.count({ where: { tenantId: a.tenant_id } })).toBe(1);
  });

  it('venue and front-desk users may not manage webhooks; a read token may list them only', async () => {
    const a = await tenant();
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const desk = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    for (const token of [venue.token, desk.token]) {
      for (const [method, url] of [
        ['GET', URL],
        ['GET', `${URL}/count`],
        ['POST', URL],
        ['PUT', `${URL}/${hook.id}`],
        ['DELETE', `${URL}/${hook.id}`],
        ['POST', `${URL}/${hook.id}/test`],
        ['GET', `${URL}/${hook.id}/deliveries`],
        ['POST', `${URL}/${hook.id}/replay`],
        ['POST', `${URL}/${hook.id}/rotate-secret`],
      ] as const) {
        const res = await t.request(method, url, { token, body: {} });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.text).toBe(FORBIDDEN);
      }
    }
    const { token: read } = await issueToken(t.db.prisma, a.user_id, ['read']);
    expect((await t.request('GET', URL, { token: read })).status).toBe(200);
    expect((await t.request('GET', `${URL}/${hook.id}/deliveries`, { token: read })).status).toBe(200);
    expect(
      (await t.request('POST', URL, { token: read, body: { url: receiver.url, events: ['*'] } })).status,
    ).toBe(403);
    expect((await t.request('POST', `${URL}/${hook.id}/test`, { token: read })).status).toBe(403);
    expect((await t.request('POST', `${URL}/${hook.id}/rotate-secret`, { token: read })).status).toBe(403);
    expect(await t.db.prisma.webhook.count({ where: { id: hook.id, secretRotatedAt: null } })).toBe(1);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GET /webhooks and /webhooks/count', () => {
  it('lists the tenant’s endpoints oldest first in the exact envelope; filters url and is_active; counts follow', async () => {
    const a = await tenant();
    const b = await tenant();
    const one = await create(a.token, { url: `${receiver.url}/one`, events: ['guest.created'] });
    const two = await create(a.token, { url: `${receiver.url}/TWO`, events: ['*'], description: 'All' });
    await create(b.token, { url: `${receiver.url}/one`, events: ['*'] });
    await t.request('PUT', `${URL}/${two.id}`, { token: a.token, body: { is_active: false } });
    const res = await t.request('GET', `${URL}?per_page=1`, { token: a.token });
    expect(res.status).toBe(200);
    const link = String.raw`http:\/\/localhost\/api\/v1\/webhooks`;
    expect(res.text).toBe(
      `{"data":[${php(await item(one.id))}],"links":{"first":"${link}?per_page=1&page=1","last":null,"prev":null,"next":"${link}?per_page=1&page=2"},"meta":{"current_page":1,"from":1,"to":1,"path":"${link}","per_page":1}}`,
    );
    expect(ids(await t.request('GET', URL, { token: a.token }))).toEqual([one.id, two.id]);
    expect(ids(await t.request('GET', `${URL}?url=two`, { token: a.token }))).toEqual([two.id]);
    expect(ids(await t.request('GET', `${URL}?is_active=true`, { token: a.token }))).toEqual([one.id]);
    expect(ids(await t.request('GET', `${URL}?is_active=0`, { token: a.token }))).toEqual([two.id]);
    expect((await t.request('GET', `${URL}/count`, { token: a.token })).text).toBe('{"count":2}');
    expect((await t.request('GET', `${URL}/count?is_active=false`, { token: a.token })).text).toBe(
      '{"count":1}',
    );
    const bad = await t.request('GET', `${URL}?is_active=maybe`, { token: a.token });
    expect(bad.text).toBe(unprocessable({ is_active: ['The is active field must be true or false.'] }));
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('PUT /webhooks/:id and DELETE /webhooks/:id', () => {
  it('changes the fields sent; disables (manual) and enables again; an unchanged update writes no event', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['guest.created'], description: 'CRM' });
    const res = await t.request('PUT', `${URL}/${hook.id}`, {
      token: a.token,
      body: { events: ['*'], description: null },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(php({ data: await item(hook.id) }));
    expect(res.json.data).toMatchObject({
      url: receiver.url,
      events: ['*'],
      description: null,
      is_active: true,
    });
    const off = await t.request('PUT', `${URL}/${hook.id}`, { token: a.token, body: { is_active: false } });
    expect(off.json.data).toMatchObject({ is_active: false, disabled_reason: 'manual' });
    expect(off.json.data.disabled_at).toMatch(/Z$/);
    // Laravel's `boolean` in a body: `"1"` is true, the word `"true"` is no boolean (probe Z).
    const word = await t.request('PUT', `${URL}/${hook.id}`, { token: a.token, body: { is_active: 'true' } });
    expect(word.status).toBe(422);
    expect(word.json.errors).toEqual({ is_active: ['The is active field must be true or false.'] });
    const on = await t.request('PUT', `${URL}/${hook.id}`, { token: a.token, body: { is_active: '1' } });
    expect(on.json.data).toMatchObject({ is_active: true, disabled_reason: null, disabled_at: null });
    const same = await t.request('PUT', `${URL}/${hook.id}`, {
      token: a.token,
      body: { is_active: true, events: ['*'], description: null, url: receiver.url },
    });
    expect(same.status).toBe(200);
    // Nothing differed: nothing written, `updated_at` included.
    expect(same.text).toBe(on.text);
    // Events and audit entries: created, then three updates (the last changed nothing: none).
    const events = await t.db.prisma.event.findMany({
      where: { tenantId: a.tenant_id, resourceId: hook.id },
      orderBy: { id: 'asc' },
    });
    expect(events.map((e) => e.type)).toEqual([
      'webhook.created',
      'webhook.updated',
      'webhook.updated',
      'webhook.updated',
    ]);
    expect(JSON.stringify(events.map((e) => e.payload))).not.toContain(hook.secret);
    const audit = await t.db.prisma.auditLog.findMany({
      where: { tenantId: a.tenant_id, resourceId: hook.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(audit.map((e) => e.action)).toEqual([
      'webhooks.create',
      'webhooks.update',
      'webhooks.update',
      'webhooks.update',
    ]);
    // A creation names the fields it set; the id and the times are the entry's own (not changes).
    expect(audit[0]?.changes).toEqual({
      url: { old: null, new: receiver.url },
      events: { old: null, new: ['guest.created'] },
      description: { old: null, new: 'CRM' },
      is_active: { old: null, new: true },
    });
    expect(audit[1]?.changes).toEqual({
      events: { old: ['guest.created'], new: ['*'] },
      description: { old: 'CRM', new: null },
    });
    const bad = await t.request('PUT', `${URL}/${hook.id}`, {
      token: a.token,
      body: { url: null, events: [], is_active: 'yes' },
    });
    // Sent empty, a field the update may leave out is required, as Laravel's `sometimes|required`.
    expect(bad.text).toBe(
      unprocessable({
        url: ['The url field is required.'],
        events: ['The events field is required.'],
        is_active: ['The is active field must be true or false.'],
      }),
    );
    for (const events of [null, [], '']) {
      const empty = await t.request('PUT', `${URL}/${hook.id}`, { token: a.token, body: { events } });
      expect(empty.text, JSON.stringify(events)).toBe(
        unprocessable({ events: ['The events field is required.'] }),
      );
    }
    const gql = await t.graphql(
      a.token,
      'mutation($id: ID!) { updateWebhook(id: $id, input: { events: [] }) { id } }',
      { id: hook.id },
    );
    expect(gql.json.errors?.[0]?.message).toBe('The events field is required.');
  });

  it('a URL’s credentials: whole in the list, "[redacted]@" in events and audit entries; a new password alone is still an entry', async () => {
    const a = await tenant();
    const port = new globalThis.URL(receiver.url).port;
    const withPassword = (pass: string) => `http://partner:${pass}@127.0.0.1:${port}/hooks/creds`;
    const hook = await create(a.token, { url: withPassword('s3cret%40x'), events: ['*'] });
    expect(hook.url).toBe(withPassword('s3cret%40x'));
    const list = await t.request('GET', URL, { token: a.token });
    expect(list.json.data[0].url).toBe(withPassword('s3cret%40x'));
    const changed = await t.request('PUT', `${URL}/${hook.id}`, {
      token: a.token,
      body: { url: withPassword('n3w'), description: 'rotated' },
    });
    expect(changed.status, changed.text).toBe(200);

    const shown = `http://[redacted]@127.0.0.1:${port}/hooks/creds`;
    const events = await t.request('GET', '/api/v1/events', { token: a.token });
    const ofHook = events.json.data.filter((e: { resource_id: string }) => e.resource_id === hook.id);
    expect(ofHook.map((e: { type: string; payload: { url: string } }) => [e.type, e.payload.url])).toEqual([
      ['webhook.created', shown],
      ['webhook.updated', shown],
    ]);
    const audit = await t.request('GET', `/api/v1/audit-logs?resource_id=${hook.id}`, { token: a.token });
    expect(
      audit.json.data.map((e: { action: string; changes: Record<string, unknown> }) => [
        e.action,
        e.changes.url,
      ]),
    ).toEqual([
      ['webhooks.update', { old: shown, new: shown }],
      ['webhooks.create', { old: null, new: shown }],
    ]);
    // In the resource's key order, `url` before `description`, as for any other change of it.
    expect(Object.keys(audit.json.data[0].changes)).toEqual(['url', 'description']);
    for (const text of [events.text, audit.text]) {
      expect(text).not.toContain('s3cret');
      expect(text).not.toContain('n3w');
    }
  });

  it('DELETE answers 204 and the endpoint is gone (404 after); its attempts and stream with it; the event stays', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    expect(await t.db.prisma.webhookStream.count({ where: { webhookId: hook.id } })).toBe(1);
    expect((await t.request('POST', `${URL}/${hook.id}/test`, { token: a.token })).status).toBe(200);
    const res = await t.request('DELETE', `${URL}/${hook.id}`, { token: a.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.request('DELETE', `${URL}/${hook.id}`, { token: a.token })).text).toBe(NOT_FOUND);
    expect(await t.db.prisma.webhookAttempt.count({ where: { webhookId: hook.id } })).toBe(0);
    expect(await t.db.prisma.webhookStream.count({ where: { webhookId: hook.id } })).toBe(0);
    const events = await t.db.prisma.event.findMany({
      where: { tenantId: a.tenant_id, resourceId: hook.id },
    });
    expect(events.map((e) => e.type).sort()).toEqual(['webhook.created', 'webhook.deleted']);
  });

  it('another tenant’s endpoint is 404 for every operation, and stays as it was (REST)', async () => {
    const a = await tenant();
    const b = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    for (const [method, url, body] of [
      ['PUT', `${URL}/${hook.id}`, { description: 'mine' }],
      ['DELETE', `${URL}/${hook.id}`, undefined],
      ['POST', `${URL}/${hook.id}/test`, undefined],
      ['GET', `${URL}/${hook.id}/deliveries`, undefined],
      ['POST', `${URL}/${hook.id}/replay`, { since_event_id: 1 }],
      ['POST', `${URL}/${hook.id}/rotate-secret`, {}],
      ['POST', `${URL}/unknown/rotate-secret`, {}],
      ['PUT', `${URL}/unknown`, { description: 'x' }],
    ] as const) {
      const res = await t.request(method, url, { token: b.token, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.text).toBe(NOT_FOUND);
    }
    expect((await t.request('GET', URL, { token: b.token })).json.data).toEqual([]);
    expect(await item(hook.id)).toMatchObject({
      description: null,
      is_active: true,
      secret_rotated_at: null,
    });
    expect(receiver.received.filter((r) => r.json?.data?.webhook_id === hook.id)).toEqual([]);
  });
});

// -------------------------------------------------------------------------------------------------
// Two connections at once: on PGlite every transaction has the one connection to itself.
describe.skipIf(!process.env.TEST_DATABASE_URL)('DELETE /webhooks/:id in a deadlock', () => {
  it('is run again when PostgreSQL ends it for a deadlock with a writer of its attempts: 204', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['guest.created'] });
    const [event] = await t.db.prisma.$queryRaw<{ id: bigint }[]>`
      INSERT INTO "Event" ("tenantId", "id", "type", "actorType", "resourceType", "resourceId", "payload")
      VALUES (${a.tenant_id}, 900001, 'guest.created', 'system', 'guest', 'g', '{}') RETURNING "id"`;
    const [delivery] = await t.db.prisma.$queryRaw<{ id: bigint }[]>`
      INSERT INTO "WebhookDelivery" ("tenantId", "webhookId", "eventId", "eventType", "status")
      VALUES (${a.tenant_id}, ${hook.id}, ${event?.id}, 'guest.created', 'failed') RETURNING "id"`;
    // A second client stands for the delivery worker: it holds the delivery, then logs an attempt
    // of the endpoint while the deletion waits for that delivery. Its own deadlock check comes
    // late, so PostgreSQL ends the deletion's transaction.
    const res = await besideWriter(scratch.url as string, {
      before: [['SELECT 1 FROM "WebhookDelivery" WHERE "id" = $1 FOR UPDATE', [delivery?.id]]],
      request: () => t.request('DELETE', `${URL}/${hook.id}`, { token: a.token }),
      waiting: 'DELETE%',
      after: [
        [
          `INSERT INTO "WebhookAttempt" ("id", "tenantId", "webhookId", "eventType", "messageId", "attempt", "status", "durationMs")
         VALUES ($1, $2, $3, 'guest.created', 'm', 1, 'failed', 1)`,
          [`deadlock-${Date.now()}`, a.tenant_id, hook.id],
        ],
      ],
    });
    expect([res.status, res.text]).toEqual([204, '']);
    expect(await t.db.prisma.webhook.count({ where: { id: hook.id } })).toBe(0);
    expect(await t.db.prisma.webhookAttempt.count({ where: { webhookId: hook.id } })).toBe(0);
  });
});

describe.concurrent('POST /webhooks/:id/test and GET /webhooks/:id/deliveries', () => {
  it('sends a signed webhook.test ping now and answers the attempt; the deliveries list shows it', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['guest.created'] });
    const res = await t.request('POST', `${URL}/${hook.id}/test`, { token: a.token });
    expect(res.status, res.text).toBe(200);
    const attempt = res.json.data;
    expect(attempt).toMatchObject({
      event_id: null,
      event_type: 'webhook.test',
      attempt: 1,
      status: 'succeeded',
      status_code: 204,
      error: null,
      next_retry_at: null,
    });
    expect(attempt.message_id).toMatch(/^msg_test_/);
    const got = receiver.received.find((r) => r.id === attempt.message_id);
    expect(got).toBeDefined();
    expect(receiver.verify(got as never, hook.secret)).toMatchObject({
      type: 'webhook.test',
      event_id: null,
      tenant_id: a.tenant_id,
      data: { webhook_id: hook.id },
    });
    const list = await t.request('GET', `${URL}/${hook.id}/deliveries`, { token: a.token });
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([attempt]);
    expect(list.text).toContain(`"data":[${php(attempt)}]`);
  });

  it('an endpoint deleted while its ping is under way: the ping answers 404, nothing is logged', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: `${receiver.url}/hold`, events: ['*'] });
    const ping = t.request('POST', `${URL}/${hook.id}/test`, { token: a.token });
    await receiver.waitFor((all) => all.some((r) => r.json?.data?.webhook_id === hook.id));
    const gone = await t.request('DELETE', `${URL}/${hook.id}`, { token: a.token });
    expect(gone.status, gone.text).toBe(204);
    receiver.release(204);
    const res = await ping;
    expect(res.status, res.text).toBe(404);
    expect(res.text).toBe(NOT_FOUND);
    expect(await t.db.prisma.webhookAttempt.count({ where: { webhookId: hook.id } })).toBe(0);
  });

  it('a failing receiver: the attempt says so (status code, error); the status filter; bad filters are 422', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: `${receiver.url}/fail`, events: ['*'] });
    const failed = await t.request('POST', `${URL}/${hook.id}/test`, { token: a.token });
    expect(failed.json.data).toMatchObject({ status: 'failed', status_code: 503, error: 'HTTP 503' });
    const closed = await create(a.token, { url: 'http://127.0.0.1:9/closed', events: ['*'] });
    const refused = await t.request('POST', `${URL}/${closed.id}/test`, { token: a.token });
    expect(refused.json.data).toMatchObject({ status: 'failed', status_code: null });
    expect(refused.json.data.error).toMatch(/ECONNREFUSED/);
    await t.request('PUT', `${URL}/${hook.id}`, { token: a.token, body: { url: receiver.url } });
    const ok = await t.request('POST', `${URL}/${hook.id}/test`, { token: a.token });
    const all = await t.request('GET', `${URL}/${hook.id}/deliveries`, { token: a.token });
    expect(ids(all)).toEqual([ok.json.data.id, failed.json.data.id]);
    expect(
      ids(await t.request('GET', `${URL}/${hook.id}/deliveries?status=failed`, { token: a.token })),
    ).toEqual([failed.json.data.id]);
    expect(
      ids(
        await t.request('GET', `${URL}/${hook.id}/deliveries?event_type=webhook.test&status=succeeded`, {
          token: a.token,
        }),
      ),
    ).toEqual([ok.json.data.id]);
    expect(
      ids(await t.request('GET', `${URL}/${hook.id}/deliveries?event_id=1`, { token: a.token })),
    ).toEqual([]);
    const bad = await t.request(
      'GET',
      `${URL}/${hook.id}/deliveries?status=dead&event_id=x&event_type=guest.born`,
      {
        token: a.token,
      },
    );
    expect(bad.text).toBe(
      unprocessable({
        status: ['The selected status is invalid.'],
        event_id: ['The event id field must be an integer.'],
        event_type: ['The selected event type is invalid.'],
      }),
    );
  });

  it('a refused target (WEBHOOKS_ALLOW_PRIVATE off) is a failed attempt that names the address; nothing is sent', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: `${receiver.url}/strict`, events: ['*'] });
    const before = receiver.received.length;
    const res = await strict.request('POST', `${URL}/${hook.id}/test`, { token: a.token });
    expect(res.json.data).toMatchObject({
      status: 'failed',
      status_code: null,
      error: 'refused: 127.0.0.1 is a loopback address',
    });
    expect(receiver.received.slice(before).filter((r) => r.path.endsWith('/strict'))).toEqual([]);
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /webhooks/:id/replay: validation', () => {
  it('since_event_id or since, not both; until_event_id or until; Laravel’s messages', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const replay = (body: unknown) => t.request('POST', `${URL}/${hook.id}/replay`, { token: a.token, body });
    expect((await replay({})).text).toBe(
      unprocessable({
        since_event_id: ['The since event id field is required when since is not present.'],
        since: ['The since field is required when since event id is not present.'],
      }),
    );
    expect((await replay({ since_event_id: 1, since: '2026-01-01T00:00:00Z' })).text).toBe(
      unprocessable({ since_event_id: ['The since event id field prohibits since from being present.'] }),
    );
    expect((await replay({ since_event_id: 0, until_event_id: 'x', until: '2026-02-30' })).text).toBe(
      unprocessable({
        since_event_id: ['The since event id field must be at least 1.'],
        until_event_id: [
          'The until event id field prohibits until from being present.',
          'The until event id field must be an integer.',
        ],
        until: ['The until field must be a valid date.'],
      }),
    );
    // An inverted range is refused, as audit logs' `from`/`to` is.
    expect((await replay({ since_event_id: 5, until_event_id: 2 })).text).toBe(
      unprocessable({ until_event_id: ['The until event id field must be greater than or equal to 5.'] }),
    );
    expect((await replay({ since: '2026-11-28T10:00:00Z', until: '2026-11-28T09:59:59Z' })).text).toBe(
      unprocessable({ until: ['The until field must be a date after or equal to since.'] }),
    );
    // Within one second too (probe T: the fraction was dropped, so this passed).
    expect(
      (await replay({ since: '2026-11-28T19:30:00.500Z', until: '2026-11-28T19:30:00.200Z' })).text,
    ).toBe(unprocessable({ until: ['The until field must be a date after or equal to since.'] }));
    const sameSecond = await replay({
      since: '2026-11-28T19:30:00.2001Z',
      until: '2026-11-28T19:30:00.2009Z',
    });
    expect(sameSecond.status, sameSecond.text).toBe(200);
    const same = await replay({ since_event_id: 5, until_event_id: 5 });
    expect(same.status, same.text).toBe(200);
    const none = await replay({ since: '2000-01-01T00:00:00Z', until: '2000-01-02' });
    expect(none.status, none.text).toBe(200);
    expect(none.text).toBe('{"count":0}');
  });

  it('since a moment past an event’s millisecond leaves that event out (the log keeps milliseconds)', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const replay = (body: unknown) => t.request('POST', `${URL}/${hook.id}/replay`, { token: a.token, body });
    const last = await t.db.prisma.event.findFirstOrThrow({
      where: { tenantId: a.tenant_id },
      orderBy: { id: 'desc' },
    });
    const at = last.occurredAt.toISOString(); // `…18.137Z`
    const until = `${at.slice(0, 23)}9Z`;
    const from = await replay({ since: at, until });
    expect(from.json).toEqual({ count: 1 });
    // Probe Y: `.137001` was cut to `.137`, and the event of .137 sent again.
    const past = await replay({ since: `${at.slice(0, 23)}001Z`, until });
    expect(past.json).toEqual({ count: 0 });
    // Past the microsecond, digits are dropped as Carbon drops them: `.1370001` is `.137` exactly.
    const beyond = await replay({ since: `${at.slice(0, 23)}0001Z`, until });
    expect(beyond.json).toEqual({ count: 1 });
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('POST /webhooks/:id/rotate-secret', () => {
  const HOUR = 3_600_000;
  /** The signatures of the receiver's request with `messageId`, after a test ping. */
  async function ping(token: string, id: string) {
    const res = await t.request('POST', `${URL}/${id}/test`, { token });
    expect(res.status, res.text).toBe(200);
    const got = receiver.received.find((r) => r.id === res.json.data.message_id);
    if (!got) throw new Error('the ping did not arrive');
    return got;
  }
  const verifies = (got: Parameters<Receiver['verify']>[0], secret: string) => {
    try {
      receiver.verify(got, secret);
      return true;
    } catch {
      return false;
    }
  };

  it('two rotations at once take turns: the later keeps the earlier one’s secret as the previous', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const answers = await Promise.all(
      [1, 2].map(() => t.request('POST', `${URL}/${hook.id}/rotate-secret`, { token: a.token })),
    );
    for (const r of answers) expect(r.status, r.text).toBe(200);
    const secrets = answers.map((r) => r.json.data.secret as string);
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    const key = t.config.webhooks.secretsKey;
    const stored = [openSecret(row.secret, key), openSecret(row.previousSecret ?? '', key)];
    // Each answered secret signs: one is the current, the other the previous (not the first one's).
    expect(stored.sort()).toEqual([...secrets].sort());
  });

  it('changes, replays and tests sent beside a delete answer as before or after it: never 500', async () => {
    const a = await tenant();
    for (let round = 0; round < 3; round++) {
      const hook = await create(a.token, { url: receiver.url, events: ['*'] });
      const answers = await Promise.all([
        t.request('PUT', `${URL}/${hook.id}`, { token: a.token, body: { is_active: false } }),
        t.request('PUT', `${URL}/${hook.id}`, { token: a.token, body: { description: `r${round}` } }),
        t.request('POST', `${URL}/${hook.id}/replay`, { token: a.token, body: { since_event_id: 1 } }),
        t.request('POST', `${URL}/${hook.id}/rotate-secret`, { token: a.token }),
        t.request('DELETE', `${URL}/${hook.id}`, { token: a.token }),
        t.request('DELETE', `${URL}/${hook.id}`, { token: a.token }),
      ]);
      for (const r of answers) {
        expect([200, 204, 404], r.text).toContain(r.status);
        if (r.status === 404) expect(r.text).toBe('{"error":"Record not found."}');
      }
      expect(
        answers
          .slice(4)
          .map((r) => r.status)
          .sort(),
      ).toEqual([204, 404]);
    }
  });

  it('200 with a new secret once; the previous one signs beside it for 24 h by default; stored sealed', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const res = await t.request('POST', `${URL}/${hook.id}/rotate-secret`, { token: a.token });
    expect(res.status, res.text).toBe(200);
    const rotated = res.json.data;
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(hook.secret);
    const { id, url, events, description, ...rest } = await item(hook.id);
    expect(res.text).toBe(php({ data: { id, url, events, description, secret: rotated.secret, ...rest } }));
    const at = Date.parse(rotated.secret_rotated_at);
    expect(Math.abs(at - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(rotated.previous_secret_expires_at) - at).toBe(24 * HOUR);
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(row.secret).toMatch(/^aes-256-gcm:/);
    expect(openSecret(row.secret, t.config.webhooks.secretsKey)).toBe(rotated.secret);
    expect(openSecret(row.previousSecret ?? '', t.config.webhooks.secretsKey)).toBe(hook.secret);
    // Both sign: two `v1,` signatures, the new secret's first; a receiver with either verifies.
    const got = await ping(a.token, hook.id);
    const signatures = String(got.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((sig) => sig.startsWith('v1,'))).toBe(true);
    expect(verifies(got, rotated.secret)).toBe(true);
    expect(verifies(got, hook.secret)).toBe(true);
    // The list shows when, never a secret.
    const list = await t.request('GET', URL, { token: a.token });
    expect(list.json.data).toEqual([await item(hook.id)]);
    expect(list.text).not.toContain(rotated.secret);
    expect(list.text).not.toContain(hook.secret);
  });

  it('previous_secret_hours 0 stops the previous secret at once; a rotation drops what an earlier one kept', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const second = await t.request('POST', `${URL}/${hook.id}/rotate-secret`, {
      token: a.token,
      body: { previous_secret_hours: 1 },
    });
    expect(second.status, second.text).toBe(200);
    expect(
      Date.parse(second.json.data.previous_secret_expires_at) -
        Date.parse(second.json.data.secret_rotated_at),
    ).toBe(HOUR);
    const third = await t.request('POST', `${URL}/${hook.id}/rotate-secret`, {
      token: a.token,
      body: { previous_secret_hours: 24 },
    });
    let got = await ping(a.token, hook.id);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(got, third.json.data.secret)).toBe(true);
    expect(verifies(got, second.json.data.secret)).toBe(true);
    expect(verifies(got, hook.secret)).toBe(false);
    const fourth = await t.request('POST', `${URL}/${hook.id}/rotate-secret`, {
      token: a.token,
      body: { previous_secret_hours: 0 },
    });
    expect(fourth.status, fourth.text).toBe(200);
    expect(fourth.json.data.previous_secret_expires_at).toBeNull();
    got = await ping(a.token, hook.id);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(got, fourth.json.data.secret)).toBe(true);
    expect(verifies(got, third.json.data.secret)).toBe(false);
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect([row.previousSecret, row.previousSecretExpiresAt]).toEqual([null, null]);
  });

  it('an expired previous secret no longer signs', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const rotated = (await t.request('POST', `${URL}/${hook.id}/rotate-secret`, { token: a.token })).json
      .data;
    await t.db.prisma.webhook.update({
      where: { id: hook.id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    const got = await ping(a.token, hook.id);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(got, rotated.secret)).toBe(true);
    expect(verifies(got, hook.secret)).toBe(false);
  });

  it('a secret sealed under a key since lost is not kept as the previous one: the answer says none (probe Z1)', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const lostKey = Buffer.alloc(32, 7);
    await t.db.prisma.webhook.update({
      where: { id: hook.id },
      data: { secret: sealSecret(hook.secret, lostKey) },
    });
    const rotated = await t.request('POST', `${URL}/${hook.id}/rotate-secret`, {
      token: a.token,
      body: { previous_secret_hours: 5 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json.data.previous_secret_expires_at).toBeNull();
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect([row.previousSecret, row.previousSecretExpiresAt]).toEqual([null, null]);
    const got = await ping(a.token, hook.id);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(got, rotated.json.data.secret)).toBe(true);
  });

  it('previous_secret_hours: Laravel’s messages at and past its edges; nothing changes', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    for (const [value, message] of [
      [-1, 'The previous secret hours field must be at least 0.'],
      [169, 'The previous secret hours field must not be greater than 168.'],
      [1.5, 'The previous secret hours field must be an integer.'],
      ['soon', 'The previous secret hours field must be an integer.'],
      [[24], 'The previous secret hours field must be an integer.'],
    ] as const) {
      const res = await t.request('POST', `${URL}/${hook.id}/rotate-secret`, {
        token: a.token,
        body: { previous_secret_hours: value },
      });
      expect(res.status, JSON.stringify(value)).toBe(422);
      expect(res.text).toBe(unprocessable({ previous_secret_hours: [message] }));
    }
    expect(await item(hook.id)).toMatchObject({ secret_rotated_at: null, previous_secret_expires_at: null });
    const row = await t.db.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(openSecret(row.secret, t.config.webhooks.secretsKey)).toBe(hook.secret);
    const edge = await t.request('POST', `${URL}/${hook.id}/rotate-secret`, {
      token: a.token,
      body: { previous_secret_hours: 168 },
    });
    expect(edge.status, edge.text).toBe(200);
    expect(
      Date.parse(edge.json.data.previous_secret_expires_at) - Date.parse(edge.json.data.secret_rotated_at),
    ).toBe(168 * HOUR);
  });

  it('is a webhook.updated event with its audit entry (webhooks.rotateSecret, the secret named [redacted]); no secret in either', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const rotated = (await t.request('POST', `${URL}/${hook.id}/rotate-secret`, { token: a.token })).json
      .data;
    const events = await t.db.prisma.event.findMany({
      where: { tenantId: a.tenant_id, resourceId: hook.id },
      orderBy: { id: 'asc' },
    });
    expect(events.map((e) => e.type)).toEqual(['webhook.created', 'webhook.updated']);
    const audit = await t.db.prisma.auditLog.findMany({
      where: { tenantId: a.tenant_id, resourceId: hook.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(audit.map((e) => e.action)).toEqual(['webhooks.create', 'webhooks.rotateSecret']);
    expect(audit[1]?.changes).toEqual({
      secret_rotated_at: { old: null, new: rotated.secret_rotated_at },
      previous_secret_expires_at: { old: null, new: rotated.previous_secret_expires_at },
      secret: { old: '[redacted]', new: '[redacted]' },
    });
    const written = JSON.stringify([events, audit], (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(written).not.toContain(rotated.secret);
    expect(written).not.toContain(hook.secret);
  });

  it('GraphQL rotateWebhookSecret: the new secret once, the same rules, keyed by the GraphQL field', async () => {
    const a = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const rotated = data(
      await t.graphql(
        a.token,
        `mutation($id: ID!) { rotateWebhookSecret(id: $id, previousSecretHours: 0) {
          secret webhook { id secretRotatedAt previousSecretExpiresAt } } }`,
        { id: hook.id },
      ),
    ).rotateWebhookSecret;
    expect(rotated.secret).toMatch(SECRET);
    const row = await item(hook.id);
    expect(rotated.webhook).toEqual({
      id: hook.id,
      secretRotatedAt: row.secret_rotated_at,
      previousSecretExpiresAt: null,
    });
    const got = await ping(a.token, hook.id);
    expect(verifies(got, rotated.secret)).toBe(true);
    expect(verifies(got, hook.secret)).toBe(false);
    const bad = await t.graphql(
      a.token,
      'mutation($id: ID!) { rotateWebhookSecret(id: $id, previousSecretHours: 500) { secret } }',
      { id: hook.id },
    );
    expect(bad.json.errors[0].extensions.fields).toEqual({
      previousSecretHours: ['The previous secret hours field must not be greater than 168.'],
    });
  });
});

// -------------------------------------------------------------------------------------------------
describe.concurrent('GraphQL webhooks, webhookDeliveries and the mutations', () => {
  it('create: the payload carries the secret once; the connection and its count follow REST; update, test, delete', async () => {
    const a = await tenant();
    const created = data(
      await t.graphql(
        a.token,
        `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) {
          secret webhook { id url events description isActive disabledReason createdAt } } }`,
        { input: { url: receiver.url, events: ['guest.created'], description: 'GraphQL' } },
      ),
    ).createWebhook;
    expect(created.secret).toMatch(SECRET);
    expect(created.webhook).toMatchObject({
      url: receiver.url,
      events: ['guest.created'],
      description: 'GraphQL',
      isActive: true,
      disabledReason: null,
    });
    const id = created.webhook.id;
    const q = `query($active: Boolean) { webhooks(first: 10, isActive: $active) { totalCount edges { node { id url } } } }`;
    const list = data(await t.graphql(a.token, q)).webhooks;
    expect(list).toEqual({ totalCount: 1, edges: [{ node: { id, url: receiver.url } }] });
    expect(JSON.stringify(list)).not.toContain(created.secret);
    expect(data(await t.graphql(a.token, q, { active: false })).webhooks).toEqual({
      totalCount: 0,
      edges: [],
    });

    const updated = data(
      await t.graphql(
        a.token,
        `mutation($id: ID!) { updateWebhook(id: $id, input: { isActive: false, events: ["*"] }) { isActive disabledReason events } }`,
        { id },
      ),
    ).updateWebhook;
    expect(updated).toEqual({ isActive: false, disabledReason: 'manual', events: ['*'] });

    const ping = data(
      await t.graphql(
        a.token,
        'mutation($id: ID!) { testWebhook(id: $id) { id eventId eventType status statusCode attempt messageId } }',
        { id },
      ),
    ).testWebhook;
    expect(ping).toMatchObject({
      eventId: null,
      eventType: 'webhook.test',
      status: 'succeeded',
      statusCode: 204,
    });
    const deliveries = data(
      await t.graphql(
        a.token,
        `query($id: ID!) { webhookDeliveries(webhookId: $id, first: 5, status: "succeeded") {
          totalCount edges { node { id messageId } } } }`,
        { id },
      ),
    ).webhookDeliveries;
    expect(deliveries).toEqual({
      totalCount: 1,
      edges: [{ node: { id: ping.id, messageId: ping.messageId } }],
    });
    const rest = await t.request('GET', `${URL}/${id}/deliveries`, { token: a.token });
    expect(ids(rest)).toEqual([ping.id]);

    const replayed = data(
      await t.graphql(a.token, 'mutation($id: ID!) { replayWebhook(id: $id, sinceEventId: "1") { count } }', {
        id,
      }),
    ).replayWebhook;
    // Every event of the tenant's log (the endpoint's own created and updated ones among them), queued
    // (and paused: the endpoint is disabled).
    const logged = await t.db.prisma.event.count({ where: { tenantId: a.tenant_id } });
    expect(logged).toBeGreaterThanOrEqual(2);
    expect(replayed).toEqual({ count: logged });
    expect(
      await t.db.prisma.webhookDelivery.count({
        where: { webhookId: id, status: 'pending', nextAttemptAt: null },
      }),
    ).toBe(logged);

    expect(
      data(await t.graphql(a.token, 'mutation($id: ID!) { deleteWebhook(id: $id) { id deleted } }', { id }))
        .deleteWebhook,
    ).toEqual({ id, deleted: true });
    expect(data(await t.graphql(a.token, q)).webhooks.totalCount).toBe(0);
  });

  it('bad input: the REST messages keyed by the GraphQL field', async () => {
    const a = await tenant();
    const res = await t.graphql(
      a.token,
      'mutation { createWebhook(input: { url: "gopher://x", events: ["guest.created", "guest.born"] }) { secret } }',
    );
    expect(res.json.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: {
        url: ['The url field must be a valid URL.'],
        'events.1': ['The selected events.1 (guest.born) is invalid.'],
      },
    });
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    const replay = await t.graphql(a.token, 'mutation($id: ID!) { replayWebhook(id: $id) { count } }', {
      id: hook.id,
    });
    expect(replay.json.errors[0].extensions.fields).toEqual({
      sinceEventId: ['The since event id field is required when since is not present.'],
      since: ['The since field is required when since event id is not present.'],
    });
  });

  it('cursor pages: an endpoint disabled between two pages skips none; another tenant’s id is no cursor (probe Z1)', async () => {
    const a = await tenant();
    const b = await tenant();
    const cursorOf = (id: string) => Buffer.from(`GPC:S:${id}`).toString('base64');
    const h1 = await create(a.token, { url: receiver.url, events: ['*'] });
    const foreign = await create(b.token, { url: receiver.url, events: ['*'] });
    const h2 = await create(a.token, { url: receiver.url, events: ['*'] });
    const h3 = await create(a.token, { url: receiver.url, events: ['*'] });
    const h4 = await create(a.token, { url: receiver.url, events: ['*'] });
    const page = `query($after: String) { webhooks(first: 2, isActive: true, after: $after) {
      edges { node { id } } pageInfo { endCursor hasNextPage } } }`;
    const nodes = (w: { edges: { node: { id: string } }[] }) => w.edges.map((e) => e.node.id);
    const first = data(await t.graphql(a.token, page)).webhooks;
    expect(nodes(first)).toEqual([h1.id, h2.id]);
    expect(first.pageInfo).toEqual({ endCursor: cursorOf(h2.id), hasNextPage: true });
    // The cursor's endpoint no longer matches isActive: the next page still starts right after it.
    const off = await t.request('PUT', `${URL}/${h2.id}`, { token: a.token, body: { is_active: false } });
    expect(off.status, off.text).toBe(200);
    const second = data(await t.graphql(a.token, page, { after: first.pageInfo.endCursor })).webhooks;
    expect(nodes(second)).toEqual([h3.id, h4.id]);
    // Another tenant's endpoint, ordered among a's, places nothing: its id matches nothing here.
    expect(nodes(data(await t.graphql(a.token, page, { after: cursorOf(foreign.id) })).webhooks)).toEqual([]);

    // The attempts alike: b's attempt, made between a's first two, is no cursor of a's list.
    const ping = async (token: string, id: string) => {
      const res = await t.request('POST', `${URL}/${id}/test`, { token });
      expect(res.status, res.text).toBe(200);
      return res.json.data.id as string;
    };
    const p1 = await ping(a.token, h1.id);
    const pb = await ping(b.token, foreign.id);
    const p2 = await ping(a.token, h1.id);
    const deliveries = `query($id: ID!, $after: String) { webhookDeliveries(webhookId: $id, first: 5, after: $after) {
      edges { node { id } } } }`;
    expect(nodes(data(await t.graphql(a.token, deliveries, { id: h1.id })).webhookDeliveries)).toEqual([
      p2,
      p1,
    ]);
    expect(
      nodes(data(await t.graphql(a.token, deliveries, { id: h1.id, after: cursorOf(p2) })).webhookDeliveries),
    ).toEqual([p1]);
    expect(
      nodes(data(await t.graphql(a.token, deliveries, { id: h1.id, after: cursorOf(pb) })).webhookDeliveries),
    ).toEqual([]);
  });

  it('another tenant’s endpoint is NOT_FOUND for every mutation and webhookDeliveries; lists leave it out', async () => {
    const a = await tenant();
    const b = await tenant();
    const hook = await create(a.token, { url: receiver.url, events: ['*'] });
    await t.request('POST', `${URL}/${hook.id}/test`, { token: a.token });
    for (const query of [
      'mutation($id: ID!) { updateWebhook(id: $id, input: { description: "x" }) { id } }',
      'mutation($id: ID!) { deleteWebhook(id: $id) { id } }',
      'mutation($id: ID!) { testWebhook(id: $id) { id } }',
      'mutation($id: ID!) { replayWebhook(id: $id, sinceEventId: "1") { count } }',
      'mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }',
      'query($id: ID!) { webhookDeliveries(webhookId: $id, first: 5) { totalCount edges { node { id } } } }',
    ]) {
      const res = await t.graphql(b.token, query, { id: hook.id });
      expect(errorCodes(res), query).toEqual(['NOT_FOUND']);
    }
    expect(data(await t.graphql(b.token, '{ webhooks(first: 5) { totalCount } }')).webhooks.totalCount).toBe(
      0,
    );
    expect(await t.db.prisma.webhookAttempt.count({ where: { webhookId: hook.id } })).toBe(1);
    expect(await item(hook.id)).toMatchObject({ description: null, secret_rotated_at: null });
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    expect(errorCodes(await t.graphql(venue.token, '{ webhooks(first: 5) { totalCount } }'))).toEqual([
      'FORBIDDEN',
    ]);
  });
});

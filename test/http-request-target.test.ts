// Requests as they arrive on the wire: the request target's forms (absolute, trailing slash), what
// Node's HTTP parser refuses, the 405's Allow header, and JSON bodies that are no UTF-8. Over a real
// socket where the bytes matter (inject would normalise them).

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';

let t: TestApp;
let token: string;
let port: number;

beforeAll(async () => {
  t = await startApp();
  token = (await newTenant(t.db.prisma)).token;
  const address = await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
afterAll(async () => {
  await t?.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `head` (and `body`) as written, on a connection of its own (to the suite's server unless
 * `port` names another), and reads all that comes back until the connection closes.
 */
function exchange(
  head: string,
  opts: { body?: Buffer | string; port?: number; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(opts.port ?? port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    // Bounded: an answer that never closes fails the test instead of holding it.
    const timeoutMs = opts.timeoutMs ?? 10_000;
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // Not ended from this side: a client's FIN may end the exchange before a slower answer (the
    // server closes once it has answered, as `Connection: close` asks).
    socket.write(head);
    if (opts.body !== undefined && opts.body.length > 0) socket.write(opts.body);
  });
}

/** The one answer to `head` (and `body`): its status, headers and body. */
async function raw(head: string, body: Buffer | string = ''): Promise<RawAnswer> {
  const text = await exchange(head, { body });
  const [top = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = top.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

const get = (target: string, extra = '') =>
  raw(
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n${extra}Connection: close\r\n\r\n`,
  );

describe('the request target', () => {
  it('in the absolute form is authenticated and answered as in the usual form', async () => {
    const usual = await get('/api/v1/locations/count');
    expect(usual.status).toBe(200);
    const absolute = await get(`http://127.0.0.1:${port}/api/v1/locations/count`);
    expect(absolute.status).toBe(200);
    expect(absolute.body).toBe(usual.body);
    expect(absolute.headers['x-ratelimit-limit']).toBeDefined();
    expect(absolute.headers['access-control-allow-origin']).toBe('*');
  });

  it('with a trailing slash names the route without it: 405, OPTIONS and meta.path', async () => {
    const wrong = await t.request('PATCH', '/api/v1/guests/abc/', { token });
    expect(wrong.status).toBe(405);
    expect(wrong.json).toEqual({
      message:
        'The PATCH method is not supported for route api/v1/guests/abc. Supported methods: GET, HEAD, PUT, DELETE.',
    });
    const options = await t.app.fastify.inject({ method: 'OPTIONS', url: '/api/v1/locations/' });
    expect(options.statusCode).toBe(200);
    expect(options.headers.allow).toBe('GET,HEAD,POST');
    const list = await t.request('GET', '/api/v1/guests/?per_page=1', { token });
    expect(list.status).toBe(200);
    expect(list.json.meta.path).toBe('http://localhost/api/v1/guests');
  });

  it('with an encoded slash is routed as Laravel routes its decoded path (probes P, Q)', async () => {
    // `guests/a/b`: no route, not the guest `a/b`.
    for (const target of ['/api/v1/guests/a%2Fb', '/api/v1/guests/a%2fb']) {
      // Past the contract check, which would match the raw target to `guests/:id`.
      const unknown = await t.app.fastify.inject({
        method: 'GET',
        url: target,
        headers: { authorization: `Bearer ${token}` },
      });
      expect([unknown.statusCode, unknown.body], target).toEqual([404, '{"message":"Not Found."}']);
    }
    // Trailing slashes go before the decoding (rtrim, then rawurldecode): one decoded from `%2F`
    // stays, and no route takes it (`guests/count/`, `guests//`); the list and the count answered (probe Q).
    for (const target of ['/api/v1/guests/count%2F', '/api/v1/guests%2F', '/api/v1/guests/%2F?per_page=1']) {
      for (const headers of [{ authorization: `Bearer ${token}` }, {}]) {
        const unknown = await t.app.fastify.inject({ method: 'GET', url: target, headers });
        expect([unknown.statusCode, unknown.body], target).toEqual([404, '{"message":"Not Found."}']);
        expect(unknown.headers['x-ratelimit-limit'], target).toBeDefined();
      }
    }
    // A trailing slash as written still goes.
    const count = await t.request('GET', '/api/v1/guests/count/', { token });
    expect([count.status, Object.keys(count.json)]).toEqual([200, ['count']]);
  });
});

describe('405', () => {
  it('names the supported methods in Allow, as Symfony’s MethodNotAllowedHttpException does', async () => {
    const res = await t.request('DELETE', '/api/v1/locations', { token });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });
});

describe('what Node’s HTTP parser refuses', () => {
  it('answers the status alone and closes: 431 for headers over 16 KiB, 400 for raw bytes in the target', async () => {
    const long = await get(`/api/v1/locations/count?q=${'x'.repeat(17_000)}`);
    expect(long).toMatchObject({ status: 431, body: '' });
    expect(long.headers.connection).toBe('close');
    const bytes = await get('/api/v1/guests/\u00e9');
    expect(bytes).toMatchObject({ status: 400, body: '' });
    const badHeader = await get('/api/v1/locations/count', 'Bad Header: x\r\n');
    expect(badHeader).toMatchObject({ status: 400, body: '' });
  });
});

/** The status lines in `text` (an answer's body may end without a line break before the next). */
const statusLines = (text: string): string[] => text.match(/HTTP\/1\.1 \d{3} [^\r]*/g) ?? [];

describe('a bad request pipelined after good ones (probe H)', () => {
  const count = () =>
    `GET /api/v1/locations/count HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;

  it('the good ones are answered first, in order, then the 400, and no request stays counted as running', async () => {
    const text = await exchange(`${count()}${count()}GARBAGE\r\n\r\n`);
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request']);
    const health = 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';
    const fast = await exchange(`${health}${health}GARBAGE\r\n\r\n`);
    expect(statusLines(fast)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request']);
    // Their records were held for good (answers queued on a destroyed connection never close), and
    // counted at every shutdown as still running.
    await expect.poll(() => t.app.running().length).toBe(0);
  });

  it('many pipelined requests are answered in order, with no listener warning (one close listener per connection)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const text = await exchange(`${count().repeat(30)}GARBAGE\r\n\r\n`);
      expect(statusLines(text)).toEqual([...Array(30).fill('HTTP/1.1 200 OK'), 'HTTP/1.1 400 Bad Request']);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('after a request that asked to close, the bytes that follow are no request: it is answered, then the connection closes', async () => {
    const name = `Pipelined ${Date.now()}`;
    const body = JSON.stringify({ name });
    const text = await exchange(
      `POST /api/v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}` +
        `GET /api/v1/locations/count HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    // Its write was done and its answer lost: a client retrying made a second location.
    expect(statusLines(text)).toEqual(['HTTP/1.1 201 Created']);
    expect(text).toContain(`"name":"${name}"`);
  });
});

describe('what Fastify refuses before a route', () => {
  it('a method with a body (QUERY) without a Content-Type is answered as no route takes it, not 500', async () => {
    const known = await raw(
      `QUERY /api/v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    expect([known.status, known.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    expect(JSON.parse(known.body).message).toBe(
      'The QUERY method is not supported for route api/v1/locations. Supported methods: GET, HEAD, POST.',
    );
    const unknown = await raw(
      `QUERY /api/v1/nope HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    expect([unknown.status, unknown.body]).toEqual([404, '{"message":"Not Found."}']);
  });

  it('a Content-Type that is no media type: REST 400 Bad request., GraphQL 415, not 500', async () => {
    const rest = await t.request('POST', '/api/v1/locations', {
      token,
      rawBody: 'x',
      headers: { 'content-type': 'application/json, text/plain' },
    });
    expect([rest.status, rest.text]).toEqual([400, '{"message":"Bad request."}']);
    const graphql = await t.app.fastify.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'a b' },
      payload: '{"query":"{ __typename }"}',
    });
    expect([graphql.statusCode, graphql.json().errors[0].extensions.code]).toEqual([
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ]);
  });
});

describe('JSON bodies that are no UTF-8', () => {
  it('are malformed (PHP’s json_decode refuses them), not stored with U+FFFD', async () => {
    const body = Buffer.concat([
      Buffer.from('{"name":"Bad'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('Utf"}'),
    ]);
    const res = await raw(
      `POST /api/v1/locations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body,
    );
    expect(res.status).toBe(400);
    expect(res.body).toBe('{"message":"Malformed JSON body."}');
    // Valid UTF-8 beyond ASCII is read as sent.
    const ok = await t.request('POST', '/api/v1/locations', { token, body: { name: 'Café ☕' } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json.data.name).toBe('Café ☕');
  });
});

describe('GraphQL over HTTP', () => {
  it('answers the absolute form, and a GET with PHP-style nested parameters beside its own (no 500)', async () => {
    const body = '{"query":"{ __typename }"}';
    const absolute = await raw(
      `POST http://127.0.0.1:${port}/graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      body,
    );
    expect(absolute.status).toBe(200);
    expect(absolute.body).toContain('{"data":{"__typename":"Query"}}');
    const query = encodeURIComponent('{ __typename }');
    for (const extra of ['utm[source]=x', 'variables[a]=1', '__proto__[a]=1', 'x[0][b]=1']) {
      const res = await t.app.fastify.inject({
        method: 'GET',
        url: `/graphql?query=${query}&${extra}`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      expect(res.statusCode, `${extra}: ${res.body}`).not.toBe(500);
    }
    const plain = await t.app.fastify.inject({
      method: 'GET',
      url: `/graphql?query=${query}&utm[source]=x`,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    expect(plain.statusCode).toBe(200);
    expect(plain.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('REQUEST_TIMEOUT_SECONDS', () => {
  it('a request whose body stalls is refused 408 once it passed (it was held for good; probe H)', async () => {
    const own = await startApp({ REQUEST_TIMEOUT_SECONDS: '2' });
    try {
      const ownToken = (await newTenant(own.db.prisma)).token;
      const address = await own.app.fastify.listen({ port: 0, host: '127.0.0.1' });
      const started = Date.now();
      const text = await exchange(
        `POST /api/v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ownToken}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{"name":',
        { port: Number(new URL(address).port), timeoutMs: 15_000 },
      );
      expect(statusLines(text)).toEqual(['HTTP/1.1 408 Request Timeout']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      expect(own.app.running()).toEqual([]);

      // Pipelined behind a stream under way, a stalled body's 408 waits for it: it was written
      // inside the stream's body (probe X). The stream's answer has no listener warning either.
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      const socket = connect(Number(new URL(address).port), '127.0.0.1');
      try {
        const chunks: Buffer[] = [];
        socket.on('data', (c) => chunks.push(c));
        socket.on('error', () => {});
        const subscription = JSON.stringify({ query: 'subscription { events(after: "0") { id } }' });
        socket.write(
          `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ownToken}\r\nAccept: text/event-stream\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(subscription)}\r\n\r\n${subscription}` +
            `POST /api/v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ownToken}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{"name":',
        );
        await new Promise((resolve) => setTimeout(resolve, 3_500));
        const seen = Buffer.concat(chunks).toString('utf8');
        expect(statusLines(seen)).toEqual(['HTTP/1.1 200 OK']);
        expect(socket.destroyed).toBe(false);
      } finally {
        socket.destroy();
        process.off('warning', onWarning);
      }
      expect(warnings).toEqual([]);
    } finally {
      await own.close();
    }
  });
});

describe('HTTP/1.1 framing Node’s parser lets through (probe H)', () => {
  const head = (lines: string, target = '/api/v1/locations/count', version = '1.1') =>
    `GET ${target} HTTP/${version}\r\n${lines}Authorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;

  it('a request without Host, or with two, is refused 400 alone (an HTTP/1.0 one needs none)', async () => {
    for (const lines of ['', 'Host: a\r\nHost: b\r\n']) {
      const refused = await raw(head(lines));
      expect([refused.status, refused.body, refused.headers.connection], lines).toEqual([400, '', 'close']);
    }
    const old = await raw(head('', '/api/v1/locations/count', '1.0'));
    expect([old.status, Object.keys(JSON.parse(old.body))]).toEqual([200, ['count']]);
  });

  it('a transfer coding other than chunked is refused 501 (it was read as its compressed bytes), or 400 by the parser', async () => {
    const body = '5\r\nhello\r\n0\r\n\r\n';
    // `identity` alone Node's parser refuses itself (400), after the head it let through.
    for (const [coding, status] of [
      ['gzip, chunked', 501],
      ['identity', 400],
    ] as const) {
      const refused = await raw(
        `POST /api/v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n`,
        body,
      );
      expect([refused.status, refused.body], coding).toEqual([status, '']);
    }
  });

  it('an expectation other than 100-continue is refused 417 alone', async () => {
    const refused = await raw(head('Host: x\r\nExpect: something\r\n'));
    expect([refused.status, refused.body, refused.headers.connection]).toEqual([417, '', 'close']);
  });

  it('Expect: 100-continue gets 100 only once the request may send its body: a 401 or 413 comes without it', async () => {
    /** The head sent, and what comes back before the body is: the first answer's status line. */
    const firstAnswer = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
        socket.on('error', reject);
        socket.once('data', (c) => {
          resolve(String(c).split('\r\n')[0] ?? '');
          socket.destroy();
        });
        socket.write(text);
      });
    const post = (auth: string, length: number) =>
      `POST /api/v1/locations HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\n` +
      `Content-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
    expect(await firstAnswer(post('', 20))).toBe('HTTP/1.1 401 Unauthorized');
    expect(await firstAnswer(post(`Authorization: Bearer ${token}\r\n`, 2 * 1024 * 1024))).toBe(
      'HTTP/1.1 413 Payload Too Large',
    );
    // Let through: 100, then the body is read and answered.
    const body = '{"name":""}';
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
      socket.on('error', reject);
      socket.on('data', (c) => {
        if (chunks.length === 0) socket.write(body);
        chunks.push(c);
      });
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.write(
        `${post(`Authorization: Bearer ${token}\r\n`, body.length).slice(0, -2)}Connection: close\r\n\r\n`,
      );
    });
    expect(statusLines(text)).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 422 Unprocessable Entity']);
  });

  it('headers past the 2 000th are read, not dropped', async () => {
    const many = 'A: b\r\n'.repeat(2_100);
    const answer = await raw(head(`Host: x\r\n${many}X-Request-Id: past-the-limit\r\n`));
    expect([answer.status, answer.headers['x-request-id']]).toEqual([200, 'past-the-limit']);
  });

  it('pipelined: answered after the answers before it, and nothing after it is served (probe X: it hung)', async () => {
    const count = `GET /api/v1/locations/count HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    const before = await t.request('GET', '/api/v1/locations/count', { token });
    const body = '{"name":"Pipelined after a refusal"}';
    const create =
      `POST /api/v1/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const noHost = `GET /api/v1/locations/count HTTP/1.1\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    for (const [text, statuses] of [
      [noHost + create, ['HTTP/1.1 400 Bad Request']],
      [count + noHost + create + count, ['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request']],
      [
        `${count}GET /api/v1/locations/count HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n${create}`,
        ['HTTP/1.1 200 OK', 'HTTP/1.1 417 Expectation Failed'],
      ],
    ] as const) {
      expect(statusLines(await exchange(text))).toEqual(statuses);
    }
    const after = await t.request('GET', '/api/v1/locations/count', { token });
    expect(after.json).toEqual(before.json);
  });

  it('an HTTP/1.0 request’s Expect: 100-continue gets no 100 (a 1.0 client reads no 1xx answer)', async () => {
    const text = await exchange(
      `GET /api/v1/locations/count HTTP/1.0\r\nAuthorization: Bearer ${token}\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK']);
  });

  it('CONNECT (no proxy here) is refused 405 alone, not left unanswered', async () => {
    const refused = await raw(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
    expect([refused.status, refused.body, refused.headers.connection]).toEqual([405, '', 'close']);
  });
});

// GraphiQL's page: graphql-yoga's renderer inlines the whole GraphiQL bundle (about 9 MB of HTML).
// Rendered per request, uncompressed and never cached, that made every load 9 MB anyone could ask
// for (probe K). It is rendered once, compressed once off the main thread (gzip and brotli), and
// served with an ETag: a browser revalidates for a 304, and a load costs about 2 MB. The renderer
// is loaded at the first request too: importing it costs about 180 ms of CPU, at every start.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

const GRAPHIQL_OPTIONS = {
  title: 'Venue Wi-Fi Gateway — GraphiQL',
  headers: '{\n  "Authorization": "Bearer <token>"\n}',
};

type Coding = 'identity' | 'gzip' | 'br';

/** Each coding of the page with its own strong ETag: they are different representations (RFC 9110 §8.8.3; probe U). */
type Page = Record<Coding, { body: Buffer; etag: string }>;

/** By endpoint: `/graphql`, or under APP_URL's path behind a proxy that serves the service under one. */
const pages = new Map<string, Promise<Page>>();

/** The page and its compressed forms, made at the first request (compression runs on libuv's pool). */
function graphiqlPage(endpoint: string): Promise<Page> {
  let page = pages.get(endpoint);
  if (page) return page;
  page = (async () => {
    const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
    const identity = Buffer.from(renderGraphiQL({ ...GRAPHIQL_OPTIONS, endpoint }));
    const [gz, br] = await Promise.all([
      promisify(gzip)(identity, { level: 9 }),
      promisify(brotliCompress)(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } }),
    ]);
    const tag = createHash('sha256').update(identity).digest('base64url').slice(0, 27);
    return {
      identity: { body: identity, etag: `"${tag}"` },
      gzip: { body: gz, etag: `"${tag}-gzip"` },
      br: { body: br, etag: `"${tag}-br"` },
    };
  })();
  pages.set(endpoint, page);
  page.catch(() => pages.delete(endpoint));
  return page;
}

/** The encodings a client takes, by name (q=0 refuses one). */
function accepted(header: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name && (q === undefined || Number(q) > 0)) out.add(name);
  }
  return out;
}

/** Answers GraphiQL's page in brotli, gzip or as is: 304 when the client holds that one (If-None-Match). */
export async function sendGraphiql(
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint = '/graphql',
): Promise<FastifyReply> {
  const encodings = accepted(request.headers['accept-encoding']);
  const coding: Coding = encodings.has('br') ? 'br' : encodings.has('gzip') ? 'gzip' : 'identity';
  const { body, etag } = (await graphiqlPage(endpoint))[coding];
  reply
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('ETag', etag)
    .header('Cache-Control', 'no-cache')
    .header('Vary', 'Accept-Encoding');
  if (coding !== 'identity') reply.header('Content-Encoding', coding);
  const held = request.headers['if-none-match'];
  if (held?.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag))
    return reply.status(304).send();
  return reply.send(body);
}

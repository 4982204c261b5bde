// GraphiQL's page: graphql-yoga's renderer inlines the whole GraphiQL bundle (about 9 MB of HTML).
// Rendered per request, uncompressed and never cached, that made every load 9 MB anyone could ask
// for (probe K). It is rendered once, compressed once off the main thread (gzip and brotli), and
// served with an ETag: a browser revalidates for a 304, and a load costs about 2 MB.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { FastifyReply, FastifyRequest } from 'fastify';

const GRAPHIQL_OPTIONS = {
  title: 'Venue Wi-Fi Gateway — GraphiQL',
  headers: '{\n  "Authorization": "Bearer <token>"\n}',
};

interface Page {
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

/** By endpoint: `/graphql`, or under APP_URL's path behind a proxy that serves the service under one. */
const pages = new Map<string, Promise<Page>>();

/** The page and its compressed forms, made at the first request (compression runs on libuv's pool). */
function graphiqlPage(endpoint: string): Promise<Page> {
  let page = pages.get(endpoint);
  if (page) return page;
  page = (async () => {
    const identity = Buffer.from(renderGraphiQL({ ...GRAPHIQL_OPTIONS, endpoint }));
    const [gz, br] = await Promise.all([
      promisify(gzip)(identity, { level: 9 }),
      promisify(brotliCompress)(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } }),
    ]);
    const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`;
    return { etag, identity, gzip: gz, br };
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

/** Answers GraphiQL's page: 304 when the client holds it (If-None-Match), else brotli, gzip or as is. */
export async function sendGraphiql(
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint = '/graphql',
): Promise<FastifyReply> {
  const p = await graphiqlPage(endpoint);
  reply
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('ETag', p.etag)
    .header('Cache-Control', 'no-cache')
    .header('Vary', 'Accept-Encoding');
  const held = request.headers['if-none-match'];
  if (held?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === p.etag))
    return reply.status(304).send();
  const encodings = accepted(request.headers['accept-encoding']);
  if (encodings.has('br')) return reply.header('Content-Encoding', 'br').send(p.br);
  if (encodings.has('gzip')) return reply.header('Content-Encoding', 'gzip').send(p.gzip);
  return reply.send(p.identity);
}

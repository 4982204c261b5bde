// A fixed body served compressed: GraphiQL's page, the REST reference's page and assets, the OpenAPI
// document. Made at its first request and compressed once off the main thread (gzip and brotli),
// each coding with a strong ETag of its own (they are different representations, RFC 9110 §8.8.3;
// probe U), chosen by Accept-Encoding; a client holding the ETag gets a 304.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchHolds } from './etag.js';

type Coding = 'identity' | 'gzip' | 'br';

/** A body in each coding, with its ETag. */
export type Precompressed = Record<Coding, { body: Buffer; etag: string }>;

async function precompress(identity: Buffer): Promise<Precompressed> {
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
}

/** The body `make` makes, compressed, made at the first call (made again after a failure). */
export function precompressedOnce(make: () => Buffer | Promise<Buffer>): () => Promise<Precompressed> {
  let made: Promise<Precompressed> | undefined;
  return () => {
    if (!made) {
      made = (async () => precompress(await make()))();
      made.catch(() => {
        made = undefined;
      });
    }
    return made;
  };
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

/** Answers `body` in brotli, gzip or as is: 304 when the client holds that one (If-None-Match). */
export async function sendPrecompressed(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Promise<Precompressed>,
  headers: { contentType: string; cacheControl: string },
): Promise<FastifyReply> {
  const encodings = accepted(request.headers['accept-encoding']);
  const coding: Coding = encodings.has('br') ? 'br' : encodings.has('gzip') ? 'gzip' : 'identity';
  const { body: bytes, etag } = (await body)[coding];
  reply
    .header('Content-Type', headers.contentType)
    .header('ETag', etag)
    .header('Cache-Control', headers.cacheControl)
    .header('Vary', 'Accept-Encoding');
  if (coding !== 'identity') reply.header('Content-Encoding', coding);
  if (ifNoneMatchHolds(request.headers['if-none-match'], etag)) return reply.status(304).send();
  return reply.send(bytes);
}

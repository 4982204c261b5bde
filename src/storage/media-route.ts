// Serves stored avatars at GET /media/avatars/<file>, outside /api/v1, from whichever backend
// MEDIA_STORAGE names: no token is needed (the file names are random, as with a public
// object-store URL), and nothing but a key of our shape reaches the backend.
//
// A key names one content for good (a new upload gets a new key), so the key is the file's strong
// ETag: a browser revalidating holds it and gets a 304. One byte range (a resumed or partial
// download) is answered 206 with Content-Range, and one that starts past the end (or `-0`) 416 with
// `Content-Range: bytes */<size>`, as Symfony's file response answers them; anything else gets the
// whole file, 200 (RFC 9110 §14.2 lets a server ignore a Range): several ranges, another unit, an
// invalid range (`bytes=9-3`), one covering the whole file (`bytes=0-`, a suffix longer than it), or
// an If-Range naming another version.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Prisma } from '../db/database.js';
import { ifNoneMatchHolds } from '../http/etag.js';
import { isMarkedForRemoval } from './file-removals.js';
import { contentTypeOf } from './keys.js';
import { AVATAR_PATH, avatarStorage } from './storage.js';

/** A guest's photo: a browser may keep it, a shared cache may not (it must go when removed or erased). */
const CACHE_CONTROL = 'private, max-age=86400';

type Range = { start: number; end: number } | 'whole' | 'unsatisfiable';

/** One range-spec of RFC 9110 §14.1.2 over `size` bytes (range-parser took an invalid one, or a long suffix, for unsatisfiable). */
function byteRange(header: string, size: number): Range {
  const spec = /^bytes=(\d*)-(\d*)$/i.exec(header);
  if (!spec) return 'whole';
  const [, first = '', last = ''] = spec;
  if (first === '') {
    if (last === '') return 'whole';
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return suffix >= size ? 'whole' : { start: size - suffix, end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return 'whole';
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return start === 0 && end === size - 1 ? 'whole' : { start, end };
}

/** What a request asks of a file of `size` bytes: only GET takes a Range, under an If-Range of this version. */
function rangeOf(
  request: { method: string; headers: Record<string, string | string[] | undefined> },
  size: number,
  etag: string,
): Range {
  const header = request.headers.range;
  if (request.method !== 'GET' || typeof header !== 'string') return 'whole';
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return 'whole';
  return byteRange(header, size);
}

export function mountMedia(app: FastifyInstance, config: Config, prisma: Prisma): void {
  const storage = avatarStorage({ config, prisma });
  // HEAD declared with GET: Fastify's own HEAD route gave a 304 `Content-Length: 0` (probe Y).
  app.route<{ Params: { file: string } }>({
    method: ['GET', 'HEAD'],
    url: `${AVATAR_PATH}/:file`,
    handler: async (request, reply) => {
      // A file let go (its guest erased, its avatar replaced) is gone from the commit on, whether or
      // not the storage has removed it yet.
      const key = request.params.file;
      const file =
        contentTypeOf(key) === null || (await isMarkedForRemoval(prisma, key))
          ? null
          : await storage.get(key);
      if (!file)
        return reply.status(404).header('Content-Type', 'application/json').send('{"message":"Not Found."}');
      const etag = `"${key}"`;
      if (ifNoneMatchHolds(request.headers['if-none-match'], etag))
        return reply.status(304).header('ETag', etag).header('Cache-Control', CACHE_CONTROL).send();
      const size = file.bytes.length;
      const range = rangeOf(request, size, etag);
      // Nothing of the file, nor its freshness: only its size.
      if (range === 'unsatisfiable')
        return reply
          .status(416)
          .header('Content-Range', `bytes */${size}`)
          .header('Cache-Control', 'no-store')
          .send();
      reply
        .header('Content-Type', file.contentType)
        .header('ETag', etag)
        .header('Cache-Control', CACHE_CONTROL)
        .header('Accept-Ranges', 'bytes')
        .header('X-Content-Type-Options', 'nosniff');
      if (range === 'whole') return reply.status(200).send(file.bytes);
      return reply
        .status(206)
        .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
        .send(file.bytes.subarray(range.start, range.end + 1));
    },
  });
}

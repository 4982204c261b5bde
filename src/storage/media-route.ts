// Serves stored avatars at GET /media/avatars/<file>, outside /api/v1, from whichever backend
// MEDIA_STORAGE names: no token is needed (the file names are random, as with a public
// object-store URL), and nothing but a key of our shape reaches the backend.
//
// A key names one content for good (a new upload gets a new key), so the key is the file's strong
// ETag: a browser revalidating holds it and gets a 304, and a Range (one range of bytes, as a
// resumed or partial download asks) is answered 206 with Content-Range, as Symfony's file response
// answers it: an unsatisfiable one 416 with `Content-Range: bytes */<size>`; several ranges, a
// malformed header or an If-Range naming another version get the whole file (RFC 9110 §14.2).
import type { FastifyInstance, FastifyReply } from 'fastify';
import parseRange from 'range-parser';
import type { Config } from '../config.js';
import type { Prisma } from '../db/database.js';
import { isMarkedForRemoval } from './file-removals.js';
import { contentTypeOf } from './keys.js';
import { AVATAR_PATH, avatarStorage } from './storage.js';

/** Whether an If-None-Match list holds `etag` (weak comparison, as RFC 9110 §13.1.2 asks) or `*`. */
function holds(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * The one range to send, or null for the whole file, or 'unsatisfiable'. Only GET takes a Range;
 * an If-Range that is not this file's ETag (another version, or a date) asks for the whole file.
 */
function rangeOf(
  request: { method: string; headers: Record<string, string | string[] | undefined> },
  size: number,
  etag: string,
): { start: number; end: number } | null | 'unsatisfiable' {
  const header = request.headers.range;
  if (request.method !== 'GET' || typeof header !== 'string') return null;
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return null;
  const ranges = parseRange(size, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return ranges[0] ?? null;
}

export function mountMedia(app: FastifyInstance, config: Config, prisma: Prisma): void {
  const storage = avatarStorage({ config, prisma });
  app.get<{ Params: { file: string } }>(`${AVATAR_PATH}/:file`, async (request, reply) => {
    // A file let go (its guest erased, its avatar replaced) is gone from the commit on, whether or
    // not the storage has removed it yet.
    const key = request.params.file;
    const file =
      contentTypeOf(key) === null || (await isMarkedForRemoval(prisma, key)) ? null : await storage.get(key);
    if (!file)
      return reply.status(404).header('Content-Type', 'application/json').send('{"message":"Not Found."}');
    const etag = `"${key}"`;
    // A guest's photo: a browser may keep it, a shared cache may not (it must go when removed or erased).
    reply.header('ETag', etag).header('Cache-Control', 'private, max-age=86400');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && holds(ifNoneMatch, etag)) return reply.status(304).send();
    reply.header('Accept-Ranges', 'bytes').header('X-Content-Type-Options', 'nosniff');
    const size = file.bytes.length;
    const range = rangeOf(request, size, etag);
    if (range === 'unsatisfiable') return unsatisfiable(reply, size);
    reply.header('Content-Type', file.contentType);
    if (range === null) return reply.status(200).send(file.bytes);
    return reply
      .status(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
      .send(file.bytes.subarray(range.start, range.end + 1));
  });
}

/** 416 with the file's size, and no body, as Symfony's file response. */
function unsatisfiable(reply: FastifyReply, size: number): FastifyReply {
  return reply.status(416).header('Content-Range', `bytes */${size}`).send();
}

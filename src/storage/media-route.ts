// Serves stored avatars at GET /media/avatars/<file>, outside /api/v1, from whichever backend
// MEDIA_STORAGE names: no token is needed (the file names are random, as with a public
// object-store URL), and nothing but a key of our shape reaches the backend.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Prisma } from '../db/database.js';
import { isMarkedForRemoval } from './file-removals.js';
import { contentTypeOf } from './keys.js';
import { AVATAR_PATH, avatarStorage } from './storage.js';

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
    // A guest's photo: a browser may keep it, a shared cache may not (it must go when removed or erased).
    return reply
      .status(200)
      .header('Content-Type', file.contentType)
      .header('Cache-Control', 'private, max-age=86400')
      .header('X-Content-Type-Options', 'nosniff')
      .send(file.bytes);
  });
}

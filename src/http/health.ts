// For load balancers: 200 while the database answers, 503 when it does not (within 2 s); the ping does
// not wait behind the requests' pool (see Database.ping). Redis is
// optional: with REDIS_URL its state is reported, and an outage of it alone keeps the 200 (the
// service works on without it, see src/redis/redis.ts).
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import type { RedisLink } from '../redis/redis.js';

const DATABASE_TIMEOUT_MS = 2_000;

async function databaseAnswers(db: Database): Promise<boolean> {
  return Promise.race([
    db.ping().then(
      () => true,
      () => false,
    ),
    new Promise<false>((resolve) => setTimeout(resolve, DATABASE_TIMEOUT_MS, false).unref()),
  ]);
}

export function mountHealth(fastify: FastifyInstance, deps: { db: Database; redis?: RedisLink }): void {
  fastify.get('/health', async (_request, reply) => {
    const [database, redis] = await Promise.all([databaseAnswers(deps.db), deps.redis?.health()]);
    const extra = redis ? { redis } : {};
    if (database) return { status: 'ok', database: 'ok', ...extra };
    return reply.status(503).send({ status: 'unavailable', database: 'unreachable', ...extra });
  });
}

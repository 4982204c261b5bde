// For load balancers and orchestrators, outside /api/v1, no token, not rate-limited, and logged only
// at warn level (they are polled every few seconds).
// - GET /health: 200 while the database answers, 503 when it does not (within 2 s); the ping does
//   not wait behind the requests' pool (see Database.ping). With REDIS_URL its state is reported,
//   and an outage of it alone keeps the 200 (the service works on without it, see src/redis/redis.ts).
// - GET /health/live: 200 while the process runs and its event loop turns; it checks nothing else,
//   so a dependency's outage never gets the process restarted.
// - GET /health/ready: 200 while this instance can serve fully: the database answers and, with
//   REDIS_URL, Redis does too (without it this instance would count the rate limit alone); 503
//   otherwise. From the moment shutdown begins, every request on a connection still open answers
//   503 `{"message":"Service Unavailable"}` (src/app.ts) and new connections are refused.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import type { RedisLink } from '../redis/redis.js';

const DATABASE_TIMEOUT_MS = 2_000;

/** Polled often: their lines would drown the log. */
const QUIET = { logLevel: 'warn' } as const;

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
  const check = async () => {
    const [database, redis] = await Promise.all([databaseAnswers(deps.db), deps.redis?.health()]);
    return { database, redis };
  };

  fastify.get('/health', QUIET, async (_request, reply) => {
    const { database, redis } = await check();
    const extra = redis ? { redis } : {};
    if (database) return { status: 'ok', database: 'ok', ...extra };
    return reply.status(503).send({ status: 'unavailable', database: 'unreachable', ...extra });
  });

  fastify.get('/health/live', QUIET, async () => ({ status: 'ok' }));

  fastify.get('/health/ready', QUIET, async (_request, reply) => {
    const { database, redis } = await check();
    const ready = database && (redis === undefined || redis === 'ok');
    return reply.status(ready ? 200 : 503).send({
      status: ready ? 'ok' : 'unavailable',
      database: database ? 'ok' : 'unreachable',
      ...(redis ? { redis } : {}),
    });
  });
}

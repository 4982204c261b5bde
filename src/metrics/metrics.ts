// Prometheus metrics of one app instance, read at GET /metrics (src/metrics/endpoint.ts): HTTP
// requests, GraphQL operations (src/metrics/graphql.ts), the database pool and statements, refusals of
// the rate limits and the tenant's turn, Redis, and the Node process. One Registry per app, not
// prom-client's global one, so that tests building several apps in one process do not collide.
// Every label takes few values: routes are templates, operation names are capped.
import type { FastifyInstance } from 'fastify';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import type { FieldGuard } from '../graphql/field-rate-limit.js';
import type { TenantTurns } from '../http/request-gate.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { RedisLink } from '../redis/redis.js';
import { graphqlMetrics } from './graphql.js';

/** The `route` of a request no route matched (404, 405, a CORS preflight): one label for them all. */
export const UNMATCHED_ROUTE = 'unmatched';

export type RefusalReason = 'rate_limit' | 'graphql_field_limit' | 'tenant_busy';

export interface Metrics {
  registry: Registry;
  /** Counts and times every answer of `fastify`. */
  instrument(fastify: FastifyInstance): void;
  /** The same limiter, counting its refusals (429). */
  watchLimiter(limiter: RateLimiter): RateLimiter;
  /** The same turns, counting the requests that waited for their tenant's turn in vain (503). */
  watchTurns(turns: TenantTurns): TenantTurns;
  /** The same guard, counting the GraphQL field limits' refusals. */
  watchFieldGuard(guard: FieldGuard): FieldGuard;
  /** For Yoga: operations by name and type, and those that answered errors. */
  graphqlPlugin: Plugin;
  /** Stops listening to the database (which outlives the app). */
  close(): void;
}

const DB_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(deps: { db: Database; redis?: RedisLink }): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'],
    registers,
  });
  // No status label: it would multiply the buckets' series by every status a route answers.
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request received to the answer written, by method and route template (streamed subscriptions excluded).',
    labelNames: ['method', 'route'],
    registers,
  });
  const refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused by a limit: rate_limit (429, the per-token or per-address budget), graphql_field_limit (a GraphQL field budget), tenant_busy (503, no turn of the tenant free in time).',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of ['rate_limit', 'graphql_field_limit', 'tenant_busy'] satisfies RefusalReason[]) {
    refusals.inc({ reason }, 0);
  }
  const refused = (reason: RefusalReason) => refusals.inc({ reason });

  const statements = new Histogram({
    name: 'db_statement_duration_seconds',
    help: 'Duration of SQL statements that answered (Prisma and raw reads).',
    buckets: DB_BUCKETS,
    registers,
  });
  const offQuery = deps.db.onQuery((_sql, ms) => statements.observe(ms / 1000));

  const { db } = deps;
  if (db.kind === 'postgresql') {
    const pool = (
      name: string,
      help: string,
      read: (s: NonNullable<ReturnType<Database['poolStats']>>) => number,
    ) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const stats = db.poolStats();
          if (stats) this.set(read(stats));
        },
      });
    pool('db_pool_connections', 'Connections of the request pool open now, busy or idle.', (s) => s.total);
    pool('db_pool_idle_connections', 'Connections of the request pool open and idle.', (s) => s.idle);
    pool(
      'db_pool_waiting_queries',
      'Queries waiting for a connection of the request pool.',
      (s) => s.waiting,
    );
    pool('db_pool_max_connections', 'Size of the request pool (DB_POOL_SIZE).', (s) => s.max);
  }

  const { redis } = deps;
  if (redis) {
    new Gauge({
      name: 'redis_connected',
      help: '1 while the Redis command connection is ready, 0 while it is away (REDIS_URL).',
      registers,
      collect() {
        this.set(redis.client.status === 'ready' ? 1 : 0);
      },
    });
    const stat = (name: string, help: string, key: keyof ReturnType<RedisLink['stats']>) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(redis.stats()[key]);
        },
      });
    stat('redis_outages_total', 'Times Redis became unreachable.', 'outages');
    stat('redis_errors_total', 'Error events of the Redis connections.', 'errors');
    stat(
      'redis_failed_commands_total',
      'Redis commands that failed (timeout, connection lost).',
      'failedCommands',
    );
  }

  return {
    registry,
    instrument(fastify) {
      fastify.addHook('onResponse', async (request, reply) => {
        const route = request.unrouted
          ? UNMATCHED_ROUTE
          : (request.routedAs ?? request.routeOptions.url ?? UNMATCHED_ROUTE);
        const { method } = request;
        httpRequests.inc({ method, route, status_code: reply.statusCode });
        const type = reply.getHeader('content-type');
        if (typeof type === 'string' && type.startsWith('text/event-stream')) return;
        httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
      });
    },
    watchLimiter: (limiter) => ({
      ...limiter,
      async consume(key) {
        const decision = await limiter.consume(key);
        if (!decision.allowed) refused('rate_limit');
        return decision;
      },
    }),
    watchTurns: (turns) => ({
      ...turns,
      async acquire(key, signal) {
        try {
          return await turns.acquire(key, signal);
        } catch (err) {
          // A client that went away while waiting was not refused.
          if (!signal.aborted) refused('tenant_busy');
          throw err;
        }
      },
    }),
    watchFieldGuard: (guard) => ({
      async check(field, tokenId, info) {
        try {
          await guard.check(field, tokenId, info);
        } catch (err) {
          if (err instanceof AppError && err.code === 'RATE_LIMITED') refused('graphql_field_limit');
          throw err;
        }
      },
    }),
    graphqlPlugin: graphqlMetrics(registry),
    close() {
      offQuery();
    },
  };
}

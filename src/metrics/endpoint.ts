// GET /metrics in Prometheus' text format, served two ways, both off unless configured: on PORT when
// METRICS_TOKEN is set (answered only with `Authorization: Bearer <METRICS_TOKEN>`), and on a listener
// of its own on HOST:METRICS_PORT (no token: reach that port only from the monitoring network).
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../auth/principal.js';
import { ConfigError } from '../config.js';
import { sendJson } from '../rest/adapter.js';
import type { Metrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Compares digests, so neither the content nor the length of the token leaks through timing. */
function tokenMatches(given: string | null, expected: string): boolean {
  return given !== null && timingSafeEqual(digest(given), digest(expected));
}

export function mountMetrics(
  fastify: FastifyInstance,
  metrics: Metrics,
  token: string | undefined,
  /** Spends the caller's per-address budget, as a request without a valid token does (429 past it). */
  spendRefusedBudget: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): void {
  if (token === undefined) return; // not served on PORT: the 404 of any unknown path
  fastify.get(METRICS_PATH, { logLevel: 'warn' }, async (request, reply) => {
    if (!tokenMatches(bearerToken(request.headers.authorization), token)) {
      // Guessing METRICS_TOKEN is throttled as guessing an API token is (probe M: it never was).
      await spendRefusedBudget(request, reply);
      return sendJson(reply, 401, { message: 'Unauthenticated.' });
    }
    const body = await metrics.registry.metrics();
    return reply.status(200).header('Content-Type', metrics.registry.contentType).send(body);
  });
}

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/** HOST:METRICS_PORT, serving GET /metrics only; a port in use is a ConfigError naming the setting. */
export async function listenMetrics(
  metrics: Metrics,
  opts: { host: string; port: number },
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' })
        .end('{"message":"Not Found."}');
      return;
    }
    metrics.registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res
          .writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' })
          .end('{"message":"Server Error"}');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new ConfigError(`METRICS_PORT ${opts.port} is already in use on ${opts.host}.`));
      } else if (err.code === 'EACCES') {
        reject(
          new ConfigError(`METRICS_PORT ${opts.port} may not be opened on ${opts.host} (permission denied).`),
        );
      } else {
        reject(err);
      }
    });
    server.listen(opts.port, opts.host, resolve);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// Cross-origin requests to /api/*, as a Laravel application answers them with its default
// `config/cors.php` (HandleCors over fruitcake/php-cors: paths `api/*`, every origin, method and
// header allowed, nothing exposed, no credentials, max age 0). Browser-based partner integrations
// rely on it. GraphQL has Yoga's own CORS handling.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const API_PATHS = '/api/';

const isApi = (request: FastifyRequest): boolean => request.url.startsWith(API_PATHS);

/** A preflight: OPTIONS carrying Access-Control-Request-Method (php-cors' isPreflightRequest). */
export const isPreflight = (request: FastifyRequest): boolean =>
  request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;

/** php-cors' varyHeader: adds `name` to Vary unless already listed. */
function vary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  const list = typeof current === 'string' && current !== '' ? current : '';
  if (!list) reply.header('vary', name);
  else if (!list.split(/,\s*/).includes(name)) reply.header('vary', `${list}, ${name}`);
}

export function registerCors(fastify: FastifyInstance): void {
  // A preflight is answered before routing, authentication and the rate limit (HandleCors is global
  // middleware): 204 with the request's method and headers allowed.
  fastify.addHook('onRequest', async (request, reply) => {
    if (!isApi(request) || !isPreflight(request)) return;
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header(
      'Access-Control-Allow-Methods',
      String(request.headers['access-control-request-method']).toUpperCase(),
    );
    vary(reply, 'Access-Control-Request-Method');
    reply.header(
      'Access-Control-Allow-Headers',
      String(request.headers['access-control-request-headers'] ?? ''),
    );
    vary(reply, 'Access-Control-Request-Headers');
    reply.header('Access-Control-Max-Age', '0');
    return reply.status(204).send();
  });
  // Every other /api/* answer, errors included, allows any origin.
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (!isApi(request) || isPreflight(request)) return payload;
    if (request.method === 'OPTIONS') vary(reply, 'Access-Control-Request-Method');
    reply.header('Access-Control-Allow-Origin', '*');
    return payload;
  });
}

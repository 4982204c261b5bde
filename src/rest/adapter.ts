// Mounts the route table under /api/v1 on Fastify. Everything REST-wide lives here once: the
// request gate, query and body handling, the PHP-compatible JSON writer, 404 and 405 answers.
import { Readable } from 'node:stream';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { requestContext } from '../context.js';
import type { Prisma } from '../db/database.js';
import { AppError } from '../errors.js';
import type { AppPubSub } from '../redis/pubsub.js';
import { type FieldErrors, ValidationError, validate } from '../validation/validator.js';
import type { Route } from './endpoint.js';
import { StreamAnswer } from './export.js';
import { overriddenMethod } from './method-override.js';
import type { EnvelopeSource } from './pagination.js';
import { phpJsonEncode } from './php-json.js';

export const API_PREFIX = '/api/v1';

declare module 'fastify' {
  interface FastifyRequest {
    /** Answered as no route's (404, 405, OPTIONS): counted as `unmatched` by the metrics. */
    unrouted: boolean;
    /** The route template a method override routed it to (counted under it by the metrics). */
    routedAs: string | null;
  }
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.status(status).header('Content-Type', 'application/json').send(phpJsonEncode(body));
}

/**
 * The endpoint's own query rules (paging, export options). When they fail, the list's filters are
 * checked too, so that one 422 names every bad parameter, as Laravel's one validation call does.
 */
async function validQueryOf(r: Route, query: Record<string, unknown>): Promise<Record<string, unknown>> {
  const own = r.endpoint.query ?? {};
  try {
    return await validate(query, own);
  } catch (err) {
    const filters = r.endpoint.filters;
    if (!(err instanceof ValidationError) || !filters) throw err;
    let filterErrors: FieldErrors = {};
    try {
      await validate(query, filters);
    } catch (failed) {
      if (!(failed instanceof ValidationError)) throw failed;
      filterErrors = failed.errors;
    }
    // In the order the parameters are documented: the filters, then paging.
    throw new ValidationError({ ...filterErrors, ...err.errors });
  }
}

function envelopeSource(config: Config, request: FastifyRequest): EnvelopeSource {
  const pathOnly = request.url.split('?')[0] ?? '';
  return { path: `${config.appUrl}${pathOnly}`, query: (request.query ?? {}) as Record<string, unknown> };
}

function bodyObject(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

/**
 * How the route reads multipart bodies (src/http/multipart.ts): an upload route's limits (its JSON
 * body and each file part) and raw files; the fields that take a file part as a data URL.
 */
function multipartOptions(
  endpoint: Route['endpoint'],
  config: Config,
): { bodyLimit?: number; config?: FastifyContextConfig } {
  if (endpoint.upload) {
    const maxBytes = endpoint.upload.maxBytes(config);
    return {
      bodyLimit: maxBytes,
      config: { rawFileParts: true, multipartOptions: { limits: { fileSize: maxBytes } } },
    };
  }
  return endpoint.fileFields ? { config: { fileFields: new Set(endpoint.fileFields) } } : {};
}

export function mountRest(
  app: FastifyInstance,
  deps: {
    routes: readonly Route[];
    config: Config;
    prisma: Prisma;
    pubsub?: AppPubSub;
    /** Aborts when the server stops and streamed exports must end (see app.ts). */
    closing?: AbortSignal;
  },
): void {
  const answer = restAnswer(deps);
  const routing = routingOf(deps.routes);
  /**
   * A POST: routed as the method it asks (method-override.ts) on its URL, as Laravel's router
   * matches the URL again (`POST /guests/export` asking DELETE is `DELETE /guests/:id`), else as the
   * path's own POST route.
   */
  const overridable = (own?: Route) => async (request: FastifyRequest, reply: FastifyReply) => {
    const method = overriddenMethod(request);
    // Asking none: the route the router matched.
    if (method === 'POST' && own) return answer(own, request, reply);
    const target = routing.find(method, request.url);
    if (!target) return answerUnrouted(reply, deps.routes, method, request.url);
    // A caller without a token has its body read only on a path with a POST route, which requires
    // one first (app.ts); here the asked route's does.
    if (!request.principal) throw new AppError('UNAUTHENTICATED');
    request.routedAs = `${API_PREFIX}${target.route.path}`;
    return answer(target.route, request, reply, method, target.params);
  };
  const byPath = new Map<string, Map<string, Route>>();
  for (const r of deps.routes) {
    const methods = byPath.get(r.path) ?? new Map<string, Route>();
    methods.set(r.method, r);
    byPath.set(r.path, methods);
  }
  for (const r of deps.routes) {
    app.route({
      method: r.method,
      url: `${API_PREFIX}${r.path}`,
      ...(r.endpoint.bodyLimit ? { bodyLimit: r.endpoint.bodyLimit } : {}),
      ...multipartOptions(r.endpoint, deps.config),
      handler: r.method === 'POST' ? overridable(r) : (request, reply) => answer(r, request, reply),
    });
  }
  // A path without a POST route takes a POST all the same, read as its update (or deletion) would
  // be: one asking no other method answers 405, as before. Until its body says which route it is,
  // such a POST needs no token (Laravel routes it before its middleware asks for one).
  for (const [path, methods] of byPath) {
    if (methods.has('POST')) continue;
    const reads = methods.get('PUT') ?? methods.get('PATCH') ?? methods.get('DELETE');
    const options = reads ? multipartOptions(reads.endpoint, deps.config) : {};
    app.route({
      method: 'POST',
      url: `${API_PREFIX}${path}`,
      ...(reads?.endpoint.bodyLimit ? { bodyLimit: reads.endpoint.bodyLimit } : {}),
      ...options,
      config: { ...options.config, methodOverrideOnly: true },
      handler: overridable(),
    });
  }
}

/** Answers a request on its route, `method` being the one it is routed as (HEAD: headers only). */
function restAnswer(deps: { config: Config; prisma: Prisma; pubsub?: AppPubSub; closing?: AbortSignal }) {
  return async (
    r: Route,
    request: FastifyRequest,
    reply: FastifyReply,
    method = request.method,
    params = request.params as Record<string, string>,
  ): Promise<FastifyReply> => {
    const ctx = requestContext(deps, request);
    const deprecated = r.endpoint.deprecated;
    if (deprecated) {
      const sunset = deprecated.sunset(deps.config);
      reply.header('Deprecation', `@${Math.floor(deprecated.since.getTime() / 1000)}`);
      reply.header('Sunset', sunset.toUTCString());
      reply.header(
        'Link',
        `<${deps.config.appUrl}${API_PREFIX}${deprecated.successor}>; rel="successor-version"`,
      );
      if (Date.now() >= sunset.getTime()) {
        throw new AppError('GONE', { message: deprecated.goneMessage(sunset) });
      }
    }
    // No record has an id with a NUL character (PostgreSQL cannot even compare one): absent.
    if (Object.values(params).some((v) => v.includes('\0'))) throw new AppError('NOT_FOUND');
    const query = (request.query ?? {}) as Record<string, unknown>;
    const validQuery = r.endpoint.query ? await validQueryOf(r, query) : {};
    const result = await r.endpoint.handle({
      ctx,
      params,
      query: { ...query, ...validQuery },
      body: bodyObject(request.body),
      rawBody: request.body,
      form: request.isMultipart(),
      envelope: envelopeSource(deps.config, request),
    });
    if (result === undefined) return reply.status(r.endpoint.status ?? 204).send();
    if (result instanceof StreamAnswer) {
      reply.status(200).headers(result.headers);
      // HEAD: the headers only. Not the export's stream (Fastify would read it to its end and
      // drop it) and not nothing (Fastify would then say Content-Length: 0, a length the GET's
      // chunked body does not have): an empty stream, which Fastify's HEAD handling sends without one.
      if (method === 'HEAD') return reply.send(Readable.from([]));
      const acquire = request.acquireTurn;
      if (!acquire) throw new AppError('UNAUTHENTICATED');
      const stream = result.open({
        turn: acquire,
        closing: deps.closing ?? new AbortController().signal,
        abort: () => reply.raw.destroy(),
        log: request.log,
      });
      return reply.send(stream);
    }
    // A POST routed as HEAD (Fastify strips only a real HEAD's body).
    if (method === 'HEAD' && request.method !== 'HEAD') {
      return reply
        .status(r.endpoint.status ?? 200)
        .header('Content-Type', 'application/json')
        .send('');
    }
    return sendJson(reply, r.endpoint.status ?? 200, result);
  };
}

interface Routed {
  route: Route;
  params: Record<string, string>;
}

/** The routes of an /api/v1 URL, as the router matches them: a path's static segments first. */
interface Routing {
  /**
   * The routes whose path the URL's is, each with the parameters it reads; `decoded`: each segment
   * percent-decoded first, as the router (and Laravel) read it (`guest%73` is `guests`).
   */
  matching(url: string, decoded: boolean): Routed[];
  /** The route of `method` (HEAD: GET's) for the URL, decoded. */
  find(method: string, url: string): Routed | null;
}

const routings = new WeakMap<readonly Route[], Routing>();

/** A path segment as the router reads it: percent-decoded (as written when it does not decode). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const paramCount = (segments: readonly string[]): number => segments.filter((s) => s.startsWith(':')).length;

function routingOf(routes: readonly Route[]): Routing {
  let routing = routings.get(routes);
  if (routing) return routing;
  const compiled = routes
    .map((route) => ({ route, segments: `${API_PREFIX}${route.path}`.split('/') }))
    // Fewer parameters first: `/guests/export` before `/guests/:id`, as find-my-way prefers.
    .sort((a, b) => paramCount(a.segments) - paramCount(b.segments));
  const matching = (url: string, decoded: boolean): Routed[] => {
    const raw = (url.split('?')[0] ?? '').split('/');
    const path = decoded ? raw.map(decodedSegment) : raw;
    const found: Routed[] = [];
    for (const { route, segments } of compiled) {
      if (segments.length !== path.length) continue;
      const params: Record<string, string> = {};
      const matches = segments.every((segment, i) => {
        const value = path[i] ?? '';
        if (!segment.startsWith(':')) return segment === value;
        params[segment.slice(1)] = value;
        return value !== '';
      });
      if (matches) found.push({ route, params });
    }
    return found;
  };
  routing = {
    matching,
    find(method, url) {
      const asked = method === 'HEAD' ? 'GET' : method;
      return matching(url, true).find((r) => r.route.method === asked) ?? null;
    },
  };
  routings.set(routes, routing);
  return routing;
}

/**
 * A POST without a valid token to a path without a POST route, refused before its body is read, by
 * the method its header or query string asks: 401 when a route takes that, else the answer of no
 * route. A `_method` in its body is never read without a token: such a caller gets a POST's 405
 * where Laravel, routing first, would answer the asked route's 401 (and an asked OPTIONS a 405, not
 * the methods). Called by the gate (app.ts) once it found no principal.
 */
export function refuseOverrideWithoutToken(request: FastifyRequest, routes: readonly Route[]): void {
  if (request.routeOptions.config.methodOverrideOnly !== true) return;
  const method = overriddenMethod(request, false);
  if (routingOf(routes).find(method, request.url)) throw new AppError('UNAUTHENTICATED');
  request.unrouted = true;
  throw unroutedError(routes, method, request.url);
}

/**
 * What Laravel's router answers an /api/v1 URL asked with a method no route of it takes: 405 naming
 * the methods it has (Symfony's MethodNotAllowedHttpException, `Allow` too), 404 for an unknown path.
 */
function unroutedError(routes: readonly Route[], method: string, url: string): AppError {
  const methods = pathMethods(routes, url);
  if (!methods) return new AppError('ROUTE_NOT_FOUND');
  return new AppError('METHOD_NOT_ALLOWED', {
    message: methodNotAllowedMessage(methods, method, url),
    headers: { Allow: methods.join(', ') },
  });
}

/**
 * The answer of no route (unroutedError), and to OPTIONS on a known path the router's own: 200,
 * empty, the methods in `Allow`.
 */
export function answerUnrouted(
  reply: FastifyReply,
  routes: readonly Route[],
  method: string,
  url: string,
): FastifyReply {
  reply.request.unrouted = true;
  const methods = pathMethods(routes, url);
  if (methods && method === 'OPTIONS') {
    return reply.status(200).header('Allow', methods.join(',')).type('text/html; charset=UTF-8').send('');
  }
  const err = unroutedError(routes, method, url);
  return sendJson(reply.headers(err.headers), err.status, { message: err.message });
}

/**
 * The methods a known /api/v1 path supports, in Laravel's verb order (HEAD wherever GET is), or
 * null when no route has that path.
 */
export function pathMethods(routes: readonly Route[], url: string): string[] | null {
  // The URL as written: the router answered it no route, whatever its decoding would match.
  const methods = new Set<string>(
    routingOf(routes)
      .matching(url, false)
      .map((r) => r.route.method),
  );
  if (methods.size === 0) return null;
  if (methods.has('GET')) methods.add('HEAD');
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => methods.has(m));
}

/** Laravel answers a known path with the wrong method by 405 and names the methods it supports. */
export function methodNotAllowedMessage(methods: readonly string[], method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  return `The ${method} method is not supported for route ${path.slice(1)}. Supported methods: ${methods.join(', ')}.`;
}

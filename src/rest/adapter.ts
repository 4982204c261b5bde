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
import type { EnvelopeSource } from './pagination.js';
import { phpJsonEncode } from './php-json.js';

export const API_PREFIX = '/api/v1';

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
  for (const r of deps.routes) {
    app.route({
      method: r.method,
      url: `${API_PREFIX}${r.path}`,
      ...(r.endpoint.bodyLimit ? { bodyLimit: r.endpoint.bodyLimit } : {}),
      ...multipartOptions(r.endpoint, deps.config),
      handler: async (request, reply) => {
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
        const params = request.params as Record<string, string>;
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
          if (request.method === 'HEAD') return reply.send(Readable.from([]));
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
        return sendJson(reply, r.endpoint.status ?? 200, result);
      },
    });
  }
}

/**
 * The methods a known /api/v1 path supports, in Laravel's verb order (HEAD wherever GET is), or
 * null when no route has that path.
 */
export function pathMethods(routes: readonly Route[], url: string): string[] | null {
  const path = url.split('?')[0] ?? '';
  if (!path.startsWith(`${API_PREFIX}/`)) return null;
  const rel = path.slice(API_PREFIX.length);
  const methods = new Set<string>();
  for (const r of routes) {
    const re = new RegExp(`^${r.path.replace(/:[^/]+/g, '[^/]+')}$`);
    if (re.test(rel)) methods.add(r.method);
  }
  if (methods.size === 0) return null;
  if (methods.has('GET')) methods.add('HEAD');
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => methods.has(m));
}

/** Laravel answers a known path with the wrong method by 405 and names the methods it supports. */
export function methodNotAllowedMessage(methods: readonly string[], method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  return `The ${method} method is not supported for route ${path.slice(1)}. Supported methods: ${methods.join(', ')}.`;
}

// Builds the service from a config and an open database; used by the server and by the tests.
import './v8-tuning.js';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, {
  type FastifyBodyParser,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { createTokenUsage, type TokenUsage } from './auth/token-usage.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { AppError, failureFields, logFailure, serviceUnavailable, toAppError } from './errors.js';
import { publishCommitted } from './events/feed.js';
import { onEventsCommitted } from './events/outbox.js';
import { type EventSweeper, startEventSweeper } from './events/sweeper.js';
import { startWebhookDelivery, type WebhookDeliveryService } from './events/webhook-delivery.js';
import { DELIVERY_THREAD_POOL, startWebhookDeliveryThread } from './events/webhook-delivery-thread.js';
import { createFieldGuard } from './graphql/field-rate-limit.js';
import { sendGraphiql } from './graphql/graphiql-page.js';
import { assertJsonParams } from './graphql/url-params.js';
import { createGraphqlHandler } from './graphql/yoga.js';
import { clientBudgetKey } from './http/client-address.js';
import { isPreflight, registerCors } from './http/cors.js';
import { graphqlErrorBody, restErrorBody } from './http/error-bodies.js';
import { mountHealth } from './http/health.js';
import { acceptMultipart, unreadableForm } from './http/multipart.js';
import { parsePhpQuery, redactSecretQuery } from './http/query-string.js';
import { requestGate, spendBudget, tenantTurns } from './http/request-gate.js';
import { mountMetrics } from './metrics/endpoint.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { publishPresence } from './modules/presence/presence.pubsub.js';
import { type RetentionSweeper, startRetentionSweeper } from './modules/retention/retention.sweeper.js';
import { endpointHealth } from './modules/webhooks/webhooks.service.js';
import { createRateLimiter, type RateLimiter } from './rate-limit/rate-limiter.js';
import { type AppPubSub, createAppPubSub } from './redis/pubsub.js';
import { connectRedis } from './redis/redis.js';
import {
  API_PREFIX,
  answerUnrouted,
  mountRest,
  refuseOverrideWithoutToken,
  sendJson,
} from './rest/adapter.js';
import { basePathOf, mountDocs, PUBLIC_API_PATHS } from './rest/docs.js';
import { routeTable } from './rest/route-table.js';
import { hasLoneSurrogate, undecodable } from './shared/json-decode.js';
import { type FileRemovalPass, startFileRemovals } from './storage/file-removals.js';
import { mountMedia } from './storage/media-route.js';
import { AVATAR_PATH } from './storage/storage.js';

export const BODY_LIMIT = 1024 * 1024;

export interface App {
  fastify: FastifyInstance;
  limiter: RateLimiter;
  /** Its Prometheus registry and series (served by GET /metrics, or on METRICS_PORT by the server). */
  metrics: Metrics;
  /** When each token was last used, noted in memory and written in batches (its `flush()`: tests). */
  tokenUsage: TokenUsage;
  /** Applies the tenants' retention settings every RETENTION_SWEEP_SECONDS (its `sweep()`: tests). */
  retention: RetentionSweeper;
  /** Webhook delivery on this instance (undefined with WEBHOOKS_DELIVERY=false). */
  webhooks: WebhookDeliveryService | undefined;
  /** Presence changes and committed events, fanned out to subscribers (through Redis with REDIS_URL). */
  pubsub: AppPubSub;
  /** Leave-by-timeout presence events and the event log's retention every EVENT_SWEEP_SECONDS (its `sweep()`: tests). */
  events: EventSweeper;
  /** Media files let go whose removal a storage outage left, retried every EVENT_SWEEP_SECONDS (its `run()`: tests). */
  fileRemovals: FileRemovalPass;
  /** The requests being answered now (method, URL, id, seconds running): what a timed-out shutdown waits for. */
  running(): { method: string; url: string; id: string; seconds: number }[];
  /** What close() waits for now (`writing the API tokens' last uses`), or null before and after it: a timed-out shutdown names it. */
  closing(): string | null;
  /**
   * Stops taking connections and requests (a request on an open connection answers 503), ends open
   * subscriptions, waits for every in-flight response to be written in full, then closes the app's
   * clients. The database is the caller's: close it after this.
   */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The avatars' budget per address: this many times RATE_LIMIT_PER_MINUTE (a page of 100 guests loads 100). */
export const MEDIA_BUDGET_FACTOR = 10;

/** Fastify's own errors, in the decisions' terms. */
function fastifyError(err: FastifyError, request: FastifyRequest): AppError | null {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413)
    return new AppError('PAYLOAD_TOO_LARGE');
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError)
    return new AppError('MALFORMED_JSON');
  // A Content-Type that is no media type (`application/json, text/plain`, `a b`) with a body: GraphQL
  // reads no request from it (its 415), REST no input (a malformed request). Both were 500 (probe H).
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new AppError(isGraphql(request) ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST');
  // Any other refusal of Fastify's of the request itself is the caller's, never a 500.
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500)
    return new AppError('BAD_REQUEST');
  return null;
}

/**
 * The request target as the routes, the gate and the envelopes read it, made canonical once:
 * - the absolute form (`GET http://host/api/v1/guests`, which HTTP/1.1 servers must accept) becomes
 *   its path and query, so it is authenticated and answered as the usual form is;
 * - a trailing slash goes (`/api/v1/guests/`), as Laravel's `Request::path()` and `url()` drop it:
 *   405s, `OPTIONS` and `meta.path` then name the route as without it;
 * - a path whose percent-encoding does not decode (`/guests/%FF`) is read as written (each `%` as
 *   `%25`): it then reaches the routes, the gate and a 404 like any id or path that matches nothing,
 *   instead of Fastify's own 400 body without the API's headers.
 * The query string is left as it is (parsePhpQuery reads any).
 */
export function readableUrl(url: string): string {
  // The usual form (`/…`) needs no look for an origin.
  const origin = url.startsWith('/') ? null : /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(url);
  const target = origin ? `/${url.slice(origin[0].length).replace(/^\//, '')}` : url;
  const q = target.indexOf('?');
  // Trailing slashes go as written, then an encoded slash is a slash, as Laravel's router reads the
  // path (rtrim, then rawurldecode): `guests/a%2Fb` is the unknown route `guests/a/b`, not the guest
  // `a/b` (probe P), and `guests/%2F` the unknown `guests//`, not the list (probe Q).
  let path = q < 0 ? target : target.slice(0, q);
  if (path.length > 1 && path.endsWith('/')) path = path.replace(/\/+$/, '') || '/';
  path = path.replace(/%2f/gi, '/');
  if (path.includes('%')) {
    try {
      decodeURIComponent(path);
    } catch {
      path = path.replaceAll('%', '%25');
    }
  }
  return path + (q < 0 ? '' : target.slice(q));
}

/**
 * A request Node's HTTP parser refused (a malformed request line or header, raw non-ASCII bytes in
 * the target, headers over 16 KiB, a timeout): the status alone, as Node answers without Fastify;
 * a connection already reset gets nothing.
 */
function answerUnreadableRequest(
  err: NodeJS.ErrnoException,
  socket: Duplex,
  /** When the answers under way on the connection before it have closed; null: none is. */
  before: () => Promise<void> | null = () => null,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Bytes after a request that asked to close the connection are no request (RFC 9112 9.6): that
  // request is answered, then the connection closes, as it asked (its answer was lost; probe H).
  if (err.code === 'HPE_CLOSED_CONNECTION') return;
  const status =
    err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  refuseConnection(socket, status, before, { err });
}

/**
 * Answers `status` alone on the connection and closes it, after the answers under way on it before
 * (`before`): written at once, the refusal cut their answers (a write done, its answer lost) or
 * landed inside a stream already under way (probe H). One refusal per connection.
 */
function refuseConnection(
  socket: Duplex,
  status: number,
  before: () => Promise<void> | null,
  opts: {
    /** Why the connection ends (the parser's error), given to socket.destroy. */
    err?: Error;
    /** False for a request read whole and refused (framingRefusal): a parser error after it waits for its answer, this refusal. */
    once?: boolean;
  } = {},
): void {
  const { err, once = true } = opts;
  if (socket.destroyed || (once && refusing.has(socket))) return;
  const refuse = () => {
    if (socket.destroyed) return;
    if (socket.writable)
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
    socket.destroy(err);
  };
  // The parser reports each later read of a refused connection too: refused once.
  const answered = before();
  if (answered === null) {
    refuse();
    return;
  }
  refusing.add(socket);
  void answered.then(refuse);
}

/**
 * What HTTP/1.1 requires of a request's framing that Node's parser lets through (RFC 9112): one
 * `Host` (none is allowed in HTTP/1.0), and no transfer coding but `chunked`, the only one read
 * (`gzip, chunked` was read as its compressed bytes); and no expectation but `100-continue`. The
 * status to refuse it with, or null.
 */
export function framingRefusal(req: IncomingMessage): number | null {
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if ((raw[i] as string).toLowerCase() === 'host') hosts++;
  if (hosts > 1 || (hosts === 0 && req.httpVersion === '1.1')) return 400;
  const coding = req.headers['transfer-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') return 501;
  const expect = req.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') return 417;
  return null;
}

/** Connections whose refusal waits for the answers before it (refuseConnection). */
const refusing = new WeakSet<Duplex>();

/** UTF-8 as PHP's json_decode reads it: an invalid byte sequence is an error, and a BOM stays (JSON.parse refuses it, as json_decode does). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Methods that change nothing. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

const isGraphql = (request: FastifyRequest): boolean => request.url.split('?')[0] === '/graphql';
const isForm = (request: FastifyRequest): boolean =>
  /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(request.headers['content-type'] ?? '');
/** The bodies a GraphQL request is read from: JSON, the query itself, an HTML form. */
const isGraphqlBody = (request: FastifyRequest): boolean =>
  /^application\/(?:json|graphql|x-www-form-urlencoded)\s*(?:;|$)/i.test(
    request.headers['content-type'] ?? '',
  );
const wantsGraphiql = (request: FastifyRequest): boolean =>
  (request.method === 'GET' || request.method === 'HEAD') &&
  (request.headers.accept ?? '').includes('text/html');

/** A request as its log lines show it (Fastify's fields), a token sent in the query string masked. */
export function requestLogFields(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactSecretQuery(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** A refusal on /graphql in GraphQL's error format, as JSON.stringify writes it like Yoga's answers (no PHP escaping of `/`). */
function sendGraphqlError(reply: FastifyReply, err: AppError): FastifyReply {
  // With the CORS headers Yoga gives its own answers: without them a browser on another origin
  // could read no refusal made before Yoga (401, 413, 415, malformed JSON; probe H).
  const origin = reply.request.headers.origin;
  if (origin)
    reply
      .header('Access-Control-Allow-Origin', origin)
      .header('Vary', 'Origin')
      .header('Access-Control-Allow-Credentials', 'true');
  return reply
    .status(err.status)
    .header('Content-Type', 'application/json')
    .send(JSON.stringify(graphqlErrorBody(err)));
}

export async function buildApp(deps: {
  config: Config;
  db: Database;
  limiter?: RateLimiter;
  /** False: no log; a stream: the JSON lines go there (tests read them); otherwise stdout. */
  logger?: false | { write(line: string): void };
}): Promise<App> {
  const { config, db } = deps;
  const prisma = db.prisma;
  /**
   * What to do once an answer is over (its request's record freed, a refusal behind it written): run
   * when it closes, or when its connection does (an answer queued behind others on a connection
   * destroyed never closes), by one listener each. A stream's answer has many listeners already, and
   * one more each warned MaxListenersExceeded (a line that is no JSON).
   */
  const afterClose = new WeakMap<ServerResponse, (() => void)[]>();
  const whenClosed = (res: ServerResponse, f: () => void): void => {
    const list = afterClose.get(res);
    if (list) list.push(f);
    else afterClose.set(res, [f]);
  };
  /** Runs what waits for `res` to be over, once. */
  const over = (res: ServerResponse): void => {
    const list = afterClose.get(res);
    afterClose.delete(res);
    for (const f of list ?? []) f();
  };
  /** Each connection's answers under way: a bad request pipelined after them waits for them. */
  const connections = new WeakMap<Duplex, Set<ServerResponse>>();
  const answersOn = (socket: Duplex): Set<ServerResponse> => {
    let answers = connections.get(socket);
    if (!answers) {
      const made = new Set<ServerResponse>();
      socket.once('close', () => {
        for (const res of made) over(res);
        made.clear();
      });
      connections.set(socket, made);
      answers = made;
    }
    return answers;
  };
  /** Each connection's request refused by framingRefusal: those pipelined after it are not served. */
  const refusedOn = new WeakMap<Duplex, ServerResponse>();
  /** The answers under way on `res`'s connection before it, in order (those after it wait for it). */
  const answersBefore = (res: ServerResponse): ServerResponse[] => {
    const before: ServerResponse[] = [];
    for (const other of answersOn(res.req.socket)) {
      if (other === res) break;
      before.push(other);
    }
    return before;
  };
  /** When `answers` have all closed, or null when none is under way. */
  const allClosed = (answers: Iterable<ServerResponse> | undefined): Promise<void> | null => {
    const open = [...(answers ?? [])].filter((res) => !res.closed);
    if (open.length === 0) return null;
    return Promise.all(open.map((res) => new Promise<void>((resolve) => whenClosed(res, resolve)))).then(
      () => {},
    );
  };
  const fastify = Fastify({
    logger:
      deps.logger === false
        ? false
        : {
            level: config.logLevel,
            serializers: { req: (req: FastifyRequest) => requestLogFields(req) },
            ...(deps.logger ? { stream: deps.logger } : {}),
          },
    bodyLimit: BODY_LIMIT,
    // A request without `Host` is refused by framingRefusal, as every other framing error is (Node's
    // own refusal had a chunked empty body).
    http: { requireHostHeader: false },
    // maxParamLength: `GET /sessions/:ip_address` takes up to 100 comma-separated addresses (100
    // IPv6 addresses, percent-encoded, fit in 8 KiB); Fastify's default of 100 characters answers 414.
    // Node's HTTP parser refuses a request line over its 16 KiB header limit (431) before this, so no
    // parameter reaches Fastify's own 414 body: a long id is a 404 like any other unknown one.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024, querystringParser: parsePhpQuery },
    rewriteUrl: (req) => readableUrl(req.url ?? '/'),
    // X-Forwarded-For/-Proto/-Host count only from the configured proxies: otherwise any caller
    // could pick its own address and escape the per-address budget on guessed tokens.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    requestIdHeader: false,
    // While draining, requests on connections still open get the contract's 503 (below), not fastify's.
    return503OnClosing: false,
    // What Node's HTTP parser cannot read never reaches a route: answered as Node itself answers
    // (no body, the connection closed), not with Fastify's own JSON shape.
    // It waits for the answers of the requests read whole before it; one whose body was cut (the
    // client left mid-body: HPE_INVALID_EOF_STATE) gets none, and waiting for it held the connection,
    // its request and its tenant's turn for good (probe I).
    clientErrorHandler: (err, socket) =>
      answerUnreadableRequest(err, socket, () =>
        allClosed([...(connections.get(socket) ?? [])].filter((res) => res.req.complete)),
      ),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
  });
  fastify.decorateRequest('principal', null);
  fastify.decorateRequest('releaseTurn', null);
  fastify.decorateRequest('acquireTurn', null);
  fastify.decorateRequest('unrouted', false);
  fastify.decorateRequest('routedAs', null);
  fastify.decorateRequest('ranMutation', false);
  // One Redis connection (plus a subscriber) for the rate limit, the field limits and live updates.
  const redis = config.redisUrl ? connectRedis(config.redisUrl, fastify.log) : undefined;
  const limiter = deps.limiter ?? createRateLimiter({ perMinute: config.rateLimitPerMinute, redis });
  const metrics = createMetrics({ db, redis });
  metrics.instrument(fastify);
  const mediaLimiter = metrics.watchLimiter(
    createRateLimiter({
      perMinute: config.rateLimitPerMinute * MEDIA_BUDGET_FACTOR,
      redis,
      keyPrefix: 'rl-media',
    }),
  );

  // JSON bodies: an empty body is no input (Laravel reads it as such); anything unparsable is a 400.
  // JSON is also what Laravel's `isJson()` reads as JSON, a type `…/json` or `…+json`
  // (`application/vnd.api+json`, `text/json`), judged by the type itself, not by its parameters
  // (`text/plain; a=/json`, which a browser sends cross-site without asking, is no JSON).
  fastify.removeContentTypeParser(['application/json']);
  const jsonBody: FastifyBodyParser<Buffer> = (req, body, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body);
    } catch {
      // Bytes that are no UTF-8 (PHP's json_decode: JSON_ERROR_UTF8): read leniently, they would be
      // stored as U+FFFD, not as what was sent.
      return done(new AppError('MALFORMED_JSON'), undefined);
    }
    // No body is an empty input to REST (as Laravel reads it); to GraphQL, no JSON object at all.
    if (text.trim() === '') return done(null, isGraphql(req) ? undefined : {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new AppError('MALFORMED_JSON'), undefined);
    }
    // What PHP's json_decode refuses (too deep, an unpaired surrogate) is malformed too. GraphQL judges
    // its variables' nesting itself, in its own error format; a lone surrogate it refuses as REST does
    // (probe Y: it was stored as U+FFFD).
    if (isGraphql(req) ? hasLoneSurrogate(parsed) : undecodable(parsed)) {
      return done(new AppError('MALFORMED_JSON'), undefined);
    }
    done(null, parsed);
  };
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonBody);
  fastify.addContentTypeParser(/^[^\s;/]+\/(?:[^\s;]*\+)?json\s*(?:;|$)/i, { parseAs: 'buffer' }, jsonBody);
  // HTML-form bodies, which Laravel reads as it reads a query string (PHP's `a[b]=…` nesting too).
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    // GraphQL's as text, for graphql-yoga to read as it reads a query string (JSON `variables`).
    (req, body, done) => done(null, isGraphql(req) ? String(body) : parsePhpQuery(String(body))),
  );
  // A GraphQL query sent as the body itself (`application/graphql`, as graphql-yoga reads it).
  fastify.addContentTypeParser('application/graphql', { parseAs: 'string' }, (req, body, done) =>
    done(null, isGraphql(req) ? String(body) : {}),
  );
  await acceptMultipart(fastify);
  // Other content types carry no input we read (as Laravel ignores them); their size still counts.
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, {}));

  // In-flight requests, until their response is written (or the client left): close() waits for them.
  const inFlight = new Map<FastifyRequest, number>();
  let drained: (() => void) | undefined;
  let draining = false;
  fastify.addHook('onRequest', async (request, reply) => {
    const socket = request.raw.socket;
    // A request pipelined after one refused on its connection is not served: the connection closes
    // once the answers before the refusal are written (a write after it would run unanswered).
    const refused = refusedOn.get(socket);
    if (refused && answersBefore(reply.raw).includes(refused)) {
      reply.hijack();
      return;
    }
    const refusal = framingRefusal(request.raw);
    if (refusal !== null) {
      // Refused as Node's parser refuses what it cannot read: the status alone, after the answers
      // before it on the connection, which then closes (its body, if any, cannot be told from the
      // next request). Only the answers before it: one pipelined after it never comes (probe X: the
      // connection hung).
      reply.hijack();
      refusedOn.set(socket, reply.raw);
      const before = answersBefore(reply.raw);
      refuseConnection(socket, refusal, () => allClosed(before), { once: false });
      return;
    }
    // Every answer names its request, the draining 503 too.
    reply.header('X-Request-Id', request.id);
    if (draining) {
      // decisions.md: 503 `{"message":"Service Unavailable"}` with Retry-After while draining; the
      // connection closes so the client's next request goes to another instance.
      reply.header('Connection', 'close');
      throw serviceUnavailable(new Error('the server is stopping'));
    }
    inFlight.set(request, Date.now());
    // Freed when its answer closes, or its connection does: an answer queued behind others on a
    // connection destroyed (a bad request pipelined after them) never closes, and was held for good,
    // its request counted as running at every shutdown (probe H).
    const answers = answersOn(socket);
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      if (!inFlight.delete(request)) return;
      if (inFlight.size === 0) drained?.();
    };
    // Through the connection's bookkeeping (afterClose); an answer that came no other way (inject)
    // gets a listener of its own.
    if (answers.has(reply.raw)) whenClosed(reply.raw, done);
    else reply.raw.once('close', done);
    // A body that stalls is refused 408 once REQUEST_TIMEOUT_SECONDS passed since the request began:
    // a token holder could hold a connection, and an import's buffer, for good (probe H). Node's own
    // bound (server.requestTimeout) did not end such a request under Fastify. The answers before it
    // on the connection are written first (probe X: the 408 landed inside a stream).
    if (!request.raw.complete) {
      timer = setTimeout(() => {
        if (request.raw.complete) return;
        const before = answersBefore(reply.raw);
        answerUnreadableRequest(
          Object.assign(new Error('request timed out'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
          socket,
          () => allClosed(before),
        );
      }, config.requestTimeoutSeconds * 1000);
      timer.unref();
    }
  });
  // The answers under way on each connection, from the moment Node parsed their request: before
  // Fastify's own listener (prepended), so before any hook, and a bad request parsed in the same read
  // is refused after them. Their one close listener also frees what the onRequest hook noted.
  fastify.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const answers = answersOn(req.socket);
    answers.add(res);
    res.once('close', () => {
      answers.delete(res);
      over(res);
    });
  });
  // `Expect: 100-continue` is answered by the route (see the preParsing hook that writes `100
  // Continue`), not by Node at once: a refusal (401, 413, 429) then comes before the body is sent. Any
  // other expectation reaches framingRefusal (417). Headers are bounded by their 16 KiB, not a count:
  // past Node's 2 000th they were dropped unread. `CONNECT` (no proxy here) is refused 405, not left
  // unanswered.
  const server = fastify.server;
  server.on('checkContinue', (req, res) => server.emit('request', req, res));
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  server.maxHeadersCount = 0;
  server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
    refuseConnection(socket, 405, () => allClosed(connections.get(socket))),
  );
  registerCors(fastify);
  const tokenUsage = createTokenUsage(prisma, {
    intervalMs: config.tokenLastUsedFlushSeconds * 1000,
    // At close there is no next try: said so, not "kept" (probe F: logged beside "shut down cleanly").
    onError: (err, final) =>
      fastify.log.warn(
        { ...failureFields(err), ...(final ? { lost: true } : {}) },
        final
          ? 'could not write the API tokens’ last use before stopping: it is lost'
          : 'could not write the API tokens’ last use (kept for the next try)',
      ),
  });
  const apiLimiter = metrics.watchLimiter(limiter);
  const gate = requestGate(
    prisma,
    apiLimiter,
    metrics.watchTurns(tenantTurns(config.tenantDbConcurrency, config.dbConnectTimeoutMs)),
    tokenUsage,
  );
  // The tenant's turn ends once the answer is ready: a streamed body (a subscription) does not keep it.
  fastify.addHook('onSend', async (request, reply, payload) => {
    request.releaseTurn?.();
    // A write answered to a client that had left: its answer is lost, and a retry may do it twice
    // (probe I: an import stored after its client left said nothing in the log). A GraphQL request
    // writes only when a mutation ran: a query sent by POST is a read.
    const wrote = isGraphql(request) ? request.ranMutation : !READS.has(request.method);
    if (reply.raw.destroyed && wrote) {
      request.log.warn(
        { statusCode: reply.statusCode },
        `${request.method} ${redactSecretQuery(request.url)} answered ${reply.statusCode} after its client left: the answer was not delivered`,
      );
    }
    return payload;
  });
  // The gate runs before the body is read: an unauthenticated or throttled caller is refused without
  // parsing its payload, and 400/413 answers carry the rate-limit headers like every other API answer.
  // Unknown routes (404/405) spend the budget too (probing for routes is throttled; a spent budget
  // answers 429 there as well), and answer 404/405 with or without a token, as Laravel's router does.
  fastify.addHook('preParsing', async (request, reply) => {
    // CORS preflights carry no credentials by design (the API's are answered before this, in
    // src/http/cors.ts; GraphQL's by Yoga). A plain OPTIONS of the API spends the budget as any
    // request of an unknown route does: it names a route's methods (`Allow`).
    const url = request.url;
    if (request.method === 'OPTIONS' && (isPreflight(request) || !url.startsWith(`${API_PREFIX}/`))) return;
    // GraphiQL's page spends the budget too (per address without a token): it is 2 MB a load.
    const api = url.startsWith(`${API_PREFIX}/`) || isGraphql(request);
    // A path Laravel's router matches to no route, whatever Fastify's matched: an encoded slash
    // decoded to an empty segment or a trailing one (`guests/%2F`, `guests/count%2F`; probe Q: the
    // list or the count answered).
    const unroutable = api && !isGraphql(request) && /\/\/|.\/$/.test(url.split('?')[0] ?? '');
    // Unknown routes and the public docs (openapi.json, /docs) let an unauthenticated caller through.
    const known = unroutable ? undefined : request.routeOptions.url;
    // A POST of a path without a POST route is routed by its method override (src/rest/method-override.ts).
    const requireAuth =
      known !== undefined &&
      !PUBLIC_API_PATHS.has(known) &&
      !wantsGraphiql(request) &&
      request.routeOptions.config.methodOverrideOnly !== true;
    if (url.startsWith(`${AVATAR_PATH}/`)) {
      // Each avatar is a storage read, loaded without a token (an <img> sends none): a budget of its
      // own per address (probe F), wide enough for a dashboard's page of guests, one avatar each.
      await spendBudget(mediaLimiter, clientBudgetKey(request.ip, request.socket?.remoteAddress), reply);
      return;
    }
    if (!api) return;
    await gate(request, reply, { requireAuth });
    if (unroutable) return answerNoRoute(request, reply);
    // Without a token, a POST routed by its body is refused before that body is read.
    if (!request.principal) refuseOverrideWithoutToken(request, routeTable);
  });

  // The body of an `Expect: 100-continue` request is asked for once the gate let it through and its
  // size is within the route's limit (beyond it, the 413 comes without it; a multipart body is
  // bounded by its parts, src/http/multipart.ts).
  fastify.addHook('preParsing', async (request, reply) => {
    // An HTTP/1.0 client's expectation is ignored: it reads no 1xx answer (RFC 9110 10.1.1; probe X).
    if (request.headers.expect === undefined || reply.sent || request.raw.httpVersion !== '1.1') return;
    const length = Number(request.headers['content-length'] ?? 0);
    const multipart = /^multipart\//i.test(request.headers['content-type'] ?? '');
    if (!multipart && length > (request.routeOptions.bodyLimit ?? BODY_LIMIT)) return;
    reply.raw.writeContinue();
  });

  fastify.setErrorHandler((err: FastifyError, request, reply) => {
    // A method with a body (QUERY) sent without a Content-Type: refused before routing, it is
    // answered as any request no route takes (its 405 or 404; it was a 500: probe H).
    if (err.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE') return answerNoRoute(request, reply);
    const app = toAppError(err) ?? fastifyError(err, request) ?? unreadableForm(request);
    // An AppError answering 500 (a failure with a body of its own) carries the cause to log.
    logFailure(request.log, err, app);
    const known = app ?? new AppError('INTERNAL');
    for (const [k, v] of Object.entries(known.headers)) reply.header(k, v);
    if (isGraphql(request)) return sendGraphqlError(reply, known);
    return sendJson(reply, known.status, restErrorBody(known));
  });

  /** A request no route takes. GraphQL's one path answers its other methods 405 in its own error format (probe K: a REST 404). */
  const answerNoRoute = (request: FastifyRequest, reply: FastifyReply) => {
    if (isGraphql(request)) {
      reply.header('Allow', 'GET, POST');
      return sendGraphqlError(reply, new AppError('METHOD_NOT_ALLOWED'));
    }
    return answerUnrouted(reply, routeTable, request.method, request.url);
  };
  fastify.setNotFoundHandler(answerNoRoute);

  const live = createAppPubSub(redis);
  // First step of close(): an open subscription would keep its connection (and the server) open forever.
  fastify.addHook('preClose', async () => live.endSubscriptions());
  // Committed events fan out to the `events` subscribers of every instance (src/events/feed.ts).
  const stopPublishing = onEventsCommitted((events) => publishCommitted(live.pubsub, events));
  // Streamed exports (src/rest/export.ts) run on while the server drains, until 2 s before
  // SHUTDOWN_TIMEOUT_SECONDS: those still running then are cut short (logged), so the process still
  // ends cleanly within its timeout.
  const closing = new AbortController();
  // One listener per running export: more than Node's default of 10 is no leak (each is removed as
  // its export ends), and Node's warning would put a line that is no JSON in the log.
  setMaxListeners(0, closing.signal);
  let exportGrace: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', async () => {
    exportGrace = setTimeout(() => closing.abort(), Math.max(0, config.shutdownTimeoutSeconds * 1000 - 2000));
    exportGrace.unref();
  });
  fastify.addHook('onClose', async () => clearTimeout(exportGrace));
  mountRest(fastify, {
    routes: routeTable,
    config,
    prisma,
    pubsub: live.pubsub,
    closing: closing.signal,
  });
  mountDocs(fastify, routeTable, config.appUrl);
  // Where a browser reaches GraphQL: under APP_URL's path behind a proxy that serves the service under one.
  const graphqlEndpoint = `${basePathOf(config.appUrl)}/graphql`;

  const fieldGuard = metrics.watchFieldGuard(createFieldGuard(redis));
  const yoga = createGraphqlHandler({
    prisma,
    config,
    log: fastify.log,
    fieldGuard,
    pubsub: live.pubsub,
    metrics: metrics.graphqlPlugin,
  });
  fastify.route({
    url: '/graphql',
    // HEAD declared, not Fastify's own route: that one gave a 304 `Content-Length: 0`.
    method: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    handler: async (req, reply) => {
      // Yoga builds its URL from the raw request's original target, and copies `query` into it. The
      // target it gets is the one routed (the absolute form's origin made it `http://hosthttp://…`,
      // a 500), and no `query`: the PHP-style parse's nested maps (`utm[source]=x`) no URL parameter
      // can hold (a 500 too), so Yoga reads its GET parameters from the query string itself.
      if (wantsGraphiql(req)) return sendGraphiql(req, reply, graphqlEndpoint);
      // A body of another type is 415 (the catch-all parser above made it `{}`, answered as a request
      // without a query; probe V): a multipart one too, whose fields Yoga read but not as a form's
      // (its `variables` text refused), nor the multipart request spec's `operations` (uploads).
      if (req.method === 'POST' && !isGraphqlBody(req)) throw new AppError('UNSUPPORTED_MEDIA_TYPE');
      (req.raw as IncomingMessage & { originalUrl?: string }).originalUrl = req.raw.url;
      if (req.method === 'GET') assertJsonParams(new URLSearchParams(req.url.split('?')[1] ?? ''));
      else if (typeof req.body === 'string' && isForm(req)) assertJsonParams(new URLSearchParams(req.body));
      // An empty JSON object is a request without a query (`Must provide query string.`, as
      // `{"variables":{}}` is); Yoga takes an empty parsed body for none, reads the stream again
      // (consumed) and calls it malformed.
      const body: unknown = req.body;
      // An array is a batch only when it holds requests: `[1,2]` is no GraphQL body at all (Yoga
      // called it a batch; probe R).
      if (Array.isArray(body) && body.some((e) => typeof e !== 'object' || e === null || Array.isArray(e)))
        throw new AppError('MALFORMED_JSON');
      const noQuery =
        typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0;
      const asYogaReads: FastifyRequest = Object.create(req, {
        query: { value: undefined },
        ...(noQuery ? { body: { value: { query: undefined } } } : {}),
        // HEAD is answered as GET, without the body (Node writes none for HEAD): Yoga answered 405
        // where GET is served (RFC 9110 9.3.2; probe H).
        ...(req.method === 'HEAD' ? { method: { value: 'GET' } } : {}),
      });
      const response = await yoga.handleNodeRequestAndResponse(asYogaReads, reply, { req, reply });
      // Yoga's 415 has no body at all (probe K): GraphQL's error format, as every other refusal.
      if (response.status === 415) throw new AppError('UNSUPPORTED_MEDIA_TYPE');
      // Its 406 neither (a subscription asked with `Accept: application/json`; probe R).
      if (response.status === 406) throw new AppError('NOT_ACCEPTABLE');
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      // A streamed answer (subscriptions over SSE, incremental delivery) streams; any other is one
      // string, written at once rather than piped through a web stream.
      const type = response.headers.get('content-type') ?? '';
      if (type.startsWith('text/event-stream') || type.startsWith('multipart/mixed'))
        reply.send(response.body);
      else reply.send(await response.text());
      return reply;
    },
  });

  // Webhook delivery in the background, stopped first by close(): on a thread of its own on
  // PostgreSQL; in this one on PGlite (which this thread's one connection owns).
  const webhooks = !config.webhooks.deliver
    ? undefined
    : config.webhooks.thread && db.url
      ? startWebhookDeliveryThread({
          databaseUrl: db.url,
          poolSize: DELIVERY_THREAD_POOL,
          settings: config.webhooks,
          log: fastify.log,
          debug: fastify.log.level === 'debug' || fastify.log.level === 'trace',
        })
      : startWebhookDelivery({
          prisma,
          settings: config.webhooks,
          log: fastify.log,
          health: endpointHealth(prisma),
        });

  mountHealth(fastify, { db, redis });
  mountMedia(fastify, config, prisma);
  mountMetrics(fastify, metrics, config.metricsToken, (request, reply) =>
    spendBudget(apiLimiter, clientBudgetKey(request.ip, request.socket?.remoteAddress), reply),
  );

  await fastify.ready();
  const retention = startRetentionSweeper({
    db,
    config,
    log: fastify.log,
    intervalMs: config.retentionSweepSeconds * 1000,
  });
  const events = startEventSweeper({
    db,
    config,
    log: fastify.log,
    intervalMs: config.eventSweepSeconds * 1000,
    // Devices that left by timeout reach presence subscribers as the ingest's changes do.
    onLeft: (tenantId, left, span) => publishPresence(live.pubsub, tenantId, left, span),
  });
  const fileRemovals = startFileRemovals({
    config,
    prisma,
    log: fastify.log,
    intervalMs: config.eventSweepSeconds * 1000,
  });
  /** What close() waits for now (see App.closing). */
  let closingStep: string | null = null;
  return {
    fastify,
    limiter,
    metrics,
    fileRemovals,
    tokenUsage,
    retention,
    webhooks,
    events,
    pubsub: live.pubsub,
    running: () =>
      [...inFlight].map(([request, since]) => ({
        method: request.method,
        url: redactSecretQuery(request.url),
        id: request.id,
        seconds: Math.round((Date.now() - since) / 100) / 10,
      })),
    closing: () => closingStep,
    async close() {
      draining = true;
      closingStep = 'the requests in flight';
      // A retention pass stops after its current batch (the next pass goes on from there).
      const sweeperStopped = Promise.all([retention.close(), events.close(), fileRemovals.close()]);
      // No new attempts from now on; those in flight finish (within WEBHOOKS_TIMEOUT_MS) and are recorded.
      const webhooksStopped = webhooks?.stop();
      const serverClosed = fastify.close();
      if (inFlight.size > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
      }
      // Connections kept alive by clients stay open once answered: close them, idle ones only.
      closingStep = 'the connections to close';
      const idle = setInterval(() => fastify.server.closeIdleConnections(), 100);
      fastify.server.closeIdleConnections();
      await serverClosed.finally(() => clearInterval(idle));
      closingStep = 'the sweepers’ current batches';
      await sweeperStopped;
      stopPublishing();
      closingStep = 'webhook delivery to stop';
      await webhooksStopped;
      // Every answer is written: the uses noted last are written before the database closes.
      closingStep = 'the database to write the API tokens’ last uses';
      await tokenUsage.close();
      closingStep = 'Redis to close';
      if (!deps.limiter) await limiter.close();
      await mediaLimiter.close();
      await redis?.close();
      metrics.close();
      closingStep = null;
    },
  };
}

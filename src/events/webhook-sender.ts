// One webhook attempt: the message POSTed to the endpoint as Standard Webhooks describes it
// (`webhook-id`, `webhook-timestamp`, `webhook-signature` headers over a JSON body), to the addresses
// the SSRF check passed, within the attempt's time limit, without following redirects; the answer
// is judged into an outcome the worker acts on.
//
// The check runs when a connection is made: an IP literal is checked before the request, a host
// name is resolved and checked by the connection's own look-up (which then connects to the checked
// addresses). A kept-alive connection of the worker's (webhookConnections) was checked when it was
// made, so an attempt on it needs no look-up. Sent with undici: half the CPU of node:http's client
// per attempt (27–35 µs against 61–75 µs, 2026-11-27), and loaded at the first attempt: importing
// it costs about 110 ms of CPU, at every start of a process that may never send one.
import type net from 'node:net';
import { isIP } from 'node:net';
import type { Client, Dispatcher } from 'undici';
import {
  hostOf,
  pinnedLookup,
  type Resolver,
  refusedAddress,
  resolveTarget,
  TargetRefused,
  TargetUnresolvable,
} from './webhook-address.js';
import { signatureHeader } from './webhook-secret.js';

/** What is sent: the message id (`webhook-id`, the receiver's idempotency key) and the JSON body. */
export interface WebhookMessage {
  readonly id: string;
  readonly body: string;
}

/**
 * - `succeeded`: a 2xx answer.
 * - `retry`: 5xx, 429, a timeout, a connection error or a host that did not resolve: tried again later.
 * - `failed`: any other answer (3xx: redirects are not followed; 4xx), or a refused address: not again.
 * - `gone`: 410: not again, and the endpoint is disabled.
 */
export type AttemptOutcome = 'succeeded' | 'retry' | 'failed' | 'gone';

export interface AttemptResult {
  readonly outcome: AttemptOutcome;
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** A plain sentence for failures (`HTTP 500`, `timed out after 5 s`, `connect ECONNREFUSED …`). */
  readonly error: string | null;
}

export interface SendOptions {
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  /** The delivering instance's kept-alive connections (webhookConnections); none: one connection per attempt. */
  readonly connections?: WebhookConnections;
  /** For tests: the moment of signing. */
  readonly now?: () => Date;
  /** For tests: how a host name is resolved (default: the system's resolver). */
  readonly resolver?: Resolver;
}

/** The longest error text kept (the column's size). */
const ERROR_MAX = 500;
/** The receiver's answer is read (and dropped) up to this many bytes, then the connection is closed. */
const BODY_MAX = 64 * 1024;

const USER_AGENT = 'venue-wifi-gateway-webhooks/1';

export function outcomeOf(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'succeeded';
  if (status === 410) return 'gone';
  if (status === 429 || status >= 500) return 'retry';
  return 'failed';
}

const clip = (text: string): string => (text.length > ERROR_MAX ? `${text.slice(0, ERROR_MAX - 1)}…` : text);

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** Parsed endpoint URLs (the worker sends to few URLs many times). */
const urls = new Map<string, URL | null>();
const URLS_KEPT = 1000;

function parseUrl(url: string): URL | null {
  let parsed = urls.get(url);
  if (parsed !== undefined) return parsed;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (urls.size >= URLS_KEPT) urls.clear();
  urls.set(url, parsed);
  return parsed;
}

type LookupFn = NonNullable<net.TcpNetConnectOpts['lookup']>;

/** A connection's look-up: resolves the host, checks every address, answers the checked ones. */
function checkedLookup(opts: Pick<SendOptions, 'allowPrivate' | 'timeoutMs' | 'resolver'>): LookupFn {
  return ((hostname: string, options: { all?: boolean; family?: number | string }, callback) => {
    resolveTarget(hostname, {
      allowPrivate: opts.allowPrivate,
      timeoutMs: opts.timeoutMs,
      resolver: opts.resolver,
    }).then(
      (addresses) => pinnedLookup(addresses)(hostname, options, callback),
      (err: Error) => callback(err, '', 0),
    );
  }) as LookupFn;
}

type Undici = typeof import('undici');
let undiciLoaded: Promise<Undici> | undefined;
const loadUndici = (): Promise<Undici> => (undiciLoaded ??= import('undici'));

/** The delivering instance's connections: undici's pool, made at the first attempt. */
export interface WebhookConnections {
  dispatcher(): Promise<Dispatcher>;
  destroy(): Promise<void>;
}

/**
 * The delivering instance's connections: kept alive, at most `connections` to one origin, each
 * checked when it is made (an IP literal connects without a look-up: sendWebhook checks it first).
 */
export function webhookConnections(
  opts: Pick<SendOptions, 'allowPrivate' | 'timeoutMs' | 'resolver'> & { connections: number },
): WebhookConnections {
  let agent: Promise<Dispatcher> | undefined;
  return {
    dispatcher: () =>
      (agent ??= loadUndici().then(
        ({ Agent }) => new Agent({ connections: opts.connections, connect: { lookup: checkedLookup(opts) } }),
      )),
    async destroy() {
      if (agent) await (await agent).destroy();
    },
  };
}

/** The Basic credentials of a URL's user information, as a browser (and node:http) sends them. */
function basicAuth(target: URL): string | null {
  if (target.username === '' && target.password === '') return null;
  const pair = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

/** Sends `message` to `url`, signed with each of `secrets` (the current one first); never throws. */
export async function sendWebhook(
  url: string,
  secrets: readonly string[],
  message: WebhookMessage,
  opts: SendOptions,
): Promise<AttemptResult> {
  // Loaded before the clock starts: the first attempt of a process loads undici, which is no part of
  // the receiver's time (probe Y: a 100 ms WEBHOOKS_TIMEOUT_MS timed out the first attempt).
  const undici = await loadUndici();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const result = (
    outcome: AttemptOutcome,
    statusCode: number | null,
    error: string | null,
  ): AttemptResult => ({
    outcome,
    statusCode,
    durationMs: elapsed(),
    error: error === null ? null : clip(error),
  });
  const target = parseUrl(url);
  if (target === null) return result('failed', null, 'the URL is not valid');
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return result('failed', null, `the URL's scheme ${target.protocol} is not http or https`);
  }
  const host = hostOf(target);
  if (isIP(host) !== 0) {
    // An IP literal is connected to without a look-up: checked here.
    const kind = opts.allowPrivate ? null : refusedAddress(host);
    if (kind !== null) return result('failed', null, `refused: ${host} is ${kind}`);
  }
  const timestamp = Math.floor((opts.now?.() ?? new Date()).getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, message.id, timestamp, message.body),
  };
  const auth = basicAuth(target);
  if (auth !== null) headers.authorization = auth;
  // Without the instance's connections, one of the attempt's own, closed after it.
  let connection: Client | undefined;
  try {
    if (!opts.connections)
      connection = new undici.Client(target.origin, { connect: { lookup: checkedLookup(opts) } });
  } catch (err) {
    // A URL undici will not connect to: the URL is at fault, not the moment.
    return result('failed', null, (err as Error).message);
  }
  const dispatcher: Dispatcher = opts.connections
    ? await opts.connections.dispatcher()
    : (connection as Client);
  const answer = await new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let status: number | null = null;
    let read = 0;
    let controller: Dispatcher.DispatchController | null = null;
    const settle = (r: AttemptResult, stop?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (stop) controller?.abort(stop);
      resolve(r);
    };
    // The answer judged by its status; its body read and dropped, up to BODY_MAX (a receiver
    // streaming a large one: the rest is not needed, the connection is closed).
    const judged = () => {
      const outcome = outcomeOf(status ?? 0);
      return result(outcome, status, outcome === 'succeeded' ? null : `HTTP ${status}`);
    };
    const timer = setTimeout(
      () =>
        settle(result('retry', null, `timed out after ${seconds(opts.timeoutMs)}`), new Error('timed out')),
      Math.max(1, opts.timeoutMs - elapsed()),
    );
    // A handler rather than `request()`: no response stream nor abort signal per attempt.
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (settled) c.abort(new Error('timed out'));
      },
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData(_c, chunk) {
        read += chunk.length;
        if (read > BODY_MAX) settle(judged(), new Error('answer too long'));
      },
      onResponseEnd() {
        settle(judged());
      },
      onResponseError(_c, err) {
        if (status !== null) return settle(judged());
        settle(failure(err));
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers,
          body: message.body,
        },
        handler,
      );
    } catch (err) {
      settle(failure(err));
    }
  });
  if (connection) void connection.destroy().catch(() => {});
  return answer;

  function failure(err: unknown): AttemptResult {
    const { errors } = undici;
    const cause = connectError(err);
    // The connection's look-up refused the host's addresses: not again; unresolved: later.
    if (cause instanceof TargetRefused) return result('failed', null, cause.message);
    if (cause instanceof TargetUnresolvable) return result('retry', null, cause.message);
    if (cause instanceof errors.InvalidArgumentError) return result('failed', null, cause.message);
    const e = cause as NodeJS.ErrnoException;
    return result('retry', null, e.message || e.code || 'connection error');
  }
}

/** The error that failed the connection (undici may wrap the socket's). */
function connectError(err: unknown): unknown {
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof TargetRefused || cause instanceof TargetUnresolvable ? cause : err;
}

// One webhook attempt: the message POSTed to the endpoint as Standard Webhooks describes it
// (`webhook-id`, `webhook-timestamp`, `webhook-signature` headers over a JSON body), to the addresses
// the SSRF check passed, within the attempt's time limit, without following redirects; the answer
// is judged into an outcome the worker acts on.
//
// The check runs when a connection is made: an IP literal is checked before the request, a host
// name is resolved and checked by the connection's own look-up (which then connects to the checked
// addresses). A kept-alive connection of the worker's agents was checked when it was made, so an
// attempt on it needs no look-up.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import {
  hostOf,
  pinnedLookup,
  type Resolver,
  refusedAddress,
  resolveTarget,
  TargetRefused,
  TargetUnresolvable,
} from './webhook-address.js';
import { signMessage } from './webhook-secret.js';

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
  /** Keep-alive agents of the delivering instance; none: one connection per attempt. */
  readonly agents?: { http: http.Agent; https: https.Agent };
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

type LookupFn = NonNullable<http.RequestOptions['lookup']>;

/** A connection's look-up: resolves the host, checks every address, answers the checked ones. */
function checkedLookup(opts: SendOptions): LookupFn {
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

/** Sends `message` to `url`, signed with `secret`; never throws. */
export async function sendWebhook(
  url: string,
  secret: string,
  message: WebhookMessage,
  opts: SendOptions,
): Promise<AttemptResult> {
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
  const family = isIP(host);
  let lookup: LookupFn;
  if (family !== 0) {
    // An IP literal is connected to without a look-up: checked here.
    const kind = opts.allowPrivate ? null : refusedAddress(host);
    if (kind !== null) return result('failed', null, `refused: ${host} is ${kind}`);
    lookup = pinnedLookup([{ address: host, family }]) as LookupFn;
  } else {
    lookup = checkedLookup(opts);
  }
  const timestamp = Math.floor((opts.now?.() ?? new Date()).getTime() / 1000);
  const body = Buffer.from(message.body, 'utf8');
  const headers = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    'user-agent': USER_AGENT,
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signMessage(secret, message.id, timestamp, message.body),
  };
  const https_ = target.protocol === 'https:';
  const remaining = Math.max(1, opts.timeoutMs - elapsed());
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (r: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    let request: http.ClientRequest;
    try {
      request = (https_ ? https : http).request(target, {
        method: 'POST',
        headers,
        agent: opts.agents ? (https_ ? opts.agents.https : opts.agents.http) : false,
        lookup,
      });
    } catch (err) {
      // Node refuses some URLs only here (a port out of range, …): the URL is at fault, not the moment.
      resolve(result('failed', null, (err as Error).message));
      return;
    }
    timer = setTimeout(() => {
      settle(result('retry', null, `timed out after ${seconds(opts.timeoutMs)}`));
      request.destroy();
    }, remaining);
    request.on('error', (err: NodeJS.ErrnoException) => {
      // The connection's look-up refused the host's addresses: not again; unresolved: later.
      if (err instanceof TargetRefused) settle(result('failed', null, err.message));
      else if (err instanceof TargetUnresolvable) settle(result('retry', null, err.message));
      else settle(result('retry', null, err.message || err.code || 'connection error'));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      const done = () => {
        const outcome = outcomeOf(status);
        settle(result(outcome, status, outcome === 'succeeded' ? null : `HTTP ${status}`));
      };
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // A receiver streaming a large answer: its status is known, the rest is not needed.
        if (read > BODY_MAX) {
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', done);
      response.on('aborted', done);
    });
    request.end(body);
  });
}

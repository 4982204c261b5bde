// A webhook receiver for tests: node:http on 127.0.0.1 (an ephemeral port) that records every request
// (headers, body, arrival) and answers as the test's policy says: a status, or `hold` (the request
// stays open until `release()` or the sender gives up).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert parsed bodies against literals.
  json: any;
  /** The `webhook-id` header. */
  id: string;
  at: number;
  path: string;
}

/** What to answer the `n`th request (0-based, over all requests): a status, or hold it open. */
export type Policy = (
  req: Received,
  n: number,
) => number | 'hold' | { status: number; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests received but not answered yet (held). */
  open(): number;
  /** The most requests ever open at once. */
  peakOpen(): number;
  setPolicy(policy: Policy): void;
  /** Answers every held request with `status`. */
  release(status?: number): void;
  /** Resolves when `predicate` holds over the received requests (checked on each arrival), or rejects after `timeoutMs`. */
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  /** Verifies a request's signature with the `standardwebhooks` package; throws when it does not verify. */
  verify(r: Received, secret: string): unknown;
  close(): Promise<void>;
}

export async function startReceiver(policy: Policy = () => 204): Promise<Receiver> {
  let current = policy;
  const received: Received[] = [];
  const held = new Set<ServerResponse>();
  let peak = 0;
  let open = 0;
  const waiters = new Set<() => void>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: Received = {
        headers: req.headers,
        body,
        json,
        id: String(req.headers['webhook-id'] ?? ''),
        at: Date.now(),
        path: req.url ?? '',
      };
      const n = received.length;
      received.push(r);
      open++;
      peak = Math.max(peak, open);
      res.on('close', () => {
        open--;
        held.delete(res);
      });
      const answer = current(r, n);
      if (answer === 'hold') held.add(res);
      else if (typeof answer === 'number') res.writeHead(answer).end();
      else res.writeHead(answer.status, answer.headers).end();
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    open: () => open,
    peakOpen: () => peak,
    setPolicy(p) {
      current = p;
    },
    release(status = 204) {
      for (const res of held) res.writeHead(status).end();
      held.clear();
    },
    waitFor(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          cleanup();
          resolve(received);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `receiver: condition not met in ${timeoutMs} ms; got ${received.length} request(s): ${received.map((r) => r.id).join(', ')}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    verify(r, secret) {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string') headers[k] = v;
      return new Webhook(secret).verify(r.body, headers);
    },
    close() {
      for (const res of held) res.destroy();
      held.clear();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// Webhook delivery on a thread of its own (on PostgreSQL): the same loop as webhook-delivery.ts, run
// by a worker thread with its own connections, so the API's event loop never waits behind delivery
// work (building, signing, sending and recording thousands of attempts a second) and delivery uses
// another core. The main thread tells it of the events its requests commit (which tenants to look
// at); it tells the main thread of the events it writes itself (an endpoint it disables), what to
// log, and the streams it holds (a thread started after one that ended unasked takes them back at
// once, not a lease later). On PGlite, which one connection in this thread owns, delivery runs in
// the main thread.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { WebhookSettings } from '../config.js';
import { openDatabase } from '../db/database.js';
import { plainReason } from '../db/plain-reason.js';
import { endpointHealth } from '../modules/webhooks/webhooks.service.js';
import { announceEvents, onEventsCommitted, type RecordedEvent } from './outbox.js';
import { startWebhookDelivery, type Wake, type WebhookDeliveryService, wakesOf } from './webhook-delivery.js';
import type { LetGoStream } from './webhook-stream.js';
import type { WorkerLog } from './webhook-worker.js';

interface ThreadData {
  webhookDeliveryThread: true;
  databaseUrl: string;
  poolSize: number;
  settings: WebhookSettings;
  /** Debug lines are logged (otherwise the thread does not send them). */
  debug: boolean;
  /** Attempts in flight, kept by the thread (inFlight() reads it without a round trip). */
  inFlight: Int32Array;
  /** The streams the thread before this one held when it ended (none at the first start). */
  takeBack: LetGoStream[];
}

type ToThread = { wake: readonly Wake[] } | { poke: true } | { stop: true };
type FromThread =
  | { ready: true }
  | { log: { level: 'warn' | 'info' | 'debug'; obj: object; msg: string } }
  | { events: RecordedEvent[] }
  | { holding: LetGoStream[] }
  | { released: LetGoStream[] }
  | { stopped: true };

/** How the thread's connections name themselves (`pg_stat_activity.application_name`), with the process id. */
export const DELIVERY_APPLICATION_NAME = 'webhook-delivery';

/** The thread's connections: a claim, a window's read and a record at once, and the poll. */
export const DELIVERY_THREAD_POOL = 4;

/**
 * The thread's first code: it loads this module as the main thread did. Its TypeScript goes through
 * tsx, whether this process was started with tsx's loader or not (a worker's entry, unlike its
 * imports, would not go through the loader the process was started with).
 */
function threadEntry(): string {
  // Built (dist/, as `npm start` runs): the thread imports this module as it is.
  if (!import.meta.url.endsWith('.ts')) return `import(${JSON.stringify(import.meta.url)});`;
  // From the sources (tests, `npm run dev`), through tsx's ES module API, as its package declares it
  // (its CommonJS one loads the hooks from a wrong path).
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const { exports } = require(manifest) as { exports: Record<string, { import: { default: string } }> };
  const api = new URL(
    exports['./esm/api']?.import.default ?? './dist/esm/api/index.mjs',
    pathToFileURL(manifest),
  );
  return `import(${JSON.stringify(api.href)}).then((tsx) => {
  (tsx.register ?? tsx.default.register)();
  return import(${JSON.stringify(import.meta.url)});
});`;
}

/** A thread that ended unasked is started again after this long, doubled after each failure in a row (to a minute). */
const RESTART_MS = 1000;
const RESTART_MAX_MS = 60_000;

/** Errors made plain data for the message (an Error's own fields do not cross a thread). */
function plain(obj: object): object {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj))
    out[k] = v instanceof Error ? { message: v.message, stack: v.stack } : v;
  return out;
}

/**
 * Starts delivery on a worker thread connected to `databaseUrl` (a pool of `poolSize`): logs go to
 * `log`, events the thread writes are announced in this thread. Resolves at once; the thread starts
 * in the background and is started again should it end unasked.
 */
export function startWebhookDeliveryThread(opts: {
  databaseUrl: string;
  poolSize: number;
  settings: WebhookSettings;
  log: WorkerLog;
  /** `log` keeps debug lines (one per failed attempt): otherwise the thread does not send them. */
  debug?: boolean;
}): WebhookDeliveryService {
  const inFlight = new Int32Array(new SharedArrayBuffer(4));
  /**
   * The streams the thread holds, by endpoint, under their latest lease (removed as it lets them
   * go): should it end unasked, the next thread takes them back at its first claim instead of
   * waiting out their leases.
   */
  const holds = new Map<string, number>();
  let stopping: Promise<void> | null = null;
  let worker: Worker | null = null;
  let restart: NodeJS.Timeout | undefined;
  let delay = RESTART_MS;
  const entry = threadEntry();

  function spawn(): void {
    const data: ThreadData = {
      webhookDeliveryThread: true,
      databaseUrl: opts.databaseUrl,
      poolSize: opts.poolSize,
      settings: opts.settings,
      debug: opts.debug ?? false,
      inFlight,
      takeBack: [...holds].map(([webhookId, lease]) => ({ webhookId, lease })),
    };
    const w = new Worker(entry, { eval: true, workerData: data, execArgv: [] });
    w.on('message', (m: FromThread) => {
      if ('ready' in m) delay = RESTART_MS;
      else if ('log' in m) opts.log[m.log.level](m.log.obj, m.log.msg);
      else if ('events' in m) announceEvents(m.events);
      else if ('holding' in m) for (const h of m.holding) holds.set(h.webhookId, h.lease);
      else if ('released' in m)
        for (const r of m.released) if (holds.get(r.webhookId) === r.lease) holds.delete(r.webhookId);
    });
    w.on('error', (err) =>
      opts.log.warn({ err }, `Webhook delivery: its thread failed (${plainReason(err)}); starting it again`),
    );
    w.on('exit', () => {
      if (worker !== w) return;
      worker = null;
      Atomics.store(inFlight, 0, 0);
      if (stopping) return;
      restart = setTimeout(spawn, delay);
      restart.unref();
      delay = Math.min(delay * 2, RESTART_MAX_MS);
    });
    worker = w;
  }
  spawn();

  const post = (m: ToThread) => worker?.postMessage(m);
  const unsubscribe = onEventsCommitted((events) => {
    if (!stopping) post({ wake: wakesOf(events) });
  });

  return {
    poke: () => post({ poke: true }),
    wake: (wakes) => post({ wake: wakes }),
    inFlight: () => Atomics.load(inFlight, 0),
    stop() {
      stopping ??= (async () => {
        unsubscribe();
        clearTimeout(restart);
        const w = worker;
        if (!w) return;
        const stopped = new Promise<void>((resolve) => {
          w.on('message', (m: FromThread) => {
            if ('stopped' in m) resolve();
          });
          w.once('exit', () => resolve());
        });
        w.postMessage({ stop: true } satisfies ToThread);
        // Its attempts in flight end within their timeout, then it records them; a thread stuck
        // beyond that (a database that never answers) is ended.
        const bound = setTimeout(() => void w.terminate(), 2 * opts.settings.timeoutMs + 10_000);
        await stopped;
        clearTimeout(bound);
        await w.terminate();
      })();
      return stopping;
    },
  };
}

// ── In the thread ───────────────────────────────────────────────────────────────────────────────
if (!isMainThread && parentPort && (workerData as ThreadData | undefined)?.webhookDeliveryThread) {
  const port = parentPort;
  const data = workerData as ThreadData;
  const send = (m: FromThread) => port.postMessage(m);
  const say =
    (level: 'warn' | 'info' | 'debug') =>
    (obj: object, msg: string): void =>
      send({ log: { level, obj: plain(obj), msg } });
  // A Buffer arrives as a plain Uint8Array.
  const key = data.settings.secretsKey;
  const settings: WebhookSettings = { ...data.settings, secretsKey: key ? Buffer.from(key) : undefined };
  const db = await openDatabase({
    url: data.databaseUrl,
    poolSize: data.poolSize,
    migrate: false,
    applicationName: `${DELIVERY_APPLICATION_NAME} ${process.pid}`,
  });
  // The events this thread writes (an endpoint disabled): announced in the main thread too.
  onEventsCommitted((events) => send({ events: [...events] }));
  const service = startWebhookDelivery({
    prisma: db.prisma,
    settings,
    log: { warn: say('warn'), info: say('info'), debug: data.debug ? say('debug') : () => {} },
    health: endpointHealth(db.prisma),
    inFlight: (n) => Atomics.store(data.inFlight, 0, n),
    holding: (streams) => send({ holding: [...streams] }),
    released: (streams) => send({ released: [...streams] }),
    takeBack: data.takeBack,
  });
  port.on('message', (m: ToThread) => {
    if ('wake' in m) service.wake(m.wake);
    else if ('poke' in m) service.poke();
    else if ('stop' in m) {
      void service
        .stop()
        .then(() => db.close())
        .finally(() => send({ stopped: true }));
    }
  });
  send({ ready: true });
}

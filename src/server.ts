// `npm start`: open (and migrate) the database, listen, shut down gracefully.
import type { Config } from './config.js';

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;
type Signal = keyof typeof SIGNAL_NUMBERS;

// A signal while the service starts (loading its modules, opening and migrating the database) ends
// the start cleanly once the database is open; a second one exits at once. The handlers are set
// before anything loads and never removed, only what they do changes: a process without a handler
// for a moment would take a signal's default action (killed), and one that removes its handler
// while PGlite holds the thread drops a signal already queued.
let stopBeforeListening: Signal | null = null;
const early = (signal: Signal) => {
  if (stopBeforeListening) process.exit(128 + SIGNAL_NUMBERS[signal]);
  stopBeforeListening = signal;
  console.error(`${signal} received while starting; stopping once the database is open`);
};
let onSignal: (signal: Signal) => void = early;
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));

const { buildApp } = await import('./app.js');
const { ConfigError, databaseOptions, loadConfig } = await import('./config.js');
const { DatabaseLockedError, openDatabase, openFailure, prepareDataDir } = await import('./db/database.js');
const { listenMetrics } = await import('./metrics/endpoint.js');
const { redisDatabaseRefusal, redisWhere } = await import('./redis/redis.js');
const { startStallWatchdog } = await import('./stall-watchdog.js');

/**
 * Lets the signals that came while the thread was held (PGlite opens and migrates without yielding
 * to the event loop) reach their handler before a check of stopBeforeListening: a signal is read
 * in the loop's poll phase, which two turns of setImmediate are sure to pass through.
 */
const signalsHeard = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** A start that cannot go on, said in one line naming what to change (no stack trace). */
class StartError extends Error {}

async function main(): Promise<void> {
  const config = loadConfig();
  // On PostgreSQL, DATA_DIR holds MEDIA_STORAGE=local's files only: checked now, not at the first upload.
  if (config.databaseUrl && config.mediaStorage === 'local') {
    try {
      prepareDataDir(config.dataDir);
    } catch (err) {
      throw new StartError(openFailure({ ...config, databaseUrl: undefined }, err));
    }
  }
  // A Redis that answers but refuses the database number would leave the keys on database 0, shared
  // with others: a wrong REDIS_URL. One that does not answer is an outage: the service starts degraded.
  if (config.redisUrl) {
    const refusal = await redisDatabaseRefusal(config.redisUrl);
    if (refusal) throw new StartError(`REDIS_URL ${redisWhere(config.redisUrl)}: ${refusal}`);
  }
  const opening = performance.now();
  const db = await openDatabase(databaseOptions(config)).catch((err: unknown) => {
    if (err instanceof DatabaseLockedError) throw err;
    throw new StartError(openFailure(config, err));
  });
  await signalsHeard();
  if (stopBeforeListening) {
    await db.close();
    console.error('stopped before serving');
    process.exit(0);
  }
  const openedIn = (performance.now() - opening) / 1000;
  const app = await buildApp({ config, db });
  const log = app.fastify.log;
  // An upgrade says what it changed (probe E: nothing was said, even at debug).
  const migrated = db.migrated ?? [];
  if (migrated.length > 0)
    log.info(
      { migrations: migrated },
      `applied ${migrated.length} database migration(s): ${migrated.join(', ')}`,
    );
  // Before PORT: a METRICS_PORT in use stops the start before anything was served. It stays open
  // while the server drains, so the shutdown can be watched.
  const metricsListener =
    config.metricsPort === undefined
      ? undefined
      : await listenMetrics(app.metrics, { host: config.host, port: config.metricsPort });
  let stopping = false;
  // First signal: stop taking requests, end subscriptions, let in-flight requests finish within
  // SHUTDOWN_TIMEOUT_SECONDS, then close the database (only once every answer is written) and exit 0.
  // Second signal, or the time out: exit at once, non-zero.
  const stop = async (signal: Signal) => {
    if (stopping) {
      log.warn(`${signal} received again, exiting now`);
      process.exit(128 + SIGNAL_NUMBERS[signal]);
    }
    stopping = true;
    log.info(`${signal} received, shutting down (waiting up to ${config.shutdownTimeoutSeconds} s)`);
    /** What the shutdown waits for after the app's close (which names its own). */
    let closingStep: string | null = null;
    const deadline = setTimeout(() => {
      const running = app.running();
      // close() also waits for webhook attempts in flight (and records them), which no request shows.
      const attempts = app.webhooks?.inFlight() ?? 0;
      // With no request running, what it was waiting for (a database that hangs while the tokens'
      // last uses are written, say): the line named nothing (probe O).
      const waitingFor = closingStep ?? app.closing();
      log.error(
        { running, webhookAttempts: attempts, waitingFor },
        `Shutdown timed out after ${config.shutdownTimeoutSeconds} s with ${running.length} request(s) still running` +
          (running.length ? `: ${running.map((r) => `${r.method} ${r.url} (${r.id})`).join(', ')}` : '') +
          (attempts ? `; webhook delivery still stopping (${attempts} attempt(s) in flight)` : '') +
          (waitingFor ? `; waiting for ${waitingFor}` : ''),
      );
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000);
    try {
      await app.close();
      closingStep = 'the database to close';
      await db.close();
      closingStep = 'the metrics listener to close';
      await metricsListener?.close();
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    clearTimeout(deadline);
    log.info('shut down cleanly');
    process.exit(0);
  };
  onSignal = (signal) => void stop(signal);
  // A signal taken while the app was being built: the shutdown runs now, and nothing listens.
  await signalsHeard();
  if (stopBeforeListening) {
    void stop(stopBeforeListening);
    return;
  }
  try {
    await app.fastify.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close().catch(() => {});
    await db.close().catch(() => {});
    throw listenFailure(err as NodeJS.ErrnoException, config);
  }
  // From now on the main thread turns its loop at least every second, whatever it serves (the
  // embedded database's open and migrations, before this, may hold it longer).
  startStallWatchdog(config.eventLoopStallSeconds);
  log.info(
    `REST on ${config.appUrl}/api/v1, GraphQL on ${config.appUrl}/graphql (${db.kind === 'pglite' ? `embedded database in ${config.dataDir}, opened in ${openedIn.toFixed(1)} s` : 'PostgreSQL'})`,
  );
}

/** PORT or HOST, named, for what refused the listening socket. */
function listenFailure(err: NodeJS.ErrnoException, config: Config): Error {
  const at = `${config.host}:${config.port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return new StartError(`PORT ${config.port} is already in use on ${config.host}.`);
    case 'EACCES':
      return new StartError(`PORT ${config.port} may not be opened on ${config.host} (permission denied).`);
    case 'EADDRNOTAVAIL':
      return new StartError(`HOST ${config.host} is not an address of this machine (listening on ${at}).`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartError(`HOST ${config.host} does not resolve to an address of this machine.`);
    default:
      return new StartError(`Cannot listen on ${at}: ${err.message}`);
  }
}

main().catch((err: unknown) => {
  // One line, by its message; the stack of an unforeseen failure only when LOG_LEVEL=debug asks for it.
  console.error(`Cannot start: ${err instanceof Error ? err.message : String(err)}`);
  const known = err instanceof ConfigError || err instanceof DatabaseLockedError || err instanceof StartError;
  if (!known && process.env.LOG_LEVEL === 'debug' && err instanceof Error) console.error(err.stack);
  process.exit(1);
});

// `npm start`: open (and migrate) the database, listen, shut down gracefully.
import { buildApp } from './app.js';
import { ConfigError, databaseOptions, loadConfig } from './config.js';
import { DatabaseLockedError, openDatabase } from './db/database.js';
import { listenMetrics } from './metrics/endpoint.js';

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(databaseOptions(config));
  const app = await buildApp({ config, db });
  const log = app.fastify.log;
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
  const stop = async (signal: keyof typeof SIGNAL_NUMBERS) => {
    if (stopping) {
      log.warn(`${signal} received again, exiting now`);
      process.exit(128 + SIGNAL_NUMBERS[signal]);
    }
    stopping = true;
    log.info(`${signal} received, shutting down (waiting up to ${config.shutdownTimeoutSeconds} s)`);
    const deadline = setTimeout(() => {
      const running = app.running();
      log.error(
        { running },
        `Shutdown timed out after ${config.shutdownTimeoutSeconds} s with ${running.length} request(s) still running` +
          (running.length ? `: ${running.map((r) => `${r.method} ${r.url} (${r.id})`).join(', ')}` : ''),
      );
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000);
    try {
      await app.close();
      await db.close();
      await metricsListener?.close();
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    clearTimeout(deadline);
    log.info('shut down cleanly');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  await app.fastify.listen({ port: config.port, host: config.host });
  log.info(
    `REST on ${config.appUrl}/api/v1, GraphQL on ${config.appUrl}/graphql (${db.kind === 'pglite' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
  );
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DatabaseLockedError) {
    console.error(`Cannot start: ${err.message}`);
  } else {
    console.error('Cannot start:', err);
  }
  process.exit(1);
});

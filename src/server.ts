// `npm start`: open (and migrate) the database, listen, shut down gracefully.
import { buildApp } from './app.js';
import { ConfigError, databaseOptions, loadConfig } from './config.js';
import { DatabaseLockedError, openDatabase } from './db/database.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(databaseOptions(config));
  const app = await buildApp({ config, db });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.fastify.log.info(`${signal} received, shutting down`);
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  await app.fastify.listen({ port: config.port, host: config.host });
  app.fastify.log.info(
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

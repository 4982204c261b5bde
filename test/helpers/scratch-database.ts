// A database of a test file's own on TEST_DATABASE_URL's server (created, then dropped), for tests
// that must see a whole database rather than their tenant's rows in the shared one: a search of every
// table stays fast however much earlier runs left in `test`. On PGlite every file's database is its
// own already.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/database.js';

const PG_URL = process.env.TEST_DATABASE_URL;

/** The URL of database `name` on the server of `url`. */
export function onServer(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs `run` on the server's `postgres` database (CREATE / DROP DATABASE). */
export async function onMaintenanceDb<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: onServer(PG_URL ?? '', 'postgres') });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  db: Database;
  /** Its URL on PostgreSQL (for a second client, as a second instance would open); undefined on PGlite. */
  url: string | undefined;
  /** Closes the database and, on PostgreSQL, drops it. */
  drop(): Promise<void>;
}

/** A new, migrated database: on TEST_DATABASE_URL's server when set, else PGlite in memory. */
export async function scratchDatabase(
  prefix: string,
  /** On PostgreSQL, the database's own defaults (`ALTER DATABASE … SET`), e.g. `{ timezone: 'Pacific/Chatham' }`. */
  settings: Record<string, string> = {},
): Promise<ScratchDatabase> {
  if (!PG_URL) {
    const db = await openDatabase({ dataDir: 'memory://' });
    return { db, url: undefined, drop: () => db.close() };
  }
  const name = `${prefix}_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await onMaintenanceDb(async (c) => {
    await c.query(`CREATE DATABASE "${name}"`);
    for (const [key, value] of Object.entries(settings)) {
      await c.query(`ALTER DATABASE "${name}" SET ${key} TO ${c.escapeLiteral(value)}`);
    }
  });
  const url = onServer(PG_URL, name);
  const db = await openDatabase({ url, poolSize: 4 });
  return {
    db,
    url,
    async drop() {
      await db.close();
      await onMaintenanceDb((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

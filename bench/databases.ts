// The two databases the benchmark runs on, each with a raw row reader for the SQL floor: PostgreSQL
// (a dedicated database, created if absent) and PGlite in memory (opened here as src/db/database.ts
// opens it, keeping the PGlite handle for the floor).
import pg from 'pg';
import { type Database, openDatabase, pgliteDatabase } from '../src/db/database.js';
import { applyMigrations } from '../src/db/migrate.js';
import { newPglite } from '../src/db/pglite.js';
import type { Rows } from './floor.js';

export interface BenchDatabase {
  db: Database;
  rows: Rows;
  close(): Promise<void>;
}

/** Creates the database of `url` through the server's `postgres` database when it is missing. */
async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!name || name === 'postgres') return;
  u.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

export async function openPostgresBench(
  url: string,
  opts: { reset: (pool: pg.Pool) => Promise<boolean> },
): Promise<BenchDatabase> {
  await ensureDatabase(url);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A dataset of other sizes (or a foreign schema) is dropped before migrating again.
  if (await opts.reset(pool)) {
    await pool.query('DROP SCHEMA public CASCADE');
    await pool.query('CREATE SCHEMA public');
  }
  // No statement timeout: generating the dataset runs long statements (the server under test has its own pool).
  const db = await openDatabase({ url, poolSize: 10, statementTimeoutMs: 0 });
  return {
    db,
    rows: async (sql, params) => (await pool.query(sql, params)).rows,
    async close() {
      await db.close();
      await pool.end();
    },
  };
}

export async function openPgliteBench(): Promise<BenchDatabase> {
  const pglite = newPglite();
  await pglite.waitReady;
  await applyMigrations({
    exec: async (sql) => {
      await pglite.exec(sql);
    },
    rows: async <T>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
  });
  const db = pgliteDatabase(pglite);
  return { db, rows: async (sql, params) => (await pglite.query(sql, params)).rows, close: () => db.close() };
}

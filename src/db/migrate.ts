// Applies prisma/migrations on start. It keeps Prisma's own `_prisma_migrations` bookkeeping (same
// table, same checksums, same advisory lock), so `prisma migrate deploy` and `migrate status` agree
// with it wherever Prisma's native engine is available.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../prisma/migrations');
// Prisma's advisory lock key: our runner and `prisma migrate deploy` never run at the same time.
const PRISMA_ADVISORY_LOCK = 72707369;

export interface SqlRunner {
  exec(sql: string): Promise<void>;
  rows<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** The runner over an embedded PGlite. */
export function pgliteRunner(db: PGlite): SqlRunner {
  return {
    exec: async (sql) => {
      await db.exec(sql);
    },
    rows: async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params)).rows,
  };
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Applies what is pending, each migration in its own transaction. Returns the names applied. */
export async function applyMigrations(db: SqlRunner, migrations = readMigrations()): Promise<string[]> {
  await db.exec(BOOKKEEPING);
  const rows = await db.rows<{
    migration_name: string;
    finished_at: Date | null;
    rolled_back_at: Date | null;
  }>('SELECT migration_name, finished_at, rolled_back_at FROM "_prisma_migrations"');
  const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
  if (failed) {
    throw new Error(
      `Migration ${failed.migration_name} failed earlier and was not resolved; fix the database, then run \`prisma migrate resolve\`.`,
    );
  }
  const done = new Set(rows.filter((r) => r.finished_at !== null).map((r) => r.migration_name));
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    await db.exec('BEGIN');
    try {
      await db.exec(m.sql);
      await db.rows(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), now(), 1)`,
        [randomUUID(), m.checksum, m.name],
      );
      await db.exec('COMMIT');
    } catch (err) {
      await db.exec('ROLLBACK');
      throw new Error(`Migration ${m.name} could not be applied: ${(err as Error).message}`);
    }
    applied.push(m.name);
  }
  return applied;
}

/** Migrates a PostgreSQL server under Prisma's advisory lock (safe with several instances starting). */
export async function migrateDatabaseUrl(url: string, connectTimeoutMs = 5_000): Promise<string[]> {
  // Bounded: a server that accepts the connection but never answers (not PostgreSQL) stops the start.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  // A connection lost mid-migration fails the statement in flight, which reports it (unheard, the
  // client's 'error' event would be thrown as an uncaught exception).
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    return await applyMigrations({
      exec: async (sql) => {
        await client.query(sql);
      },
      rows: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]).catch(() => undefined);
    await client.end();
  }
}

// schema.prisma and prisma/migrations must describe the same database, and the migration runner
// must keep Prisma's bookkeeping so `prisma migrate deploy` agrees with it.
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { diffMigrationsToSchema } from '../scripts/schema-engine.js';
import { applyMigrations, readMigrations } from '../src/db/migrate.js';

function runner(db: PGlite) {
  return {
    exec: async (sql: string) => {
      await db.exec(sql);
    },
    rows: async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params)).rows,
  };
}

describe('migrations', () => {
  it('match schema.prisma (run `npm run migration:create -- <name>` after changing the schema)', async () => {
    const pending = await diffMigrationsToSchema();
    expect(pending, 'schema.prisma has changes that no migration creates').toBe('');
  }, 120_000);

  it('apply once, record Prisma-compatible checksums, and are idempotent', async () => {
    const db = new PGlite();
    try {
      const all = readMigrations();
      expect(await applyMigrations(runner(db))).toEqual(all.map((m) => m.name));
      expect(await applyMigrations(runner(db))).toEqual([]);
      const rows = await db.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
        'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
      );
      expect(rows.rows.map((r) => [r.migration_name, r.checksum])).toEqual(
        all.map((m) => [m.name, m.checksum]),
      );
      expect(rows.rows.every((r) => r.finished_at !== null)).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('roll a failing migration back entirely and say which one failed', async () => {
    const db = new PGlite();
    try {
      const broken = [
        { name: '1_broken', sql: 'CREATE TABLE "t1" (id int); SELECT no_such_fn();', checksum: 'x' },
      ];
      await expect(applyMigrations(runner(db), broken)).rejects.toThrow(
        /Migration 1_broken could not be applied/,
      );
      const t1 = await db.query("SELECT to_regclass('public.t1') AS t");
      expect(t1.rows).toEqual([{ t: null }]);
      const recorded = await db.query('SELECT * FROM "_prisma_migrations"');
      expect(recorded.rows).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

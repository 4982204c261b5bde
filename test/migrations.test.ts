// schema.prisma and prisma/migrations must describe the same database, and the migration runner
// must keep Prisma's bookkeeping so `prisma migrate deploy` agrees with it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { diffMigrationsToSchema } from '../scripts/schema-engine.js';
import { HAND_WRITTEN_INDEXES } from '../src/db/hand-written-indexes.js';
import { applyMigrations, pgliteRunner, readMigrations } from '../src/db/migrate.js';
import { CASE_INSENSITIVE_UNIQUE } from '../src/db/text-search.js';
import { initdbPglite } from './helpers/pglite-template.js';
import { freePort, killGroup, startServer, waitUntilUp } from './helpers/processes.js';

/**
 * The indexes Prisma's diff does not see: on expressions (`lower(email)`) or partial. They are
 * written by hand, so they must be exactly the ones src/db/hand-written-indexes.ts lists.
 */
async function undeclaredIndexes(db: PGlite) {
  const rows = await db.query<{ name: string; unique: boolean; def: string }>(
    `SELECT c.relname AS name, i.indisunique AS unique, pg_get_indexdef(i.indexrelid) AS def
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND (i.indexprs IS NOT NULL OR i.indpred IS NOT NULL)
     ORDER BY 1`,
  );
  return rows.rows;
}

/**
 * A database at the version before `migration`, holding `rows`, then upgraded to the last version;
 * `check` reads it, with the names of the migrations the upgrade applied.
 */
async function upgradeHolding(
  migration: string,
  rows: string,
  check: (db: PGlite, applied: string[], expected: string[]) => Promise<void>,
): Promise<void> {
  const db = await initdbPglite();
  try {
    const all = readMigrations();
    const before = all.filter((m) => m.name < migration);
    await applyMigrations(pgliteRunner(db), before);
    await db.exec(rows);
    const applied = await applyMigrations(pgliteRunner(db), all);
    await check(
      db,
      applied,
      all.filter((m) => !before.includes(m)).map((m) => m.name),
    );
  } finally {
    await db.close();
  }
}

describe('migrations', () => {
  it('match schema.prisma (run `npm run migration:create -- <name>` after changing the schema)', async () => {
    const pending = await diffMigrationsToSchema(initdbPglite);
    expect(pending, 'schema.prisma has changes that no migration creates').toBe('');
  }, 120_000);

  it('create exactly the hand-written indexes the code lists, each on lower() of its column', async () => {
    const db = await initdbPglite();
    try {
      await applyMigrations(pgliteRunner(db));
      const found = await undeclaredIndexes(db);
      expect(found.map((r) => r.name)).toEqual([...HAND_WRITTEN_INDEXES].sort());
      for (const u of Object.values(CASE_INSENSITIVE_UNIQUE)) {
        const row = found.find((r) => r.name === u.index);
        expect(row?.unique, u.index).toBe(true);
        // A varchar column reads `lower((name)::text)`.
        const lower = `lower\\(\\(?${u.column}(\\)::text)?\\)`;
        const key = u.perTenant ? `"tenantId", ${lower}` : lower;
        expect(row?.def, u.index).toMatch(new RegExp(`ON public\\."${u.table}" USING btree \\(${key}\\)`));
      }
    } finally {
      await db.close();
    }
  });

  it('upgrade a database of the previous version with its rows in place', async () => {
    const rows = `
        INSERT INTO "TenantGroup" (id, name, "updatedAt") VALUES ('g1', 'G', now());
        INSERT INTO "Tenant" (id, "groupId", name, "updatedAt") VALUES ('t1', 'g1', 'T', now()), ('t2', 'g1', 'T2', now());
        INSERT INTO "Location" (id, "tenantId", name, "updatedAt") VALUES ('l1', 't1', 'Lobby', now()), ('l2', 't2', 'LOBBY', now());
        INSERT INTO "Guest" (id, "tenantId", "locationId", username, name, email, "updatedAt") VALUES
          ('a', 't1', 'l1', 'a', 'Ann', 'Ann@Example.com', now()),
          ('b', 't1', 'l1', 'b', 'Bob', NULL, now()),
          ('c', 't1', 'l1', 'c', 'Cy', NULL, now()),
          ('d', 't2', 'l2', 'd', 'Di', 'ann@example.com', now());`;
    await upgradeHolding('20261121200000_text_indexes', rows, async (db, applied, expected) => {
      expect(applied).toEqual(expected);
      const guests = await db.query<{ id: string }>(
        `SELECT id FROM "Guest" WHERE name ILIKE '%' || 'an' || '%' ORDER BY id`,
      );
      expect(guests.rows).toEqual([{ id: 'a' }]);
      // The same email in another case is now refused in the tenant, still allowed in another one.
      await expect(
        db.exec(`INSERT INTO "Guest" (id, "tenantId", "locationId", username, name, email, "updatedAt")
                 VALUES ('e', 't1', 'l1', 'e', 'Eve', 'ANN@example.COM', now())`),
      ).rejects.toThrow(/Guest_tenantId_lower_email_key/);
      await expect(
        db.exec(
          `INSERT INTO "Location" (id, "tenantId", name, "updatedAt") VALUES ('l3', 't1', 'lobby', now())`,
        ),
      ).rejects.toThrow(/Location_tenantId_lower_name_key/);
    });
  });

  it('take a webhook URL’s credentials out of the events and audit entries already logged, keys in order', async () => {
    const rows = `
        INSERT INTO "Event" ("tenantId", id, type, "actorType", "resourceType", "resourceId", payload) VALUES
          ('t1', 1, 'webhook.created', 'user', 'webhook', 'w1',
           '{"id":"w1","url":"https://user:p%40ss@hooks.example.com/in?a=b@c","events":["*"]}'),
          ('t1', 2, 'guest.created', 'user', 'guest', 'g1', '{"id":"g1","notes":"https://u:p@x.example"}'),
          ('t1', 3, 'webhook.created', 'user', 'webhook', 'w2', '{"id":"w2","url":"https://hooks.example.com/a@b"}');
        INSERT INTO "AuditLog" (id, "tenantId", action, "resourceType", "resourceId", changes) VALUES
          ('a1', 't1', 'webhooks.update', 'webhook', 'w1',
           '{"url":{"old":"http://tok@10.0.0.1/x","new":"https://user:p%40ss@hooks.example.com/in"},"description":{"old":null,"new":"CRM"}}');`;
    await upgradeHolding('20261128030000_webhook_url_credentials_out_of_logs', rows, async (db) => {
      const events = await db.query<{ payload: string }>(`SELECT payload::text FROM "Event" ORDER BY id`);
      expect(events.rows.map((r) => r.payload)).toEqual([
        '{"id":"w1","url":"https://[redacted]@hooks.example.com/in?a=b@c","events":["*"]}',
        '{"id":"g1","notes":"https://u:p@x.example"}',
        '{"id":"w2","url":"https://hooks.example.com/a@b"}',
      ]);
      const audit = await db.query<{ changes: string }>(`SELECT changes::text FROM "AuditLog"`);
      expect(audit.rows[0]?.changes).toBe(
        '{"url":{"old":"http://[redacted]@10.0.0.1/x","new":"https://[redacted]@hooks.example.com/in"},"description":{"old":null,"new":"CRM"}}',
      );
    });
  });

  it('apply once, record Prisma-compatible checksums, and are idempotent', async () => {
    const db = await initdbPglite();
    try {
      const all = readMigrations();
      expect(await applyMigrations(pgliteRunner(db))).toEqual(all.map((m) => m.name));
      expect(await applyMigrations(pgliteRunner(db))).toEqual([]);
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
    const db = await initdbPglite();
    try {
      const broken = [
        { name: '1_broken', sql: 'CREATE TABLE "t1" (id int); SELECT no_such_fn();', checksum: 'x' },
      ];
      await expect(applyMigrations(pgliteRunner(db), broken)).rejects.toThrow(
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

describe('the server at start', { timeout: 120_000 }, () => {
  it('says which migrations an upgrade applied (probe E: nothing was said, even at debug)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'upgrade-log-'));
    try {
      const all = readMigrations();
      const last = all.at(-1)?.name as string;
      const old = await initdbPglite(dir);
      await applyMigrations(pgliteRunner(old), all.slice(0, -1));
      await old.close();
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, HOST: '127.0.0.1' };
      delete env.DATABASE_URL;
      delete env.REDIS_URL;
      const port = await freePort();
      const server = startServer({ ...env, PORT: String(port) });
      try {
        await waitUntilUp(server, `http://127.0.0.1:${port}`);
        const lines = server
          .stdout()
          .split('\n')
          .filter((l) => l.includes('migration'))
          .map((l) => JSON.parse(l) as { msg: string; migrations: string[] });
        expect(lines.map((l) => [l.msg, l.migrations])).toEqual([
          [`applied 1 database migration(s): ${last}`, [last]],
        ]);
        expect(server.stdout()).toMatch(/embedded database in .*, opened in \d+\.\d s/);
      } finally {
        killGroup(server.process, 'SIGKILL');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// One Prisma client over one of two drivers: embedded PGlite under DATA_DIR (the default, nothing
// to install) or a PostgreSQL server (DATABASE_URL). Both are migrated before the client is used.
import { mkdirSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { applyMigrations, migrateDatabaseUrl } from './migrate.js';
import { newPglite } from './pglite.js';
import { DatabaseLockedError, lockDataDir } from './pglite-lock.js';

export type Prisma = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgresql';
  /** Calls `listener` for every SQL statement sent (used by tests that pin statement counts). */
  onQuery(listener: (sql: string) => void): () => void;
  close(): Promise<void>;
}

export { DatabaseLockedError };

export interface DatabaseOptions {
  /** postgresql://… ; without it, PGlite. */
  url?: string;
  /** PGlite data folder; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /** Skip migrations (the caller already migrated this server). */
  migrate?: boolean;
  poolSize?: number;
}

function withQueryEvents(prisma: PrismaClient): Database['onQuery'] {
  const listeners = new Set<(sql: string) => void>();
  prisma.$on('query' as never, (e: { query: string }) => {
    for (const l of listeners) l(e.query);
  });
  return (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
}

async function openPglite(dataDir: string, migrate: boolean): Promise<Database> {
  let release: (() => void) | undefined;
  let pglite: PGlite;
  if (dataDir === 'memory://') {
    pglite = newPglite();
  } else {
    mkdirSync(dataDir, { recursive: true });
    release = await lockDataDir(dataDir);
    pglite = newPglite(dataDir);
  }
  try {
    await pglite.waitReady;
    if (migrate) {
      await applyMigrations({
        exec: async (sql) => {
          await pglite.exec(sql);
        },
        rows: async <T>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
      });
    }
  } catch (err) {
    await pglite.close();
    release?.();
    throw err;
  }
  const prisma = new PrismaClient({
    adapter: new PrismaPGlite(pglite),
    log: [{ emit: 'event', level: 'query' }],
  });
  return {
    prisma,
    kind: 'pglite',
    onQuery: withQueryEvents(prisma),
    async close() {
      await prisma.$disconnect();
      await pglite.close();
      release?.();
    },
  };
}

async function openPostgres(url: string, migrate: boolean, poolSize: number): Promise<Database> {
  if (migrate) await migrateDatabaseUrl(url);
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: url, max: poolSize }),
    log: [{ emit: 'event', level: 'query' }],
  });
  return {
    prisma,
    kind: 'postgresql',
    onQuery: withQueryEvents(prisma),
    close: () => prisma.$disconnect(),
  };
}

export function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const migrate = opts.migrate ?? true;
  return opts.url
    ? openPostgres(opts.url, migrate, opts.poolSize ?? 10)
    : openPglite(opts.dataDir ?? './data', migrate);
}

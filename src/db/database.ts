// One Prisma client over one of two drivers: embedded PGlite under DATA_DIR (the default, nothing
// to install) or a PostgreSQL server (DATABASE_URL). Both are migrated before the client is used.
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { applyMigrations, migrateDatabaseUrl, pgliteRunner } from './migrate.js';
import { parseDate, parseTimestamp, parseTimestampTz } from './pg-dates.js';
import { newPglite } from './pglite.js';
import { DatabaseLockedError, LOCK_FILE, lockDataDir } from './pglite-lock.js';
import { watchReadTimeout } from './read-timeout.js';

export type Prisma = PrismaClient;

/** One SQL statement on the client's own connections, its values decoded as Prisma decodes them. */
/**
 * A raw read. `prepared`: the statement's name, so PostgreSQL plans it once per connection and
 * reuses the plan (for the few statement shapes src/db/raw-rows.ts writes; never for ad-hoc text).
 * `settings`: planner settings (`enable_seqscan: 'off'`, …) for this statement only: it then runs in
 * a transaction of its own that sets them locally.
 */
export type RawRows = <T>(
  sql: string,
  params: readonly unknown[],
  prepared?: string,
  settings?: PlannerSettings,
) => Promise<T[]>;

/** Planner settings by name (`enable_*`), each `on` or `off`. */
export type PlannerSettings = Readonly<Record<`enable_${string}`, 'on' | 'off'>>;

/** `SET LOCAL` of each setting, in one statement (names checked: they are written into the SQL). */
function setLocal(settings: PlannerSettings): string {
  return Object.entries(settings)
    .map(([name, value]) => {
      if (!/^enable_[a-z_]+$/.test(name) || (value !== 'on' && value !== 'off')) {
        throw new Error(`Not a planner setting: ${name} = ${value}`);
      }
      return `SET LOCAL ${name} = ${value}`;
    })
    .join('; ');
}

export interface Database {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgresql';
  /** The PostgreSQL URL it was opened with (another thread opens its own pool there); none on PGlite. */
  url?: string;
  /**
   * Calls `listener` for every SQL statement once it has answered (a failed one is not reported),
   * with how long it took: tests that pin statement counts, and the statement-duration metric.
   */
  onQuery(listener: (sql: string, durationMs: number) => void): () => void;
  /** A raw read on the same pool (src/db/raw-rows.ts builds the statements). */
  rows: RawRows;
  /**
   * `SELECT 1` outside the request pool (PostgreSQL: a connection of its own), so a health check
   * does not queue behind a flood of requests; rejects when the database does not answer.
   */
  ping(): Promise<void>;
  /** The request pool's connections now (PostgreSQL; undefined on PGlite, which has none). */
  poolStats(): PoolStats | undefined;
  /**
   * Runs `run` only if no one else holds the lock `key`, holding it meanwhile: on PostgreSQL a session
   * advisory lock (`pg_try_advisory_lock`) taken on a connection of its own outside the request pool,
   * so one holder in the whole fleet (a holder that dies releases it with its connection); on PGlite,
   * which one process owns, a lock of this Database. Never waits: `{ acquired: false }` when held.
   */
  tryExclusive<T>(key: bigint, run: () => Promise<T>): Promise<Exclusive<T>>;
  close(): Promise<void>;
  /** The migrations this open applied, in order (none: the schema was current, or not migrated). */
  migrated?: readonly string[];
}

export type Exclusive<T> = { acquired: true; value: T } | { acquired: false };

export interface PoolStats {
  /** Connections open, busy or idle. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  /** The pool's size (DB_POOL_SIZE). */
  max: number;
}

export { DatabaseLockedError };

/**
 * Why the database did not open, in one line naming where it is (DATABASE_URL without its password,
 * or DATA_DIR), for the server's start and the admin CLI.
 */
export function openFailure(
  config: { databaseUrl?: string; dataDir: string; dbConnectTimeoutMs: number },
  err: unknown,
): string {
  const message = err instanceof Error ? err.message : String(err);
  if (!config.databaseUrl) return `DATA_DIR ${config.dataDir}: ${message}`;
  // pg's words for a server that accepted the connection and never answered as PostgreSQL would.
  const silent = /^timeout expired$|connection timeout/.test(message);
  const reason = silent
    ? `no answer as PostgreSQL within DB_CONNECT_TIMEOUT_MS (${config.dbConnectTimeoutMs} ms)`
    : message;
  return `DATABASE_URL ${shownDatabaseUrl(config.databaseUrl)}: ${reason}`;
}

/**
 * DATABASE_URL without its user, password and options; libpq's socket form, which is no URL to
 * `new URL` (`postgresql://u@/db?host=/run/postgresql`, probe F), keeps its `host` option.
 */
function shownDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    const [base = '', query = ''] = text.split(/[?#]/, 2);
    const socket = /(?:^|&)host=([^&#]*)/.exec(query)?.[1];
    const shown = base.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
    return socket === undefined ? shown : `${shown}?host=${socket}`;
  }
}

export interface DatabaseOptions {
  /** postgresql://… ; without it, PGlite. */
  url?: string;
  /** PGlite data folder; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /** Skip migrations (the caller already migrated this server). */
  migrate?: boolean;
  poolSize?: number;
  /** PostgreSQL `statement_timeout` (0: none); the client gives up 2 s later if no answer comes at all. */
  statementTimeoutMs?: number;
  /** Longest wait for a pooled connection (pg's `connectionTimeoutMillis`). */
  connectTimeoutMs?: number;
  /** PostgreSQL's `application_name` of the pool's connections (seen in `pg_stat_activity`). */
  applicationName?: string;
}

export const DEFAULT_POOL = { poolSize: 10, statementTimeoutMs: 10_000, connectTimeoutMs: 5_000 } as const;

type QueryListener = Parameters<Database['onQuery']>[0];

function withQueryEvents(prisma: PrismaClient): {
  onQuery: Database['onQuery'];
  /** Runs a raw statement, reporting it as Prisma reports its own once it answers. */
  timed: <T>(sql: string, run: () => Promise<T>) => Promise<T>;
} {
  const listeners = new Set<QueryListener>();
  const emit = (sql: string, durationMs: number) => {
    for (const l of listeners) l(sql, durationMs);
  };
  prisma.$on('query' as never, (e: { query: string; duration: number }) => emit(e.query, e.duration));
  return {
    async timed(sql, run) {
      const start = performance.now();
      const result = await run();
      emit(sql, performance.now() - start);
      return result;
    },
    onQuery: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// Services hold only the Prisma client (AppContext.prisma): each client's raw reader, found from it.
const rawReaders = new WeakMap<PrismaClient, RawRows>();

/** The raw reader of the database `prisma` belongs to. */
export function rawRowsOf(prisma: PrismaClient): RawRows {
  const rows = rawReaders.get(prisma);
  if (!rows) throw new Error('This Prisma client was not opened by openDatabase.');
  return rows;
}

/**
 * Values as Prisma returns them: BigInt as bigint, and `date`/`timestamp` (no time zone) as UTC
 * (both drivers would read them in the process's local time); dates by src/db/pg-dates.ts. Other
 * types keep the drivers' own parsers (numbers, booleans, arrays, json).
 */
const PARSERS: Record<number, (s: string) => unknown> = {
  20: (s) => BigInt(s),
  1082: parseDate,
  1114: parseTimestamp,
  1184: parseTimestampTz,
};

/** An fs error in a few words: `ENOENT: no such file or directory` (without the call and the path). */
const fsReason = (err: unknown): string =>
  err instanceof Error ? (err.message.split(',')[0] ?? '') : String(err);

/**
 * Makes `dataDir` (and the folders above it) unless it exists, and checks this process may write
 * there; throws a plain reason otherwise. One folder at a time: Node's recursive mkdirSync loops
 * forever (signals unheard) where the kernel refuses a folder with ENOENT, as under /proc.
 */
export function prepareDataDir(dataDir: string): void {
  const missing: string[] = [];
  let folder = dataDir;
  for (;;) {
    let isFolder: boolean;
    try {
      isFolder = statSync(folder).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const parent = path.dirname(folder);
      // ENOTDIR: a file somewhere above, named when the walk reaches it.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === folder)
        throw new Error(`cannot read ${folder} (${fsReason(err)})`);
      missing.unshift(folder);
      folder = parent;
      continue;
    }
    if (!isFolder) throw new Error(folder === dataDir ? 'not a folder' : `${folder} is not a folder`);
    break;
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (err) {
      // Made meanwhile by another process: as good.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) continue;
      throw new Error(`cannot create the folder ${dir} (${fsReason(err)})`);
    }
  }
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (err) {
    throw new Error(`this process may not write there (${fsReason(err)})`);
  }
  // The embedded database writes its files 0666 whatever the umask (PGlite's file system), so the
  // folder is what keeps every other account out of the guests' data, the group's too (probe E: any
  // local user read the WAL; probe X: at 750 the group could still write it). Its setgid and sticky
  // bits stay.
  const mode = statSync(dataDir).mode & 0o7777;
  if ((mode & 0o077) !== 0) {
    try {
      chmodSync(dataDir, mode & ~0o077);
    } catch (err) {
      throw new Error(
        `it is open to other accounts (mode ${(mode & 0o777).toString(8)}) and this process may not close it (${fsReason(err)}): give it to the service's account (chown), mode 700`,
      );
    }
  }
}

/** PostgreSQL's own folders: three of them without PG_VERSION are a first start stopped midway. */
const POSTGRES_FOLDERS = new Set(['base', 'global', 'pg_wal', 'pg_xact', 'pg_multixact']);

/** What DATA_DIR holds beside the database's files: this service's avatars and lock. */
const besideTheDatabase = (name: string): boolean => name === 'avatars' || name.startsWith(LOCK_FILE);

/**
 * The embedded database's folder, checked before PGlite opens it (its only word for any of this is
 * `Aborted()`): a folder holding other files but no database is a mistyped path, not a place for a
 * new one; one holding PostgreSQL's folders but no PG_VERSION is unfinished; and every file and
 * folder of it must be this process's to write (probe P: files left by a command run as root).
 */
function checkDatabaseFolder(dataDir: string): void {
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    // A fresh volume's lost+found and hidden files (.DS_Store, .gitkeep) are no one's data.
    const others = readdirSync(dataDir, { withFileTypes: true }).filter(
      (e) => !besideTheDatabase(e.name) && e.name !== 'lost+found' && !e.name.startsWith('.'),
    );
    const postgres = others.filter((e) => e.isDirectory() && POSTGRES_FOLDERS.has(e.name));
    if (postgres.length >= 3) {
      throw new Error(
        "holds an unfinished embedded database (PostgreSQL's folders but no PG_VERSION: was its first start stopped?): empty the folder to start anew, or restore it from a backup",
      );
    }
    if (others.length > 0) {
      const named = others.slice(0, 3).map((e) => e.name);
      throw new Error(
        `holds files but no database (${named.join(', ')}${others.length > 3 ? ', …' : ''}): point DATA_DIR at the database's folder, or at an empty or new one`,
      );
    }
  }
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (dir === dataDir && besideTheDatabase(entry.name)) continue;
      const file = path.join(dir, entry.name);
      try {
        accessSync(file, constants.W_OK);
      } catch (err) {
        throw new Error(
          `this process may not write ${path.relative(dataDir, file)} (${fsReason(err)}): every file of the folder must be its own`,
        );
      }
      if (entry.isDirectory()) walk(file);
    }
  };
  walk(dataDir);
}

/** The embedded database's session time zone (a PostgreSQL server's: inUtc). */
const SESSION_TIME_ZONE = "SET TimeZone TO 'UTC'";

async function openPglite(dataDir: string, migrate: boolean): Promise<Database> {
  let release: (() => void) | undefined;
  let pglite: PGlite;
  let migrated: string[] = [];
  if (dataDir === 'memory://') {
    pglite = newPglite();
  } else {
    prepareDataDir(dataDir);
    release = await lockDataDir(dataDir);
    try {
      checkDatabaseFolder(dataDir);
    } catch (err) {
      release();
      throw err;
    }
    pglite = newPglite(dataDir);
  }
  try {
    await pglite.waitReady.catch((err: unknown) => {
      // PGlite's only word for a folder it cannot start from (damaged, or written by another version).
      if (err instanceof Error && /^Aborted\(\)|^PGlite failed to initialize properly/.test(err.message)) {
        throw new Error(
          'the embedded database cannot start from its files (PGlite aborted): they are damaged or were not written by this service; restore the folder from a backup',
        );
      }
      throw err;
    });
    await pglite.exec(SESSION_TIME_ZONE);
    if (migrate) migrated = await applyMigrations(pgliteRunner(pglite));
  } catch (err) {
    // An aborted PGlite fails its close too: the reason is the first failure's.
    await pglite.close().catch(() => {});
    release?.();
    throw err;
  }
  return { ...pgliteDatabase(pglite, release), migrated };
}

/** The Database over an open (and migrated) PGlite; `release` frees its data folder after closing. */
export function pgliteDatabase(pglite: PGlite, release?: () => void): Database {
  const prisma = new PrismaClient({
    adapter: new PrismaPGlite(pglite),
    log: [{ emit: 'event', level: 'query' }],
  });
  const { onQuery, timed } = withQueryEvents(prisma);
  const rows: RawRows = async <T>(
    sql: string,
    params: readonly unknown[],
    _prepared?: string,
    settings?: PlannerSettings,
  ) =>
    settings
      ? await timed(sql, () =>
          pglite.transaction(async (tx) => {
            await tx.exec(setLocal(settings));
            return (await tx.query<T>(sql, [...params], { parsers: PARSERS })).rows;
          }),
        )
      : (await timed(sql, () => pglite.query<T>(sql, [...params], { parsers: PARSERS }))).rows;
  rawReaders.set(prisma, rows);
  // The locks of tryExclusive: this process owns the database, so they need not leave it.
  const held = new Set<bigint>();
  return {
    prisma,
    kind: 'pglite',
    onQuery,
    rows,
    async ping() {
      await prisma.$queryRaw`SELECT 1`;
    },
    poolStats: () => undefined,
    async tryExclusive(key, run) {
      if (held.has(key)) return { acquired: false };
      held.add(key);
      try {
        return { acquired: true, value: await run() };
      } finally {
        held.delete(key);
      }
    },
    async close() {
      await prisma.$disconnect();
      await pglite.close();
      release?.();
    },
  };
}

/** How long a statement may go unanswered before its connection is given up: the server's limit and a margin. */
const readTimeoutOf = (statementTimeoutMs: number): number =>
  statementTimeoutMs > 0 ? statementTimeoutMs + 2_000 : 0;

/** pg settings that keep a slow or unreachable server from holding requests for minutes. */
function timeouts(statementTimeoutMs: number, connectTimeoutMs: number): pg.PoolConfig {
  return {
    connectionTimeoutMillis: connectTimeoutMs,
    ...(statementTimeoutMs > 0
      ? // The client-side limit (see readTimeoutOf) catches a server or network that stopped answering.
        { statement_timeout: statementTimeoutMs }
      : {}),
  };
}

/**
 * pg's connection to `url`, each session in UTC: Prisma's adapter sends date-times without their
 * offset (`2026-11-28 19:31:46.333`), which the server reads in the session's time zone, whatever
 * the server's or the database's default (initdb copies the machine's). A startup option, so no
 * statement is spent. pg lets a URL's `options` override the config's (even empty, probe V), so
 * there the setting goes into each of them, by text: libpq's socket form (`postgresql://u@/db?host=
 * /run/postgresql`) is no URL to `new URL` (probe W). Without any, PGOPTIONS is kept beside it.
 */
function inUtc(url: string): pg.ClientConfig {
  const utc = '-c TimeZone=UTC';
  const own = /([?&]options)(=[^&#]*)?(?=[&#]|$)/g;
  if (!own.test(url)) {
    return { connectionString: url, options: [process.env.PGOPTIONS, utc].filter(Boolean).join(' ') };
  }
  return {
    connectionString: url.replace(
      own,
      (_m, name: string, value = '=') => `${name}${value}${encodeURIComponent(` ${utc}`)}`,
    ),
  };
}

/**
 * A lost connection never ends the process: pg's client emits 'error' when its server ends the
 * session (a failover, `pg_terminate_backend`, `idle_session_timeout`), and pg-pool listens only
 * while the client is idle. A session ended just after it connected, in the read that brought its
 * first ReadyForQuery, reached a client handed out but not yet heard by its taker: thrown, it ended
 * the server (probe F). Each client hears its errors from its start; a query in flight still fails
 * and reports it, and the pool still replaces a lost idle client.
 */
export function hearConnectionErrors(pool: pg.Pool): void {
  const ignore = (): void => {};
  pool.on('error', ignore);
  pool.on('connect', (client) => client.on('error', ignore));
}

async function openPostgres(url: string, migrate: boolean, opts: DatabaseOptions): Promise<Database> {
  const statementTimeoutMs = opts.statementTimeoutMs ?? DEFAULT_POOL.statementTimeoutMs;
  const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_POOL.connectTimeoutMs;
  const migrated = migrate ? await migrateDatabaseUrl(url, connectTimeoutMs) : [];
  // One pool for Prisma and the raw reads, so both share its size and timeouts.
  const pool = new pg.Pool({
    ...inUtc(url),
    max: opts.poolSize ?? DEFAULT_POOL.poolSize,
    ...timeouts(statementTimeoutMs, connectTimeoutMs),
    ...(opts.applicationName ? { application_name: opts.applicationName } : {}),
  });
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool),
    log: [{ emit: 'event', level: 'query' }],
  });
  hearConnectionErrors(pool);
  const stopWatching = watchReadTimeout(pool, readTimeoutOf(statementTimeoutMs));
  const { onQuery, timed } = withQueryEvents(prisma);
  const types: pg.CustomTypesConfig = {
    getTypeParser: ((oid: number, format?: string) =>
      PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
  const rows: RawRows = async <T>(
    sql: string,
    params: readonly unknown[],
    prepared?: string,
    settings?: PlannerSettings,
  ) => {
    const query = { text: sql, values: [...params], types, ...(prepared ? { name: prepared } : {}) };
    if (!settings) return (await timed(sql, () => pool.query(query))).rows as T[];
    return timed(sql, async () => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        // One round trip for BEGIN and the settings (the simple protocol takes several statements).
        await client.query(`BEGIN; ${setLocal(settings)}`);
        const result = await client.query(query);
        await client.query('COMMIT');
        return result.rows as T[];
      } catch (err) {
        await client.query('ROLLBACK').catch((e: Error) => {
          broken = e;
        });
        throw err;
      } finally {
        // A connection that cannot roll back is closed, not handed to the next query.
        client.release(broken);
      }
    });
  };
  rawReaders.set(prisma, rows);
  // The health check's own connection: two seconds at most, whatever the settings above.
  // Its one small query per probe keeps pg's own read timeout (see src/db/read-timeout.ts for the pool's).
  // Kept open once made (no idle timeout): near max_connections a new one would be refused while the
  // request pool's idle ones hold the slots, and the instance taken out of rotation (probe F).
  const health = new pg.Pool({
    connectionString: url,
    max: 1,
    idleTimeoutMillis: 0,
    ...timeouts(2_000, 2_000),
    query_timeout: readTimeoutOf(2_000),
  });
  hearConnectionErrors(health); // a lost connection: the next ping reconnects
  // Made now, before the request pool may fill the server's slots.
  health.query('SELECT 1').catch(() => {});
  return {
    prisma,
    kind: 'postgresql',
    migrated,
    url,
    onQuery,
    rows,
    async ping() {
      await health.query('SELECT 1');
    },
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max,
    }),
    async tryExclusive(key, run) {
      // A connection of its own: the lock lives as long as its session, whatever the pool does.
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
      client.on('error', () => {}); // a lost connection fails the query in flight, which reports it
      await client.connect();
      try {
        const { rows } = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock($1::bigint) AS locked',
          [key.toString()],
        );
        if (rows[0]?.locked !== true) return { acquired: false };
        try {
          return { acquired: true, value: await run() };
        } finally {
          // Ending the session below would release it too; unlocking first says so at once.
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [key.toString()]).catch(() => {});
        }
      } finally {
        await client.end().catch(() => {});
      }
    },
    async close() {
      stopWatching();
      await prisma.$disconnect();
      await pool.end(); // handed to the adapter, which leaves it open
      await health.end();
    },
  };
}

export function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const migrate = opts.migrate ?? true;
  return opts.url ? openPostgres(opts.url, migrate, opts) : openPglite(opts.dataDir ?? './data', migrate);
}

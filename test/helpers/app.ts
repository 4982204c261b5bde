import type { OutgoingHttpHeaders } from 'node:http';
// One app per test file, on PGlite in memory by default or on the PostgreSQL server of
// TEST_DATABASE_URL (migrated once by test/global-setup.ts). Tests isolate themselves by tenant.
import { type App, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { checkContract } from './contract.js';
import { migratedMemoryDatabase } from './pglite-template.js';

export interface TestResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  /** The raw body, for byte-exact assertions. */
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests index parsed bodies freely and assert them against literals.
  json: any;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (e.g. malformed JSON). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: App;
  db: Database;
  config: Config;
  request(method: string, url: string, opts?: RequestOptions): Promise<TestResponse>;
  /** POST /graphql. */
  graphql(
    token: string | undefined,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

/** `poolSize`: PostgreSQL connections (4 unless a file opens more transactions at once). */
export async function openTestDatabase(poolSize = 4): Promise<Database> {
  const url = process.env.TEST_DATABASE_URL;
  return url ? openDatabase({ url, migrate: false, poolSize }) : migratedMemoryDatabase();
}

export async function startApp(
  env: Record<string, string> = {},
  /** `log`: the app's log lines, parsed, are pushed there (none are written otherwise). */
  opts: { db?: Database; log?: Record<string, unknown>[] } = {},
): Promise<TestApp> {
  const db = opts.db ?? (await openTestDatabase());
  // Tokens' last uses are written when a test flushes them (app.tokenUsage.flush()), not by a timer
  // that could add a statement to a test pinning statement counts; retention passes run when a test
  // calls app.retention.sweep(), not on a timer in the middle of another test.
  const config = loadConfig({
    RATE_LIMIT_PER_MINUTE: '100000',
    APP_URL: 'http://localhost',
    TOKEN_LAST_USED_FLUSH_SECONDS: '3600',
    RETENTION_SWEEP_SECONDS: '0',
    // No background polling (it would add statements to tests that pin them); webhook tests turn it on.
    WEBHOOKS_DELIVERY: 'false',
    EVENT_SWEEP_SECONDS: '0',
    ...env,
  });
  const log = opts.log;
  const app = await buildApp({
    config,
    db,
    logger: log ? { write: (line) => void log.push(JSON.parse(line)) } : false,
  });
  const request = async (method: string, url: string, o: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let payload: string | undefined;
    if (o.rawBody !== undefined) payload = o.rawBody;
    else if (o.body !== undefined) payload = JSON.stringify(o.body);
    if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await app.fastify.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let json: unknown;
    try {
      json = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      json = undefined;
    }
    // Every /api/v1 answer must match the OpenAPI document (test/helpers/contract.ts).
    checkContract(method, url, res.statusCode, res.body);
    return { status: res.statusCode, headers: res.headers, text: res.body, json };
  };
  return {
    app,
    db,
    config,
    request,
    graphql: (token, query, variables) => request('POST', '/graphql', { token, body: { query, variables } }),
    async close() {
      await app.close();
      if (!opts.db) await db.close();
    },
  };
}

/** A statement's shape: an IN list is one placeholder whatever its length. */
const shape = (sql: string): string => sql.replace(/IN \((\$\d+,?)+\)/g, 'IN (…)').replace(/\$\d+/g, '$?');

/**
 * The SQL statements sent while `fn` runs, as shapes (see `shape`). Run it outside concurrent tests: the listener sees the
 * whole database client. Waits one macrotask so events of the last statement are in.
 */
export async function recordStatements<T>(
  db: Database,
  fn: () => Promise<T>,
): Promise<{ result: T; sql: string[] }> {
  const sql: string[] = [];
  const off = db.onQuery((s) => sql.push(shape(s)));
  try {
    const result = await fn();
    await new Promise((resolve) => setImmediate(resolve));
    return { result, sql };
  } finally {
    off();
  }
}

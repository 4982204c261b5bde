// Tests that hold a row lock from a second client (standing for another instance or the delivery
// worker) wait until the service's statement is blocked behind it before going on.
import pg from 'pg';
import { expect } from 'vitest';

/**
 * How many other sessions of the database wait on a lock while running a statement whose text is
 * LIKE `pattern`. Read from `client`, which may be inside its own transaction (the view is then
 * read once per transaction unless its snapshot is cleared, which this does).
 */
export async function lockWaiters(client: pg.Client, pattern: string): Promise<number> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1
       AND pid <> pg_backend_pid()`,
    [pattern],
  );
  return rows[0].n;
}

/** A statement and its parameters. */
export type Statement = [sql: string, params?: unknown[]];

/**
 * A second client of `url` stands for another writer: in a transaction of its own (its deadlock
 * check late, so that of a deadlock PostgreSQL ends the service's side) it runs `before` (taking
 * its locks), then starts `request`; once a statement of the service waits on a lock (its text LIKE
 * `waiting`), it runs `after` and commits. Resolves to the request's answer.
 */
export async function besideWriter<T>(
  url: string,
  opts: { before: Statement[]; waiting: string; after?: Statement[]; request: () => Promise<T> },
): Promise<T> {
  const writer = new pg.Client({ connectionString: url });
  await writer.connect();
  try {
    await writer.query('BEGIN');
    await writer.query(`SET LOCAL deadlock_timeout = '20s'`);
    for (const [sql, params] of opts.before) await writer.query(sql, params);
    const answer = opts.request();
    await expect.poll(() => lockWaiters(writer, opts.waiting), { timeout: 10_000 }).toBe(1);
    for (const [sql, params] of opts.after ?? []) await writer.query(sql, params);
    await writer.query('COMMIT');
    return await answer;
  } finally {
    await writer.end();
  }
}

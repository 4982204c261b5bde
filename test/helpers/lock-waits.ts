// Tests that hold a row lock from a second client (standing for another instance or the delivery
// worker) wait until the service's statement is blocked behind it before going on.
import type pg from 'pg';

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

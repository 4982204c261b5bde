// Gives up on a database that stopped answering (a hung server or a silent network), without pg's own
// `query_timeout`.
//
// pg's `query_timeout` wraps each query's callback with a timer, and any wrapping of that callback
// (measured: even one without a timer) kept each finished query's rows alive past young-generation
// collections, so V8 promoted them to its old space, which then grew until its next full collection:
// streaming 1 000 000 sessions promoted ~950 MB and grew the server by ~250 MB. Instead, one timer per
// pool looks at each connection's running query every second; a query seen running for `ms` closes
// its connection: the query fails with 'Query read timeout' (a 503, see src/errors.ts) and the pool
// replaces the connection.
import type pg from 'pg';

/** What this needs of a pg client: its running query (pg's own accessor, not in its types). */
interface WatchedClient {
  _getActiveQuery?(): object | null | undefined;
  connection?: { stream?: { destroy(err?: Error): void } };
}

/** Watches the pool's connections; returns the function that stops watching. */
export function watchReadTimeout(pool: pg.Pool, ms: number): () => void {
  if (ms <= 0) return () => {};
  const clients = new Set<WatchedClient>();
  // When each running query was first seen; weak, so that no finished query is kept.
  const firstSeen = new WeakMap<object, number>();
  pool.on('connect', (client) => clients.add(client as unknown as WatchedClient));
  pool.on('remove', (client) => clients.delete(client as unknown as WatchedClient));
  const tick = setInterval(
    () => {
      const now = Date.now();
      for (const client of clients) {
        const query = client._getActiveQuery?.();
        if (!query) continue;
        const since = firstSeen.get(query);
        if (since === undefined) firstSeen.set(query, now);
        else if (now - since >= ms) client.connection?.stream?.destroy(new Error('Query read timeout'));
      }
    },
    Math.min(1_000, Math.max(50, Math.floor(ms / 3))),
  );
  tick.unref();
  return () => clearInterval(tick);
}

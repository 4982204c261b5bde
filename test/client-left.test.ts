// A request answered after its client left: a write's answer is lost (the client may send it again),
// so it is logged; a read's is not worth a line. Through GraphQL a POST is a write only when a
// mutation ran: a query sent by POST (as every dashboard sends one) is a read. The requests are held
// behind a table lock taken by a second client, their clients leave, then the lock is let go. On a
// database of the file's own: the lock would hold every other file's requests in the shared one.
// PostgreSQL only (on the embedded database every statement has the one connection to itself).
import { connect, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { lockWaiters } from './helpers/lock-waits.js';
import { type ScratchDatabase, scratchDatabase } from './helpers/scratch-database.js';

const PG_URL = process.env.TEST_DATABASE_URL;

describe.skipIf(!PG_URL)('an answer after its client left (skipped without TEST_DATABASE_URL)', () => {
  let scratch: ScratchDatabase;
  let t: TestApp;
  let port = 0;
  const log: Record<string, unknown>[] = [];

  beforeAll(async () => {
    scratch = await scratchDatabase('client_left');
    t = await startApp({}, { db: scratch.db, log });
    await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.fastify.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await t?.close();
    await scratch?.drop();
  });

  /** Sends a POST and leaves it unread; its X-Request-Id names it in the log. */
  const post = (id: string, url: string, token: string, body: unknown): Promise<Socket> =>
    new Promise((resolve) => {
      const text = JSON.stringify(body);
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Request-Id: ${id}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
          () => resolve(socket),
        );
      });
      socket.on('error', () => {});
    });

  it('is logged for a REST write and a GraphQL mutation, not for a GraphQL query sent by POST', async () => {
    const a = await newTenant(scratch.db.prisma);
    const stamp = Date.now();
    const ids = {
      rest: `left-rest-${stamp}`,
      mutation: `left-mutation-${stamp}`,
      query: `left-query-${stamp}`,
    };
    const locker = new pg.Client({ connectionString: scratch.url });
    await locker.connect();
    const sockets: Socket[] = [];
    try {
      await locker.query('BEGIN');
      await locker.query(`SET LOCAL deadlock_timeout = '20s'`);
      // Reads of the table wait too: the query as well as the writes.
      await locker.query('LOCK TABLE "Location" IN ACCESS EXCLUSIVE MODE');
      sockets.push(
        await post(ids.rest, '/api/v1/locations', a.token, { name: 'Left by REST' }),
        await post(ids.mutation, '/graphql', a.token, {
          query: 'mutation { createLocation(input: { name: "Left by GraphQL" }) { id } }',
        }),
        await post(ids.query, '/graphql', a.token, {
          query: 'query Venue($id: ID!) { location(id: $id) { id name } }',
          variables: { id: a.location_id },
        }),
      );
      await expect.poll(() => lockWaiters(locker, '%Location%'), { timeout: 10_000 }).toBe(3);
      for (const s of sockets) s.destroy();
      // The server sees each client leave before the lock is let go.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await locker.query('COMMIT');
      // The writes' lines come; the query, let go at the same moment and answered as fast, would have
      // logged its own by then (a client that left has no "request completed" line to wait for).
      const leftLines = () =>
        log.filter((l) => typeof l.msg === 'string' && l.msg.includes('after its client left'));
      await expect.poll(() => leftLines().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // In either order: both were let go at once.
      const left = leftLines()
        .map((l) => ({ level: l.level, reqId: String(l.reqId), msg: l.msg }))
        .sort((x, y) => x.reqId.localeCompare(y.reqId));
      expect(left).toEqual([
        {
          level: 40,
          reqId: ids.mutation,
          msg: 'POST /graphql answered 200 after its client left: the answer was not delivered',
        },
        {
          level: 40,
          reqId: ids.rest,
          msg: 'POST /api/v1/locations answered 201 after its client left: the answer was not delivered',
        },
      ]);
    } finally {
      for (const s of sockets) s.destroy();
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
    }
  });
});

// The event log, live. Once a transaction commits, the app publishes a notice per tenant on its pubsub
// (src/redis/pubsub.ts: in memory, or through Redis to every instance): the log position the write
// reached and, when they are few, the events themselves. A reader (`followLog`) listens first, then
// reads what it missed from the Event table, then takes what is published, reading any gap from the
// table. Ids count 1, 2, 3… per tenant and become visible in commit order (src/events/outbox.ts), so
// "the events after id N" is exact: nothing is missed, nothing comes twice, whichever instance wrote,
// and however notices from several instances interleave. The table stays the truth: a notice lost
// (Redis away, a write by a process that does not publish: the admin CLI does, src/cli/live-events.ts)
// is found by the next notice's gap or by the reader's poll.
import { Repeater } from 'graphql-yoga';
import type { Prisma } from '../db/database.js';
import type { AppPubSub } from '../redis/pubsub.js';
import type { EventType, ResourceType } from './event-types.js';
import { type EventActor, lastIdOf, type RecordedEvent } from './outbox.js';

/** An event as a notice carries it (JSON: the id as decimal text, the time as ISO text). */
export interface WireEvent {
  readonly id: string;
  readonly type: string;
  readonly occurredAt: string;
  readonly actorType: string;
  readonly actorUserId: string | null;
  readonly actorTokenId: string | null;
  readonly requestId: string | null;
  readonly resourceType: string;
  readonly resourceId: string;
  readonly payload: unknown;
}

/** What the `eventsCommitted` channel carries for a tenant (its topic). */
export interface EventNotice {
  /** The highest id the transaction wrote to the tenant's log (decimal text). */
  readonly lastId: string;
  /** Every event the transaction wrote to the tenant's log, in id order, when at most CARRIED_EVENTS. */
  readonly events?: readonly WireEvent[];
}

/** A notice carries a transaction's events up to this many (an import's chunk is only its position). */
export const CARRIED_EVENTS = 20;

/** Events read from the table per statement. */
export const LOG_PAGE = 500;

/** A reader with nothing new looks at the table this often (notices lost while Redis was away, CLI writes). */
export const POLL_MS = 10_000;

/** Events a slow reader keeps from notices before it drops them and reads the table instead. */
const MAX_CARRIED = 10_000;

const toWire = (e: RecordedEvent): WireEvent => ({
  id: String(e.id),
  type: e.type,
  occurredAt: e.occurredAt.toISOString(),
  actorType: e.actorType,
  actorUserId: e.actorUserId,
  actorTokenId: e.actorTokenId,
  requestId: e.requestId,
  resourceType: e.resourceType,
  resourceId: e.resourceId,
  payload: e.payload,
});

/** An event as a notice or a row of the table holds it (ids, times and payload already parsed apart). */
type EventFields = Omit<WireEvent, 'id' | 'occurredAt'> & { id: string | bigint; occurredAt: string | Date };

const eventOf = (tenantId: string, e: EventFields): RecordedEvent => ({
  tenantId,
  id: BigInt(e.id),
  // Written by recordEvents from the same types.
  type: e.type as EventType,
  occurredAt: new Date(e.occurredAt),
  actorType: e.actorType as EventActor['type'],
  actorUserId: e.actorUserId,
  actorTokenId: e.actorTokenId,
  requestId: e.requestId,
  resourceType: e.resourceType as ResourceType,
  resourceId: e.resourceId,
  payload: e.payload,
});

/** Publishes a notice per tenant of committed events (best effort: a lost notice is read from the table). */
export function publishCommitted(pubsub: AppPubSub, events: readonly RecordedEvent[]): void {
  const byTenant = new Map<string, RecordedEvent[]>();
  for (const e of events) {
    const list = byTenant.get(e.tenantId);
    if (list) list.push(e);
    else byTenant.set(e.tenantId, [e]);
  }
  for (const [tenantId, list] of byTenant) {
    const lastId = lastIdOf(list);
    if (lastId === null) continue;
    try {
      pubsub.publish('eventsCommitted', tenantId, {
        lastId: String(lastId),
        ...(list.length <= CARRIED_EVENTS ? { events: list.map(toWire) } : {}),
      });
    } catch {
      // Readers find the events in the table (their next notice's gap, or their poll).
    }
  }
}

interface LogRow {
  through: bigint;
  id: bigint | null;
  type: string;
  occurredAt: Date;
  actorType: string;
  actorUserId: string | null;
  actorTokenId: string | null;
  requestId: string | null;
  resourceType: string;
  resourceId: string;
  payload: string;
}

// One statement, one snapshot: the tenant's last id, and the events after `after` up to it. Every
// id up to that last id has committed (ids are visible in commit order), so the page is complete.
const READ_SQL = `SELECT s."lastId" AS "through", e."id", e."type", e."occurredAt", e."actorType",
  e."actorUserId", e."actorTokenId", e."requestId", e."resourceType", e."resourceId", e."payload"::text AS "payload"
FROM (SELECT coalesce((SELECT "lastId" FROM "EventSequence" WHERE "tenantId" = $1), 0)::bigint AS "lastId") s
LEFT JOIN LATERAL (
  SELECT * FROM "Event"
  WHERE "tenantId" = $1 AND "id" > $2::bigint AND "id" <= s."lastId"
    AND ($3::text[] IS NULL OR "type" = ANY($3::text[]))
  ORDER BY "id" LIMIT $4
) e ON true
ORDER BY e."id"`;

/**
 * The tenant's events after `after` (of `types`, all without), in id order, at most `limit`; and
 * `through`: the id up to which the log has been read (every event of those types in
 * (after, through] is in `events`). A full page reads through its last event only.
 */
export async function readLog(
  prisma: Prisma,
  tenantId: string,
  after: bigint,
  opts: { types?: readonly string[] | null; limit?: number } = {},
): Promise<{ events: RecordedEvent[]; through: bigint }> {
  const limit = opts.limit ?? LOG_PAGE;
  const rows = await prisma.$queryRawUnsafe<LogRow[]>(
    READ_SQL,
    tenantId,
    after.toString(),
    opts.types ? [...opts.types] : null,
    limit,
  );
  const events: RecordedEvent[] = [];
  for (const r of rows) {
    if (r.id === null) continue;
    events.push(eventOf(tenantId, { ...r, id: r.id, payload: JSON.parse(r.payload) }));
  }
  const last = events.at(-1);
  const seq = BigInt(rows[0]?.through ?? 0);
  const through = events.length === limit && last ? last.id : seq;
  return { events, through: through > after ? through : after };
}

/** The tenant's last event id (0 before its first event) and its oldest kept (null: none kept). */
export async function logBounds(
  prisma: Prisma,
  tenantId: string,
): Promise<{ last: bigint; oldest: bigint | null }> {
  const [row] = await prisma.$queryRawUnsafe<{ last: bigint | null; oldest: bigint | null }[]>(
    `SELECT (SELECT "lastId" FROM "EventSequence" WHERE "tenantId" = $1) AS "last",
            (SELECT "id" FROM "Event" WHERE "tenantId" = $1 ORDER BY "id" LIMIT 1) AS "oldest"`,
    tenantId,
  );
  return {
    last: row?.last === null || row?.last === undefined ? 0n : BigInt(row.last),
    oldest: row?.oldest === null || row?.oldest === undefined ? null : BigInt(row.oldest),
  };
}

/**
 * The tenant's events after `after`, then as they commit, in id order, each once: those of `types`
 * (every type without). Ends on shutdown (`pubsub.ending`) or when its consumer returns.
 */
export function followLog(opts: {
  prisma: Prisma;
  pubsub: AppPubSub;
  tenantId: string;
  after: bigint;
  types?: readonly string[] | null;
  pollMs?: number;
}): AsyncIterableIterator<RecordedEvent> {
  const { prisma, pubsub, tenantId, types = null, pollMs = POLL_MS } = opts;
  const wanted = types ? new Set(types) : null;
  return new Repeater<RecordedEvent>(async (push, stop) => {
    let stopped = false;
    void Promise.race([stop, pubsub.ending]).then(() => {
      stopped = true;
      stop();
    });
    /** Every event up to this id has been pushed (or was not wanted). */
    let lastId = opts.after;
    /** The highest id a notice announced. */
    let announced = lastId;
    /** Events notices carried, ahead of `lastId`. */
    const carried = new Map<bigint, RecordedEvent>();
    let wake: (() => void) | null = null;

    // Listening first: whatever commits from now on is announced to this reader.
    const listening = pubsub.listen('eventsCommitted', tenantId, (notice) => {
      const last = BigInt(notice.lastId);
      if (last <= lastId) return;
      if (last > announced) announced = last;
      if (notice.events && carried.size < MAX_CARRIED) {
        for (const e of notice.events) {
          const id = BigInt(e.id);
          if (id > lastId) carried.set(id, eventOf(tenantId, e));
        }
      }
      wake?.();
    });
    void stop.then(() => listening.close());
    await Promise.race([listening.ready, stop]);

    // Then what was missed, from the table; then the live notices.
    let read = true;
    while (!stopped) {
      if (read) {
        const page = await readLog(prisma, tenantId, lastId, { types: wanted ? [...wanted] : null });
        for (const e of page.events) {
          if (stopped) return;
          lastId = e.id;
          await push(e);
        }
        if (stopped) return;
        lastId = page.through;
        if (announced < lastId) announced = lastId;
        for (const id of carried.keys()) if (id <= lastId) carried.delete(id);
        read = page.events.length === LOG_PAGE;
        continue;
      }
      for (let next = carried.get(lastId + 1n); next && !stopped; next = carried.get(lastId + 1n)) {
        carried.delete(next.id);
        lastId = next.id;
        if (!wanted || wanted.has(next.type)) await push(next);
      }
      if (stopped) return;
      // A gap (a notice lost, or carrying no events): its events are in the table.
      if (announced > lastId) {
        read = true;
        continue;
      }
      let timer: NodeJS.Timeout | undefined;
      const polled = await Promise.race([
        new Promise<boolean>((resolve) => {
          wake = () => resolve(false);
        }),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), pollMs);
          timer.unref();
        }),
        stop.then(() => false),
      ]);
      clearTimeout(timer);
      wake = null;
      if (polled) read = true;
    }
  });
}

// From the event log to the delivery queue: for a tenant, the events after its stored position
// (`WebhookCursor`) become one `WebhookDelivery` per matching active endpoint, and the position moves
// past them, in one statement. The cursor row is locked with SKIP LOCKED, so across instances one
// dispatches a tenant at a time and the others pass; events are read in id order, and ids become
// visible in commit order (src/events/outbox.ts), so moving the position past what was read never
// skips an event committed later. The events are read by the tenant's key in the log's index, in
// its order, and the read stops at the batch: a backlog of any length costs one batch's reading.
import { type Prisma, rawRowsOf } from '../db/database.js';
import { CLAIMED_COLUMNS, type ClaimedDelivery, INDEX_ONLY_PLANS, readyToSend } from './webhook-worker.js';

/** Events read per statement; a tenant with more behind is dispatched again at once. */
export const DISPATCH_BATCH = 1000;

// While no claim is under way, the dispatch also claims for this instance what its free slots take
// (as a claim would: at most $5 per endpoint, or the count $6 gives for it, and $3 in all, the oldest
// events first): those rows are written claimed (one attempt counted, leased)
// and come back with what sending needs, so a steady flow of events is sent without a claim's
// statement or a second version of each row. The others wait, due now, for the next claim.
export const DISPATCH_SQL = `WITH cur AS (
  SELECT "tenantId", "lastEventId" FROM "WebhookCursor" WHERE "tenantId" = $1 FOR UPDATE SKIP LOCKED
), ev AS (
  SELECT e."id", e."type" FROM "Event" e
  WHERE e."tenantId" = $1 AND e."id" > (SELECT "lastEventId" FROM cur)
  ORDER BY e."id" LIMIT $2
), fan AS (
  SELECT w."id" AS "webhookId", ev."id" AS "eventId", ev."type",
    row_number() OVER (PARTITION BY w."id" ORDER BY ev."id")
      <= coalesce(($6::jsonb ->> w."id")::int, $5::int) AS "fits"
  FROM ev JOIN "Webhook" w ON w."tenantId" = $1 AND w."isActive" AND ev."id" > w."startAfterEventId"
    AND (ev."type" = ANY(w."events") OR '*' = ANY(w."events"))
), fanned AS (
  SELECT f."webhookId", f."eventId", f."type",
    f."fits" AND row_number() OVER (PARTITION BY f."fits" ORDER BY f."eventId", f."webhookId") <= $3 AS "mine"
  FROM fan f
), ins AS (
  INSERT INTO "WebhookDelivery" AS d ("tenantId", "webhookId", "eventId", "eventType", "status", "attempts",
    "nextAttemptAt", "claimedUntil", "firstAttemptAt", "lastAttemptAt")
  SELECT $1, f."webhookId", f."eventId", f."type", 'pending', CASE WHEN f."mine" THEN 1 ELSE 0 END, now(),
    CASE WHEN f."mine" THEN now() + $4::int * interval '1 millisecond' END,
    CASE WHEN f."mine" THEN now() END, CASE WHEN f."mine" THEN now() END
  FROM fanned f
  RETURNING ${CLAIMED_COLUMNS}
), moved AS (
  UPDATE "WebhookCursor" c SET "lastEventId" = m.last, "updatedAt" = now()
  FROM (SELECT max("id") AS last FROM ev) m
  WHERE c."tenantId" = $1 AND m.last IS NOT NULL
  RETURNING 1
), summary AS (
  SELECT (SELECT count(*) FROM ins)::int AS queued, (SELECT count(*) FROM ev)::int AS read,
    (SELECT coalesce(array_agg(DISTINCT "webhookId"), '{}') FROM ins WHERE "attempts" = 0) AS "waiting"
)
SELECT s.*, c.* FROM summary s LEFT JOIN (
  ${readyToSend('(SELECT * FROM ins WHERE "attempts" = 1)')}
) c ON true
ORDER BY c."eventId"`;

/** What a dispatch may claim for this instance: its free slots, as a claim's (claimDeliveries). */
export interface DispatchSlots {
  /** Free slots of the instance. */
  total: number;
  /** Free slots of an endpoint not in `free`. */
  perEndpoint: number;
  /** Free slots of the endpoints with attempts in flight (or with older rows waiting: 0). */
  free: ReadonlyMap<string, number>;
  leaseMs: number;
}

const NO_SLOTS: DispatchSlots = { total: 0, perEndpoint: 0, free: new Map(), leaseMs: 1 };

/** The summary, in every row; a claimed delivery's fields, null in the one row when none was claimed. */
type DispatchRow = { queued: number; read: number; waiting: string[] } & (
  | ClaimedDelivery
  | { [K in keyof ClaimedDelivery]: null }
);

/**
 * Dispatches the tenant's new events (up to DISPATCH_BATCH of them): resolves to the deliveries
 * claimed for this instance (`slots`; none by default), the endpoints with deliveries left waiting,
 * and whether a full batch was read (more may be waiting). Another instance dispatching the tenant
 * right now, or a tenant without a cursor (no webhook), reads nothing.
 */
export async function dispatchTenant(
  prisma: Prisma,
  tenantId: string,
  slots: DispatchSlots = NO_SLOTS,
): Promise<{ queued: number; claimed: ClaimedDelivery[]; waiting: string[]; more: boolean }> {
  // In a transaction of its own whose planner may only walk indexes (as a claim's): left to its
  // statistics (gathered while the log was short) it would read and sort the tenant's whole backlog.
  const rows = await rawRowsOf(prisma)<DispatchRow>(
    DISPATCH_SQL,
    [
      tenantId,
      DISPATCH_BATCH,
      slots.total,
      slots.leaseMs,
      slots.perEndpoint,
      JSON.stringify(Object.fromEntries(slots.free)),
    ],
    undefined,
    INDEX_ONLY_PLANS,
  );
  const claimed: ClaimedDelivery[] = [];
  for (const r of rows) {
    if (r.id === null) continue;
    claimed.push({
      id: r.id,
      tenantId: r.tenantId,
      webhookId: r.webhookId,
      eventId: r.eventId,
      eventType: r.eventType,
      attempts: r.attempts,
      firstAttemptAt: r.firstAttemptAt,
      url: r.url,
      secret: r.secret,
      failingSince: r.failingSince,
      occurredAt: r.occurredAt,
      payloadJson: r.payloadJson,
    });
  }
  const first = rows[0];
  return {
    queued: first?.queued ?? 0,
    claimed,
    waiting: first?.waiting ?? [],
    more: (first?.read ?? 0) >= DISPATCH_BATCH,
  };
}

/** The tenants with a cursor (a webhook was created there) whose log has events past it. */
export async function tenantsBehind(prisma: Prisma): Promise<{ behind: string[]; all: string[] }> {
  const rows = await prisma.$queryRawUnsafe<{ tenantId: string; behind: boolean }[]>(
    `SELECT c."tenantId", coalesce(s."lastId" > c."lastEventId", false) AS behind
     FROM "WebhookCursor" c LEFT JOIN "EventSequence" s ON s."tenantId" = c."tenantId"`,
  );
  return { behind: rows.filter((r) => r.behind).map((r) => r.tenantId), all: rows.map((r) => r.tenantId) };
}

/**
 * Where a new endpoint starts: the tenant's last event id now (it receives the events after it), and
 * the tenant's cursor created at that point if it has none. Run in the endpoint's transaction.
 */
export async function startingPoint(tx: Pick<Prisma, '$queryRawUnsafe'>, tenantId: string): Promise<bigint> {
  const rows = await tx.$queryRawUnsafe<{ lastId: bigint }[]>(
    `WITH seq AS (SELECT coalesce((SELECT "lastId" FROM "EventSequence" WHERE "tenantId" = $1), 0) AS "lastId"),
     cur AS (
       INSERT INTO "WebhookCursor" ("tenantId", "lastEventId") SELECT $1, "lastId" FROM seq
       ON CONFLICT ("tenantId") DO NOTHING RETURNING 1
     )
     SELECT "lastId" FROM seq`,
    tenantId,
  );
  return BigInt(rows[0]?.lastId ?? 0);
}

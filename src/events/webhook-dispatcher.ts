// From the event log to the delivery queue: for a tenant, the events after its stored position
// (`WebhookCursor`) become one `WebhookDelivery` per matching active endpoint, and the position moves
// past them, in one statement. The cursor row is locked with SKIP LOCKED, so across instances one
// dispatches a tenant at a time and the others pass; events are read in id order, and ids become
// visible in commit order (src/events/outbox.ts), so moving the position past what was read never
// skips an event committed later. The events are read by the tenant's key in the log's index, in
// its order, and the read stops at the batch: a backlog of any length costs one batch's reading.
import { type Prisma, rawRowsOf } from '../db/database.js';
import { INDEX_ONLY_PLANS } from './webhook-worker.js';

/** Events read per statement; a tenant with more behind is dispatched again at once. */
export const DISPATCH_BATCH = 1000;

export const DISPATCH_SQL = `WITH cur AS (
  SELECT "tenantId", "lastEventId" FROM "WebhookCursor" WHERE "tenantId" = $1 FOR UPDATE SKIP LOCKED
), ev AS (
  SELECT e."id", e."type" FROM "Event" e
  WHERE e."tenantId" = $1 AND e."id" > (SELECT "lastEventId" FROM cur)
  ORDER BY e."id" LIMIT $2
), ins AS (
  INSERT INTO "WebhookDelivery" ("tenantId", "webhookId", "eventId", "eventType", "status", "nextAttemptAt")
  SELECT $1, w."id", ev."id", ev."type", 'pending', now()
  FROM ev JOIN "Webhook" w ON w."tenantId" = $1 AND w."isActive" AND ev."id" > w."startAfterEventId"
    AND (ev."type" = ANY(w."events") OR '*' = ANY(w."events"))
  RETURNING "webhookId"
), moved AS (
  UPDATE "WebhookCursor" c SET "lastEventId" = m.last, "updatedAt" = now()
  FROM (SELECT max("id") AS last FROM ev) m
  WHERE c."tenantId" = $1 AND m.last IS NOT NULL
  RETURNING 1
)
SELECT (SELECT count(*) FROM ins)::int AS queued, (SELECT count(*) FROM ev)::int AS read,
  (SELECT count(*) FROM moved)::int AS moved,
  (SELECT coalesce(array_agg(DISTINCT "webhookId"), '{}') FROM ins) AS "webhookIds"`;

/**
 * Dispatches the tenant's new events (up to DISPATCH_BATCH of them): resolves to how many deliveries
 * were queued, for which endpoints, and whether a full batch was read (more may be waiting). Another
 * instance dispatching the tenant right now, or a tenant without a cursor (no webhook), reads nothing.
 */
export async function dispatchTenant(
  prisma: Prisma,
  tenantId: string,
): Promise<{ queued: number; webhookIds: string[]; more: boolean }> {
  // In a transaction of its own whose planner may only walk indexes (as a claim's): left to its
  // statistics (gathered while the log was short) it would read and sort the tenant's whole backlog.
  const [row] = await rawRowsOf(prisma)<{ queued: number; read: number; webhookIds: string[] }>(
    DISPATCH_SQL,
    [tenantId, DISPATCH_BATCH],
    undefined,
    INDEX_ONLY_PLANS,
  );
  return {
    queued: row?.queued ?? 0,
    webhookIds: row?.webhookIds ?? [],
    more: (row?.read ?? 0) >= DISPATCH_BATCH,
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

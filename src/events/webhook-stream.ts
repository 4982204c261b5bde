// An endpoint's stream: its first attempts are read straight from the event log, from its place
// (`WebhookStream.lastEventId`) on, with no row written per event. An instance holds the stream
// (claimed with SKIP LOCKED and leased, so across instances one sends it at a time), reads windows of
// the log after its place, sends what the endpoint subscribes to, and records the attempts in one
// statement that also moves the place past them (RECORD_SQL, webhook-worker.ts): a first attempt
// that fails becomes a `WebhookDelivery` to retry there, in that same statement. Should the holder
// die, its lease runs out and the next holder sends again, with the same `webhook-id`, what was sent
// after the recorded place. Ids become visible in commit order (src/events/outbox.ts), so reading
// after a place never skips an event committed later.
import { type Prisma, rawRowsOf } from '../db/database.js';
import { SIGNING_SECRETS_SQL } from './webhook-secret.js';
import { INDEX_ONLY_PLANS } from './webhook-worker.js';

/** An event of a stream's window that its endpoint subscribes to. */
export interface StreamEvent {
  id: bigint;
  type: string;
  occurredAt: Date;
  /** The payload as the log stores it (JSON text). */
  payloadJson: string;
}

/** What sending to the endpoint needs, as it stands when the window is read. */
export interface StreamEndpoint {
  url: string;
  /** The stored secret, and the previous one while it still signs (SIGNING_SECRETS_SQL). */
  secret: string;
  previousSecret: string | null;
  failingSince: Date | null;
  isActive: boolean;
}

/** A window of the log after a stream's place. */
export interface StreamWindow {
  /** Null: the endpoint was deleted. */
  endpoint: StreamEndpoint | null;
  /** The subscribed events, in id order (none for an inactive endpoint). */
  events: StreamEvent[];
  /** The last event id read, subscribed or not (null: none was after the place). */
  readTo: bigint | null;
  /** As many events were read as the window holds: more may follow. */
  full: boolean;
}

/** A stream claimed by this instance, with its first window. */
export interface HeldStream {
  webhookId: string;
  tenantId: string;
  /** The recorded place. */
  lastEventId: bigint;
  /** This hold's number: the record's fence. */
  lease: number;
  window: StreamWindow;
}

// What a window returns, of the endpoint `w` and its events (`windowJoins`).
const WINDOW_COLUMNS = `w."url", ${SIGNING_SECRETS_SQL}, w."failingSince", w."isActive", r."readTo", r."read",
  m."id", m."type", m."occurredAt", m."payloadJson"`;

// The events after a stream's place `after`: at most `scan` of them read, by the log's key in order
// (`r`: the place to move to and how many were read); those the endpoint `w` subscribes to are
// returned (`m`), the others only move the place. A window that is not full read every event the
// statement sees up to the tenant's last id (ids become visible in commit order, the sequence with
// them): the place moves to that id, past events deleted meanwhile (retention, pruning), which would
// otherwise leave the stream claimed again at every poll until the tenant's next event.
const windowJoins = (tenant: string, after: string, scan: string) => `CROSS JOIN LATERAL (
  SELECT CASE WHEN a."read" < ${scan} AND a."lastId" > ${after} THEN greatest(a."maxId", a."lastId")
    ELSE a."maxId" END AS "readTo", a."read"
  FROM (
    SELECT max(ev."id") AS "maxId", count(*)::int AS "read",
      (SELECT q."lastId" FROM "EventSequence" q WHERE q."tenantId" = ${tenant}) AS "lastId"
    FROM (
      SELECT e."id" FROM "Event" e WHERE e."tenantId" = ${tenant} AND e."id" > ${after} ORDER BY e."id" LIMIT ${scan}
    ) ev
  ) a
) r
LEFT JOIN LATERAL (
  SELECT e."id", e."type", e."occurredAt", e."payload"::text AS "payloadJson" FROM "Event" e
  WHERE e."tenantId" = ${tenant} AND e."id" > ${after} AND e."id" <= r."readTo" AND w."isActive"
    AND (e."type" = ANY(w."events") OR '*' = ANY(w."events"))
) m ON true`;

interface WindowRow {
  url: string;
  secret: string;
  previousSecret: string | null;
  failingSince: Date | null;
  isActive: boolean;
  readTo: bigint | null;
  read: number;
  id: bigint | null;
  type: string | null;
  occurredAt: Date | null;
  payloadJson: string | null;
}

// Streams with events after their place, not held (or their lease ran out, or the claiming instance
// let them go unrecorded under the lease it names in $5/$6), of an active endpoint (of the tenants
// $3, or all): up to $1 of them are held for $2 ms, each with its first window ($4).
export const STREAM_CLAIM_SQL = `WITH free AS (
  SELECT s."webhookId" FROM "WebhookStream" s
  JOIN "EventSequence" q ON q."tenantId" = s."tenantId" AND q."lastId" > s."lastEventId"
  WHERE (s."leasedUntil" IS NULL OR s."leasedUntil" <= now()
      OR (s."webhookId", s."lease") IN (SELECT * FROM unnest($5::text[], $6::int[])))
    AND ($3::text[] IS NULL OR s."tenantId" = ANY($3::text[]))
    AND (SELECT w."isActive" FROM "Webhook" w WHERE w."id" = s."webhookId")
  LIMIT $1
  FOR UPDATE OF s SKIP LOCKED
), held AS (
  UPDATE "WebhookStream" s SET "leasedUntil" = now() + $2::int * interval '1 millisecond',
    "lease" = s."lease" + 1, "updatedAt" = now()
  FROM free WHERE s."webhookId" = free."webhookId"
  RETURNING s."webhookId", s."tenantId", s."lastEventId", s."lease"
)
SELECT h."webhookId", h."tenantId", h."lastEventId", h."lease", ${WINDOW_COLUMNS}
FROM held h JOIN "Webhook" w ON w."id" = h."webhookId"
${windowJoins('h."tenantId"', 'h."lastEventId"', '$4::int')}
ORDER BY h."webhookId", m."id"`;

// The window after $3 of the endpoint $1 (tenant $2): at most $4 events read.
export const STREAM_READ_SQL = `SELECT ${WINDOW_COLUMNS}
FROM "Webhook" w
${windowJoins('$2', '$3::bigint', '$4::int')}
WHERE w."id" = $1
ORDER BY m."id"`;

/** The rows of one stream's window, in id order, as a StreamWindow of `scan` events at most. */
function windowFrom(rows: readonly WindowRow[], scan: number): StreamWindow {
  const first = rows[0];
  if (!first) return { endpoint: null, events: [], readTo: null, full: false };
  const events: StreamEvent[] = [];
  for (const r of rows) {
    if (r.id === null || r.type === null || r.occurredAt === null || r.payloadJson === null) continue;
    events.push({ id: r.id, type: r.type, occurredAt: r.occurredAt, payloadJson: r.payloadJson });
  }
  return {
    endpoint: {
      url: first.url,
      secret: first.secret,
      previousSecret: first.previousSecret,
      failingSince: first.failingSince,
      isActive: first.isActive,
    },
    events,
    readTo: first.readTo,
    full: first.read >= scan,
  };
}

/**
 * A stream under the lease it was held by: one this instance let go unrecorded (a statement failed),
 * or one a delivery thread that ended held (webhook-delivery-thread.ts).
 */
export interface LetGoStream {
  webhookId: string;
  lease: number;
}

/**
 * Holds up to `limit` streams with events waiting (of `tenants`, or all) for `leaseMs`, each with
 * its first window of `scan` events at most. The streams `letGo` are held again at once if no other
 * instance held them since (their lease number unchanged), not only once their lease runs out: a
 * database that failed the instance's statements for a moment delays delivery by that moment only.
 */
export async function claimStreams(
  prisma: Prisma,
  limit: number,
  leaseMs: number,
  scan: number,
  tenants: readonly string[] | null = null,
  letGo: readonly LetGoStream[] = [],
): Promise<HeldStream[]> {
  // Index walks only (as a claim's, see claimDeliveries): the log's statistics, gathered while it
  // was short, would otherwise have it read and sort a tenant's whole backlog.
  const rows = await rawRowsOf(prisma)<
    WindowRow & { webhookId: string; tenantId: string; lastEventId: bigint; lease: number }
  >(
    STREAM_CLAIM_SQL,
    [limit, leaseMs, tenants, scan, letGo.map((l) => l.webhookId), letGo.map((l) => l.lease)],
    undefined,
    INDEX_ONLY_PLANS,
  );
  const held: HeldStream[] = [];
  for (let i = 0; i < rows.length; ) {
    const first = rows[i] as (typeof rows)[number];
    let j = i;
    while (j < rows.length && rows[j]?.webhookId === first.webhookId) j++;
    held.push({
      webhookId: first.webhookId,
      tenantId: first.tenantId,
      lastEventId: first.lastEventId,
      lease: first.lease,
      window: windowFrom(rows.slice(i, j), scan),
    });
    i = j;
  }
  return held;
}

/** The next window of a held stream: up to `scan` events after `after`. */
export async function readStream(
  prisma: Prisma,
  stream: { webhookId: string; tenantId: string },
  after: bigint,
  scan: number,
): Promise<StreamWindow> {
  const rows = await rawRowsOf(prisma)<WindowRow>(
    STREAM_READ_SQL,
    [stream.webhookId, stream.tenantId, after, scan],
    undefined,
    INDEX_ONLY_PLANS,
  );
  return windowFrom(rows, scan);
}

/** Every stream of an active endpoint, and whether events wait after its place. */
export async function listStreams(
  prisma: Prisma,
): Promise<{ webhookId: string; tenantId: string; behind: boolean }[]> {
  return prisma.$queryRawUnsafe(
    `SELECT s."webhookId", s."tenantId", coalesce(q."lastId" > s."lastEventId", false) AS behind
     FROM "WebhookStream" s JOIN "Webhook" w ON w."id" = s."webhookId" AND w."isActive"
     LEFT JOIN "EventSequence" q ON q."tenantId" = s."tenantId"`,
  );
}

/**
 * The endpoint's stream starts (a new endpoint) or resumes (one enabled again) after the tenant's
 * last event now (in the caller's transaction): what was logged while it was disabled comes only with a replay.
 */
export async function placeStream(
  tx: Pick<Prisma, '$executeRawUnsafe'>,
  webhookId: string,
  tenantId: string,
): Promise<void> {
  await tx.$executeRawUnsafe(
    `INSERT INTO "WebhookStream" ("webhookId", "tenantId", "lastEventId")
     SELECT $1, $2, coalesce((SELECT "lastId" FROM "EventSequence" WHERE "tenantId" = $2), 0)
     ON CONFLICT ("webhookId") DO UPDATE SET "lastEventId" = excluded."lastEventId",
       "leasedUntil" = NULL, "lease" = "WebhookStream"."lease" + 1, "updatedAt" = now()`,
    webhookId,
    tenantId,
  );
}

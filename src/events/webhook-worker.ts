// The delivery worker's steps: claim due deliveries (FOR UPDATE SKIP LOCKED, so across instances
// each attempt is claimed by one), make each attempt, and record a batch of attempts in one statement.
//
// A claim counts the attempt and reserves the row for a lease (`claimedUntil`, a column no index
// holds, so the claim rewrites the row in place: a HOT update, no index entry): should the instance
// die mid-attempt, the row comes due again when the lease ends
// and another instance (or this one, restarted) sends it again with the same `webhook-id`. An
// attempt's result is written only if the row still carries the claim's attempt count and is still
// pending (a fence: an instance that outlived its lease does not overwrite the newer claim); the
// attempt itself is logged either way (it was made).
import { randomFillSync } from 'node:crypto';
import type { WebhookSettings } from '../config.js';
import { type Prisma, rawRowsOf } from '../db/database.js';
import { isForeignKeyViolation } from '../db/foreign-key-violation.js';
import { retryingConflicts } from '../db/write-conflict.js';
import { storedEventMessage } from './webhook-message.js';
import { nextRetryDelay } from './webhook-retry.js';
import { openSecret, SIGNING_SECRETS_SQL, signingSecrets } from './webhook-secret.js';
import { type AttemptResult, sendWebhook, type WebhookConnections } from './webhook-sender.js';

/** A claimed delivery (or a stream's event: see `id`), with what sending it needs. */
export interface ClaimedDelivery {
  /** The queue row; null for a first attempt read from the endpoint's stream (webhook-stream.ts). */
  id: bigint | null;
  /** A stream's event: the hold it was read under (RECORD_SQL's fence). */
  streamLease?: number;
  tenantId: string;
  webhookId: string;
  eventId: bigint;
  eventType: string;
  /** Attempts made, this one included. */
  attempts: number;
  firstAttemptAt: Date;
  url: string;
  /** The stored secret, and the previous one while it still signs (SIGNING_SECRETS_SQL). */
  secret: string;
  previousSecret: string | null;
  failingSince: Date | null;
  /** Null when the event has left the log (retention): the delivery is dead. */
  occurredAt: Date | null;
  /** The event's payload as the log stores it (JSON text). */
  payloadJson: string | null;
}

// Each endpoint with deliveries due and a free slot gives its oldest due rows, up to its free slots
// ($4: free slots of the endpoints with attempts in flight, as JSON; any other: $3), locked; of
// those, the oldest $1 are claimed. The endpoints are found by stepping through the index on
// (status, webhookId, nextAttemptAt) from one endpoint with pending rows to the next, and each one's
// due rows are read from it in order, passing over those claimed (at most its attempts in flight): a
// claim reads what it takes and one index step per endpoint
// with pending rows, however long any endpoint's queue (a flooded endpoint, all its slots taken,
// is stepped over, not read). The endpoint's check is a subquery per endpoint: as a join, the
// planner could read every endpoint's rows first. Rows locked but not claimed are let go when the
// claim's transaction ends. A due row whose type the endpoint no longer subscribes to (its `events`
// changed since the first attempt) is not sent: it is dead, as replay would not queue it either.
export const CLAIM_SQL = `WITH RECURSIVE endpoints AS (
  (SELECT d."webhookId" AS "id" FROM "WebhookDelivery" d WHERE d."status" = 'pending'
   ORDER BY d."webhookId" LIMIT 1)
  UNION ALL
  SELECT (SELECT d."webhookId" FROM "WebhookDelivery" d
          WHERE d."status" = 'pending' AND d."webhookId" > e."id" ORDER BY d."webhookId" LIMIT 1)
  FROM endpoints e WHERE e."id" IS NOT NULL
), free AS (
  SELECT e."id", least(coalesce(($4::jsonb ->> e."id")::int, $3::int), $1::int) AS "slots",
    (SELECT w."events" FROM "Webhook" w WHERE w."id" = e."id") AS "events"
  FROM endpoints e
  WHERE e."id" IS NOT NULL AND (SELECT w."isActive" FROM "Webhook" w WHERE w."id" = e."id")
), due AS (
  SELECT q."id", q."nextAttemptAt", q."eventType" = ANY(f."events") OR '*' = ANY(f."events") AS "subscribed"
  FROM free f CROSS JOIN LATERAL (
    SELECT d."id", d."nextAttemptAt", d."eventType" FROM "WebhookDelivery" d
    WHERE d."status" = 'pending' AND d."webhookId" = f."id" AND d."nextAttemptAt" <= now()
      AND (d."claimedUntil" IS NULL OR d."claimedUntil" <= now())
    ORDER BY d."nextAttemptAt" LIMIT f."slots"
    FOR UPDATE OF d SKIP LOCKED
  ) q
  WHERE f."slots" > 0
), unsubscribed AS (
  UPDATE "WebhookDelivery" d SET "status" = 'dead', "nextAttemptAt" = NULL, "updatedAt" = now()
  FROM due WHERE d."id" = due."id" AND NOT due."subscribed"
  RETURNING d."id", d."webhookId", d."eventId", d."attempts", d."firstAttemptAt", d."lastAttemptAt"
), given_up AS (
  -- Its last attempt said when it would be tried again: not any more (the deliveries list reads it).
  -- That attempt started after its claim (lastAttemptAt), by the process's clock: a minute's margin.
  -- A retry names its delivery; a first attempt made from the log names none, and is the one at
  -- the delivery's first attempt's time (a replay's copy of the event is a delivery of its own).
  UPDATE "WebhookAttempt" a SET "nextRetryAt" = NULL FROM unsubscribed u
  WHERE a."webhookId" = u."webhookId" AND a."createdAt" >= u."lastAttemptAt" - interval '1 minute'
    AND a."nextRetryAt" IS NOT NULL
    AND ((a."deliveryId" = u."id" AND a."attempt" = u."attempts")
      OR (a."deliveryId" IS NULL AND u."attempts" = 1 AND a."eventId" = u."eventId"
        AND a."createdAt" = u."firstAttemptAt"))
), picked AS (
  SELECT due."id" FROM due WHERE due."subscribed" ORDER BY due."nextAttemptAt", due."id" LIMIT $1
), claimed AS (
  UPDATE "WebhookDelivery" d SET "attempts" = d."attempts" + 1,
    "claimedUntil" = now() + $2::int * interval '1 millisecond',
    "firstAttemptAt" = coalesce(d."firstAttemptAt", now()),
    "lastAttemptAt" = now()
  FROM picked WHERE d."id" = picked."id"
  RETURNING d."id", d."tenantId", d."webhookId", d."eventId", d."eventType", d."attempts", d."firstAttemptAt"
)
SELECT c."id", c."tenantId", c."webhookId", c."eventId", c."eventType", c."attempts", c."firstAttemptAt",
  w."url", ${SIGNING_SECRETS_SQL}, w."failingSince", e."occurredAt", e."payload"::text AS "payloadJson"
FROM claimed c JOIN "Webhook" w ON w."id" = c."webhookId"
LEFT JOIN "Event" e ON e."tenantId" = c."tenantId" AND e."id" = c."eventId"
ORDER BY c."eventId"`;

/**
 * Claims up to `limit` due deliveries for `leaseMs`: at most `perEndpoint` of one endpoint, or, for
 * an endpoint in `free`, that many (0: none).
 */
export async function claimDeliveries(
  prisma: Prisma,
  limit: number,
  leaseMs: number,
  perEndpoint: number = limit,
  free: ReadonlyMap<string, number> = new Map(),
): Promise<ClaimedDelivery[]> {
  // In a transaction of its own whose planner may only walk indexes: each endpoint's due rows are
  // read in the order of the index on (status, webhookId, nextAttemptAt) and the walk stops at its
  // slots. Left to its statistics (gathered while the queue was short) the planner would read and
  // sort the whole queue at every claim during a burst.
  return rawRowsOf(prisma)<ClaimedDelivery>(
    CLAIM_SQL,
    [limit, leaseMs, perEndpoint, JSON.stringify(Object.fromEntries(free))],
    undefined,
    INDEX_ONLY_PLANS,
  );
}

/** No sequential or bitmap scans (see claimDeliveries). */
export const INDEX_ONLY_PLANS = { enable_seqscan: 'off', enable_bitmapscan: 'off' } as const;

// A batch of attempts, in one statement, with the places of this instance's streams ($2; each moved
// only while its hold stands: same lease; leased again for $3 ms, or let go). A claimed delivery
// takes its attempt's result if its claim still holds (same attempt count, still pending): a
// delivered one leaves the queue (its attempt is its record; a row deleted writes no new version nor
// index entries), any other takes its new state; a retry of a disabled endpoint's delivery waits
// unscheduled (null) until it is enabled again. A first attempt from a stream (no row: `id` null)
// that failed becomes a row, if its hold stands (otherwise the next holder sends it again). Every
// attempt made is logged, a stale claim's too, unless its endpoint was deleted meanwhile; its next
// retry is that of its row if the row took its result. (The log joins only the rows kept: a join of
// the planner's choosing over all of them was a nested loop, 250 000 comparisons and 21 of 29 ms for
// a batch of 500 successes.)
export const RECORD_SQL = `WITH r AS (
  SELECT * FROM json_to_recordset($1::json) AS r("id" bigint, "lease" int, "tenantId" text,
    "webhookId" text, "eventId" bigint, "eventType" text, "attempts" int, "status" text,
    "retryAt" timestamptz, "statusCode" int, "error" text, "durationMs" int, "attemptId" text,
    "outcome" text, "startedAt" timestamptz)
), p AS (
  SELECT * FROM json_to_recordset($2::json) AS p("webhookId" text, "lease" int, "lastEventId" bigint,
    "release" boolean)
), moved AS (
  UPDATE "WebhookStream" s SET "lastEventId" = greatest(s."lastEventId", p."lastEventId"),
    "leasedUntil" = CASE WHEN p."release" THEN NULL ELSE now() + $3::int * interval '1 millisecond' END,
    "updatedAt" = now()
  FROM p WHERE s."webhookId" = p."webhookId" AND s."lease" = p."lease"
  RETURNING s."webhookId", s."lease"
), streamed AS (
  SELECT r.*, w."isActive" FROM r JOIN moved m ON m."webhookId" = r."webhookId" AND m."lease" = r."lease"
  JOIN "Webhook" w ON w."id" = r."webhookId"
  WHERE r."id" IS NULL
), queued AS (
  INSERT INTO "WebhookDelivery" ("tenantId", "webhookId", "eventId", "eventType", "status", "attempts",
    "nextAttemptAt", "firstAttemptAt", "lastAttemptAt", "lastStatusCode", "lastError", "lastDurationMs")
  SELECT r."tenantId", r."webhookId", r."eventId", r."eventType", r."status", 1,
    CASE WHEN r."status" = 'pending' AND r."isActive" THEN r."retryAt" END, r."startedAt", r."startedAt",
    r."statusCode", r."error", r."durationMs"
  FROM streamed r WHERE r."status" <> 'succeeded'
  RETURNING 1
), delivered AS (
  DELETE FROM "WebhookDelivery" d USING r
  WHERE d."id" = r."id" AND d."attempts" = r."attempts" AND d."status" = 'pending'
    AND r."status" = 'succeeded'
  RETURNING d."id"
), kept AS (
  UPDATE "WebhookDelivery" d SET "status" = r."status", "claimedUntil" = NULL,
    "nextAttemptAt" = CASE WHEN r."status" = 'pending' AND w."isActive" THEN r."retryAt" END,
    "lastStatusCode" = r."statusCode", "lastError" = r."error", "lastDurationMs" = r."durationMs",
    "updatedAt" = now()
  FROM r JOIN "Webhook" w ON w."id" = r."webhookId"
  WHERE d."id" = r."id" AND d."attempts" = r."attempts" AND d."status" = 'pending'
    AND r."status" <> 'succeeded'
  RETURNING d."id", d."nextAttemptAt"
), d AS (
  SELECT "id" FROM delivered UNION ALL SELECT "id" FROM kept
), logged AS (
  INSERT INTO "WebhookAttempt" ("id", "tenantId", "webhookId", "deliveryId", "eventId", "eventType",
    "messageId", "attempt", "status", "statusCode", "durationMs", "error", "nextRetryAt", "createdAt")
  SELECT r."attemptId", r."tenantId", r."webhookId", r."id", r."eventId", r."eventType",
    'evt_' || r."tenantId" || '_' || r."eventId", r."attempts", r."outcome", r."statusCode",
    r."durationMs", r."error",
    CASE WHEN r."id" IS NOT NULL THEN k."nextAttemptAt"
      WHEN r."status" = 'pending' AND w."isActive" AND m."webhookId" IS NOT NULL THEN r."retryAt" END,
    r."startedAt"
  FROM r JOIN "Webhook" w ON w."id" = r."webhookId" LEFT JOIN kept k ON k."id" = r."id"
  LEFT JOIN moved m ON r."id" IS NULL AND m."webhookId" = r."webhookId" AND m."lease" = r."lease"
  RETURNING 1
)
SELECT (SELECT count(*) FROM d)::int + (SELECT count(*) FROM streamed)::int AS "written",
  (SELECT count(*) FROM logged)::int AS "logged",
  (SELECT coalesce(array_agg("webhookId"), '{}') FROM moved) AS "moved",
  (SELECT count(*) FROM queued)::int AS "queued"`;

/** A stream's place to record (RECORD_SQL's $2): moved only while the hold `lease` stands. */
export interface StreamPlace {
  webhookId: string;
  lease: number;
  lastEventId: bigint;
  /** Let the stream go (another instance, or this one later, may hold it). */
  release: boolean;
}

/** The delivery's state once an attempt is over. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

/** Random bytes for attempt ids, filled a few hundred ids at a time (one call per id costs more than the id). */
const idBytes = Buffer.alloc(9 * 512);
let idAt = idBytes.length;
/** base64url's characters in ASCII order: a time in them sorts as it counts. */
const SORTABLE = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

/**
 * Opaque ids: the time in ms (7 characters of base64url's alphabet, in its ASCII order) then 9
 * random bytes (12 characters). The attempts of a moment land side by side in the primary key's
 * index, so logging them touches its newest pages only, however long the history (random ids
 * touched a page anywhere in it per attempt, each written whole to the WAL after a checkpoint).
 */
export function newAttemptId(now = Date.now()): string {
  if (idAt >= idBytes.length) {
    randomFillSync(idBytes);
    idAt = 0;
  }
  let time = '';
  for (let t = now, i = 0; i < 7; i++, t = Math.floor(t / 64)) time = SORTABLE[t % 64] + time;
  const id = time + idBytes.toString('base64url', idAt, idAt + 9);
  idAt += 9;
  return id;
}

/** What the worker does to an endpoint beyond its deliveries (the webhooks module's writes). */
export interface EndpointHealth {
  /** Disables the endpoint (`gone`: 410; `failing`: only failures for days) and pauses its deliveries. */
  disable(webhookId: string, tenantId: string, reason: 'gone' | 'failing'): Promise<void>;
}

export interface WorkerLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface WorkerDeps {
  prisma: Prisma;
  settings: WebhookSettings;
  health: EndpointHealth;
  log: WorkerLog;
  /** Kept-alive connections to the endpoints (webhookConnections). */
  connections: WebhookConnections;
  /** A retry falls due at this moment: the worker should look again then. */
  wakeAt(at: Date): void;
}

/** The decision after an attempt: the delivery's new state and when a retry is due. */
export function decide(
  claim: Pick<ClaimedDelivery, 'attempts' | 'firstAttemptAt'>,
  result: AttemptResult,
  now: Date,
  retryBaseMs: number,
): { status: DeliveryStatus; retryAt: Date | null } {
  switch (result.outcome) {
    case 'succeeded':
      return { status: 'succeeded', retryAt: null };
    case 'failed':
    case 'gone':
      return { status: 'failed', retryAt: null };
    case 'retry': {
      const delay = nextRetryDelay(claim.attempts, claim.firstAttemptAt, now, retryBaseMs);
      return delay === null
        ? { status: 'dead', retryAt: null }
        : { status: 'pending', retryAt: new Date(now.getTime() + delay) };
    }
  }
}

/** An attempt made, to be recorded. */
export interface MadeAttempt {
  readonly claim: ClaimedDelivery;
  readonly id: string;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly result: AttemptResult;
  /** The delivery's state after it, and when it is tried again. */
  readonly status: DeliveryStatus;
  readonly retryAt: Date | null;
}

/** Opened secrets by their stored form (opening a sealed one decrypts it). */
const opened = new Map<string, string>();
const OPENED_KEPT = 1000;

function secretOf(stored: string, key: Buffer | undefined): string {
  const cacheKey = key ? `${key.toString('base64')}:${stored}` : stored;
  let secret = opened.get(cacheKey);
  if (secret === undefined) {
    secret = openSecret(stored, key);
    if (opened.size >= OPENED_KEPT) opened.clear();
    opened.set(cacheKey, secret);
  }
  return secret;
}

/** The attempt itself: the message built, signed and sent (or why it could not be). */
async function send(deps: WorkerDeps, claim: ClaimedDelivery): Promise<AttemptResult> {
  if (claim.occurredAt === null || claim.payloadJson === null) {
    return { outcome: 'failed', statusCode: null, durationMs: 0, error: 'the event is no longer in the log' };
  }
  const message = storedEventMessage({
    tenantId: claim.tenantId,
    id: claim.eventId,
    type: claim.eventType,
    occurredAt: claim.occurredAt,
    payloadJson: claim.payloadJson,
  });
  let secrets: string[];
  try {
    secrets = signingSecrets(claim, (stored) => secretOf(stored, deps.settings.secretsKey));
  } catch (err) {
    const why = (err as Error).message;
    deps.log.warn(
      { webhookId: claim.webhookId },
      `Webhook ${claim.webhookId}: cannot sign (${why}); will retry`,
    );
    // Retried: an operator who restores the right key within the retry window loses nothing.
    return { outcome: 'retry', statusCode: null, durationMs: 0, error: why };
  }
  return sendWebhook(claim.url, secrets, message, {
    timeoutMs: deps.settings.timeoutMs,
    allowPrivate: deps.settings.allowPrivate,
    connections: deps.connections,
  });
}

/** Makes one attempt of a claimed delivery (not recorded yet); a failing receiver never makes it throw. */
export async function makeAttempt(deps: WorkerDeps, claim: ClaimedDelivery): Promise<MadeAttempt> {
  const startedAt = new Date();
  const result = await send(deps, claim);
  const finishedAt = new Date();
  const decision =
    claim.occurredAt === null
      ? { status: 'dead' as const, retryAt: null }
      : decide(claim, result, finishedAt, deps.settings.retryBaseMs);
  return {
    claim,
    id: newAttemptId(),
    startedAt,
    finishedAt,
    result,
    ...decision,
  };
}

/**
 * Records attempts, and streams' places, in one statement: resolves to how many attempts took their
 * result (the others' claims or holds were stale), how many were logged (all), the endpoints whose
 * places moved (their holds stood) and how many failed first attempts were queued to retry.
 */
export async function recordAttempts(
  prisma: Prisma,
  attempts: readonly MadeAttempt[],
  places: readonly StreamPlace[] = [],
  leaseMs = 0,
): Promise<{ written: number; logged: number; moved: string[]; queued: number }> {
  if (attempts.length === 0 && places.length === 0) return { written: 0, logged: 0, moved: [], queued: 0 };
  // One statement: a deadlock with an endpoint's deletion ends it whole, and it is run again; so is
  // a foreign key refused because the deletion committed while it ran (it read the endpoint still
  // there): run again, it reads the endpoint gone and leaves its attempts out (probe W: the others
  // of the batch were made again).
  const run = () =>
    retryingConflicts(() =>
      rawRowsOf(prisma)<{ written: number; logged: number; moved: string[]; queued: number }>(RECORD_SQL, [
        recordParameter(attempts),
        placesParameter(places),
        leaseMs,
      ]),
    );
  const [row] = await run().catch((err: unknown) => {
    if (!isForeignKeyViolation(err)) throw err;
    return run();
  });
  return {
    written: row?.written ?? 0,
    logged: row?.logged ?? 0,
    moved: row?.moved ?? [],
    queued: row?.queued ?? 0,
  };
}

/** RECORD_SQL's $2: the places as a JSON array. */
export function placesParameter(places: readonly StreamPlace[]): string {
  return JSON.stringify(places.map((p) => ({ ...p, lastEventId: String(p.lastEventId) })));
}

/** RECORD_SQL's parameter: the attempts as a JSON array of rows. */
export function recordParameter(attempts: readonly MadeAttempt[]): string {
  const rows = attempts.map((a) => ({
    id: a.claim.id === null ? null : String(a.claim.id),
    lease: a.claim.streamLease ?? null,
    tenantId: a.claim.tenantId,
    webhookId: a.claim.webhookId,
    eventId: String(a.claim.eventId),
    eventType: a.claim.eventType,
    attempts: a.claim.attempts,
    status: a.status,
    retryAt: a.retryAt,
    statusCode: a.result.statusCode,
    error: a.result.error,
    durationMs: a.result.durationMs,
    attemptId: a.id,
    outcome: a.result.outcome === 'succeeded' ? 'succeeded' : 'failed',
    startedAt: a.startedAt,
  }));
  return JSON.stringify(rows);
}

/** After a batch is recorded: retries scheduled, failures logged, endpoints' health judged. */
export async function afterRecorded(deps: WorkerDeps, attempts: readonly MadeAttempt[]): Promise<void> {
  const judged = new Set<string>();
  for (const a of attempts) {
    const { claim, result } = a;
    if (a.retryAt) deps.wakeAt(a.retryAt);
    if (result.outcome !== 'succeeded') {
      deps.log.debug(
        { webhookId: claim.webhookId, eventId: String(claim.eventId), attempt: claim.attempts },
        `Webhook ${claim.webhookId}: attempt ${claim.attempts} of event ${claim.eventId} failed (${result.error}); ${
          a.status === 'pending' ? `retry at ${a.retryAt?.toISOString()}` : `delivery ${a.status}`
        }`,
      );
    }
    // One judgement per endpoint, outcome and known state per batch: the same write would follow.
    const key = `${claim.webhookId} ${result.outcome} ${claim.failingSince === null}`;
    if (judged.has(key)) continue;
    judged.add(key);
    await endpointHealth(deps, claim, result, a.finishedAt);
  }
}

/**
 * The endpoint's run of failures: started by a failure, ended by a success, fatal after days or a
 * 410. The run is delivery's state, not an edit of the endpoint: raw statements, so that Prisma's
 * `@updatedAt` leaves `updated_at` alone.
 */
async function endpointHealth(
  deps: WorkerDeps,
  claim: ClaimedDelivery,
  result: AttemptResult,
  now: Date,
): Promise<void> {
  const { prisma } = deps;
  if (result.outcome === 'succeeded') {
    if (claim.failingSince !== null)
      await prisma.$executeRaw`UPDATE "Webhook" SET "failingSince" = NULL
        WHERE "id" = ${claim.webhookId} AND "failingSince" IS NOT NULL`;
    return;
  }
  if (result.outcome === 'gone') {
    await deps.health.disable(claim.webhookId, claim.tenantId, 'gone');
    deps.log.info(
      { webhookId: claim.webhookId, tenantId: claim.tenantId },
      `Webhook ${claim.webhookId} disabled: its receiver answered 410 Gone`,
    );
    return;
  }
  if (claim.failingSince === null) {
    await prisma.$executeRaw`UPDATE "Webhook" SET "failingSince" = ${now}
      WHERE "id" = ${claim.webhookId} AND "failingSince" IS NULL`;
    return;
  }
  const days = deps.settings.disableAfterDays;
  if (now.getTime() - claim.failingSince.getTime() >= days * 86_400_000) {
    await deps.health.disable(claim.webhookId, claim.tenantId, 'failing');
    deps.log.info(
      { webhookId: claim.webhookId, tenantId: claim.tenantId },
      `Webhook ${claim.webhookId} disabled: its attempts only failed for ${days} days`,
    );
  }
}

// The delivery worker: claims due deliveries (FOR UPDATE SKIP LOCKED, so across instances each
// attempt is claimed by one), sends them with bounded concurrency, and records each attempt.
//
// A claim counts the attempt and reserves the row for a lease (its `nextAttemptAt` moves to the
// lease's end): should the instance die mid-attempt, the row comes due again when the lease ends
// and another instance (or this one, restarted) sends it again with the same `webhook-id`. The
// attempt's result is written only if the row still carries the claim's attempt count (a fence:
// an instance that outlived its lease does not overwrite the newer claim).
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type https from 'node:https';
import type { WebhookSettings } from '../config.js';
import type { Prisma } from '../db/database.js';
import { eventMessage, messageIdOf } from './webhook-message.js';
import { nextRetryDelay } from './webhook-retry.js';
import { openSecret } from './webhook-secret.js';
import { type AttemptResult, sendWebhook } from './webhook-sender.js';

/** A claimed delivery, with what sending it needs. */
export interface ClaimedDelivery {
  id: bigint;
  tenantId: string;
  webhookId: string;
  eventId: bigint;
  eventType: string;
  /** Attempts made, this one included. */
  attempts: number;
  firstAttemptAt: Date;
  url: string;
  secret: string;
  failingSince: Date | null;
  /** Null when the event has left the log (retention): the delivery is dead. */
  occurredAt: Date | null;
  payload: unknown;
}

const CLAIM_SQL = `WITH due AS (
  SELECT d."id" FROM "WebhookDelivery" d
  WHERE d."status" = 'pending' AND d."nextAttemptAt" <= now()
    AND EXISTS (SELECT 1 FROM "Webhook" w WHERE w."id" = d."webhookId" AND w."isActive")
  ORDER BY d."nextAttemptAt", d."id"
  LIMIT $1
  FOR UPDATE OF d SKIP LOCKED
), claimed AS (
  UPDATE "WebhookDelivery" d SET "attempts" = d."attempts" + 1,
    "nextAttemptAt" = now() + $2::int * interval '1 millisecond',
    "firstAttemptAt" = coalesce(d."firstAttemptAt", now()),
    "lastAttemptAt" = now(), "updatedAt" = now()
  FROM due WHERE d."id" = due."id"
  RETURNING d."id", d."tenantId", d."webhookId", d."eventId", d."eventType", d."attempts", d."firstAttemptAt"
)
SELECT c."id", c."tenantId", c."webhookId", c."eventId", c."eventType", c."attempts", c."firstAttemptAt",
  w."url", w."secret", w."failingSince", e."occurredAt", e."payload"
FROM claimed c JOIN "Webhook" w ON w."id" = c."webhookId"
LEFT JOIN "Event" e ON e."tenantId" = c."tenantId" AND e."id" = c."eventId"
ORDER BY c."eventId"`;

/** Claims up to `limit` due deliveries for `leaseMs`. */
export function claimDeliveries(prisma: Prisma, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  return prisma.$queryRawUnsafe<ClaimedDelivery[]>(CLAIM_SQL, limit, leaseMs);
}

// The delivery's state after the attempt (if the claim still holds) and the attempt's log entry, in
// one statement. A retry of a disabled endpoint's delivery waits unscheduled (null) until it is
// enabled again.
const FINISH_SQL = `WITH d AS (
  UPDATE "WebhookDelivery" SET "status" = $3::varchar,
    "nextAttemptAt" = CASE WHEN $3::varchar = 'pending'
      AND EXISTS (SELECT 1 FROM "Webhook" w WHERE w."id" = $4 AND w."isActive") THEN $5::timestamptz END,
    "lastStatusCode" = $6::int, "lastError" = $7::varchar, "lastDurationMs" = $8::int, "updatedAt" = now()
  WHERE "id" = $1::bigint AND "attempts" = $2::int AND "status" = 'pending'
  RETURNING "nextAttemptAt"
)
INSERT INTO "WebhookAttempt" ("id", "tenantId", "webhookId", "deliveryId", "eventId", "eventType",
  "messageId", "attempt", "status", "statusCode", "durationMs", "error", "nextRetryAt", "createdAt")
VALUES ($9, $10, $4, $1::bigint, $11::bigint, $12, $13, $2::int, $14, $6::int, $8::int, $7::varchar,
  (SELECT "nextAttemptAt" FROM d), $15::timestamptz)`;

/** The delivery's state once an attempt is over. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'dead';

/** Opaque ids in the schema's nanoid(12) alphabet. */
export const newAttemptId = (): string => randomBytes(9).toString('base64url');

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
  agents: { http: http.Agent; https: https.Agent };
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

/** The attempt itself: the message built, signed and sent (or why it could not be). */
async function send(
  deps: WorkerDeps,
  claim: ClaimedDelivery,
): Promise<{ result: AttemptResult; messageId: string }> {
  const messageId = messageIdOf(claim.tenantId, claim.eventId);
  if (claim.occurredAt === null) {
    return {
      messageId,
      result: {
        outcome: 'failed',
        statusCode: null,
        durationMs: 0,
        error: 'the event is no longer in the log',
      },
    };
  }
  const message = eventMessage({
    tenantId: claim.tenantId,
    id: claim.eventId,
    type: claim.eventType,
    occurredAt: claim.occurredAt,
    payload: claim.payload,
  });
  let secret: string;
  try {
    secret = openSecret(claim.secret, deps.settings.secretsKey);
  } catch (err) {
    const why = (err as Error).message;
    deps.log.warn(
      { webhookId: claim.webhookId },
      `Webhook ${claim.webhookId}: cannot sign (${why}); will retry`,
    );
    // Retried: an operator who restores the right key within the retry window loses nothing.
    return { messageId, result: { outcome: 'retry', statusCode: null, durationMs: 0, error: why } };
  }
  const result = await sendWebhook(claim.url, secret, message, {
    timeoutMs: deps.settings.timeoutMs,
    allowPrivate: deps.settings.allowPrivate,
    agents: deps.agents,
  });
  return { messageId, result };
}

/** Makes one attempt of a claimed delivery and records it; a failing receiver never makes it throw. */
export async function attemptDelivery(deps: WorkerDeps, claim: ClaimedDelivery): Promise<void> {
  const { prisma, settings } = deps;
  const startedAt = new Date();
  const { result: outcome, messageId } = await send(deps, claim);
  const now = new Date();
  const decision =
    claim.occurredAt === null
      ? { status: 'dead' as const, retryAt: null }
      : decide(claim, outcome, now, settings.retryBaseMs);
  await prisma.$executeRawUnsafe(
    FINISH_SQL,
    claim.id,
    claim.attempts,
    decision.status,
    claim.webhookId,
    decision.retryAt,
    outcome.statusCode,
    outcome.error,
    outcome.durationMs,
    newAttemptId(),
    claim.tenantId,
    claim.eventId,
    claim.eventType,
    messageId,
    outcome.outcome === 'succeeded' ? 'succeeded' : 'failed',
    startedAt,
  );
  if (decision.retryAt) deps.wakeAt(decision.retryAt);
  if (outcome.outcome !== 'succeeded') {
    deps.log.debug(
      { webhookId: claim.webhookId, eventId: String(claim.eventId), attempt: claim.attempts },
      `Webhook ${claim.webhookId}: attempt ${claim.attempts} of event ${claim.eventId} failed (${outcome.error}); ${
        decision.status === 'pending'
          ? `retry at ${decision.retryAt?.toISOString()}`
          : `delivery ${decision.status}`
      }`,
    );
  }
  await endpointHealth(deps, claim, outcome, now);
}

/** The endpoint's run of failures: started by a failure, ended by a success, fatal after days or a 410. */
async function endpointHealth(
  deps: WorkerDeps,
  claim: ClaimedDelivery,
  result: AttemptResult,
  now: Date,
): Promise<void> {
  const { prisma } = deps;
  if (result.outcome === 'succeeded') {
    if (claim.failingSince !== null) {
      await prisma.webhook.updateMany({
        where: { id: claim.webhookId, failingSince: { not: null } },
        data: { failingSince: null },
      });
    }
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
    await prisma.webhook.updateMany({
      where: { id: claim.webhookId, failingSince: null },
      data: { failingSince: now },
    });
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

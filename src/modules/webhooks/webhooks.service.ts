// Webhooks (beyond the spec): a tenant's endpoints, listed, created (the signing secret shown once),
// changed, deleted, pinged, replayed, and their delivery attempts; for REST and GraphQL. Every
// change of an endpoint is a `webhook.*` event with its audit entry, in the change's transaction.
// Delivery itself lives in src/events/webhook-*.ts.
import type { Scope } from '../../auth/principal.js';
import type { WebhookSettings } from '../../config.js';
import type { AppContext } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { isForeignKeyViolation } from '../../db/foreign-key-violation.js';
import { findManyRows } from '../../db/raw-rows.js';
import { lockRow } from '../../db/row-lock.js';
import { retryingConflicts } from '../../db/write-conflict.js';
import { notFound } from '../../errors.js';
import { type AuditAction, changeEvent } from '../../events/audit.js';
import type { EventType } from '../../events/event-types.js';
import { type EventLog, type NewEvent, systemActor, writeWithEvents } from '../../events/outbox.js';
import { hostOf, resolveTarget, TargetRefused } from '../../events/webhook-address.js';
import { TEST_EVENT_TYPE, testMessage } from '../../events/webhook-message.js';
import {
  newWebhookSecret,
  openSecret,
  SecretUnreadable,
  SIGNING_SECRETS_SQL,
  sealSecret,
  signingSecrets,
} from '../../events/webhook-secret.js';
import { sendWebhook } from '../../events/webhook-sender.js';
import { placeStream } from '../../events/webhook-stream.js';
import { type EndpointHealth, newAttemptId } from '../../events/webhook-worker.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ListWhere, listOperation, operation } from '../../operations/operation.js';
import { ValidationError } from '../../validation/validator.js';
import {
  attemptFilters,
  PREVIOUS_SECRET_HOURS_DEFAULT,
  REPLAY_MAX,
  replayFields,
  rotateSecretFields,
  webhookCreateFields,
  webhookFilters,
  webhookUpdateFields,
} from './webhooks.inputs.js';
import type { DisabledReason } from './webhooks.labels.js';
import {
  type AttemptRow,
  type WebhookItemRow,
  webhookEventView,
  webhookItemSelect,
} from './webhooks.serializer.js';

// ---------------------------------------------------------------------------------------------
// Lists

/** Oldest first; the id breaks ties. */
export const webhookOrder = [
  { createdAt: 'asc' },
  { id: 'asc' },
] satisfies PrismaNS.WebhookOrderByWithRelationInput[];

/** The endpoint list and count (REST `GET /webhooks[/count]`, GraphQL `webhooks`). */
export const webhooksQuery = listOperation({
  action: 'webhooks.list',
  filters: webhookFilters,
  within: (scope: Scope, and: PrismaNS.WebhookWhereInput[]): PrismaNS.WebhookWhereInput => ({
    tenantId: scope.tenantId,
    AND: and,
  }),
  orderBy: () => webhookOrder,
});

export type WebhookQuery = ListWhere<PrismaNS.WebhookWhereInput, PrismaNS.WebhookOrderByWithRelationInput[]>;

type WebhookPage = Omit<PrismaNS.WebhookFindManyArgs, 'where' | 'orderBy'>;

export function listWebhooks<P extends WebhookPage>(
  ctx: AppContext,
  q: WebhookQuery,
  page: P,
): Promise<PrismaNS.WebhookGetPayload<P>[]> {
  // The raw reader, as every other list: a GraphQL cursor whose row no longer matches the filters
  // (an endpoint disabled between two pages) skips no row, and another tenant's id is no cursor.
  return findManyRows(ctx.prisma, 'Webhook', { ...page, where: q.where, orderBy: q.orderBy });
}

export function countWebhooks(ctx: AppContext, q: WebhookQuery): Promise<number> {
  return ctx.prisma.webhook.count({ where: q.where });
}

/** Newest first; the id breaks ties. */
export const attemptOrder = [
  { createdAt: 'desc' },
  { id: 'desc' },
] satisfies PrismaNS.WebhookAttemptOrderByWithRelationInput[];

/**
 * The attempts of one endpoint (REST `GET /webhooks/:id/deliveries`, GraphQL `webhookDeliveries`):
 * the filters' where clause in the tenant; the endpoint itself is found first (404).
 */
export const attemptsQuery = listOperation({
  action: 'webhooks.list',
  filters: attemptFilters,
  within: (scope: Scope, and: PrismaNS.WebhookAttemptWhereInput[]): PrismaNS.WebhookAttemptWhereInput => ({
    tenantId: scope.tenantId,
    AND: and,
  }),
  orderBy: () => attemptOrder,
});

export type AttemptQuery = ListWhere<
  PrismaNS.WebhookAttemptWhereInput,
  PrismaNS.WebhookAttemptOrderByWithRelationInput[]
>;

type AttemptPage = Omit<PrismaNS.WebhookAttemptFindManyArgs, 'where' | 'orderBy'>;

export function listAttempts<P extends AttemptPage>(
  ctx: AppContext,
  webhookId: string,
  q: AttemptQuery,
  page: P,
): Promise<PrismaNS.WebhookAttemptGetPayload<P>[]> {
  // The tenant stays at the top of the where clause: the raw reader scopes a cursor by it.
  return findManyRows(ctx.prisma, 'WebhookAttempt', {
    ...page,
    where: { ...q.where, webhookId },
    orderBy: q.orderBy,
  });
}

export function countAttempts(ctx: AppContext, webhookId: string, q: AttemptQuery): Promise<number> {
  return ctx.prisma.webhookAttempt.count({ where: { AND: [q.where, { webhookId }] } });
}

/** The endpoint of the path id in the caller's tenant, or 404 (another tenant's id too). */
export async function webhookInScope(ctx: AppContext, scope: Scope, id: string): Promise<WebhookItemRow> {
  const row = await ctx.prisma.webhook.findFirst({
    where: { tenantId: scope.tenantId, id },
    select: webhookItemSelect,
  });
  if (!row) throw notFound();
  return row;
}

// ---------------------------------------------------------------------------------------------
// Events and audit entries of endpoint changes

/**
 * The event of an endpoint's change with its audit entry (src/events/audit.ts: the item's fields that
 * changed); null when nothing changed. `secrets`: secret fields the write set, named "[redacted]".
 */
function webhookEvent(
  type: EventType,
  action: AuditAction,
  before: WebhookItemRow | null,
  after: WebhookItemRow | null,
  secrets?: readonly string[],
): NewEvent | null {
  const shownBefore = before && webhookEventView(before);
  const shownAfter = after && webhookEventView(after);
  const shown = shownAfter ?? shownBefore;
  if (!shown) return null;
  // Only the URL's credentials changed: the entry still says the url changed (both sides redacted).
  const credentialsChanged =
    before !== null && after !== null && before.url !== after.url && shownBefore?.url === shownAfter?.url;
  return changeEvent({
    type,
    resourceType: 'webhook',
    resourceId: shown.id,
    action,
    payload: shown,
    before: shownBefore,
    after: shownAfter,
    secrets,
    ...(credentialsChanged
      ? { redactedChanges: { url: { old: shownBefore?.url, new: shownAfter?.url } } }
      : {}),
  });
}

/** Records the change's event, if anything changed. */
function recordChange(log: EventLog, event: NewEvent | null): void {
  if (event) log.record(event);
}

/**
 * The endpoint as it is now, locked for the caller's write (src/db/row-lock.ts); deleted meanwhile:
 * 404, as any request after the delete.
 */
async function lockedWebhook<S extends PrismaNS.WebhookSelect>(
  tx: PrismaNS.TransactionClient,
  id: string,
  select: S,
): Promise<PrismaNS.WebhookGetPayload<{ select: S }>> {
  if (!(await lockRow(tx, 'Webhook', id))) throw notFound();
  return tx.webhook.findUniqueOrThrow({ where: { id }, select });
}

// ---------------------------------------------------------------------------------------------
// Writes

const UNRESOLVABLE = 'The url field must be a valid URL.';
const NOT_PUBLIC =
  'The url field must not point to a loopback, private, link-local or other non-public address.';

/**
 * The SSRF rule at creation (and at every attempt, src/events/webhook-sender.ts): the host resolves,
 * and only to public addresses, unless WEBHOOKS_ALLOW_PRIVATE. An unresolvable host answers Laravel's
 * `active_url` message. Runs after the field rules passed, as a deferred rule would.
 */
async function assertPublicTarget(settings: WebhookSettings, url: string): Promise<void> {
  if (settings.allowPrivate) return;
  try {
    await resolveTarget(hostOf(new URL(url)), { allowPrivate: false });
  } catch (err) {
    throw new ValidationError({ url: [err instanceof TargetRefused ? NOT_PUBLIC : UNRESOLVABLE] });
  }
}

/**
 * `POST /webhooks`, GraphQL `createWebhook`: an active endpoint receiving the events logged from now
 * on; its signing secret is in the answer once (stored sealed, see src/events/webhook-secret.ts).
 */
export const createWebhook = operation({
  action: 'webhooks.create',
  input: webhookCreateFields,
  async run({ ctx, scope, input }): Promise<{ row: WebhookItemRow; secret: string }> {
    await assertPublicTarget(ctx.config.webhooks, input.url);
    const secret = newWebhookSecret();
    const row = await writeWithEvents(ctx, async (tx, log) => {
      const created = await tx.webhook.create({
        data: {
          tenantId: scope.tenantId,
          url: input.url,
          events: input.events,
          description: input.description ?? null,
          secret: sealSecret(secret, ctx.config.webhooks.secretsKey),
        },
        select: webhookItemSelect,
      });
      await placeStream(tx, created.id, scope.tenantId);
      recordChange(log, webhookEvent('webhook.created', 'webhooks.create', null, created));
      return created;
    });
    return { row, secret };
  },
});

/**
 * `POST /webhooks/:id/rotate-secret`, GraphQL `rotateWebhookSecret`: a new signing secret, in the
 * answer once. The one it replaces keeps signing beside it for `previous_secret_hours` (default 24;
 * 0: not at all), so that the receiver can switch without refusing a delivery; a secret kept from an
 * earlier rotation is dropped.
 */
export const rotateWebhookSecret = operation({
  action: 'webhooks.rotateSecret',
  find: async (ctx, scope, id) => {
    const row = await ctx.prisma.webhook.findFirst({
      where: { tenantId: scope.tenantId, id },
      select: { ...webhookItemSelect, secret: true },
    });
    if (!row) throw notFound();
    return row;
  },
  input: rotateSecretFields,
  async run({ ctx, input, found }): Promise<{ row: WebhookItemRow; secret: string }> {
    const secret = newWebhookSecret();
    const hours = input.previous_secret_hours ?? PREVIOUS_SECRET_HOURS_DEFAULT;
    const now = new Date();
    const key = ctx.config.webhooks.secretsKey;
    const row = await writeWithEvents(ctx, async (tx, log) => {
      // Two rotations at once take turns: the second keeps the first's new secret as the previous one.
      const { secret: replaced, ...before } = await lockedWebhook(tx, found.id, {
        ...webhookItemSelect,
        secret: true,
      });
      // A secret sealed under a key since lost cannot sign: kept, the answer would promise a second
      // signature that never comes.
      const keep = hours > 0 && opens(replaced, key);
      const after = await tx.webhook.update({
        where: { id: found.id },
        data: {
          secret: sealSecret(secret, key),
          previousSecret: keep ? replaced : null,
          previousSecretExpiresAt: keep ? new Date(now.getTime() + hours * 3_600_000) : null,
          secretRotatedAt: now,
        },
        select: webhookItemSelect,
      });
      recordChange(log, webhookEvent('webhook.updated', 'webhooks.rotateSecret', before, after, ['secret']));
      return after;
    });
    return { row, secret };
  },
});

/** Whether the stored secret opens under the key (see SecretUnreadable). */
function opens(stored: string, key: Buffer | undefined): boolean {
  try {
    openSecret(stored, key);
    return true;
  } catch (err) {
    if (err instanceof SecretUnreadable) return false;
    throw err;
  }
}

/** Pauses an endpoint's waiting deliveries (they keep their place until it is enabled again). */
const pauseDeliveries = (tx: Pick<Prisma, 'webhookDelivery'>, webhookId: string) =>
  tx.webhookDelivery.updateMany({ where: { webhookId, status: 'pending' }, data: { nextAttemptAt: null } });

/**
 * `PUT /webhooks/:id`, GraphQL `updateWebhook`: the fields sent change. `is_active: false` disables
 * the endpoint (reason `manual`) and pauses its waiting deliveries; `is_active: true` enables a
 * disabled one again: its paused deliveries are due at once, their retries starting over.
 */
export const updateWebhook = operation({
  action: 'webhooks.update',
  find: webhookInScope,
  input: webhookUpdateFields,
  async run({ ctx, scope, input, found: listed }): Promise<WebhookItemRow> {
    if (input.url !== undefined) await assertPublicTarget(ctx.config.webhooks, input.url);
    return writeWithEvents(ctx, async (tx, log) => {
      // As it is now, under its lock: concurrent changes take turns, each diffing against the last.
      const found = await lockedWebhook(tx, listed.id, webhookItemSelect);
      // Only what differs is written: a field sent again as it is leaves `updated_at` alone, as
      // Eloquent saves only dirty attributes.
      const data: PrismaNS.WebhookUpdateInput = {};
      if (input.url !== undefined && input.url !== found.url) data.url = input.url;
      if (input.events !== undefined && input.events.join('\n') !== found.events.join('\n'))
        data.events = input.events;
      if (input.description !== undefined && input.description !== found.description)
        data.description = input.description;
      const now = new Date();
      if (input.is_active === false && found.isActive) {
        Object.assign(data, {
          isActive: false,
          disabledReason: 'manual' satisfies DisabledReason,
          disabledAt: now,
        });
        await pauseDeliveries(tx, found.id);
      } else if (input.is_active === true && !found.isActive) {
        Object.assign(data, { isActive: true, disabledReason: null, disabledAt: null, failingSince: null });
        // What was logged while it was disabled comes only with a replay.
        await placeStream(tx, found.id, scope.tenantId);
        await tx.webhookDelivery.updateMany({
          where: { webhookId: found.id, status: 'pending' },
          data: { nextAttemptAt: now, claimedUntil: null, firstAttemptAt: null, attempts: 0, updatedAt: now },
        });
      }
      if (Object.keys(data).length === 0) return found;
      const row = await tx.webhook.update({ where: { id: found.id }, data, select: webhookItemSelect });
      recordChange(log, webhookEvent('webhook.updated', 'webhooks.update', found, row));
      return row;
    });
  },
});

/**
 * `DELETE /webhooks/:id`, GraphQL `deleteWebhook`: the endpoint, its waiting deliveries and its
 * attempts are gone; the events stay in the log.
 */
export const deleteWebhook = operation({
  action: 'webhooks.delete',
  find: webhookInScope,
  input: {},
  async run({ ctx, found }): Promise<{ id: string }> {
    await writeWithEvents(ctx, async (tx, log) => {
      // Deleted meanwhile (a concurrent delete): 404, as after it.
      const current = await lockedWebhook(tx, found.id, webhookItemSelect);
      // Its stream, queue and attempts go with it (cascade).
      await tx.webhook.delete({ where: { id: found.id } });
      recordChange(log, webhookEvent('webhook.deleted', 'webhooks.delete', current, null));
    });
    return { id: found.id };
  },
});

/**
 * `POST /webhooks/:id/test`, GraphQL `testWebhook`: a `webhook.test` ping sent now (also to a
 * disabled endpoint, to check it before enabling it), signed as every delivery; answers the
 * attempt, which the deliveries list shows too. It changes nothing else (a 410 disables nothing).
 */
export const testWebhook = operation({
  action: 'webhooks.test',
  find: async (ctx, scope, id) => {
    // The secrets as delivery reads them: the ping is signed as the endpoint's deliveries are.
    const [row] = await ctx.prisma.$queryRawUnsafe<
      { id: string; url: string; secret: string; previousSecret: string | null }[]
    >(
      `SELECT w."id", w."url", ${SIGNING_SECRETS_SQL} FROM "Webhook" w WHERE w."tenantId" = $1 AND w."id" = $2`,
      scope.tenantId,
      id,
    );
    if (!row) throw notFound();
    return row;
  },
  input: {},
  async run({ ctx, scope, found }): Promise<AttemptRow> {
    const settings = ctx.config.webhooks;
    const startedAt = new Date();
    const message = testMessage(scope.tenantId, found.id, startedAt);
    let result: Awaited<ReturnType<typeof sendWebhook>>;
    try {
      const secrets = signingSecrets(found, (stored) => openSecret(stored, settings.secretsKey));
      result = await sendWebhook(found.url, secrets, message, {
        timeoutMs: settings.timeoutMs,
        allowPrivate: settings.allowPrivate,
      });
    } catch (err) {
      if (!(err instanceof SecretUnreadable)) throw err;
      result = { outcome: 'failed', statusCode: null, durationMs: 0, error: err.message };
    }
    try {
      return await ctx.prisma.webhookAttempt.create({
        data: {
          id: newAttemptId(),
          tenantId: scope.tenantId,
          webhookId: found.id,
          eventType: TEST_EVENT_TYPE,
          messageId: message.id,
          attempt: 1,
          status: result.outcome === 'succeeded' ? 'succeeded' : 'failed',
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          error: result.error,
          createdAt: startedAt,
        },
      });
    } catch (err) {
      // Deleted while its ping was under way (its attempts went with it): 404, as any request after.
      if (isForeignKeyViolation(err)) throw notFound();
      throw err;
    }
  },
});

/** A replay of many events may take longer than a write's usual few seconds. */
const REPLAY_TRANSACTION = { maxWait: 5_000, timeout: 60_000 };

/**
 * `POST /webhooks/:id/replay`, GraphQL `replayWebhook`: the tenant's events in the range asked (ids
 * `since_event_id`…`until_event_id`, or times `since`…`until`, both ends inclusive) that the endpoint
 * subscribes to are queued again, in id order, with their original `webhook-id`. Resolves to how many.
 * A disabled endpoint's replay waits until it is enabled again.
 */
export const replayWebhook = operation({
  action: 'webhooks.replay',
  find: webhookInScope,
  input: replayFields,
  async run({ ctx, scope, input, found }): Promise<number> {
    const conditions: string[] = [];
    const params: unknown[] = [scope.tenantId, found.id];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      conditions.push(sql.replace('?', `$${params.length}`));
    };
    if (input.since_event_id != null) add('e."id" >= ?::bigint', BigInt(input.since_event_id));
    if (input.since != null) add('e."occurredAt" >= ?::timestamptz', input.since);
    if (input.until_event_id != null) add('e."id" <= ?::bigint', BigInt(input.until_event_id));
    if (input.until != null) add('e."occurredAt" <= ?::timestamptz', input.until);
    const matching = `FROM "Event" e JOIN "Webhook" w ON w."id" = $2
      WHERE e."tenantId" = $1 AND ${conditions.join(' AND ')}
        AND (e."type" = ANY(w."events") OR '*' = ANY(w."events"))`;
    const [counted] = await ctx.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM (SELECT 1 ${matching} LIMIT ${REPLAY_MAX + 1}) m`,
      ...params,
    );
    if ((counted?.n ?? 0) > REPLAY_MAX) {
      const key = input.since_event_id != null ? 'since_event_id' : 'since';
      throw new ValidationError({
        [key]: [
          `The replay may send at most ${REPLAY_MAX} events; this range holds more. Narrow it with until_event_id or until.`,
        ],
      });
    }
    return retryingConflicts(() =>
      ctx.prisma.$transaction(async (tx) => {
        // Deleted meanwhile: 404, not a delivery of no endpoint.
        if (!(await lockRow(tx, 'Webhook', found.id))) throw notFound();
        return tx.$executeRawUnsafe(
          `INSERT INTO "WebhookDelivery" ("tenantId", "webhookId", "eventId", "eventType", "status", "nextAttemptAt")
           SELECT $1, w."id", e."id", e."type", 'pending', CASE WHEN w."isActive" THEN now() END
           ${matching} ORDER BY e."id"`,
          ...params,
        );
      }, REPLAY_TRANSACTION),
    );
  },
});

// ---------------------------------------------------------------------------------------------
// The delivery worker's writes (src/events/webhook-worker.ts, EndpointHealth)

/**
 * Disables an endpoint the service gave up on: `gone` (its receiver answered 410) or `failing`
 * (only failures for WEBHOOKS_DISABLE_AFTER_DAYS); its waiting deliveries pause. A `webhook.disabled`
 * event (by the system) tells the tenant's other endpoints and the audit log.
 */
export async function disableWebhook(
  prisma: Prisma,
  webhookId: string,
  tenantId: string,
  reason: Exclude<DisabledReason, 'manual'>,
): Promise<void> {
  await writeWithEvents({ prisma, tenantId, actor: systemActor }, async (tx, log) => {
    const before = await tx.webhook.findFirst({
      where: { id: webhookId, isActive: true },
      select: webhookItemSelect,
    });
    if (!before) return;
    const { count } = await tx.webhook.updateMany({
      where: { id: webhookId, isActive: true },
      data: { isActive: false, disabledReason: reason, disabledAt: new Date() },
    });
    if (count === 0) return;
    await pauseDeliveries(tx, webhookId);
    const after = await tx.webhook.findUniqueOrThrow({ where: { id: webhookId }, select: webhookItemSelect });
    recordChange(log, webhookEvent('webhook.disabled', 'webhooks.update', before, after));
  });
}

/** The worker's writes to an endpoint's state (EndpointHealth), on `prisma`. */
export const endpointHealth = (prisma: Prisma): EndpointHealth => ({
  disable: (webhookId, tenantId, reason) => disableWebhook(prisma, webhookId, tenantId, reason),
});

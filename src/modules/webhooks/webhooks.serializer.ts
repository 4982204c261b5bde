// The REST shapes of webhooks (beyond the spec, in its dialect): the endpoint (never its secret, except
// in the answer that created it) and one delivery attempt.
import { Type } from '@sinclair/typebox';
import { REDACTED } from '../../events/audit.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import { TEST_EVENT_TYPE } from '../../events/webhook-message.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { Id, Int, IsoMicros, Nullable, Obj, Str, StrEnum } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { DISABLED_REASONS } from './webhooks.labels.js';

/** What the item reads: never the secret. */
export const webhookItemSelect = {
  id: true,
  url: true,
  events: true,
  description: true,
  isActive: true,
  disabledReason: true,
  disabledAt: true,
  secretRotatedAt: true,
  previousSecretExpiresAt: true,
  createdAt: true,
  updatedAt: true,
} satisfies PrismaNS.WebhookSelect;

export type WebhookItemRow = PrismaNS.WebhookGetPayload<{ select: typeof webhookItemSelect }>;

export function webhookItem(w: WebhookItemRow) {
  return {
    id: w.id,
    url: w.url,
    events: [...w.events],
    description: w.description,
    is_active: w.isActive,
    disabled_reason: w.disabledReason,
    disabled_at: isoMicros(w.disabledAt),
    secret_rotated_at: isoMicros(w.secretRotatedAt),
    previous_secret_expires_at: isoMicros(w.previousSecretExpiresAt),
    created_at: isoMicros(w.createdAt),
    updated_at: isoMicros(w.updatedAt),
  };
}

/**
 * The URL with its user information (`user:pass@`, the receiver's Basic credentials) as "[redacted]":
 * how events and audit entries show it, since a tenant's `"*"` endpoint (another party's receiver,
 * perhaps) hears `webhook.*` events. The lists, read by the tenant's admins only, show it whole.
 */
function urlWithoutCredentials(url: string): string {
  const at = USERINFO.exec(url);
  return at ? `${at[1]}${REDACTED}@${url.slice(at[0].length)}` : url;
}
// The scheme and `//`, then the authority up to its last `@` (the authority ends at `/`, `?`, `#` or `\`).
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#\\]*@/i;

/** An endpoint as its events and audit entries show it: the item, its URL without credentials. */
export function webhookEventView(w: WebhookItemRow) {
  return { ...webhookItem(w), url: urlWithoutCredentials(w.url) };
}

/** The answer of `POST /webhooks` and of a rotation: the endpoint and, this once, its signing secret. */
export function createdWebhook(w: WebhookItemRow, secret: string) {
  const { id, url, events, description, ...rest } = webhookItem(w);
  return { id, url, events, description, secret, ...rest };
}

export type AttemptRow = PrismaNS.WebhookAttemptGetPayload<object>;

/** Event ids count per tenant: far below 2^53, so a JSON number. */
const eventIdOf = (id: bigint | null): number | null => (id === null ? null : Number(id));

export function attemptItem(a: AttemptRow) {
  return {
    id: a.id,
    event_id: eventIdOf(a.eventId),
    event_type: a.eventType,
    message_id: a.messageId,
    attempt: a.attempt,
    status: a.status,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    next_retry_at: isoMicros(a.nextRetryAt),
    created_at: isoMicros(a.createdAt),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

const EventsSchema = Type.Array(Type.String({ enum: ['*', ...EVENT_TYPES] }), {
  minItems: 1,
  description: 'The event types it receives; `["*"]`: every type.',
});

const webhookHead = {
  id: Id(),
  url: Str('The receiver (http or https).'),
  events: EventsSchema,
  description: Nullable(Str()),
};
const webhookTail = {
  is_active: Type.Boolean({ description: 'false: nothing is sent (see disabled_reason).' }),
  disabled_reason: Nullable(
    StrEnum(
      DISABLED_REASONS,
      '`manual` (PUT is_active false), `gone` (the receiver answered 410), `failing` (only failed attempts for WEBHOOKS_DISABLE_AFTER_DAYS days); null while active.',
    ),
  ),
  disabled_at: Nullable(IsoMicros()),
  secret_rotated_at: Nullable(IsoMicros()),
  previous_secret_expires_at: Nullable(IsoMicros()),
  created_at: IsoMicros(),
  updated_at: IsoMicros(),
};

export const WebhookItemSchema = Obj({ ...webhookHead, ...webhookTail }, 'Webhook');
export const CreatedWebhookSchema = Obj(
  {
    ...webhookHead,
    secret: Str(
      'The signing secret (`whsec_` + base64), shown this once: verify each delivery’s `webhook-signature` with it.',
    ),
    ...webhookTail,
  },
  'CreatedWebhook',
);

export const WebhookAttemptSchema = Obj(
  {
    id: Id(),
    event_id: Nullable(Int("The event's id in the tenant's log; null for a test ping.")),
    event_type: StrEnum([...EVENT_TYPES, TEST_EVENT_TYPE]),
    message_id: Str('The `webhook-id` header sent: the same for an event on every attempt and replay.'),
    attempt: Int('1 for the first attempt of the delivery, 2 for its first retry, …'),
    status: StrEnum(['succeeded', 'failed'], '`succeeded`: a 2xx answer.'),
    status_code: Nullable(
      Int("The receiver's HTTP status; null when none came (timeout, connection error)."),
    ),
    duration_ms: Int(),
    error: Nullable(Str('Why it failed, in a plain sentence (`HTTP 500`, `timed out after 5 s`, …).')),
    next_retry_at: Nullable(IsoMicros()),
    created_at: IsoMicros(),
  },
  'WebhookAttempt',
);

export const ReplayCountSchema = Obj(
  { count: Type.Integer({ minimum: 0, description: 'Events queued to be sent again.' }) },
  'WebhookReplay',
);

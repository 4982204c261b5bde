// What a webhook receives for an event: the `webhook-id` (the same for an event on every attempt and
// every replay: the receiver's idempotency key) and the JSON body
// `{"type", "timestamp", "event_id", "tenant_id", "data"}`, `data` being the event's payload (the
// resource in its REST shape).
import { randomBytes } from 'node:crypto';
import { isoMicros } from '../shared/format.js';
import type { WebhookMessage } from './webhook-sender.js';

/** The type of the ping `POST /webhooks/:id/test` sends (not an event of the log). */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * `evt_<tenant id>_<event id>`: event ids count per tenant, so the tenant is part of the key (one
 * receiver may serve several tenants' endpoints).
 */
export function messageIdOf(tenantId: string, eventId: bigint): string {
  return `evt_${tenantId}_${eventId}`;
}

/** A number when exact (every id short of 2^53), else its decimal text. */
const idNumber = (id: bigint): number | string =>
  Number.isSafeInteger(Number(id)) ? Number(id) : id.toString();

export interface LoggedEvent {
  readonly tenantId: string;
  readonly id: bigint;
  readonly type: string;
  readonly occurredAt: Date;
  readonly payload: unknown;
}

export function eventMessage(e: LoggedEvent): WebhookMessage {
  return {
    id: messageIdOf(e.tenantId, e.id),
    body: JSON.stringify({
      type: e.type,
      timestamp: isoMicros(e.occurredAt),
      event_id: idNumber(e.id),
      tenant_id: e.tenantId,
      data: e.payload,
    }),
  };
}

/**
 * The same message from the event's payload as the log stores it (JSON text, spliced in as it is:
 * no parse and no second serialisation per attempt).
 */
export function storedEventMessage(
  e: Omit<LoggedEvent, 'payload'> & { readonly payloadJson: string },
): WebhookMessage {
  return {
    id: messageIdOf(e.tenantId, e.id),
    body: `{"type":${JSON.stringify(e.type)},"timestamp":"${isoMicros(e.occurredAt)}","event_id":${JSON.stringify(idNumber(e.id))},"tenant_id":${JSON.stringify(e.tenantId)},"data":${e.payloadJson}}`,
  };
}

/** The ping of `POST /webhooks/:id/test`: a message id of its own each time. */
export function testMessage(tenantId: string, webhookId: string, now: Date): WebhookMessage {
  return {
    id: `msg_test_${randomBytes(9).toString('base64url')}`,
    body: JSON.stringify({
      type: TEST_EVENT_TYPE,
      timestamp: isoMicros(now),
      event_id: null,
      tenant_id: tenantId,
      data: {
        webhook_id: webhookId,
        message: 'A test ping: this endpoint receives the events it subscribes to.',
      },
    }),
  };
}

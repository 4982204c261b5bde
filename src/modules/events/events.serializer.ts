// The REST shape of an event (beyond the spec, in its dialect): what a webhook's body carries as
// `data`, with the event's own fields around it.
import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/event-types.js';
import type { RecordedEvent } from '../../events/outbox.js';
import { Id, IsoMicros, Nullable, Obj, Str, StrEnum } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';

/** A number when exact (every id short of 2^53), else its decimal text (as webhooks' `event_id`). */
const idNumber = (id: bigint): number | string =>
  Number.isSafeInteger(Number(id)) ? Number(id) : id.toString();

export function eventItem(e: RecordedEvent) {
  return {
    id: idNumber(e.id),
    type: e.type,
    occurred_at: isoMicros(e.occurredAt),
    actor: { type: e.actorType, user_id: e.actorUserId, token_id: e.actorTokenId },
    request_id: e.requestId,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    payload: e.payload,
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

const ActorSchema = Obj(
  {
    type: StrEnum(['user', 'ingest', 'system'], 'A user through the API, the ingest, or the service itself.'),
    user_id: Nullable(Id('The user (null: the service itself).')),
    token_id: Nullable(Id('The API token the request came with.')),
  },
  'EventActor',
);

export const EventItemSchema = Obj(
  {
    id: Type.Integer({
      minimum: 1,
      description:
        "The event's place in the tenant's log: 1, 2, 3… in commit order (pass it as `after` to read on).",
    }),
    type: StrEnum(EVENT_TYPES),
    occurred_at: IsoMicros(),
    actor: ActorSchema,
    request_id: Nullable(Str('The request’s `X-Request-Id`.')),
    resource_type: Str('`guest`, `presence`, `access_code`, … (the resource’s REST name).'),
    resource_id: Id(),
    payload: Type.Unknown({
      description: 'The resource in its REST shape when the event happened (a webhook’s `data`).',
    }),
  },
  'Event',
);

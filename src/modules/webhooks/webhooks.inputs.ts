// The rules of webhooks (beyond the spec), shared by REST and GraphQL: the endpoint's fields, the
// list's filters, the replay's range and the deliveries' filters.
import { textSearch } from '../../db/text-search.js';
import { EVENT_TYPES, isEventType } from '../../events/event-types.js';
import { TEST_EVENT_TYPE } from '../../events/webhook-message.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { field, filterOf } from '../../operations/operation.js';
import {
  afterOrEqual,
  array,
  boolean,
  date,
  duplicatedIndexes,
  duplicateMessage,
  elementErrors,
  gteField,
  inList,
  integer,
  type Keep,
  list,
  max,
  min,
  nullable,
  queryBoolean,
  type Rule,
  required,
  requiredWhenPresent,
  string,
  textFilter,
  url,
} from '../../validation/validator.js';

/** Subscribes to every event type (alone in the list). */
export const ALL_EVENTS = '*';

/**
 * `events.*`: each element an event type (`string`, `in`), each at most once (`distinct`), or exactly
 * `["*"]`. Each failing element is keyed as Laravel keys it (`events.1`), every duplicate too; an
 * unknown type is named, as a Laravel application does with `:input` in its message: `The selected
 * events.1 (guest.born) is invalid.` The output is the list of types.
 */
export const eventTypes: Rule<string[]> = {
  name: 'eventTypes',
  doc: {
    description: `Event types (${EVENT_TYPES.join(', ')}), each at most once; or exactly \`["*"]\`: every type, those added later included.`,
  },
  check: (value, ctx) => {
    // A map is list()'s to refuse, anything else array()'s.
    if (!Array.isArray(value)) return null;
    const duplicated = duplicatedIndexes(value);
    return elementErrors(value, (item, i) => {
      const attribute = `${ctx.attribute}.${i}`;
      const messages: string[] = [];
      if (typeof item !== 'string')
        messages.push(`The ${attribute} field must be a string.`, `The selected ${attribute} is invalid.`);
      else if (item === ALL_EVENTS) {
        if (value.length > 1) messages.push(`The ${attribute} field must be the only item when it is "*".`);
      } else if (!isEventType(item)) messages.push(`The selected ${attribute} (${item}) is invalid.`);
      if (duplicated.has(i)) messages.push(duplicateMessage(attribute));
      return messages;
    });
  },
  coerce: (value): string[] => (Array.isArray(value) ? value.map(String) : []),
};

const URL_MAX = 2048;
const URL_DESCRIPTION = `The receiver: an http or https URL of at most ${URL_MAX} characters, whose host resolves to public addresses only (see the README's SSRF rule); redirects are not followed`;
const EVENTS_DESCRIPTION = 'The event types sent to it, or `["*"]` for every type';

/** The body of `POST /webhooks` (GraphQL CreateWebhookInput). */
export const webhookCreateFields = {
  url: field([required(), string(), max(URL_MAX), url(['http', 'https'])], URL_DESCRIPTION),
  events: field([required(), array(), list(), min(1), eventTypes], EVENTS_DESCRIPTION),
  description: field([nullable(), string(), max(255)], 'What it is for; at most 255 characters'),
};

/**
 * The body of `PUT /webhooks/:id` (GraphQL UpdateWebhookInput): the fields sent change, the others
 * stay; `is_active: true` enables a disabled endpoint again (its paused deliveries are due at once).
 */
export const webhookUpdateFields = {
  url: field([requiredWhenPresent(), string(), max(URL_MAX), url(['http', 'https'])], URL_DESCRIPTION),
  events: field([requiredWhenPresent(), array(), list(), min(1), eventTypes], EVENTS_DESCRIPTION),
  description: field([nullable(), string(), max(255)], 'What it is for; null clears it'),
  is_active: field(
    [boolean()],
    'false disables the endpoint (nothing is sent; replay still queues); true enables it again',
  ),
};

/** How long the previous secret may keep signing after a rotation, at most: a week. */
export const PREVIOUS_SECRET_HOURS_MAX = 168;
/** And by default: a day, as long as receivers are commonly given to switch. */
export const PREVIOUS_SECRET_HOURS_DEFAULT = 24;

/** The body of `POST /webhooks/:id/rotate-secret` (GraphQL `rotateWebhookSecret`). */
export const rotateSecretFields = {
  previous_secret_hours: field(
    [nullable(), integer(), min(0), max(PREVIOUS_SECRET_HOURS_MAX)],
    `How many hours the previous secret keeps signing beside the new one (0 to ${PREVIOUS_SECRET_HOURS_MAX}, default ${PREVIOUS_SECRET_HOURS_DEFAULT}); 0: it stops at once, as for a leaked secret`,
  ),
};

// ---------------------------------------------------------------------------------------------
// Filters

const webhookFilter = filterOf<PrismaNS.WebhookWhereInput>();

export const webhookFilters = {
  url: webhookFilter(textFilter(URL_MAX), {
    description: 'Case-insensitive substring of the URL',
    where: (v) => ({ url: textSearch(v) }),
  }),
  is_active: webhookFilter([nullable(), queryBoolean()], {
    description: 'true: active endpoints; false: disabled ones',
    where: (v) => ({ isActive: v }),
  }),
};

/** The attempts' outcomes. */
export const ATTEMPT_STATUSES = ['succeeded', 'failed'] as const;

const attemptFilter = filterOf<PrismaNS.WebhookAttemptWhereInput>();

export const attemptFilters = {
  status: attemptFilter([nullable(), string(), inList(ATTEMPT_STATUSES)], {
    description: '`succeeded` (a 2xx answer) or `failed`',
    where: (v) => ({ status: v }),
  }),
  event_id: attemptFilter([nullable(), integer(), min(1)], {
    description: "The attempts of one event (its id in the tenant's log)",
    where: (v) => ({ eventId: BigInt(v) }),
  }),
  event_type: attemptFilter([nullable(), string(), inList([...EVENT_TYPES, TEST_EVENT_TYPE])], {
    description: 'The attempts of one event type (`webhook.test`: the test pings)',
    where: (v) => ({ eventType: v }),
  }),
};

// ---------------------------------------------------------------------------------------------
// Replay

/** Laravel's `required_without:other`: required when `other` is not filled. */
function requiredWithout(other: string): Rule<Keep> {
  return {
    name: 'requiredWithout',
    implicit: true,
    doc: { description: `Required without ${other}.` },
    check: (value, ctx) => {
      const filled = (v: unknown) => v !== undefined && v !== null && v !== '';
      return filled(value) || filled(ctx.input[other])
        ? null
        : `The ${ctx.attribute} field is required when ${ctx.attributeOf(other)} is not present.`;
    },
  };
}

/** Laravel's `prohibits:other`: when this field is filled, `other` must not be. */
function prohibits(other: string): Rule<Keep> {
  return {
    name: 'prohibits',
    doc: { description: `Not together with ${other}.` },
    check: (value, ctx) => {
      const filled = (v: unknown) => v !== undefined && v !== null && v !== '';
      return filled(value) && filled(ctx.input[other])
        ? `The ${ctx.attribute} field prohibits ${ctx.attributeOf(other)} from being present.`
        : null;
    },
  };
}

/** Events one replay may queue; a longer range is a 422 asking for a narrower one. */
export const REPLAY_MAX = 100_000;

/** The body of `POST /webhooks/:id/replay` (GraphQL ReplayWebhookInput). */
export const replayFields = {
  since_event_id: field(
    [requiredWithout('since'), prohibits('since'), nullable(), integer(), min(1)],
    'The first event id to send again (inclusive); or `since`',
  ),
  since: field(
    // The event log keeps milliseconds: a moment past one of them starts at the next.
    [requiredWithout('since_event_id'), nullable(), date({ upTo: 'ceil' })],
    'Send again the events from this moment on (ISO 8601 date-time, inclusive); or `since_event_id`',
  ),
  until_event_id: field(
    [prohibits('until'), nullable(), integer(), min(1), gteField('since_event_id')],
    'The last event id to send again (inclusive; not below `since_event_id`); default the latest',
  ),
  until: field(
    [nullable(), date(), afterOrEqual('since')],
    'Send again the events up to this moment (inclusive; not before `since`); default now',
  ),
};

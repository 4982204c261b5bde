// The event log in the graph: the `events` query (REST `GET /events`), and the `events` subscription
// that resumes after a given id: what was missed, then each event as it commits, with no gap and no
// duplicate. Over SSE each event's frame carries `id: <event id>` (src/graphql/sse-event-ids.ts), so
// a client reconnecting with `Last-Event-ID` resumes where it stopped.
import { requires } from '../../auth/permissions.js';
import type { RecordedEvent } from '../../events/outbox.js';
import { pageSizeErrors, refusePageSize } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, restInputOf } from '../../graphql/operation-fields.js';
import { eventFilters } from './events.inputs.js';
import { eventsQuery, listEvents, watchEvents } from './events.service.js';

const MAX_PAGE_SIZE = 100;

const EventActorRef = builder
  .objectRef<Pick<RecordedEvent, 'actorType' | 'actorUserId' | 'actorTokenId'>>('EventActor')
  .implement({
    description: 'Who caused an event',
    fields: (t) => ({
      type: t.exposeString('actorType', {
        description:
          '`user` (through the API), `ingest` (a controller’s token), `system` (the service itself)',
      }),
      userId: t.exposeString('actorUserId', { nullable: true, description: 'The user (null: the service)' }),
      tokenId: t.exposeString('actorTokenId', { nullable: true, description: 'The API token used' }),
    }),
  });

export const EventRef = builder.objectRef<RecordedEvent>('Event').implement({
  description: 'An entry of the tenant’s event log (what webhooks deliver)',
  fields: (t) => ({
    id: t.id({
      description: 'Its place in the tenant’s log: 1, 2, 3… in commit order (pass it as `after` to read on)',
      resolve: (e) => String(e.id),
    }),
    type: t.exposeString('type', { description: '`guest.created`, `presence.zone_entered`, …' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    actor: t.field({ type: EventActorRef, resolve: (e) => e }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'The request’s `X-Request-Id`' }),
    resourceType: t.exposeString('resourceType', { description: '`guest`, `presence`, `access_code`, …' }),
    resourceId: t.exposeString('resourceId'),
    payload: t.string({
      description:
        'The resource in its REST shape when the event happened, as JSON text (a webhook’s `data`)',
      resolve: (e) => JSON.stringify(e.payload ?? null),
    }),
  }),
});

const eventArgs = argsOf(eventFilters, ['after']);

builder.queryFields((t) => ({
  events: t.field({
    ...requires(eventsQuery.action),
    type: [EventRef],
    description:
      'The event log of the current tenant, oldest first (REST `GET /events`): pass the last id read as `after` for the next page.',
    args: {
      ...eventArgs,
      first: t.arg.int({ description: `At most this many (default 50, at most ${MAX_PAGE_SIZE})` }),
    },
    resolve: async (_root, args, ctx) => {
      const first = args.first ?? 50;
      const query = () => eventsQuery.query(ctx, restInputOf(eventFilters, args));
      // A list, not a connection: plugin-relay's refusal of a negative `first` is not there.
      const pageFields =
        first < 0
          ? { first: ['The first field must be at least 0.'] }
          : pageSizeErrors({ first }, MAX_PAGE_SIZE);
      if (pageFields) return refusePageSize(pageFields, query);
      return listEvents(ctx, await query(), { skip: 0, take: first });
    },
  }),
}));

builder.subscriptionField('events', (t) =>
  t.field({
    ...requires(eventsQuery.action),
    type: EventRef,
    description:
      'The events after `after` (over SSE, else the `Last-Event-ID` a reconnecting client resends; neither: only new events), then each as it commits, on any instance: no gap, no duplicate. Unknown types and an `after` past the log or before what retention keeps are refused.',
    args: eventArgs,
    subscribe: (_root, args, ctx) => watchEvents(ctx, restInputOf(eventFilters, args)),
    resolve: (event: RecordedEvent, _args, ctx) => {
      // The SSE frame of this payload carries the event's id (src/graphql/sse-event-ids.ts).
      ctx.stream?.sending(String(event.id));
      return event;
    },
  }),
);

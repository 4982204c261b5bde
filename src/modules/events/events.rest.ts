// REST endpoint of the event log (beyond the spec): read only, oldest first, a page at a time; a
// reader keeps the last id it has and asks for the events `after` it.
import { listEndpointOf } from '../../rest/operation-endpoint.js';
import { EventItemSchema, eventItem } from './events.serializer.js';
import { eventsQuery, listEvents } from './events.service.js';

export const list = listEndpointOf(eventsQuery, {
  summary: "List the current tenant's event log, oldest first (after, types)",
  defaultPerPage: 100,
  item: EventItemSchema,
  read: listEvents,
  serialize: eventItem,
});

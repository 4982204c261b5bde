// REST endpoints of spec 4.4: validate paging, call one service function, serialize.

import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import { countEndpoint, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { ValidationBody } from '../../rest/schemas.js';
import { MAX_IP_ADDRESSES, sessionFilterRules } from './guest-sessions.inputs.js';
import {
  SessionByIpSchema,
  SessionItemSchema,
  sessionByIpItem,
  sessionItem,
} from './guest-sessions.serializer.js';
import { countSessions, listSessionItems, sessionsByIp } from './guest-sessions.service.js';

export const list = listEndpoint({
  action: 'guestSessions.list',
  summary:
    'List guest sessions (guest_id, location_id, guest_device_mac, start_time, end_time, partner_id, online, last_session_first, page, per_page)',
  item: SessionItemSchema,
  filters: sessionFilterRules,
  list: listSessionItems,
  serialize: (row) => sessionItem(row),
});

export const count = countEndpoint({
  action: 'guestSessions.list',
  summary:
    'Count guest sessions (guest_id, location_id, guest_device_mac, start_time, end_time, partner_id, online, last_session_first)',
  filters: sessionFilterRules,
  count: countSessions,
});

/** One address: an object (404 when unknown); several, comma-separated: an array of the known ones. */
export const byIp: Endpoint = {
  action: 'guestSessions.list',
  summary: 'Latest session per IP address with its guest and duration (up to 100, comma-separated)',
  params: {
    ip_address: `One IP address (answers an object, 404 when unknown) or up to ${MAX_IP_ADDRESSES} comma-separated (answers an array of the known ones).`,
  },
  response: Type.Union([SessionByIpSchema, Type.Array(SessionByIpSchema)]),
  responses: {
    422: {
      description: `More than ${MAX_IP_ADDRESSES} addresses, or a malformed one.`,
      schema: ValidationBody,
    },
  },
  async handle({ ctx, params }) {
    const raw = params.ip_address ?? '';
    const several = raw.includes(',');
    const found = await sessionsByIp(ctx, raw.split(','));
    if (several) return found.map(sessionByIpItem);
    const one = found[0];
    if (!one) throw new AppError('NOT_FOUND');
    return sessionByIpItem(one);
  },
};

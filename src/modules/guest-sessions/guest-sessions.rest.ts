// REST endpoints of spec 4.4: the session list operation (guest-sessions.service.ts) with REST's
// paging and serializer, and the look-up by address.

import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import type { Endpoint } from '../../rest/endpoint.js';
import { type ExportPage, exportEndpointOf } from '../../rest/export.js';
import { countEndpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { ValidationBody } from '../../rest/schemas.js';
import { deviceVisible } from '../guest-devices/guest-devices.service.js';
import { guestVisible } from '../guests/guests.service.js';
import { MAX_IP_ADDRESSES } from './guest-sessions.inputs.js';
import {
  SessionByIpSchema,
  SessionItemSchema,
  sessionByIpItem,
  sessionItem,
} from './guest-sessions.serializer.js';
import {
  countSessions,
  guestSessionsQuery,
  listSessions,
  type SessionItemRow,
  type SessionQuery,
  sessionItemSelect,
  sessionsByIp,
} from './guest-sessions.service.js';

/** The list's rows: a page, or an export's batch. */
const read = (ctx: AppContext, q: SessionQuery, page: ExportPage | { skip: number; take: number }) =>
  listSessions(ctx, q, { ...page, select: sessionItemSelect });

// A session at a pinned caller's location may be a guest's of another one: no partner id then, and
// no device MAC or description when the device's guest is there (GraphQL's `GuestSession.guest` and
// `device` are null there).
const serialize = (row: SessionItemRow, ctx: AppContext) =>
  sessionItem(row, { device: deviceVisible(ctx, row.device), guest: guestVisible(ctx, row.guest) });

export const list = listEndpointOf(guestSessionsQuery, {
  summary:
    'List guest sessions (guest_id, location_id, guest_device_mac, start_time, end_time, partner_id, online, last_session_first, page, per_page)',
  item: SessionItemSchema,
  read,
  serialize,
});

export const exportAll = exportEndpointOf(guestSessionsQuery, {
  summary: 'Export guest sessions as CSV or NDJSON, streamed (the list filters, format, bom)',
  name: 'sessions',
  model: 'GuestSession',
  item: SessionItemSchema,
  read,
  serialize,
});

export const count = countEndpointOf(guestSessionsQuery, {
  summary:
    'Count guest sessions (guest_id, location_id, guest_device_mac, start_time, end_time, partner_id, online, last_session_first)',
  count: countSessions,
});

/** One address: an object (404 when unknown); several, comma-separated: an array of the known ones. */
export const byIp: Endpoint = {
  action: guestSessionsQuery.action,
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

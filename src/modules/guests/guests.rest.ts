// REST endpoints of spec 4.2: the guest operations (guests.service.ts) with REST's paging, status and
// serializers.
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import type { Endpoint } from '../../rest/endpoint.js';
import { type ExportPage, exportEndpointOf } from '../../rest/export.js';
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import { eraseGuest, exportGuest } from './guests.privacy.js';
import { GuestCopySchema, guestCopyItem } from './guests.privacy.serializer.js';
import {
  GuestDetailSchema,
  GuestListItemSchema,
  guestDetailItem,
  guestListItem,
} from './guests.serializer.js';
import {
  countGuests,
  createGuest,
  GUEST_SETTINGS,
  type GuestQuery,
  guestDetail,
  guestListQuery,
  guestListSelect,
  guestsQuery,
  listGuests,
  updateGuest,
  viewGuest,
  withBeacons,
} from './guests.service.js';

/** A 2048 KB avatar is about 2.7 MiB of base64 text; the rest of a guest is small. */
export const GUEST_BODY_LIMIT = 3 * 1024 * 1024;

/** The list's rows (with their beacons when asked): a page, or an export's batch. */
async function read(
  ctx: AppContext,
  q: GuestQuery & { input: { withBeacon?: boolean } },
  page: ExportPage | { skip: number; take: number },
) {
  const rows = await listGuests(ctx, q, { ...page, select: guestListSelect(ctx.principal.tenantId) });
  return q.input.withBeacon === true ? withBeacons(ctx, rows) : rows;
}

export const list = listEndpointOf(guestListQuery, {
  summary: 'List guests (every filter of 4.2, withBeacon, page, per_page)',
  item: GuestListItemSchema,
  read,
  serialize: guestListItem,
});

export const exportAll = exportEndpointOf(guestListQuery, {
  summary: 'Export guests as CSV or NDJSON, streamed (every filter of 4.2, withBeacon, format, bom)',
  name: 'guests',
  model: 'Guest',
  item: GuestListItemSchema,
  // `withBeacon` adds the list item's `beacon` (a JSON object in its CSV cell).
  columns: (input, base) => (input.withBeacon === true ? [...base, 'beacon'] : base),
  read,
  serialize: guestListItem,
});

export const count = countEndpointOf(guestsQuery, {
  summary: 'Count guests (the list filters)',
  count: countGuests,
});
export const show: Endpoint = {
  summary: 'One guest with settings',
  action: viewGuest.action,
  response: Obj({
    data: GuestDetailSchema,
    settings: Obj(
      {
        disconnect_enabled: Type.Boolean({ const: GUEST_SETTINGS.disconnect_enabled }),
        name_registration_rule: Type.Integer({ const: GUEST_SETTINGS.name_registration_rule }),
      },
      'GuestSettings',
    ),
  }),
  async handle({ ctx, params }) {
    return {
      data: guestDetailItem(await guestDetail(ctx, params.id ?? ''), ctx.config),
      settings: GUEST_SETTINGS,
    };
  },
};

export const create = endpointOf(createGuest, {
  summary: 'Create a guest',
  status: 201,
  bodyLimit: GUEST_BODY_LIMIT,
  fileFields: ['avatar'],
  response: DataBody(GuestDetailSchema),
  answer: (guest, { ctx }) => ({ data: guestDetailItem(guest, ctx.config) }),
});

export const update = endpointOf(updateGuest, {
  summary: 'Update a guest',
  bodyLimit: GUEST_BODY_LIMIT,
  fileFields: ['avatar'],
  response: DataBody(GuestDetailSchema),
  answer: (guest, { ctx }) => ({ data: guestDetailItem(guest, ctx.config) }),
});

// A guest's data rights (beyond the spec; guests.privacy.ts). No input: the body is not read, the
// query string has no rules.
export const exportCopy = endpointOf(exportGuest, {
  summary:
    'A copy of everything held on a guest (detail, tags, devices, sessions, presence, movements, codes)',
  from: 'query',
  params: { id: 'The guest id' },
  response: GuestCopySchema,
  answer: (copy, { ctx }) => ({ data: guestCopyItem(copy, ctx.config) }),
});

export const erase = endpointOf(eraseGuest, {
  summary: 'Erase a guest: personal data removed, MACs replaced by stand-ins, counts kept (then 404)',
  status: 204,
  from: 'query',
  params: { id: 'The guest id' },
  answer: () => undefined,
});

// REST endpoints of spec 4.2: validate paging, call one service function, serialize.
import { Type } from '@sinclair/typebox';
import { countEndpoint, docsOnly, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import { guestFilterRules, guestListRules, guestWriteRules } from './guests.inputs.js';
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
  guestDetail,
  listGuestRows,
  updateGuest,
} from './guests.service.js';

/** A 2048 KB avatar is about 2.7 MiB of base64 text; the rest of a guest is small. */
export const GUEST_BODY_LIMIT = 3 * 1024 * 1024;

export const list = listEndpoint({
  summary: 'List guests (every filter of 4.2, withBeacon, page, per_page)',
  action: 'guests.list',
  item: GuestListItemSchema,
  filters: guestListRules,
  list: listGuestRows,
  serialize: guestListItem,
});

export const count = countEndpoint({
  summary: 'Count guests (the list filters)',
  action: 'guests.list',
  filters: guestFilterRules,
  count: countGuests,
});

export const show: Endpoint = {
  summary: 'One guest with settings',
  action: 'guests.view',
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

export const create: Endpoint = {
  summary: 'Create a guest',
  action: 'guests.create',
  status: 201,
  bodyLimit: GUEST_BODY_LIMIT,
  fileFields: ['avatar'],
  body: () => guestWriteRules({ ...docsOnly, mode: 'create' }),
  response: DataBody(GuestDetailSchema),
  async handle({ ctx, body }) {
    return { data: guestDetailItem(await createGuest(ctx, body), ctx.config) };
  },
};

export const update: Endpoint = {
  summary: 'Update a guest',
  action: 'guests.update',
  bodyLimit: GUEST_BODY_LIMIT,
  fileFields: ['avatar'],
  body: () => guestWriteRules({ ...docsOnly, mode: 'update' }),
  response: DataBody(GuestDetailSchema),
  async handle({ ctx, params, body }) {
    return { data: guestDetailItem(await updateGuest(ctx, params.id ?? '', body), ctx.config) };
  },
};

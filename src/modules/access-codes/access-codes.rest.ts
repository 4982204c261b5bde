// REST endpoints of spec 4.9 (create), and beyond it the list and count, redeem and revoke.
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../context.js';
import { errorCodes } from '../../errors.js';
import { type ExportPage, exportEndpointOf } from '../../rest/export.js';
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { CountBody, DataBody, Obj } from '../../rest/schemas.js';
import { redeemAccessCode } from './access-codes.redeem.js';
import { revokeAccessCode, revokeAccessCodes } from './access-codes.revoke.js';
import { AccessCodeItemSchema, accessCodeItem, LimitsSchema, limitsItem } from './access-codes.serializer.js';
import {
  type AccessCodeListRow,
  type AccessCodeQuery,
  accessCodeListInclude,
  accessCodesQuery,
  codeGuestShown,
  countAccessCodes,
  generateAccessCodes,
  listAccessCodes,
} from './access-codes.service.js';

export const CREATED_MESSAGE = 'Access codes created successfully.';

/** A code's item as the caller may see it (its guest's name only when it may read that guest). */
const shown = (row: AccessCodeListRow, ctx: AppContext) =>
  accessCodeItem(row, codeGuestShown(ctx, row.guest));

/** The list's rows: a page, or an export's batch. */
const read = (ctx: AppContext, q: AccessCodeQuery, page: ExportPage | { skip: number; take: number }) =>
  listAccessCodes(ctx, q, { ...page, include: accessCodeListInclude });

export const list = listEndpointOf(accessCodesQuery, {
  summary: 'List access codes, newest first (location_id, type, status, code, guest_id)',
  item: AccessCodeItemSchema,
  read,
  // A code at a pinned caller's location may name a guest of another one: no name then (GraphQL's
  // `AccessCode.guest` is null there, its `guestName` empty).
  serialize: (row, ctx) => shown(row, ctx),
});

export const exportAll = exportEndpointOf(accessCodesQuery, {
  summary: 'Export access codes as CSV or NDJSON, streamed, newest first (the list filters, format, bom)',
  name: 'access-codes',
  model: 'AccessCode',
  item: AccessCodeItemSchema,
  read,
  serialize: shown,
});

export const count = countEndpointOf(accessCodesQuery, {
  summary: 'Count access codes (the list filters)',
  count: countAccessCodes,
});

/** 201 with every created code; a batch that could not be stored answers spec 4.9's 500 body. */
export const create = endpointOf(generateAccessCodes, {
  summary: 'Create a shared code or generate access codes',
  status: 201,
  response: Obj({
    status: Type.Literal(true),
    message: Type.Literal(CREATED_MESSAGE),
    count: Type.Integer({ minimum: 1 }),
    access_codes: Type.Array(AccessCodeItemSchema),
  }),
  responses: {
    500: {
      description: 'The batch could not be stored (spec 4.9): nothing was created.',
      schema: Obj(
        {
          status: Type.Literal(false),
          message: Type.Literal(errorCodes.ACCESS_CODES_NOT_CREATED.message),
          count: Type.Literal(0),
          access_codes: Type.Array(Type.Never(), { maxItems: 0 }),
        },
        'AccessCodesNotCreated',
      ),
    },
  },
  answer: (rows) => ({
    status: true,
    message: CREATED_MESSAGE,
    count: rows.length,
    // The write rules let a caller name only guests it may see.
    access_codes: rows.map((r) => accessCodeItem(r, true)),
  }),
});

export const redeem = endpointOf(redeemAccessCode, {
  summary: 'Redeem a code for a device at a location (captive portals): one use, or a 422 naming why not',
  description:
    'Counts one use exactly once however many redeem the code at the same time, links the device ' +
    "(`mac`) to its guest, opens a guest session with `start_session`, and answers the code and its service profile's " +
    'limits for the controller to apply. Refusals are 422 keyed `code`: `The selected code is invalid.` (unknown), ' +
    '`The code is not valid at this location.`, `The code has been revoked.`, `The code has been used up.`, ' +
    '`The code has expired.`, `The code is not valid yet.`, and for a venue or front-desk caller ' +
    '`The code belongs to a guest of another location.` (a new device would join that guest).',
  response: Obj({ data: AccessCodeItemSchema, limits: LimitsSchema }, 'RedeemedAccessCode'),
  answer: (r, req) => ({ data: shown(r.code, req.ctx), limits: limitsItem(r.limits) }),
});

export const revoke = endpointOf(revokeAccessCode, {
  summary: 'Revoke a code (status 4); a revoked code is answered unchanged',
  from: 'query',
  response: DataBody(AccessCodeItemSchema),
  answer: (row, req) => ({ data: shown(row, req.ctx) }),
});

export const revokeBatch = endpointOf(revokeAccessCodes, {
  summary:
    'Revoke the codes named by `ids`, or those the list filters find; answers how many were revoked now',
  response: CountBody,
  answer: (count) => ({ count }),
});

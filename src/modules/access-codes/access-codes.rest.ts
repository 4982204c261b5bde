// REST endpoints of spec 4.9 (create) and the list and count beyond it.
import { Type } from '@sinclair/typebox';
import { errorCodes } from '../../errors.js';
import { countEndpoint, docsOnly, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { Obj } from '../../rest/schemas.js';
import { accessCodeFilterRules, accessCodeWriteRules } from './access-codes.inputs.js';
import { AccessCodeItemSchema, accessCodeItem } from './access-codes.serializer.js';
import { countAccessCodes, generateAccessCodes, listAccessCodes } from './access-codes.service.js';

export const CREATED_MESSAGE = 'Access codes created successfully.';

export const list = listEndpoint({
  summary: 'List access codes, newest first (location_id, type, status, code, guest_id)',
  action: 'accessCodes.list',
  item: AccessCodeItemSchema,
  filters: accessCodeFilterRules,
  list: listAccessCodes,
  serialize: accessCodeItem,
});

export const count = countEndpoint({
  summary: 'Count access codes (the list filters)',
  action: 'accessCodes.list',
  filters: accessCodeFilterRules,
  count: countAccessCodes,
});

/** 201 with every created code; a batch that could not be stored answers spec 4.9's 500 body. */
export const create: Endpoint = {
  summary: 'Create a shared code or generate access codes',
  action: 'accessCodes.create',
  status: 201,
  // `code` is required for type 1 only; the rules read the input for that, an empty one documents them.
  body: () => accessCodeWriteRules(docsOnly.prisma, docsOnly.scope, {}),
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
  async handle({ ctx, body }) {
    const rows = await generateAccessCodes(ctx, body);
    return {
      status: true,
      message: CREATED_MESSAGE,
      count: rows.length,
      access_codes: rows.map(accessCodeItem),
    };
  },
};

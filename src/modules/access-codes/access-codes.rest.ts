// REST endpoints of spec 4.9 (create) and the list and count beyond it.
import { countEndpoint, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { accessCodeItem } from './access-codes.serializer.js';
import { countAccessCodes, generateAccessCodes, listAccessCodes } from './access-codes.service.js';

export const CREATED_MESSAGE = 'Access codes created successfully.';

export const list = listEndpoint({
  summary: 'List access codes, newest first (location_id, type, status, code, guest_id)',
  action: 'accessCodes.list',
  list: listAccessCodes,
  serialize: accessCodeItem,
});

export const count = countEndpoint({
  summary: 'Count access codes (the list filters)',
  action: 'accessCodes.list',
  count: countAccessCodes,
});

/** 201 with every created code; a batch that could not be stored answers spec 4.9's 500 body. */
export const create: Endpoint = {
  summary: 'Create a shared code or generate access codes',
  action: 'accessCodes.create',
  status: 201,
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

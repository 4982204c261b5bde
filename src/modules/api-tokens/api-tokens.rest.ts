// REST endpoints of the API keys (beyond the spec): the token operations (api-tokens.service.ts)
// with REST's paging, status and serializer.
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { DataBody } from '../../rest/schemas.js';
import {
  ApiTokenItemSchema,
  apiTokenItem,
  CreatedApiTokenSchema,
  createdApiToken,
} from './api-tokens.serializer.js';
import {
  apiTokenItemSelect,
  apiTokensQuery,
  countApiTokens,
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from './api-tokens.service.js';

export const list = listEndpointOf(apiTokensQuery, {
  summary: "List the API tokens of the current tenant's users, newest first (user_id, name, status)",
  item: ApiTokenItemSchema,
  read: (ctx, q, page) => listApiTokens(ctx, q, { ...page, select: apiTokenItemSelect }),
  serialize: apiTokenItem,
});

export const count = countEndpointOf(apiTokensQuery, {
  summary: 'Count the API tokens (the list filters)',
  count: countApiTokens,
});

export const create = endpointOf(createApiToken, {
  summary: 'Create an API token; its secret is in this answer only',
  status: 201,
  response: DataBody(CreatedApiTokenSchema),
  answer: ({ row, token }) => ({ data: createdApiToken(row, token) }),
});

// No input: the body is not read; the query string has no rules either.
export const revoke = endpointOf(revokeApiToken, {
  summary: 'Revoke an API token: it answers 401 from the next request (again: 204, nothing changes)',
  status: 204,
  from: 'query',
  params: { id: 'The token id' },
  answer: () => undefined,
});

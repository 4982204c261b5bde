// REST endpoints of webhooks (beyond the spec): the webhook operations (webhooks.service.ts) with
// REST's paging, status and serializer.
import { authorize } from '../../auth/permissions.js';
import type { Endpoint } from '../../rest/endpoint.js';
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { listEnvelope, pageRequest } from '../../rest/pagination.js';
import { DataBody } from '../../rest/schemas.js';
import {
  attemptItem,
  CreatedWebhookSchema,
  createdWebhook,
  ReplayCountSchema,
  WebhookAttemptSchema,
  WebhookItemSchema,
  webhookItem,
  webhookItemSelect,
} from './webhooks.serializer.js';
import {
  attemptsQuery,
  countWebhooks,
  createWebhook,
  deleteWebhook,
  listAttempts,
  listWebhooks,
  replayWebhook,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  webhookInScope,
  webhooksQuery,
} from './webhooks.service.js';

const ID = { id: 'The webhook id' };

export const list = listEndpointOf(webhooksQuery, {
  summary:
    'List the webhook endpoints of the current tenant, oldest first (url, is_active); never their secrets',
  item: WebhookItemSchema,
  read: (ctx, q, page) => listWebhooks(ctx, q, { ...page, select: webhookItemSelect }),
  serialize: webhookItem,
});

export const count = countEndpointOf(webhooksQuery, {
  summary: 'Count the webhook endpoints (the list filters)',
  count: countWebhooks,
});

export const create = endpointOf(createWebhook, {
  summary: 'Create a webhook endpoint; its signing secret is in this answer only',
  status: 201,
  response: DataBody(CreatedWebhookSchema),
  answer: ({ row, secret }) => ({ data: createdWebhook(row, secret) }),
});

export const update = endpointOf(updateWebhook, {
  summary: 'Change a webhook endpoint (the fields sent); is_active true enables a disabled one again',
  params: ID,
  response: DataBody(WebhookItemSchema),
  answer: (row) => ({ data: webhookItem(row) }),
});

export const remove = endpointOf(deleteWebhook, {
  summary: 'Delete a webhook endpoint with its waiting deliveries and attempts (the events stay)',
  status: 204,
  from: 'query',
  params: ID,
  answer: () => undefined,
});

export const test = endpointOf(testWebhook, {
  summary: 'Send a signed `webhook.test` ping now; answers the attempt (also listed in its deliveries)',
  from: 'query',
  params: ID,
  response: DataBody(WebhookAttemptSchema),
  answer: (row) => ({ data: attemptItem(row) }),
});

export const replay = endpointOf(replayWebhook, {
  summary:
    'Queue again the events of a range (ids or times, inclusive) that the endpoint subscribes to; answers how many',
  params: ID,
  response: ReplayCountSchema,
  answer: (count) => ({ count }),
});

export const rotateSecret = endpointOf(rotateWebhookSecret, {
  summary:
    'Give the endpoint a new signing secret, in this answer only; the previous one signs beside it for previous_secret_hours (default 24)',
  params: ID,
  response: DataBody(CreatedWebhookSchema),
  answer: ({ row, secret }) => ({ data: createdWebhook(row, secret) }),
});

// The list of one endpoint's attempts: the endpoint (from the path) is found before the filters are
// read, as for any operation on one record (403, then 404, then 422).
const attemptsList = listEndpointOf(attemptsQuery, {
  summary: "List a webhook endpoint's delivery attempts, newest first (status, event_id, event_type)",
  item: WebhookAttemptSchema,
  read: () => Promise.resolve([]),
  serialize: attemptItem,
});

export const deliveries: Endpoint = {
  ...attemptsList,
  params: ID,
  async handle({ ctx, params, query, envelope }) {
    const scope = authorize(ctx.principal, attemptsQuery.action);
    const webhook = await webhookInScope(ctx, scope, params.id ?? '');
    const q = await attemptsQuery.query(ctx, query);
    const page = pageRequest(query);
    const rows = await listAttempts(ctx, webhook.id, q, { skip: page.skip, take: page.take });
    return listEnvelope(envelope, page, rows.map(attemptItem));
  },
};

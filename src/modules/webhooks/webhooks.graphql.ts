// Webhooks in the graph: the `webhooks` connection and `webhookDeliveries` (REST `GET /webhooks`,
// `GET /webhooks/:id/deliveries`), and the mutations `createWebhook` (the secret in its payload once),
// `updateWebhook`, `deleteWebhook`, `testWebhook`, `replayWebhook` and `rotateWebhookSecret` (the new
// secret in its payload once), through the same operations.
import { authorize, requires } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import {
  argsOf,
  inputTypeOf,
  listConnection,
  listQueryOf,
  oncePerField,
  restInputOf,
} from '../../graphql/operation-fields.js';
import { planAnswerFirst } from '../../graphql/plan-answer-first.js';
import { execute } from '../../operations/operation.js';
import {
  replayFields,
  rotateSecretFields,
  webhookCreateFields,
  webhookUpdateFields,
} from './webhooks.inputs.js';
import { DISABLED_REASONS } from './webhooks.labels.js';
import {
  attemptsQuery,
  countAttempts,
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

const MAX_PAGE_SIZE = 100;

builder.prismaObject('Webhook', {
  description:
    'A webhook endpoint: the events it subscribes to are POSTed to `url`, signed (Standard Webhooks). Its secret is shown once, by `createWebhook`.',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events', { description: 'Event types, or `["*"]` for every type' }),
    description: t.exposeString('description', { nullable: true }),
    isActive: t.exposeBoolean('isActive', { description: 'false: nothing is sent (see disabledReason)' }),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description: `${DISABLED_REASONS.map((r) => `\`${r}\``).join(', ')}; null while active`,
    }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    secretRotatedAt: t.expose('secretRotatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'The last `rotateWebhookSecret`; null: the secret is the one `createWebhook` gave',
    }),
    previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Until then the secret before the last rotation signs each delivery too; null: none kept',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('WebhookAttempt', {
  description: 'One delivery attempt of an event (or a test ping) to a webhook endpoint.',
  fields: (t) => ({
    id: t.exposeID('id'),
    eventId: t.field({
      type: 'ID',
      nullable: true,
      description: "The event's id in the tenant's log; null for a test ping",
      resolve: (a) => (a.eventId === null ? null : String(a.eventId)),
    }),
    eventType: t.exposeString('eventType'),
    messageId: t.exposeString('messageId', {
      description: 'The `webhook-id` header sent: the same for an event on every attempt and replay',
    }),
    attempt: t.exposeInt('attempt'),
    status: t.exposeString('status', { description: '`succeeded` (a 2xx answer) or `failed`' }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    durationMs: t.exposeInt('durationMs'),
    error: t.exposeString('error', { nullable: true }),
    nextRetryAt: t.expose('nextRetryAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreatedWebhook = builder.objectRef<{ id: string; secret: string }>('CreateWebhookPayload').implement({
  description: 'The endpoint created (or whose secret was rotated), and its signing secret: shown this once.',
  fields: (t) => ({
    webhook: t.prismaField({
      type: 'Webhook',
      resolve: (query, p, _args, ctx) =>
        ctx.prisma.webhook.findUniqueOrThrow({ ...query, where: { id: p.id } }),
    }),
    secret: t.exposeString('secret', {
      description: '`whsec_` + base64: verify each delivery’s `webhook-signature` with it',
    }),
  }),
});

const DeletedWebhook = builder.objectRef<{ id: string }>('WebhookDeletion').implement({
  description: 'The answer of `deleteWebhook`',
  fields: (t) => ({
    id: t.exposeID('id'),
    deleted: t.boolean({ resolve: () => true }),
  }),
});

const ReplayedWebhook = builder.objectRef<{ count: number }>('WebhookReplay').implement({
  description: 'How many events one `replayWebhook` call queued again',
  fields: (t) => ({ count: t.exposeInt('count') }),
});

const CreateWebhookInput = inputTypeOf(
  'CreateWebhookInput',
  'Checked by the same rules as REST `POST /webhooks`.',
  webhookCreateFields,
);
const UpdateWebhookInput = inputTypeOf(
  'UpdateWebhookInput',
  'Checked by the same rules as REST `PUT /webhooks/:id`: the fields given change.',
  webhookUpdateFields,
);

/** `webhookDeliveries`' endpoint, once per field (its check, rows and count share it). */
const endpointOf = (
  ctx: AppContext,
  args: { readonly webhookId?: unknown },
): ReturnType<typeof webhookInScope> =>
  oncePerField(args, endpointOf, () =>
    webhookInScope(ctx, authorize(ctx.principal, attemptsQuery.action), String(args.webhookId)),
  );

builder.queryFields((t) => ({
  webhooks: t.prismaConnection({
    ...listConnection(webhooksQuery, MAX_PAGE_SIZE),
    type: 'Webhook',
    description: 'Webhook endpoints of the current tenant, oldest first (REST `GET /webhooks`).',
    args: argsOf(webhooksQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await listQueryOf(webhooksQuery, ctx, args);
      return listWebhooks(ctx, q, query);
    },
    totalCount: async (_root, args, ctx) => {
      return countWebhooks(ctx, await listQueryOf(webhooksQuery, ctx, args));
    },
  }),
  webhookDeliveries: t.prismaConnection({
    // The endpoint first (NOT_FOUND, as REST's 404 comes before its filters), whatever the selection.
    ...listConnection(attemptsQuery, MAX_PAGE_SIZE, {
      checkArgs: async (ctx, args) => {
        await endpointOf(ctx, args);
        await listQueryOf(attemptsQuery, ctx, args);
      },
    }),
    type: 'WebhookAttempt',
    description:
      "A webhook endpoint's delivery attempts, newest first (REST `GET /webhooks/:id/deliveries`); an unknown endpoint is NOT_FOUND.",
    args: { webhookId: t.arg.id({ required: true }), ...argsOf(attemptsQuery.filters, ['event_id']) },
    resolve: async (query, _root, args, ctx) => {
      const webhook = await endpointOf(ctx, args);
      return listAttempts(ctx, webhook.id, await listQueryOf(attemptsQuery, ctx, args), query);
    },
    totalCount: async (_root, args, ctx) => {
      const webhook = await endpointOf(ctx, args);
      return countAttempts(ctx, webhook.id, await listQueryOf(attemptsQuery, ctx, args));
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    ...requires(createWebhook.action),
    type: CreatedWebhook,
    description:
      'An endpoint receiving the events logged from now on; its signing secret is in the payload once.',
    args: { input: t.arg({ type: CreateWebhookInput, required: true }) },
    resolve: async (_root, args, ctx, info) => {
      await planAnswerFirst(ctx, info, 'webhook', 'Webhook');
      const { row, secret } = await execute(createWebhook, ctx, toRestInput(args.input));
      return { id: row.id, secret };
    },
  }),
  updateWebhook: t.prismaField({
    ...requires(updateWebhook.action),
    type: 'Webhook',
    description: 'Changes the fields given; `isActive: true` enables a disabled endpoint again.',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const row = await execute(updateWebhook, ctx, toRestInput(args.input), String(args.id));
      return ctx.prisma.webhook.findUniqueOrThrow({ ...query, where: { id: row.id } });
    },
  }),
  deleteWebhook: t.field({
    ...requires(deleteWebhook.action),
    type: DeletedWebhook,
    description: 'Deletes the endpoint with its waiting deliveries and attempts (the events stay).',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => execute(deleteWebhook, ctx, {}, String(args.id)),
  }),
  testWebhook: t.prismaField({
    ...requires(testWebhook.action),
    type: 'WebhookAttempt',
    description: 'Sends a signed `webhook.test` ping now and answers the attempt.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const row = await execute(testWebhook, ctx, {}, String(args.id));
      return ctx.prisma.webhookAttempt.findUniqueOrThrow({ ...query, where: { id: row.id } });
    },
  }),
  rotateWebhookSecret: t.field({
    ...requires(rotateWebhookSecret.action),
    type: CreatedWebhook,
    description:
      'A new signing secret, in the payload once; the previous one signs beside it for `previousSecretHours` (default 24; 0: not at all).',
    args: { id: t.arg.id({ required: true }), ...argsOf(rotateSecretFields) },
    resolve: async (_root, args, ctx, info) => {
      await planAnswerFirst(ctx, info, 'webhook', 'Webhook');
      const { row, secret } = await execute(
        rotateWebhookSecret,
        ctx,
        restInputOf(rotateSecretFields, args),
        String(args.id),
      );
      return { id: row.id, secret };
    },
  }),
  replayWebhook: t.field({
    ...requires(replayWebhook.action),
    type: ReplayedWebhook,
    description:
      'Queues again the events of a range (ids or times, both ends inclusive) that the endpoint subscribes to.',
    args: { id: t.arg.id({ required: true }), ...argsOf(replayFields, ['since_event_id', 'until_event_id']) },
    resolve: async (_root, args, ctx) => ({
      count: await execute(replayWebhook, ctx, restInputOf(replayFields, args), String(args.id)),
    }),
  }),
}));

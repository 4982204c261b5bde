// API keys in the graph: the `apiTokens` connection (REST `GET /api-tokens`), `createApiToken` (REST
// `POST /api-tokens`, the secret in its payload once) and `revokeApiToken` (REST `DELETE
// /api-tokens/:id`), through the same operations.
import { requires } from '../../auth/permissions.js';
import { toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, inputTypeOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import { planAnswerFirst } from '../../graphql/plan-answer-first.js';
import { docsOnly, execute, fieldsOf } from '../../operations/operation.js';
import { shownScopes } from './api-tokens.labels.js';
import {
  apiTokensQuery,
  countApiTokens,
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from './api-tokens.service.js';

const MAX_PAGE_SIZE = 100;

builder.prismaObject('ApiToken', {
  description: 'An API token. Its secret is shown once, by `createApiToken`; only its hash is stored.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true, description: 'Null for tokens the CLI issued' }),
    user: t.relation('user', { description: 'The user the token acts as' }),
    scopes: t.stringList({
      description:
        '`read`, `ingest`, `full`, as created; a token the CLI issued without scopes shows `["full"]`',
      resolve: (token) => shownScopes(token.scopes),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Written in batches: up to TOKEN_LAST_USED_FLUSH_SECONDS (60 s) behind the last use',
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

const CreatedApiToken = builder.objectRef<{ id: string; token: string }>('CreateApiTokenPayload').implement({
  description: 'The token created, and its secret: shown this once.',
  fields: (t) => ({
    apiToken: t.prismaField({
      type: 'ApiToken',
      resolve: (query, p, _args, ctx) =>
        ctx.prisma.apiToken.findUniqueOrThrow({ ...query, where: { id: p.id } }),
    }),
    token: t.exposeString('token', { description: 'Send it as `Authorization: Bearer <token>`' }),
  }),
});

const CreateApiTokenInput = inputTypeOf(
  'CreateApiTokenInput',
  'Checked by the same rules as REST `POST /api-tokens`.',
  fieldsOf(createApiToken, docsOnly),
);

builder.queryFields((t) => ({
  apiTokens: t.prismaConnection({
    ...listConnection(apiTokensQuery, MAX_PAGE_SIZE),
    type: 'ApiToken',
    description: "API tokens of the current tenant's users, newest first (REST `GET /api-tokens`).",
    args: argsOf(apiTokensQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await listQueryOf(apiTokensQuery, ctx, args);
      return listApiTokens(ctx, q, query);
    },
    totalCount: async (_root, args, ctx) => {
      return countApiTokens(ctx, await listQueryOf(apiTokensQuery, ctx, args));
    },
  }),
}));

builder.mutationFields((t) => ({
  createApiToken: t.field({
    ...requires(createApiToken.action),
    type: CreatedApiToken,
    description:
      'A token for `userId` (default the caller) with the scopes asked; the secret is in the payload once.',
    args: { input: t.arg({ type: CreateApiTokenInput, required: true }) },
    resolve: async (_root, args, ctx, info) => {
      await planAnswerFirst(ctx, info, 'apiToken', 'ApiToken');
      const { row, token } = await execute(createApiToken, ctx, toRestInput(args.input));
      return { id: row.id, token };
    },
  }),
  revokeApiToken: t.prismaField({
    ...requires(revokeApiToken.action),
    type: 'ApiToken',
    description: 'The token answers 401 from the next request; revoking it again changes nothing.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const { id } = await execute(revokeApiToken, ctx, {}, String(args.id));
      return ctx.prisma.apiToken.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
}));

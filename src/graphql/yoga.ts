// GraphQL over HTTP with Yoga: GraphiQL served from the package (no CDN), limits on depth,
// aliases, tokens and cost, and AppError translated into `extensions.code` at this edge.
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { Prisma } from '../db/database.js';
import { AppError, errorCodes, toAppError } from '../errors.js';
import { toGraphqlFieldName } from './args.js';
import { schema } from './schema.js';

export const GRAPHQL_LIMITS = { depth: 10, aliases: 15, tokens: 3000, cost: 5000 } as const;

function graphqlError(err: AppError): GraphQLError {
  const extensions: Record<string, unknown> = { code: errorCodes[err.code].graphql };
  if (err.fields) {
    extensions.fields = Object.fromEntries(
      Object.entries(err.fields).map(([k, v]) => [toGraphqlFieldName(k), v]),
    );
  }
  return new GraphQLError(err.message, { extensions });
}

export function createGraphqlHandler(deps: { prisma: Prisma; config: Config; log: FastifyBaseLogger }) {
  return createYoga<{ req: FastifyRequest; reply: FastifyReply }, AppContext>({
    schema,
    graphqlEndpoint: '/graphql',
    logging: false,
    batching: false,
    landingPage: false,
    graphiql: {
      title: 'Venue Wi-Fi Gateway — GraphiQL',
      headers: '{\n  "Authorization": "Bearer <token>"\n}',
    },
    renderGraphiQL,
    context: ({ req }) => {
      // The request gate has authenticated every operation before Yoga runs.
      if (!req.principal) throw new AppError('UNAUTHENTICATED');
      return { prisma: deps.prisma, config: deps.config, principal: req.principal, requestId: req.id };
    },
    maskedErrors: {
      maskError(error) {
        const original = error instanceof GraphQLError ? (error.originalError ?? undefined) : error;
        const app = original ? toAppError(original) : null;
        if (app) return graphqlError(app);
        if (error instanceof GraphQLError && !error.originalError) return error;
        deps.log.error({ err: original }, 'GraphQL resolver failed');
        return new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      },
    },
    plugins: [
      maxDepthPlugin({ n: GRAPHQL_LIMITS.depth, exposeLimits: true, flattenFragments: true }),
      maxAliasesPlugin({ n: GRAPHQL_LIMITS.aliases, exposeLimits: true }),
      maxTokensPlugin({ n: GRAPHQL_LIMITS.tokens, exposeLimits: true }),
      costLimitPlugin({ maxCost: GRAPHQL_LIMITS.cost, exposeLimits: true }),
    ],
  });
}

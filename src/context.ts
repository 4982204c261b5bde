// What every resolver and REST handler receives: who is calling and the shared resources.
import type { Principal } from './auth/principal.js';
import type { Config } from './config.js';
import type { Prisma } from './db/database.js';
import { AppError } from './errors.js';
import type { FieldGuard } from './graphql/field-rate-limit.js';
import type { StreamPosition } from './graphql/sse-event-ids.js';
import type { AppPubSub } from './redis/pubsub.js';

export interface AppContext {
  prisma: Prisma;
  config: Config;
  principal: Principal;
  requestId: string;
  /** Per-field budgets of costly GraphQL fields (unused by REST). */
  fieldGuard?: FieldGuard;
  /** Presence changes and committed events for GraphQL subscriptions (src/redis/pubsub.ts). */
  pubsub?: AppPubSub;
  /** GraphQL over SSE: the `Last-Event-ID` resent, and each payload's event id (src/graphql/sse-event-ids.ts). */
  stream?: StreamPosition;
}

/** The app-wide members of the context: what each transport hands to `requestContext`. */
export interface ContextDeps {
  prisma: Prisma;
  config: Config;
  fieldGuard?: FieldGuard;
  pubsub?: AppPubSub;
}

/**
 * The context of one request, for REST handlers and GraphQL resolvers alike: a new member is added
 * here once. The request gate has authenticated every API request before this runs; a request
 * without a principal is refused rather than served anonymously.
 */
export function requestContext(
  deps: ContextDeps,
  request: { principal: Principal | null; id: string },
): AppContext {
  const principal = request.principal;
  if (!principal) throw new AppError('UNAUTHENTICATED');
  return {
    prisma: deps.prisma,
    config: deps.config,
    principal,
    requestId: request.id,
    ...(deps.fieldGuard ? { fieldGuard: deps.fieldGuard } : {}),
    ...(deps.pubsub ? { pubsub: deps.pubsub } : {}),
  };
}

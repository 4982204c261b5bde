// What every resolver and REST handler receives: who is calling and the shared resources.
import type { Principal } from './auth/principal.js';
import type { Config } from './config.js';
import type { Prisma } from './db/database.js';
import type { FieldGuard } from './graphql/field-rate-limit.js';
import type { PresencePubSub } from './modules/presence/presence.pubsub.js';

export interface AppContext {
  prisma: Prisma;
  config: Config;
  principal: Principal;
  requestId: string;
  /** Per-field budgets of costly GraphQL fields (unused by REST). */
  fieldGuard?: FieldGuard;
  /** Presence changes for GraphQL subscriptions (published by the ingest). */
  pubsub?: PresencePubSub;
}

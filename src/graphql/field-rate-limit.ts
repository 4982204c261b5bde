// graphql-rate-limit guards costly fields on top of the per-token request budget: a field named in
// FIELD_LIMITS may run at most `max` times per `window` for one token. Calls are counted in memory,
// or in Redis when REDIS_URL is set (its RedisStore speaks the callback API ioredis also offers).
import type { GraphQLResolveInfo } from 'graphql';
import { getGraphQLRateLimiter, InMemoryStore, RedisStore, type Store } from 'graphql-rate-limit';
import { Redis } from 'ioredis';
import { AppError } from '../errors.js';

/** The costly fields and their budgets per token. */
export const FIELD_LIMITS = {
  createLocation: { max: 30, window: '1m' },
  updateLocation: { max: 60, window: '1m' },
  generateAccessCodes: { max: 30, window: '1m' },
  createGuest: { max: 30, window: '1m' },
  updateGuest: { max: 60, window: '1m' },
} as const satisfies Record<string, { max: number; window: string }>;

export type GuardedField = keyof typeof FIELD_LIMITS;

export interface FieldGuard {
  check(field: GuardedField, tokenId: string, info: GraphQLResolveInfo): Promise<void>;
  close(): Promise<void>;
}

export function createFieldGuard(redisUrl: string | undefined): FieldGuard {
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 2000 }) : undefined;
  const store: Store = redis ? new RedisStore(redis) : new InMemoryStore();
  const limiter = getGraphQLRateLimiter({
    store,
    identifyContext: (ctx: { tokenId: string }) => ctx.tokenId,
    formatError: ({ fieldName, max }) =>
      `Too Many Attempts: ${fieldName} may be called ${max} times a minute.`,
  });
  return {
    async check(field, tokenId, info) {
      const message = await limiter(
        { parent: undefined, args: {}, context: { tokenId }, info },
        FIELD_LIMITS[field],
      );
      if (message) throw new AppError('RATE_LIMITED', { message });
    },
    async close() {
      await redis?.quit();
    },
  };
}

// graphql-rate-limit guards costly fields on top of the per-token request budget: a field named in
// FIELD_LIMITS may run at most `max` times per `window` for one token. Calls are counted in memory,
// or in Redis when REDIS_URL is set (its RedisStore speaks the callback API ioredis also offers),
// in memory again while Redis is away.
import type { GraphQLResolveInfo } from 'graphql';
import { getGraphQLRateLimiter, InMemoryStore, RedisStore, Store } from 'graphql-rate-limit';
import { AppError } from '../errors.js';
import type { RedisLink } from '../redis/redis.js';

/** The costly fields and their budgets per token. */
export const FIELD_LIMITS = {
  createLocation: { max: 30, window: '1m' },
  updateLocation: { max: 60, window: '1m' },
  generateAccessCodes: { max: 30, window: '1m' },
  createGuest: { max: 30, window: '1m' },
  updateGuest: { max: 60, window: '1m' },
  importGuests: { max: 10, window: '1m' },
} as const satisfies Record<string, { max: number; window: string }>;

export type GuardedField = keyof typeof FIELD_LIMITS;

export interface FieldGuard {
  check(field: GuardedField, tokenId: string, info: GraphQLResolveInfo): Promise<void>;
}

type Identity = Parameters<Store['getForIdentity']>[0];

/** Redis while it answers, per-instance memory during an outage or when a command fails. */
class FallbackStore extends Store {
  private readonly shared: RedisStore;
  private readonly memory = new InMemoryStore();

  constructor(private readonly redis: RedisLink) {
    super();
    this.shared = new RedisStore(redis.client);
  }

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    if (this.redis.down) return this.memory.getForIdentity(identity);
    return this.shared.getForIdentity(identity).catch(() => this.memory.getForIdentity(identity));
  }

  async setForIdentity(identity: Identity, timestamps: readonly number[], windowMs?: number): Promise<void> {
    if (this.redis.down) return this.memory.setForIdentity(identity, timestamps);
    return this.shared
      .setForIdentity(identity, timestamps, windowMs)
      .catch(() => this.memory.setForIdentity(identity, timestamps));
  }
}

export function createFieldGuard(redis: RedisLink | undefined): FieldGuard {
  const store: Store = redis ? new FallbackStore(redis) : new InMemoryStore();
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
  };
}

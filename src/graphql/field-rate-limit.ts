// graphql-rate-limit guards costly fields on top of the per-token request budget: a field named in
// FIELD_LIMITS may run at most `max` times per `window` for one token. Its stores read the calls,
// then write them back, two steps that calls made at once interleave (40 concurrent createGuest
// calls with one token passed a budget of 30, across instances and within one). So the store here
// counts the call in the read itself, atomically: in memory within one step of the event loop, in
// Redis (REDIS_URL) with one script; the limiter's write is then a no-op. In memory again while
// Redis is away. The limiter is loaded at the first guarded call: importing graphql-rate-limit (and
// graphql-shield with it) costs about 110 ms of CPU, at every start.
import { randomBytes } from 'node:crypto';
import type { GraphQLResolveInfo } from 'graphql';
import type { Store } from 'graphql-rate-limit';
import { AppError } from '../errors.js';
import type { RedisLink } from '../redis/redis.js';

const MINUTE_MS = 60_000;

/** The costly fields and their budgets per token: `max` calls per `windowMs`. */
export const FIELD_LIMITS = {
  createLocation: { max: 30, windowMs: MINUTE_MS },
  updateLocation: { max: 60, windowMs: MINUTE_MS },
  generateAccessCodes: { max: 30, windowMs: MINUTE_MS },
  createGuest: { max: 30, windowMs: MINUTE_MS },
  updateGuest: { max: 60, windowMs: MINUTE_MS },
  importGuests: { max: 10, windowMs: MINUTE_MS },
} as const satisfies Record<string, { max: number; windowMs: number }>;

export type GuardedField = keyof typeof FIELD_LIMITS;

export interface FieldGuard {
  check(field: GuardedField, tokenId: string, info: GraphQLResolveInfo): Promise<void>;
}

type Identity = Parameters<Store['getForIdentity']>[0];
type Limiter = ReturnType<typeof import('graphql-rate-limit')['getGraphQLRateLimiter']>;

/** The field's window in ms (the limiter's field identity is the field's name: no identity args). */
function windowOf(identity: Identity): number {
  const limit = FIELD_LIMITS[identity.fieldIdentity as GuardedField];
  if (!limit) throw new Error(`No budget for the field ${identity.fieldIdentity} (FIELD_LIMITS).`);
  return limit.windowMs;
}

/**
 * The calls of one token to one field within its window, this call counted in the same step: the
 * limiter decides on the calls before it (as many as `max` pass), and its write changes nothing.
 * Refused calls count too, as graphql-rate-limit counts them.
 */
class CountingMemoryStore implements Store {
  private readonly calls = new Map<string, number[]>();

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    return this.count(identity, Date.now());
  }

  count(identity: Identity, now: number): number[] {
    const key = `${identity.contextIdentity}\n${identity.fieldIdentity}`;
    const since = now - windowOf(identity);
    const before = (this.calls.get(key) ?? []).filter((t) => t > since);
    this.calls.set(key, [...before, now]);
    // Expired keys go when their token calls again; a sweep keeps idle ones from piling up.
    if (this.calls.size > 10_000) {
      for (const [k, times] of this.calls) if (!times.some((t) => t > since)) this.calls.delete(k);
    }
    return before;
  }

  async setForIdentity(): Promise<void> {}
}

/** The same count in Redis: a sorted set per token and field, trimmed, read and added to at once. */
const COUNT_CALL = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
local before = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return before`;

/** Redis while it answers, per-instance memory during an outage or when a command fails. */
class FallbackStore implements Store {
  private readonly memory = new CountingMemoryStore();

  constructor(private readonly redis: RedisLink) {}

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    const now = Date.now();
    if (this.redis.down) return this.memory.count(identity, now);
    const key = `field-budget:${identity.fieldIdentity}:${identity.contextIdentity}`;
    const member = `${now}:${randomBytes(6).toString('hex')}`;
    try {
      const pairs = (await this.redis.client.eval(
        COUNT_CALL,
        1,
        key,
        String(now),
        String(windowOf(identity)),
        member,
      )) as string[];
      // Member, score, member, score…: the scores are the calls' times.
      return pairs.filter((_, i) => i % 2 === 1).map(Number);
    } catch {
      return this.memory.count(identity, now);
    }
  }

  async setForIdentity(): Promise<void> {}
}

export function createFieldGuard(redis: RedisLink | undefined): FieldGuard {
  const store: Store = redis ? new FallbackStore(redis) : new CountingMemoryStore();
  let loaded: Promise<Limiter> | undefined;
  const limiterOnFirstUse = (): Promise<Limiter> =>
    (loaded ??= import('graphql-rate-limit').then(({ getGraphQLRateLimiter }) =>
      getGraphQLRateLimiter({
        store,
        identifyContext: (ctx: { tokenId: string }) => ctx.tokenId,
        formatError: ({ fieldName, max }) =>
          `Too Many Attempts: ${fieldName} may be called ${max} times a minute.`,
      }),
    ));
  return {
    async check(field, tokenId, info) {
      const limiter = await limiterOnFirstUse();
      const message = await limiter(
        // Counted under the guarded field's name, whatever called it.
        { parent: undefined, args: {}, context: { tokenId }, info: { ...info, fieldName: field } },
        // The limiter reads its window with `ms`, which takes `60000ms`.
        { max: FIELD_LIMITS[field].max, window: `${FIELD_LIMITS[field].windowMs}ms` },
      );
      if (message) throw new AppError('RATE_LIMITED', { message });
    },
  };
}

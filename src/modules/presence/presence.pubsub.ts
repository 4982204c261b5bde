// Presence changes fan out to GraphQL subscribers: in memory within one process, through Redis
// (REDIS_URL) across every instance, so an ingest call on one instance reaches subscribers of all.
// While Redis is away publications are lost (best effort) and subscribers stay open; the channels
// are subscribed again when it returns (src/redis/redis.ts).
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, Repeater } from 'graphql-yoga';
import type { RedisLink } from '../../redis/redis.js';

/** Which devices changed at one location of one tenant (ids only: subscribers load what they may see). */
export interface PresenceChange {
  tenantId: string;
  locationId: string;
  macs: string[];
  /** ISO time of the publication. */
  at: string;
}

type Channels = { presenceChanged: [topic: string, payload: PresenceChange] };

export type PresencePubSub = ReturnType<typeof createPubSub<Channels>>;

export const presenceTopic = (tenantId: string, locationId: string): string => `${tenantId}:${locationId}`;

/**
 * A pubsub whose subscriptions all end (their iterators return, so an SSE stream sends its final
 * `complete` event) once `ending` resolves: a shutdown must not wait for subscribers to leave.
 */
function endingWith(inner: PresencePubSub, ending: Promise<void>): PresencePubSub {
  return {
    publish: inner.publish,
    // The one channel, typed as the generic method it stands for.
    subscribe: ((channel: 'presenceChanged', topic: string) =>
      Repeater.race([inner.subscribe(channel, topic), ending])) as PresencePubSub['subscribe'],
  };
}

/** In memory without Redis; through Redis on the link's command client and its subscriber. */
export function createPresencePubSub(redis: RedisLink | undefined): {
  pubsub: PresencePubSub;
  /** Ends every open subscription and any opened later (shutdown). */
  endSubscriptions(): void;
} {
  let endSubscriptions = () => {};
  const ending = new Promise<void>((resolve) => {
    endSubscriptions = resolve;
  });
  const inner = redis
    ? createPubSub<Channels>({
        eventTarget: createRedisEventTarget<CustomEvent>({
          publishClient: redis.client,
          subscribeClient: redis.subscriber(),
        }),
      })
    : createPubSub<Channels>();
  return { pubsub: endingWith(inner, ending), endSubscriptions };
}

/** Publishes one change per location (best effort: a failed publication never fails the ingest). */
export function publishPresence(
  pubsub: PresencePubSub | undefined,
  tenantId: string,
  byLocation: Map<string, Set<string>>,
): void {
  if (!pubsub) return;
  const at = new Date().toISOString();
  for (const [locationId, macs] of byLocation) {
    try {
      pubsub.publish('presenceChanged', presenceTopic(tenantId, locationId), {
        tenantId,
        locationId,
        macs: [...macs].sort(),
        at,
      });
    } catch {
      // Subscribers miss one update; the data is committed and readable. (A failed PUBLISH rejects
      // asynchronously and is absorbed by the Redis client: see src/redis/redis.ts.)
    }
  }
}

// Presence changes fan out to GraphQL subscribers: in memory within one process, through Redis
// (REDIS_URL) across every instance, so an ingest call on one instance reaches subscribers of all.
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, Repeater } from 'graphql-yoga';
import { Redis } from 'ioredis';

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

export function createPresencePubSub(redisUrl: string | undefined): {
  pubsub: PresencePubSub;
  /** Ends every open subscription and any opened later (shutdown). */
  endSubscriptions(): void;
  close(): Promise<void>;
} {
  let endSubscriptions = () => {};
  const ending = new Promise<void>((resolve) => {
    endSubscriptions = resolve;
  });
  if (!redisUrl) {
    return { pubsub: endingWith(createPubSub<Channels>(), ending), endSubscriptions, close: async () => {} };
  }
  const publishClient = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });
  const subscribeClient = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });
  const eventTarget = createRedisEventTarget<CustomEvent>({ publishClient, subscribeClient });
  return {
    pubsub: endingWith(createPubSub<Channels>({ eventTarget }), ending),
    endSubscriptions,
    async close() {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
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
      // Redis down: subscribers miss one update; the data is committed and readable.
    }
  }
}

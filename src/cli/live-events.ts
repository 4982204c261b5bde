// The admin CLI's committed events, published through Redis as a server publishes its own
// (src/app.ts): the servers' live readers (`Subscription.events`, presence) hear of a command's
// writes at once instead of at their next poll of the log. Best effort, as a server's: with Redis
// away the notices are dropped and the readers find the events in the table.
import { publishCommitted } from '../events/feed.js';
import { onEventsCommitted } from '../events/outbox.js';
import { createAppPubSub } from '../redis/pubsub.js';
import { connectRedis } from '../redis/redis.js';

/** Publishes this process's committed events on `redisUrl` until closed (closing sends what is queued). */
export function publishEventsThroughRedis(redisUrl: string): { close(): Promise<void> } {
  const redis = connectRedis(redisUrl);
  const live = createAppPubSub(redis);
  const stop = onEventsCommitted((events) => publishCommitted(live.pubsub, events));
  return {
    async close() {
      stop();
      live.endSubscriptions();
      await redis.close();
    },
  };
}

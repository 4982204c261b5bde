// The app's one publish/subscribe: presence changes (src/modules/presence/presence.pubsub.ts) and
// committed events (src/events/feed.ts) fan out in memory within one process, through Redis
// (REDIS_URL) across every instance, so a write on one instance reaches subscribers of all. While
// Redis is away publications are lost (best effort: readers of the event log find what they missed
// in the table) and subscribers stay open; the channels are subscribed again when it returns
// (src/redis/redis.ts).
import { setMaxListeners } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, Repeater } from 'graphql-yoga';
import type { EventNotice } from '../events/feed.js';
import type { PresenceChange } from '../modules/presence/presence.pubsub.js';
import type { RedisLink } from './redis.js';

/** Each channel, its topic and payload (JSON: it crosses Redis, so ids are strings). */
export type Channels = {
  /** Topic `<tenant>:<location>`. */
  presenceChanged: [topic: string, payload: PresenceChange];
  /** Topic `<tenant>`. */
  eventsCommitted: [topic: string, payload: EventNotice];
};

type Inner = ReturnType<typeof createPubSub<Channels>>;
type Channel = keyof Channels;

/** A listener on one topic (see AppPubSub.listen). */
export interface Listening {
  /**
   * Resolves once what is published from now on, on any instance, reaches the listener: at once in
   * memory, after Redis acknowledged the SUBSCRIBE with Redis (or after 2 s while it is away).
   */
  readonly ready: Promise<void>;
  close(): void;
}

export interface AppPubSub {
  publish: Inner['publish'];
  /** An async iterator of a topic's payloads, ended on shutdown. */
  subscribe: Inner['subscribe'];
  /**
   * A callback on a topic's payloads, for a reader that must know when it is listening before it
   * reads what it missed (a resumed subscription); closed by its owner.
   */
  listen<C extends Channel>(
    channel: C,
    topic: string,
    onMessage: (payload: Channels[C][1]) => void,
  ): Listening;
  /** Resolves on shutdown: long-lived readers end then. */
  readonly ending: Promise<void>;
}

/** How long `ready` waits for Redis to acknowledge a SUBSCRIBE: a reader goes on without it after. */
const SUBSCRIBE_WAIT_MS = 2_000;

/** In memory without Redis; through Redis on the link's command client and its subscriber. */
export function createAppPubSub(redis: RedisLink | undefined): {
  pubsub: AppPubSub;
  /** Ends every open subscription and any opened later (shutdown). */
  endSubscriptions(): void;
} {
  let endSubscriptions = () => {};
  const ending = new Promise<void>((resolve) => {
    endSubscriptions = resolve;
  });
  const target = redis
    ? createRedisEventTarget<CustomEvent>({
        publishClient: redis.client,
        subscribeClient: redis.subscriber(),
      })
    : new EventTarget();
  // Many readers of one topic (a location's dashboards, a tenant's event readers) are ordinary use:
  // Node's warning past 10 listeners would name a leak in the server's log. (Redis's target keeps
  // its own sets and never warns.)
  if (target instanceof EventTarget) setMaxListeners(0, target);
  const inner = createPubSub<Channels>({ eventTarget: target });
  const pubsub: AppPubSub = {
    publish: inner.publish,
    // Subscriptions all end (their iterators return, so an SSE stream sends its final `complete`
    // event) once `ending` resolves: a shutdown must not wait for subscribers to leave.
    subscribe: ((channel: Channel, topic: string) =>
      Repeater.race([inner.subscribe(channel, topic), ending])) as Inner['subscribe'],
    listen(channel, topic, onMessage) {
      // The name createPubSub gives a channel's topic, on the same target.
      const name = `${channel}:${topic}`;
      const listener = (event: Event) => onMessage((event as CustomEvent).detail);
      target.addEventListener(name, listener);
      let ready: Promise<void> = Promise.resolve();
      if (redis) {
        // The target sent its SUBSCRIBE on this connection if the topic was new; one more for the
        // same channel changes nothing but is answered after it: its answer means both are in force.
        const acknowledged = redis
          .subscriber()
          .subscribe(name)
          .then(
            () => {},
            () => {},
          );
        ready = Promise.race([
          acknowledged,
          new Promise<void>((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref()),
        ]);
      }
      return { ready, close: () => target.removeEventListener(name, listener) };
    },
    ending,
  };
  return { pubsub, endSubscriptions };
}

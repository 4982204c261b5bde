// Presence changes fan out to GraphQL subscribers on the app's pubsub (src/redis/pubsub.ts): in
// memory within one process, through Redis across every instance, so an ingest call (or the event
// sweeper's leave by timeout) on one instance reaches subscribers of all.
import type { EventSpan } from '../../events/outbox.js';
import type { AppPubSub } from '../../redis/pubsub.js';

/** Which devices changed at one location of one tenant (ids only: subscribers load what they may see). */
export interface PresenceChange {
  tenantId: string;
  locationId: string;
  macs: string[];
  /** ISO time of the publication. */
  at: string;
  /**
   * The tenant's event log position of the change: the highest event id its transaction recorded
   * (decimal text), null when it recorded none (a device seen again where it was).
   */
  eventId: string | null;
  /**
   * The lowest event id of that transaction (its ids are consecutive): a subscriber that has sent
   * everything up to the one before it has no gap to read from the log (presence.resume.ts).
   */
  firstEventId: string | null;
}

export const presenceTopic = (tenantId: string, locationId: string): string => `${tenantId}:${locationId}`;

/** Publishes one change per location (best effort: a failed publication never fails the ingest). */
export function publishPresence(
  pubsub: AppPubSub | undefined,
  tenantId: string,
  byLocation: Map<string, Set<string>>,
  span: EventSpan | null,
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
        eventId: span === null ? null : String(span.last),
        firstEventId: span === null ? null : String(span.first),
      });
    } catch {
      // Subscribers miss one update; the data is committed and readable. (A failed PUBLISH rejects
      // asynchronously and is absorbed by the Redis client: see src/redis/redis.ts.)
    }
  }
}

// `presenceChanged` resumed after an event id: one change naming the devices whose entries and
// leaves at the location the log holds after that id (what the subscriber missed), then the live
// changes, less those the first already covers. Listening starts before the log is read, so a change
// committed meanwhile is either in the first change or comes after it.
import { Repeater } from 'graphql-yoga';
import type { Prisma } from '../../db/database.js';
import { typesOf } from '../../events/event-types.js';
import type { AppPubSub } from '../../redis/pubsub.js';
import { type PresenceChange, presenceTopic } from './presence.pubsub.js';

/** Live changes kept for a slow subscriber before the oldest are dropped (as a lost publication). */
const MAX_BUFFERED = 1_000;

/** Entries and leaves of zones and locations. */
const PRESENCE_TYPES = typesOf('presence');

// One snapshot: the tenant's last id, and the MACs of the location's presence events up to it (an
// erased guest's are empty).
const MISSED_SQL = `SELECT s."lastId" AS "through", coalesce((
    SELECT array_agg(DISTINCT e."payload"->>'mac' ORDER BY e."payload"->>'mac') FROM "Event" e
    WHERE e."tenantId" = $1 AND e."type" = ANY($2::text[]) AND e."id" > $3::bigint AND e."id" <= s."lastId"
      AND e."payload"->>'location_id' = $4 AND coalesce(e."payload"->>'mac', '') <> ''
  ), '{}'::text[]) AS "macs"
FROM (SELECT coalesce((SELECT "lastId" FROM "EventSequence" WHERE "tenantId" = $1), 0)::bigint AS "lastId") s`;

/** The devices that entered or left the location after `after`, and the log position read through. */
export async function presenceSince(
  prisma: Prisma,
  tenantId: string,
  locationId: string,
  after: bigint,
): Promise<{ macs: string[]; through: bigint }> {
  const [row] = await prisma.$queryRawUnsafe<{ through: bigint; macs: string[] }[]>(
    MISSED_SQL,
    tenantId,
    PRESENCE_TYPES,
    after.toString(),
    locationId,
  );
  return { macs: row?.macs ?? [], through: BigInt(row?.through ?? 0) };
}

/** The changes at one location after log position `after` (see the header); ends on shutdown. */
export function resumePresence(opts: {
  prisma: Prisma;
  pubsub: AppPubSub;
  tenantId: string;
  locationId: string;
  after: bigint;
}): AsyncIterableIterator<PresenceChange> {
  const { prisma, pubsub, tenantId, locationId, after } = opts;
  return new Repeater<PresenceChange>(async (push, stop) => {
    let stopped = false;
    void Promise.race([stop, pubsub.ending]).then(() => {
      stopped = true;
      stop();
    });
    const buffered: PresenceChange[] = [];
    let wake: (() => void) | null = null;
    const listening = pubsub.listen('presenceChanged', presenceTopic(tenantId, locationId), (change) => {
      if (buffered.length >= MAX_BUFFERED) buffered.shift();
      buffered.push(change);
      wake?.();
    });
    void stop.then(() => listening.close());
    await Promise.race([listening.ready, stop]);
    if (stopped) return;

    const missed = await presenceSince(prisma, tenantId, locationId, after);
    if (stopped) return;
    if (missed.macs.length > 0) {
      await push({
        tenantId,
        locationId,
        macs: missed.macs,
        at: new Date().toISOString(),
        eventId: String(missed.through),
      });
    }
    while (!stopped) {
      const change = buffered.shift();
      if (change) {
        // Written at or before the position read: the first change has it (or it was no entry or leave).
        if (change.eventId !== null && BigInt(change.eventId) <= missed.through) continue;
        await push(change);
        continue;
      }
      await Promise.race([
        new Promise<void>((resolve) => {
          wake = resolve;
        }),
        stop,
      ]);
      wake = null;
    }
  });
}

// `presenceChanged` as a subscriber gets it, live or resumed after an event id: with `after`, first one
// change naming the devices whose entries and leaves at the location the log holds after that id
// (what the subscriber missed); then the live changes in log order. Listening starts before the log
// is read, so a change committed meanwhile is either in the first change or comes after it. Changes
// published by several instances arrive in any order (probe R: 2285 before 2283), while ids become
// visible in commit order: a change whose ids do not follow the last position sent first reads the
// entries and leaves in between from the log and names them too, and one at or before that position
// (covered by such a read) names its devices under that position. So each change's `eventId` is a
// point to resume from: every entry and leave up to it has been named, and ids never go back.
import { Repeater } from 'graphql-yoga';
import type { Prisma } from '../../db/database.js';
import { typesOf } from '../../events/event-types.js';
import type { AppPubSub } from '../../redis/pubsub.js';
import { SingleFlight } from '../../shared/single-flight.js';
import { type PresenceChange, presenceTopic } from './presence.pubsub.js';

/** Live changes kept for a slow subscriber before the oldest are dropped (as a lost publication). */
const MAX_BUFFERED = 1_000;

/** Entries and leaves of zones and locations. */
const PRESENCE_TYPES = typesOf('presence');

// One snapshot: the tenant's last id, and the MACs of the location's presence events up to it (an
// erased guest's are empty).
// `$3` null: from the last id (nothing missed, only the position); `$5`: read through that id, not the last.
const MISSED_SQL = `SELECT s."lastId" AS "through", coalesce((
    SELECT array_agg(DISTINCT e."payload"->>'mac' ORDER BY e."payload"->>'mac') FROM "Event" e
    WHERE e."tenantId" = $1 AND e."type" = ANY($2::text[]) AND e."id" > coalesce($3::bigint, s."lastId")
      AND e."id" <= s."lastId" AND e."payload"->>'location_id' = $4 AND coalesce(e."payload"->>'mac', '') <> ''
  ), '{}'::text[]) AS "macs"
FROM (SELECT coalesce($5::bigint,
  (SELECT "lastId" FROM "EventSequence" WHERE "tenantId" = $1), 0)::bigint AS "lastId") s`;

/**
 * The devices that entered or left the location after `after` (null: none, only the position) up
 * to `through` (default: the log's last id), and the position read through.
 */
export async function presenceSince(
  prisma: Prisma,
  tenantId: string,
  locationId: string,
  after: bigint | null,
  through?: bigint,
): Promise<{ macs: string[]; through: bigint }> {
  const [row] = await prisma.$queryRawUnsafe<{ through: bigint; macs: string[] }[]>(
    MISSED_SQL,
    tenantId,
    PRESENCE_TYPES,
    after === null ? null : after.toString(),
    locationId,
    through === undefined ? null : through.toString(),
  );
  return { macs: row?.macs ?? [], through: BigInt(row?.through ?? 0) };
}

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])].sort();

/** The log's entries and leaves in a gap, read once however many subscribers ask at the same time. */
const gapReads = new SingleFlight<{ macs: string[]; through: bigint }>();

/**
 * The changes at one location after log position `after` (null: from now, live), in log order (see
 * the header); ends on shutdown.
 */
export function followPresence(opts: {
  prisma: Prisma;
  pubsub: AppPubSub;
  tenantId: string;
  locationId: string;
  after: bigint | null;
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
        firstEventId: null,
      });
    }
    /** Every entry and leave here up to this id has been named. */
    let sent = missed.through;
    while (!stopped) {
      const change = buffered.shift();
      if (change) {
        // No log position (a device seen again where it was): nothing to order it by.
        if (change.eventId === null) {
          await push(change);
          continue;
        }
        const last = BigInt(change.eventId);
        if (last <= sent) {
          // Its entries and leaves were named already (by a read of the log); its other devices
          // (moved within a zone, connected) are named again under the position sent.
          if (after === null || last > missed.through)
            await push({ ...change, eventId: String(sent), firstEventId: null });
          continue;
        }
        const first = change.firstEventId === null ? last : BigInt(change.firstEventId);
        let macs = change.macs;
        if (first > sent + 1n) {
          // Ids in between whose changes have not come (another instance published them later, or a
          // publication was lost): their entries and leaves here, from the log, which has them.
          // One read for every subscriber of the location in this process: they hear the same
          // changes in the same order, so they ask for the same gap at once.
          const gap = await gapReads.run(`${tenantId}\u0000${locationId}\u0000${sent}\u0000${first}`, () =>
            presenceSince(prisma, tenantId, locationId, sent, first - 1n),
          );
          if (stopped) return;
          macs = union(gap.macs, macs);
        }
        await push({ ...change, macs });
        sent = last;
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

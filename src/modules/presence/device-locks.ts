// Writes about the same devices take turns. An ingest batch reads a device's state (its open visit,
// its current place, its open session) and writes what follows from it: two batches about the same
// MAC at once would both follow the same old state (a visit left twice, two open sessions), and an
// erasure running beside a batch would miss the rows the batch was writing with the real MAC. So
// such writes first take, in their transaction, PostgreSQL advisory locks on the MACs' buckets (a
// hash of the MAC, one of BUCKETS per tenant), in bucket order (no two writes can wait on each other
// in a circle); the timeout sweeper takes its quiet devices' buckets, a guest's erasure every bucket
// of its tenant. The locks are held to the commit.
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { normalizeMac } from './mac.js';

type Tx = PrismaNS.TransactionClient;

/**
 * Buckets per tenant: batches about different devices rarely share one, and a transaction holds at
 * most this many locks (PostgreSQL's lock table is sized per connection, 64 by default).
 */
export const BUCKETS = 32;

/** FNV-1a of the canonical MAC: spread enough over the buckets, and no digest per MAC of a batch. */
function bucketOf(mac: string): number {
  const text = normalizeMac(mac);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}

async function lockBuckets(tx: Tx, tenantId: string, buckets: number[]): Promise<void> {
  if (buckets.length === 0) return;
  // unnest reads the array in its order: the locks are taken in ascending bucket order.
  await tx.$queryRaw`SELECT count(pg_advisory_xact_lock(hashtext(${`devices:${tenantId}`}), b))::int AS n
    FROM unnest(${buckets}::int[]) AS b`;
}

/** Takes the turn of the devices `macs` (any notation) for the caller's transaction. */
export function lockDevices(tx: Tx, tenantId: string, macs: Iterable<string>): Promise<void> {
  const buckets = new Set<number>();
  for (const mac of macs) buckets.add(bucketOf(mac));
  return lockBuckets(
    tx,
    tenantId,
    [...buckets].sort((a, b) => a - b),
  );
}

/** Takes the turn of every device of the tenant (a guest's erasure: its devices, wherever they are written). */
export function lockAllDevices(tx: Tx, tenantId: string): Promise<void> {
  return lockBuckets(
    tx,
    tenantId,
    Array.from({ length: BUCKETS }, (_, b) => b),
  );
}

// Media files that must go (an erased guest's avatar, one replaced or removed) are named in the
// transaction of the change that lets them go, and removed from storage once it has committed. A
// storage outage then fails nothing already written (probe F: an erasure answered 503 after its
// commit, and the photo stayed public for good): the name stays, the media route serves no file so
// named, and a periodic pass of each instance retries (a removal is idempotent).
import type { Config } from '../config.js';
import type { Prisma } from '../db/database.js';
import { failureFields } from '../errors.js';
import type { Prisma as PrismaNS } from '../generated/prisma/client.js';
import { type PeriodicPass, periodicPass } from '../shared/periodic-pass.js';
import { avatarStorage } from './storage.js';

type Deps = { config: Config; prisma: Prisma };

/** Names a pass takes, oldest first. */
const PASS_SIZE = 100;

/** In the transaction that lets the files go: from its commit they are served no more. */
export async function markForRemoval(tx: PrismaNS.TransactionClient, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.fileRemoval.createMany({ data: keys.map((key) => ({ key })), skipDuplicates: true });
}

/**
 * After the commit: removes each file from storage, then its name. A file the storage could not
 * remove keeps its name for the next pass, and is not an error of the request that let it go.
 * Resolves to the keys left, and the first failure.
 */
export async function removeMarked(
  deps: Deps,
  keys: readonly string[],
): Promise<{ left: string[]; failure?: unknown }> {
  const storage = avatarStorage(deps);
  const left: string[] = [];
  let failure: unknown;
  for (const key of keys) {
    try {
      await storage.remove(key);
      await deps.prisma.fileRemoval.deleteMany({ where: { key } });
    } catch (err) {
      left.push(key);
      failure ??= err;
    }
  }
  return failure === undefined ? { left } : { left, failure };
}

/** Whether the file is to go (the media route answers 404 for it). */
export async function isMarkedForRemoval(prisma: Prisma, key: string): Promise<boolean> {
  return (await prisma.fileRemoval.count({ where: { key } })) > 0;
}

/** A file whose write was not committed (the upload came first): removed now, or named for the pass. */
export async function removeUncommitted(deps: Deps, key: string): Promise<void> {
  try {
    await avatarStorage(deps).remove(key);
  } catch {
    await deps.prisma.fileRemoval
      .createMany({ data: [{ key }], skipDuplicates: true })
      // Neither the storage nor the database: an orphan no row names, and no guest shows.
      .catch(() => {});
  }
}

export type FileRemovalPass = PeriodicPass<undefined, { removed: number; left: number }>;

/**
 * Every `intervalMs` (the server gives EVENT_SWEEP_SECONDS), the names a storage outage left, oldest
 * first, removed again: by each instance, as a removal is idempotent.
 */
export function startFileRemovals(
  deps: Deps & { log: { warn(obj: object, msg: string): void }; intervalMs: number },
): FileRemovalPass {
  return periodicPass({
    name: 'media',
    intervalMs: deps.intervalMs,
    busy: { removed: 0, left: 0 },
    log: deps.log,
    async pass(signal) {
      const rows = await deps.prisma.fileRemoval.findMany({
        select: { key: true },
        orderBy: { createdAt: 'asc' },
        take: PASS_SIZE,
      });
      if (signal.aborted || rows.length === 0) return { removed: 0, left: 0 };
      const { left, failure } = await removeMarked(
        deps,
        rows.map((r) => r.key),
      );
      if (left.length > 0) {
        deps.log.warn(
          { files: left.length, ...failureFields(failure) },
          'media: files to remove are still stored (the next pass retries)',
        );
      }
      return { removed: rows.length - left.length, left: left.length };
    },
  });
}

// The retention sweeper: every RETENTION_SWEEP_SECONDS (default 3600; 0 turns it off) the server
// applies every tenant's retention settings (retention.sweep.ts). Once across a fleet: a pass runs
// only under a PostgreSQL advisory lock (Database.tryExclusive), so of several instances one sweeps
// and the others skip that turn; on the embedded database the one process sweeps. Passes never
// overlap within a process (the next is timed from the end of the last), and closing stops a pass
// between two batches.

import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { failureFields } from '../../errors.js';
import { periodicPass } from '../../shared/periodic-pass.js';
import { anySettingOn, type RetentionSettingsView, settingsSelect } from './retention.service.js';
import {
  applyRetention,
  cutoffsOf,
  noCounts,
  RETENTION_KINDS,
  type RetentionCounts,
} from './retention.sweep.js';

/**
 * The advisory lock's key, shared by every instance and by `admin retention run`: the ASCII of "rete"
 * (Prisma's migrations take 72707369).
 */
export const RETENTION_LOCK_KEY = 0x72657465n;

/** The first pass comes this long after the start (or one interval, when shorter). */
const FIRST_PASS_MS = 60_000;

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export type SweepOutcome =
  | { swept: false }
  | { swept: true; tenants: number; counts: RetentionCounts; failures: number };

export interface RetentionSweeper {
  /**
   * One pass now (the periodic ones call it too): `{ swept: false }` when another instance holds the
   * lock, or when a pass already runs in this process (which this one then waited for).
   */
  sweep(): Promise<SweepOutcome>;
  /** Stops the timer and a running pass (after its current batch), and waits for it. */
  close(): Promise<void>;
}

const settingsColumns = { tenantId: true, ...settingsSelect } as const;

export function startRetentionSweeper(deps: {
  db: Database;
  config: Config;
  log: Log;
  /** Between passes; 0: no periodic passes (sweep() still runs one). */
  intervalMs: number;
}): RetentionSweeper {
  const { db, config, log, intervalMs } = deps;

  const pass = async (signal: AbortSignal): Promise<SweepOutcome> => {
    const started = Date.now();
    const held = await db.tryExclusive(RETENTION_LOCK_KEY, async () => {
      const rows: (RetentionSettingsView & { tenantId: string })[] =
        await db.prisma.retentionSettings.findMany({
          select: settingsColumns,
          orderBy: { tenantId: 'asc' },
        });
      const counts = noCounts();
      let tenants = 0;
      let failures = 0;
      for (const row of rows) {
        if (signal.aborted) break;
        if (!anySettingOn(row)) continue;
        tenants++;
        try {
          const done = await applyRetention(
            { prisma: db.prisma, config },
            row.tenantId,
            cutoffsOf(row, new Date()),
            {
              signal,
              onGuestError: (guestId, err) => {
                failures++;
                log.warn(
                  { err, tenantId: row.tenantId, guestId },
                  'retention: could not anonymise a guest (next pass tries again)',
                );
              },
            },
          );
          for (const kind of RETENTION_KINDS) counts[kind] += done[kind];
          counts.events += done.events;
        } catch (err) {
          // One tenant's failure (the database away) does not stop the others; the next pass retries.
          failures++;
          log.warn(
            { ...failureFields(err), tenantId: row.tenantId },
            'retention: the pass failed for a tenant',
          );
        }
      }
      return { tenants, counts, failures };
    });
    if (!held.acquired) {
      log.debug({}, 'retention: another instance is sweeping; skipped');
      return { swept: false };
    }
    const { tenants, counts, failures } = held.value;
    const removed = counts.events > 0 || RETENTION_KINDS.some((k) => counts[k] > 0);
    if (removed || failures > 0)
      log.info({ tenants, ...counts, failures, ms: Date.now() - started }, 'retention: sweep done');
    return { swept: true, ...held.value };
  };

  const job = periodicPass({
    name: 'retention',
    intervalMs,
    firstDelayMs: Math.min(intervalMs, FIRST_PASS_MS),
    busy: { swept: false } as const,
    log,
    pass,
  });
  return { sweep: () => job.run(), close: job.close };
}

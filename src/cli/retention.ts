// `admin retention run --tenant ID [--dry-run]`: applies one tenant's retention settings now, as the
// server's sweeper does (src/modules/retention/), and says what went: inactive guests anonymised,
// presence records, location logs and guest sessions deleted, and the events copying those rows
// deleted from the event log with them. `--dry-run` counts what would go and
// changes nothing. A progress bar on stderr while it works; a plain summary on stdout.
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import {
  anySettingOn,
  type RetentionSettingsView,
  retentionSettingsOf,
} from '../modules/retention/retention.service.js';
import {
  applyRetention,
  copiesAnyEvents,
  countRetention,
  cutoffsOf,
  noCounts,
  RETENTION_KINDS,
  type RetentionCounts,
  type RetentionCutoffs,
  type RetentionKind,
} from '../modules/retention/retention.sweep.js';
import { RETENTION_LOCK_KEY } from '../modules/retention/retention.sweeper.js';
import { type ProgressStream, progressBar } from './progress-bar.js';

/** Another pass holds the retention lock (a server's sweeper, another `admin retention run`). */
export class RetentionBusyError extends Error {}

/** How each kind is named in the summary and on the bar. */
const NAMES: Record<RetentionKind, { what: string; done: string; would: string }> = {
  inactive_guests: { what: 'inactive guests', done: 'anonymised', would: 'to anonymise' },
  presence_records: { what: 'presence records', done: 'deleted', would: 'to delete' },
  location_logs: { what: 'location logs', done: 'deleted', would: 'to delete' },
  guest_sessions: { what: 'guest sessions', done: 'deleted', would: 'to delete' },
};

/** The setting behind each kind, for the summary: `13 months`, `30 days`. */
function settingText(s: RetentionSettingsView, kind: RetentionKind): string | null {
  const days = (n: number | null) => (n === null ? null : `${n} ${n === 1 ? 'day' : 'days'}`);
  switch (kind) {
    case 'inactive_guests': {
      const n = s.anonymizeInactiveGuestsAfterMonths;
      return n === null ? null : `${n} ${n === 1 ? 'month' : 'months'}`;
    }
    case 'presence_records':
      return days(s.deletePresenceRecordsAfterDays);
    case 'location_logs':
      return days(s.deleteLocationLogsAfterDays);
    case 'guest_sessions':
      return days(s.deleteGuestSessionsAfterDays);
  }
}

/** `2026-11-25 02:44 UTC`. */
const minute = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * What the command prints with --json: the counts per kind (null: that setting is off), and `events`:
 * the event-log copies of the deleted rows (null: no setting on deletes rows the log copies).
 */
export type RetentionRunResult = { tenant_id: string; dry_run: boolean } & Record<
  RetentionKind,
  number | null
> & { events: number | null };

function summary(
  tenantId: string,
  dryRun: boolean,
  settings: RetentionSettingsView,
  cutoffs: RetentionCutoffs,
  counts: RetentionCounts,
): { result: RetentionRunResult; text: string } {
  const result: RetentionRunResult = {
    tenant_id: tenantId,
    dry_run: dryRun,
    inactive_guests: null,
    presence_records: null,
    location_logs: null,
    guest_sessions: null,
    events: null,
  };
  const rows: [string, string][] = [];
  for (const kind of RETENTION_KINDS) {
    const cutoff = cutoffs[kind];
    const setting = settingText(settings, kind);
    const { what, done, would } = NAMES[kind];
    if (!cutoff || setting === null) {
      rows.push([`${what} (off)`, '-']);
      continue;
    }
    result[kind] = counts[kind];
    const when =
      kind === 'inactive_guests' ? `no activity since ${minute(cutoff)}` : `before ${minute(cutoff)}`;
    rows.push([`${what} ${dryRun ? would : done} (${setting}: ${when})`, String(counts[kind])]);
  }
  if (copiesAnyEvents(cutoffs)) {
    result.events = counts.events;
    rows.push([`their copies in the event log ${dryRun ? 'to delete' : 'deleted'}`, String(counts.events)]);
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  const head = dryRun
    ? `Dry run for tenant ${tenantId}: nothing was changed. What would go now:`
    : `Retention applied to tenant ${tenantId}:`;
  const text = [head, ...rows.map(([label, n]) => `  ${label.padEnd(width)}  ${n}`)].join('\n');
  return { result, text };
}

/** `2 inactive guests anonymised, 1000 presence records deleted, …`: what a stopped run removed. */
function removedSoFar(result: RetentionRunResult): string {
  const parts = RETENTION_KINDS.flatMap((kind) =>
    result[kind] === null ? [] : [`${result[kind]} ${NAMES[kind].what} ${NAMES[kind].done}`],
  );
  if (result.events !== null) parts.push(`${result.events} of their copies in the event log deleted`);
  return parts.join(', ');
}

/**
 * Runs the command for one tenant; null when there is no such tenant. The counts come first (the
 * bar's total; the dry run's answer); a real run then takes the fleet's retention lock, so it never
 * runs beside a server's sweeper (RetentionBusyError while one holds it). Once `signal` aborts (Ctrl-C),
 * a real run stops after the current batch, as the sweeper does when its server stops: `stopped`
 * then says what went so far (the rest goes at the next run).
 */
export async function runRetention(
  db: Database,
  config: Config,
  opts: {
    tenantId: string;
    dryRun: boolean;
    stderr: ProgressStream;
    now?: Date;
    signal?: AbortSignal;
    /** After each batch removed: what went so far, for a stop that cannot wait for the run's end. */
    onRemoved?: (soFar: { result: RetentionRunResult; said: string }) => void;
  },
): Promise<{ result: RetentionRunResult; text: string; stopped?: string } | null> {
  const { tenantId, dryRun, stderr } = opts;
  const tenant = await db.prisma.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
  if (!tenant) return null;
  const settings = await retentionSettingsOf(db.prisma, tenantId);
  const cutoffs = cutoffsOf(settings, opts.now ?? new Date());
  if (!anySettingOn(settings)) {
    // Said alone: a table of what was applied, every line `(off)`, would say the opposite first.
    const off = summary(tenantId, dryRun, settings, cutoffs, noCounts());
    return {
      result: off.result,
      text: `Every retention setting of tenant ${tenantId} is off: nothing to do.`,
    };
  }
  stderr.write('Counting what goes…\n');
  const counts = await countRetention(db.prisma, tenantId, cutoffs);
  if (dryRun) return summary(tenantId, true, settings, cutoffs, counts);

  const total = RETENTION_KINDS.reduce((sum, k) => sum + counts[k], 0);
  const bar = progressBar(stderr, total);
  let label = '';
  const held = await db.tryExclusive(RETENTION_LOCK_KEY, () =>
    applyRetention({ prisma: db.prisma, config }, tenantId, cutoffs, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      onProgress: (kind, n, soFar) => {
        label = `${NAMES[kind].what} ${NAMES[kind].done}`;
        bar.tick(n, label);
        const { result } = summary(tenantId, false, settings, cutoffs, soFar);
        opts.onRemoved?.({ result, said: removedSoFar(result) });
      },
    }),
  );
  if (!held.acquired) {
    throw new RetentionBusyError(
      'A retention pass is running now (a server’s sweeper, or another `admin retention run`); try again when it ends.',
    );
  }
  // Interrupted before its first batch, the bar says so, not that nothing was to go (probe F).
  bar.end(
    label || (opts.signal?.aborted && total > 0 ? 'stopped before removing anything' : 'nothing to remove'),
  );
  const done = summary(tenantId, false, settings, cutoffs, held.value);
  if (!opts.signal?.aborted) return done;
  const removed = RETENTION_KINDS.some((kind) => held.value[kind] > 0);
  return {
    ...done,
    stopped: removed
      ? `stopped after the current batch: ${removedSoFar(done.result)}; the rest goes at the next run.`
      : 'stopped before removing anything.',
  };
}

// Webhook delivery on one instance: the dispatcher (event log → delivery queue) and the worker
// (queue → receivers), woken by this process's committed events (`onEventsCommitted`) and by a poll
// every WEBHOOKS_POLL_MS for what other instances wrote and for retries come due. Every instance of
// a fleet runs the same loop; the database decides who does what (SKIP LOCKED). Nothing here may
// stop the server: each failure is logged in a plain sentence and the loop carries on.
import type { WebhookSettings } from '../config.js';
import type { Prisma } from '../db/database.js';
import { onEventsCommitted } from './outbox.js';
import { type DispatchSlots, dispatchTenant, tenantsBehind } from './webhook-dispatcher.js';
import { webhookConnections } from './webhook-sender.js';
import {
  afterRecorded,
  type ClaimedDelivery,
  claimDeliveries,
  type EndpointHealth,
  type MadeAttempt,
  makeAttempt,
  recordAttempts,
  type WorkerDeps,
  type WorkerLog,
} from './webhook-worker.js';

export interface WebhookDeliveryService {
  /** Looks for work now (tests; the poll does it every WEBHOOKS_POLL_MS). */
  poke(): void;
  /** Attempts running now. */
  inFlight(): number;
  /** Stops looking for work, lets the attempts in flight finish (each within WEBHOOKS_TIMEOUT_MS) and records them. */
  stop(): Promise<void>;
}

/**
 * How many of `slots` must be free (and not asked for by the claim under way) before a claim fills
 * them again: a quarter, so claims are few and large (1 of a handful).
 */
const refill = (slots: number): number => Math.ceil(slots / 4);

/** Attempts recorded per statement at most, and how long answers gather before a smaller batch. */
const RECORD_BATCH = 500;
const RECORD_GATHER_MS = 25;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** History older than WEBHOOKS_HISTORY_DAYS is deleted this often, in batches. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5_000;

export function startWebhookDelivery(deps: {
  prisma: Prisma;
  settings: WebhookSettings;
  log: WorkerLog;
  health: EndpointHealth;
}): WebhookDeliveryService {
  const { prisma, settings, log } = deps;
  const connections = webhookConnections({
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs,
    connections: settings.concurrency,
  });
  let stopped = false;

  // One line when the database starts failing the loop, one when it answers again.
  let failing: string | null = null;
  const failed = (what: string, err: unknown) => {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    if (failing === null) log.warn({ err }, `Webhook delivery: could not ${what} (${why}); trying again`);
    failing = what;
  };
  const succeeded = () => {
    if (failing !== null) log.info({}, 'Webhook delivery: the database answers again; delivery resumed');
    failing = null;
  };

  // ── Dispatcher: tenants with new events → deliveries ──────────────────────────────────────────
  /** Tenants that have a cursor (a webhook was created there): others need no dispatch. */
  const known = new Set<string>();
  const dirty = new Set<string>();
  let dispatching: Promise<void> | null = null;

  async function dispatchDirty(): Promise<void> {
    while (dirty.size > 0 && !stopped) {
      const [tenantId] = dirty;
      if (tenantId === undefined) break;
      dirty.delete(tenantId);
      try {
        for (let more = true; more && !stopped; ) more = await dispatchOnce(tenantId);
        succeeded();
      } catch (err) {
        failed('read the event log', err);
        // The poll dispatches the tenant again.
      }
    }
  }

  /**
   * One dispatch of the tenant's new events; while no claim is under way it is the claim (it takes
   * the free slots, and a claim asked for meanwhile follows it). Resolves to whether more is waiting.
   */
  async function dispatchOnce(tenantId: string): Promise<boolean> {
    const slots = claiming === null ? freeSlots() : null;
    if (slots === null) {
      const r = await dispatchTenant(prisma, tenantId);
      queuedFor(r.waiting);
      return r.more;
    }
    let claimed: () => void = () => {};
    claiming = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    asked = { total: slots.total, of: slots.free, others: slots.perEndpoint };
    try {
      const r = await dispatchTenant(prisma, tenantId, slots);
      for (const c of r.claimed) start(c);
      queuedFor(r.waiting);
      return r.more;
    } finally {
      asked = null;
      claiming = null;
      claimed();
      if (again) pump();
    }
  }

  function dispatch(tenants: Iterable<string>): void {
    for (const t of tenants) dirty.add(t);
    if (dispatching || stopped || dirty.size === 0) return;
    dispatching = dispatchDirty().finally(() => {
      dispatching = null;
      // A wake that came while the loop was finishing.
      if (dirty.size > 0) dispatch([]);
    });
  }

  const unsubscribe = onEventsCommitted((events) => {
    const tenants = new Set<string>();
    for (const e of events) {
      // A webhook created on this instance: its tenant has a cursor from now on.
      if (e.type === 'webhook.created') known.add(e.tenantId);
      if (known.has(e.tenantId)) tenants.add(e.tenantId);
    }
    if (tenants.size > 0) dispatch(tenants);
  });

  // ── Worker: due deliveries → attempts → recorded in batches ─────────────────────────────────
  // A claim takes at most the free slots (the instance's, and each endpoint's), so what is claimed
  // is sent at once; a slot frees when its answer arrives, and the next claim fills it while the
  // other attempts are in flight. Answers are recorded by one statement per batch: while one batch
  // is written the next gathers (and for RECORD_GATHER_MS at least). An answer not recorded yet
  // holds its claim: should the instance die, it is sent again after its lease (same webhook-id).
  const running = new Set<Promise<void>>();
  /** Attempts in flight per endpoint. */
  const busy = new Map<string, number>();
  let claiming: Promise<void> | null = null;
  let again = false;
  /** The last claim filled the instance's free slots: more may be due, look again as slots free up. */
  let backlog = false;
  /** A claim waited for answers to be recorded: the recorder looks again. */
  let throttled = false;
  /** Endpoints whose free slots the last claims filled: more may be due, look again as theirs free. */
  const fullEndpoints = new Set<string>();
  /** What the claim under way asked for: in all, per endpoint, and for any other endpoint. */
  let asked: { total: number; of: ReadonlyMap<string, number>; others: number } | null = null;

  /** After an answer from `endpoint`: are enough slots free, beyond what the claim under way takes? */
  function worthClaiming(endpoint: string): boolean {
    const free = settings.concurrency - running.size - (asked?.total ?? 0);
    if (backlog && free >= refill(settings.concurrency)) return true;
    if (!fullEndpoints.has(endpoint)) return false;
    const reserved = asked ? (asked.of.get(endpoint) ?? asked.others) : 0;
    const freeHere = settings.concurrencyPerEndpoint - (busy.get(endpoint) ?? 0) - reserved;
    return freeHere >= refill(settings.concurrencyPerEndpoint);
  }

  const workerDeps: WorkerDeps = {
    prisma,
    settings,
    health: deps.health,
    log,
    connections,
    wakeAt: (at) => wakeAt(at),
  };

  const toRecord: MadeAttempt[] = [];
  let recording: Promise<void> | null = null;

  async function recordLoop(): Promise<void> {
    while (toRecord.length > 0) {
      // A moment to gather more: a statement's own cost is about that of dozens of rows.
      if (toRecord.length < RECORD_BATCH && !stopped) await sleep(RECORD_GATHER_MS);
      const batch = toRecord.splice(0, RECORD_BATCH);
      try {
        await recordAttempts(prisma, batch);
        succeeded();
      } catch (err) {
        // Unrecorded: each comes due again when its lease ends and is sent again (same webhook-id).
        failed('record attempts (they will be made again after their lease)', err);
        continue;
      }
      try {
        await afterRecorded(workerDeps, batch);
      } catch (err) {
        failed("record an endpoint's health", err);
      }
      // Claims waited while too many answers waited to be recorded (see claimLoop).
      if (throttled && toRecord.length < RECORD_BATCH) {
        throttled = false;
        pump();
      }
    }
  }

  function startRecording(): void {
    if (recording || toRecord.length === 0) return;
    recording = recordLoop().finally(() => {
      recording = null;
      // An answer that came while the loop was finishing.
      startRecording();
    });
  }

  function record(made: MadeAttempt): void {
    toRecord.push(made);
    startRecording();
  }

  function start(claim: ClaimedDelivery): void {
    const endpoint = claim.webhookId;
    busy.set(endpoint, (busy.get(endpoint) ?? 0) + 1);
    const p = makeAttempt(workerDeps, claim)
      .then(record)
      .catch((err: unknown) => failed('make an attempt (it will be made again after its lease)', err))
      .finally(() => {
        running.delete(p);
        const n = (busy.get(endpoint) ?? 1) - 1;
        if (n > 0) busy.set(endpoint, n);
        else busy.delete(endpoint);
        if (worthClaiming(endpoint)) pump();
      });
    running.add(p);
  }

  /** Free slots of the endpoints with attempts in flight (any other has all of its own). */
  function freeOfBusyEndpoints(): Map<string, number> {
    const free = new Map<string, number>();
    for (const [endpoint, n] of busy) free.set(endpoint, Math.max(0, settings.concurrencyPerEndpoint - n));
    return free;
  }

  /**
   * What a dispatch may claim: the free slots, unless older deliveries may be waiting for them (the
   * instance's bound cut the last claim, or an endpoint's: 0 for it), or answers pile up unrecorded.
   */
  function freeSlots(): DispatchSlots | null {
    const total = settings.concurrency - running.size;
    if (backlog || total <= 0 || toRecord.length >= RECORD_BATCH) return null;
    const free = freeOfBusyEndpoints();
    for (const endpoint of fullEndpoints) free.set(endpoint, 0);
    return { total, perEndpoint: settings.concurrencyPerEndpoint, free, leaseMs: settings.leaseMs };
  }

  async function claimLoop(): Promise<void> {
    do {
      again = false;
      const free = settings.concurrency - running.size;
      if (free <= 0) {
        backlog = true;
        return;
      }
      // Answers waiting for their statement hold their claims too: no more while they pile up.
      if (toRecord.length >= RECORD_BATCH) {
        throttled = true;
        return;
      }
      const freeOf = freeOfBusyEndpoints();
      let claims: ClaimedDelivery[];
      asked = { total: free, of: freeOf, others: settings.concurrencyPerEndpoint };
      try {
        claims = await claimDeliveries(
          prisma,
          free,
          settings.leaseMs,
          settings.concurrencyPerEndpoint,
          freeOf,
        );
        succeeded();
      } catch (err) {
        failed('claim deliveries', err);
        return;
      } finally {
        asked = null;
      }
      for (const c of claims) start(c);
      // The instance's bound cut the claim: more may be due once slots free up (worthClaiming).
      backlog = claims.length === free;
      const got = new Map<string, number>();
      for (const c of claims) got.set(c.webhookId, (got.get(c.webhookId) ?? 0) + 1);
      const slotsOf = (endpoint: string) => freeOf.get(endpoint) ?? settings.concurrencyPerEndpoint;
      // Unless the instance's bound cut the claim, an endpoint given fewer than its free slots has
      // nothing more due; one given all of them may have.
      if (!backlog) {
        for (const e of fullEndpoints) if ((got.get(e) ?? 0) < slotsOf(e)) fullEndpoints.delete(e);
      }
      for (const [e, n] of got) if (n >= slotsOf(e)) fullEndpoints.add(e);
      // `again`: new deliveries were queued, or answers freed enough slots, during this claim.
    } while (again && !stopped);
  }

  /**
   * Deliveries were queued for these endpoints: claimed now where one has a free slot; an endpoint
   * whose slots are all taken is looked at again as its answers come (a claim now would take none
   * of its rows).
   */
  function queuedFor(webhookIds: readonly string[]): void {
    let free = false;
    for (const id of webhookIds) {
      if ((busy.get(id) ?? 0) >= settings.concurrencyPerEndpoint) fullEndpoints.add(id);
      else free = true;
    }
    if (free) pump();
  }

  /** Claims what is due, unless a claim is under way (then it looks again once done). */
  function pump(): void {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = claimLoop().finally(() => {
      claiming = null;
    });
  }

  // ── Timers: the poll, a retry falling due before it, pruning ────────────────────────────────
  let retryTimer: NodeJS.Timeout | undefined;
  let retryAt = Number.POSITIVE_INFINITY;
  function wakeAt(at: Date): void {
    const when = at.getTime();
    if (stopped || when >= retryAt || when - Date.now() >= settings.pollMs) return;
    clearTimeout(retryTimer);
    retryAt = when;
    retryTimer = setTimeout(
      () => {
        retryAt = Number.POSITIVE_INFINITY;
        pump();
      },
      Math.max(0, when - Date.now()) + 5,
    );
    retryTimer.unref();
  }

  let polling = false;
  async function poll(): Promise<void> {
    if (polling || stopped) return;
    polling = true;
    try {
      const { behind, all } = await tenantsBehind(prisma);
      known.clear();
      for (const t of all) known.add(t);
      dispatch(behind);
      succeeded();
    } catch (err) {
      failed('read the event log', err);
    } finally {
      polling = false;
    }
    pump();
  }
  const pollTimer = setInterval(() => void poll(), settings.pollMs);
  pollTimer.unref();

  let lastPrune = 0;
  async function prune(): Promise<void> {
    if (stopped || Date.now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = Date.now();
    const cutoff = new Date(Date.now() - settings.historyDays * 86_400_000);
    try {
      for (const sql of [
        `DELETE FROM "WebhookAttempt" WHERE "id" IN (
           SELECT "id" FROM "WebhookAttempt" WHERE "createdAt" < $1 LIMIT ${PRUNE_BATCH})`,
        `DELETE FROM "WebhookDelivery" WHERE "id" IN (
           SELECT "id" FROM "WebhookDelivery" WHERE "updatedAt" < $1 AND "status" <> 'pending' LIMIT ${PRUNE_BATCH})`,
      ]) {
        while (!stopped && (await prisma.$executeRawUnsafe(sql, cutoff)) === PRUNE_BATCH) {}
      }
    } catch (err) {
      failed('delete old delivery history', err);
    }
  }
  const pruneTimer = setInterval(() => void prune(), Math.min(PRUNE_EVERY_MS, 60_000));
  pruneTimer.unref();

  // At start: what was written while no instance ran, and retries already due.
  void poll();

  return {
    poke: () => void poll(),
    inFlight: () => running.size,
    async stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      clearInterval(pollTimer);
      clearInterval(pruneTimer);
      clearTimeout(retryTimer);
      await Promise.allSettled([dispatching, claiming]);
      // Attempts already sent are answered within WEBHOOKS_TIMEOUT_MS; their results are recorded.
      await Promise.allSettled([...running]);
      while (recording) await recording;
      await connections.destroy().catch(() => {});
    },
  };
}

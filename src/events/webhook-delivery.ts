// Webhook delivery on one instance: the endpoints' streams (first attempts, read from the event log:
// webhook-stream.ts) and the queue (retries and replays: webhook-worker.ts), woken by this process's
// committed events (`onEventsCommitted`) and by a poll every WEBHOOKS_POLL_MS for what other
// instances wrote and for retries come due. Every instance of a fleet runs the same loop; the
// database decides who does what (SKIP LOCKED, leases). Nothing here may stop the server: each
// failure is logged in a plain sentence and the loop carries on.
import type { WebhookSettings } from '../config.js';
import type { Prisma } from '../db/database.js';
import { plainReason } from '../db/plain-reason.js';
import { failureFields } from '../errors.js';
import { onEventsCommitted, type RecordedEvent } from './outbox.js';
import { webhookConnections } from './webhook-sender.js';
import {
  claimStreams,
  type LetGoStream,
  listStreams,
  readStream,
  type StreamEvent,
  type StreamWindow,
} from './webhook-stream.js';
import {
  afterRecorded,
  type ClaimedDelivery,
  claimDeliveries,
  type EndpointHealth,
  type MadeAttempt,
  makeAttempt,
  recordAttempts,
  type StreamPlace,
  type WorkerDeps,
  type WorkerLog,
} from './webhook-worker.js';

/** What a committed event tells delivery: the tenant to look at, and an endpoint created or changed. */
export interface Wake {
  tenantId: string;
  type: string;
  resourceId: string;
}

/** The wakes of committed events: one per tenant, and each `webhook.*` event's. */
export function wakesOf(events: readonly RecordedEvent[]): Wake[] {
  const tenants = new Set<string>();
  const wakes: Wake[] = [];
  for (const e of events) {
    if (e.type.startsWith('webhook.'))
      wakes.push({ tenantId: e.tenantId, type: e.type, resourceId: e.resourceId });
    else if (!tenants.has(e.tenantId)) {
      tenants.add(e.tenantId);
      wakes.push({ tenantId: e.tenantId, type: e.type, resourceId: e.resourceId });
    }
  }
  return wakes;
}

export interface WebhookDeliveryService {
  /** Looks for work now (tests; the poll does it every WEBHOOKS_POLL_MS). */
  poke(): void;
  /** Events were committed (by this thread's writes, or told by another thread): look at their tenants. */
  wake(wakes: readonly Wake[]): void;
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

/** Events read from the log per window of a stream: a few rounds of an endpoint's slots. */
const windowSize = (perEndpoint: number): number => Math.min(500, Math.max(16, 4 * perEndpoint));

/** A stream this instance holds (webhook-stream.ts): its events read, sent and recorded. */
interface Stream {
  readonly webhookId: string;
  readonly tenantId: string;
  /** The hold's number (the record's fence). */
  readonly lease: number;
  url: string;
  secret: string;
  previousSecret: string | null;
  failingSince: Date | null;
  /** The last event id read (subscribed or not). */
  readTo: bigint;
  /** The place recorded. */
  recordedTo: bigint;
  /** Read, not sent yet, in id order. */
  waiting: StreamEvent[];
  /** Sent and not recorded yet (in flight, or answered and waiting for the record), in id order. */
  open: bigint[];
  inFlight: number;
  reading: boolean;
  /** The last window reached the end of the log (as far as this instance knows). */
  caughtUp: boolean;
  /** Events were committed since the last window was asked for. */
  woken: boolean;
  /** The endpoint was found disabled or deleted: nothing more is sent, and the stream is let go. */
  ended: boolean;
  /** Its release is in the statement being written. */
  releasing: boolean;
  /** Since when it has had events to send and none in flight, for want of a free slot here (null: it has not). */
  starvedSince: number | null;
  /** Let go for another instance to send: it went a poll without a free slot here. */
  yielding: boolean;
  /** When its lease was last renewed (Date.now()). */
  renewedAt: number;
  /** Its statements that failed in a row (it was let go and taken back that many times). */
  failures: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A stream let go unrecorded is taken back after this long, doubled for each failure in a row (see letGoUnrecorded). */
const TAKE_BACK_MS = 1_000;

/** History older than WEBHOOKS_HISTORY_DAYS is deleted this often, in batches. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5_000;

/**
 * Deletes the attempts logged before `cutoff`, and the deliveries over (delivered, failed for good or
 * given up) since before it, in batches until none is left or `stop()` says so. The attempts go
 * endpoint by endpoint, through the index the list of an endpoint's attempts reads.
 */
export async function pruneHistory(
  prisma: Prisma,
  cutoff: Date,
  stop: () => boolean = () => false,
): Promise<void> {
  for (const sql of [
    `DELETE FROM "WebhookAttempt" WHERE "id" IN (
       SELECT a."id" FROM "Webhook" w CROSS JOIN LATERAL (
         SELECT x."id" FROM "WebhookAttempt" x WHERE x."webhookId" = w."id" AND x."createdAt" < $1
         LIMIT ${PRUNE_BATCH}) a
       LIMIT ${PRUNE_BATCH})`,
    `DELETE FROM "WebhookDelivery" WHERE "id" IN (
       SELECT "id" FROM "WebhookDelivery" WHERE "updatedAt" < $1 AND "status" <> 'pending' LIMIT ${PRUNE_BATCH})`,
  ]) {
    while (!stop() && (await prisma.$executeRawUnsafe(sql, cutoff)) === PRUNE_BATCH) {}
  }
}

export function startWebhookDelivery(deps: {
  prisma: Prisma;
  settings: WebhookSettings;
  log: WorkerLog;
  health: EndpointHealth;
  /** Told the attempts in flight whenever their number changes (a delivery thread's counter). */
  inFlight?: (n: number) => void;
  /** Told each stream this instance holds, with its lease, when a claim takes it (a delivery thread's report). */
  holding?: (streams: readonly LetGoStream[]) => void;
  /** Told each stream this instance no longer holds (let go after its record, or held by another instance now). */
  released?: (streams: readonly LetGoStream[]) => void;
  /** Streams a delivery thread that ended held: taken back at the first claim (while no other instance held them since). */
  takeBack?: readonly LetGoStream[];
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
    const why = plainReason(err);
    if (failing === null)
      log.warn(failureFields(err), `Webhook delivery: could not ${what} (${why}); trying again`);
    failing = what;
  };
  const succeeded = () => {
    if (failing !== null) log.info({}, 'Webhook delivery: the database answers again; delivery resumed');
    failing = null;
  };

  const running = new Set<Promise<void>>();
  /** Attempts in flight per endpoint (its stream's and its queue's). */
  const busy = new Map<string, number>();
  /** What the queue's claim under way asked for: in all, per endpoint, and for any other endpoint. */
  let asked: { total: number; of: ReadonlyMap<string, number>; others: number } | null = null;
  const windowOf = windowSize(settings.concurrencyPerEndpoint);

  // ── Streams: the endpoints' first attempts, straight from the log ───────────────────────────
  /** The streams this instance holds, by endpoint. */
  const held = new Map<string, Stream>();
  /**
   * Streams let go unrecorded (a statement failed), by endpoint: their lease, when it runs out, and
   * from when a claim takes them back (while no other instance has held them since), so that a
   * database failing for a moment delays them by that moment, not by a lease.
   */
  const letGo = new Map<string, { lease: number; until: number; from: number; failures: number }>();
  for (const h of deps.takeBack ?? [])
    letGo.set(h.webhookId, { lease: h.lease, until: Date.now() + settings.leaseMs, from: 0, failures: 0 });
  /** The active endpoints' streams of each tenant with one (the poll's list, and endpoints created here). */
  const known = new Map<string, Set<string>>();
  /** Tenants whose streams a claim should look at (all: the poll's), and the claim under way. */
  let wanted: Set<string> | 'all' | null = null;
  let holding: Promise<void> | null = null;
  /** Windows being read. */
  const reads = new Set<Promise<void>>();
  let turn = 0;

  function knowStream(tenantId: string, webhookId: string): void {
    const set = known.get(tenantId);
    if (set) set.add(webhookId);
    else known.set(tenantId, new Set([webhookId]));
  }

  function wantStreams(tenants: Iterable<string> | 'all'): void {
    if (stopped) return;
    if (tenants === 'all' || wanted === 'all') wanted = 'all';
    else {
      wanted ??= new Set();
      for (const t of tenants) wanted.add(t);
    }
    if (holding) return;
    holding = holdLoop().finally(() => {
      holding = null;
      if (wanted !== null && streamRoom() > 0) wantStreams([]);
    });
  }

  /**
   * How many more streams to hold now: one per endpoint's worth of slots left free by the attempts
   * in flight and what the held streams may still take beside theirs (up to an endpoint's worth in
   * all for one with more to read, whose next window may be on its way), at least one while any slot
   * is free, so that instances polling the same log share its streams rather than the first taking
   * them all. A stream's attempts in flight are counted once: counted again as still to send, one
   * slow endpoint's backlog kept every other endpoint waiting (probe W).
   */
  function streamRoom(): number {
    const per = settings.concurrencyPerEndpoint;
    let free = freeInAll();
    for (const s of held.values()) {
      const more = Math.max(0, per - (busy.get(s.webhookId) ?? 0));
      free -= s.caughtUp ? Math.min(s.waiting.length, more) : more;
    }
    if (free <= 0) return 0;
    return Math.max(1, Math.floor(free / per));
  }

  async function holdLoop(): Promise<void> {
    while (wanted !== null && !stopped) {
      const room = streamRoom();
      // No slot free: looked at again as answers free some (start).
      if (room === 0) return;
      const want = wanted;
      const tenants = want === 'all' ? null : [...want];
      wanted = null;
      if (tenants?.length === 0) continue;
      try {
        const now = Date.now();
        for (const [id, l] of letGo) if (l.until <= now) letGo.delete(id);
        const takeBack = [...letGo]
          .filter(([, l]) => l.from <= now)
          .map(([webhookId, l]) => ({ webhookId, lease: l.lease }));
        const claimed = await claimStreams(prisma, room, settings.leaseMs, windowOf, tenants, takeBack);
        succeeded();
        if (claimed.length > 0)
          deps.holding?.(claimed.map((c) => ({ webhookId: c.webhookId, lease: c.lease })));
        // As many as there was room for: more may wait.
        if (claimed.length === room) wantStreams(want);
        for (const c of claimed) {
          const failures = letGo.get(c.webhookId)?.failures ?? 0;
          letGo.delete(c.webhookId);
          const stream: Stream = {
            webhookId: c.webhookId,
            tenantId: c.tenantId,
            lease: c.lease,
            url: '',
            secret: '',
            previousSecret: null,
            failingSince: null,
            readTo: c.lastEventId,
            recordedTo: c.lastEventId,
            waiting: [],
            open: [],
            inFlight: 0,
            reading: false,
            caughtUp: false,
            woken: false,
            ended: false,
            releasing: false,
            starvedSince: null,
            yielding: false,
            renewedAt: Date.now(),
            failures,
          };
          held.set(c.webhookId, stream);
          took(stream, c.window);
        }
      } catch (err) {
        failed('read the event log', err);
        // The poll looks again.
      }
      serveStreams();
    }
  }

  /** A window read: its events wait to be sent; an endpoint disabled or deleted ends the stream. */
  function took(s: Stream, window: StreamWindow): void {
    if (window.endpoint === null || !window.endpoint.isActive) {
      s.ended = true;
      s.waiting = [];
    } else {
      s.url = window.endpoint.url;
      s.secret = window.endpoint.secret;
      s.previousSecret = window.endpoint.previousSecret;
      s.failingSince = window.endpoint.failingSince;
      s.waiting.push(...window.events);
    }
    if (window.readTo !== null && window.readTo > s.readTo) s.readTo = window.readTo;
    s.caughtUp = !window.full;
  }

  async function readMore(s: Stream): Promise<void> {
    s.reading = true;
    s.woken = false;
    try {
      took(s, await readStream(prisma, s, s.readTo, windowOf));
      succeeded();
    } catch (err) {
      failed('read the event log', err);
      // Read again at the next poll.
      s.woken = true;
    } finally {
      s.reading = false;
    }
    serveStreams();
  }

  /** The instance's free slots now, less what the queue's claim under way asked for. */
  const freeInAll = (): number => settings.concurrency - running.size - (asked?.total ?? 0);

  /** An endpoint's free slots now, less what the queue's claim under way asked for it. */
  function freeAt(endpoint: string): number {
    const reserved = asked ? (asked.of.get(endpoint) ?? asked.others) : 0;
    return settings.concurrencyPerEndpoint - (busy.get(endpoint) ?? 0) - reserved;
  }

  /** Sends what the held streams have read, in turn, within the free slots; reads on as they run low. */
  function serveStreams(): void {
    if (stopped) return;
    const streams = [...held.values()];
    for (let k = 0; k < streams.length; k++) {
      const s = streams[(turn + k) % streams.length] as Stream;
      if (s.releasing || s.ended || s.yielding) continue;
      for (let n = Math.min(freeInAll(), freeAt(s.webhookId)); n > 0 && s.waiting.length > 0; n--) {
        sendFromStream(s, s.waiting.shift() as StreamEvent);
      }
      // Held here with no slot to send it by (this instance's slots all taken by other endpoints):
      // after a poll of that, it is let go, for an instance with free slots to take (this one's
      // claims take no stream while it has none free). An endpoint kept waiting by its own retries
      // is being served, and stays.
      if (s.waiting.length === 0 || s.inFlight > 0 || freeInAll() > 0) s.starvedSince = null;
      else if (s.starvedSince === null) s.starvedSince = Date.now();
      else if (Date.now() - s.starvedSince >= settings.pollMs) s.yielding = true;
      if (!s.reading && s.waiting.length < settings.concurrencyPerEndpoint && (!s.caughtUp || s.woken)) {
        const read = readMore(s).finally(() => reads.delete(read));
        reads.add(read);
      }
    }
    turn++;
    if (placesDue()) startRecording();
  }

  function sendFromStream(s: Stream, e: StreamEvent): void {
    s.open.push(e.id);
    s.inFlight++;
    start(
      {
        id: null,
        streamLease: s.lease,
        tenantId: s.tenantId,
        webhookId: s.webhookId,
        eventId: e.id,
        eventType: e.type,
        attempts: 1,
        firstAttemptAt: new Date(),
        url: s.url,
        secret: s.secret,
        previousSecret: s.previousSecret,
        failingSince: s.failingSince,
        occurredAt: e.occurredAt,
        payloadJson: e.payloadJson,
      },
      s,
    );
  }

  /** Lets a stream go (released, or held by another instance now). */
  function forget(s: Stream): void {
    if (held.get(s.webhookId) === s) held.delete(s.webhookId);
  }

  /**
   * Lets a stream go unrecorded (a statement failed): what it sent after its recorded place comes
   * again (same webhook-id) once a claim holds it again, at the next one that succeeds.
   */
  function letGoUnrecorded(s: Stream): void {
    if (held.get(s.webhookId) !== s) return;
    held.delete(s.webhookId);
    // Each failure in a row doubles the wait: what it sent is sent again each time.
    const failures = s.failures + 1;
    letGo.set(s.webhookId, {
      lease: s.lease,
      until: s.renewedAt + settings.leaseMs,
      from: Date.now() + TAKE_BACK_MS * 2 ** Math.min(failures - 1, 16),
      failures,
    });
  }

  /** The stream of a first attempt, while this instance still holds it under the same lease. */
  function streamOf(claim: ClaimedDelivery): Stream | undefined {
    if (claim.id !== null) return undefined;
    const s = held.get(claim.webhookId);
    return s && s.lease === claim.streamLease ? s : undefined;
  }

  /**
   * Where a stream's place can move once the attempts `recorded` are: before its first event sent
   * and not recorded, or its first not sent, or past all it read.
   */
  function placeOf(s: Stream, recorded: ReadonlySet<bigint>): { place: bigint; settled: boolean } {
    const firstOpen = s.open.find((id) => !recorded.has(id));
    if (firstOpen !== undefined) return { place: firstOpen - 1n, settled: false };
    const first = s.waiting[0];
    return { place: first ? first.id - 1n : s.readTo, settled: true };
  }

  /** Nothing of it in flight or unrecorded, and nothing more to send now: let it go. */
  function releasable(s: Stream, settled: boolean): boolean {
    if (!settled || s.inFlight > 0 || s.reading) return false;
    if (stopped || s.ended || s.yielding) return true;
    return s.waiting.length === 0 && s.caughtUp && !s.woken;
  }

  const renewDue = (s: Stream) => Date.now() - s.renewedAt >= settings.leaseMs / 3;

  /**
   * The place to record for a held stream once the attempts `recorded` are, if there is one: it
   * moves, the stream can be let go, or its lease is due for renewal (or attempts of it are recorded).
   */
  function placeToRecord(s: Stream, recorded: ReadonlySet<bigint>): StreamPlace | null {
    if (s.releasing) return null;
    const { place, settled } = placeOf(s, recorded);
    const release = releasable(s, settled);
    if (recorded.size === 0 && place <= s.recordedTo && !release && !renewDue(s)) return null;
    return {
      webhookId: s.webhookId,
      lease: s.lease,
      // biome-ignore lint/complexity/useMathMinMax: bigints (Math.max takes numbers)
      lastEventId: place > s.recordedTo ? place : s.recordedTo,
      release,
    };
  }

  const NONE_RECORDED: ReadonlySet<bigint> = new Set();

  function placesDue(): boolean {
    for (const s of held.values()) if (placeToRecord(s, NONE_RECORDED)) return true;
    return false;
  }

  /** The places a batch records (streams let go are marked so), with the attempts of each stream in it. */
  function placesFor(
    batch: readonly MadeAttempt[],
  ): { stream: Stream; ids: ReadonlySet<bigint>; place: StreamPlace }[] {
    const ids = new Map<Stream, Set<bigint>>();
    for (const a of batch) {
      const s = streamOf(a.claim);
      if (!s) continue;
      let set = ids.get(s);
      if (!set) {
        set = new Set();
        ids.set(s, set);
      }
      set.add(a.claim.eventId);
    }
    const places: { stream: Stream; ids: ReadonlySet<bigint>; place: StreamPlace }[] = [];
    for (const s of held.values()) {
      const recorded = ids.get(s) ?? NONE_RECORDED;
      const place = placeToRecord(s, recorded);
      if (!place) continue;
      if (place.release) s.releasing = true;
      places.push({ stream: s, ids: recorded, place });
    }
    return places;
  }

  /** After the batch's statement: places recorded, streams let go, lapsed holds forgotten. */
  function placesRecorded(
    places: readonly { stream: Stream; ids: ReadonlySet<bigint>; place: StreamPlace }[],
    moved: readonly string[],
  ): void {
    const stood = new Set(moved);
    const wake: string[] = [];
    const gone: LetGoStream[] = [];
    for (const { stream: s, ids, place } of places) {
      if (!stood.has(s.webhookId)) {
        // Another instance holds it now (the lease ran out): it sends on from the recorded place.
        forget(s);
        gone.push({ webhookId: s.webhookId, lease: s.lease });
        continue;
      }
      s.recordedTo = place.lastEventId;
      s.renewedAt = Date.now();
      s.failures = 0;
      if (ids.size > 0) s.open = s.open.filter((id) => !ids.has(id));
      if (place.release) {
        forget(s);
        gone.push({ webhookId: s.webhookId, lease: s.lease });
        // Events committed while it was being let go, or left to send: hold it again (here once a
        // slot is free, unless another instance has by then).
        if ((s.woken || s.yielding) && !stopped) wake.push(s.tenantId);
      }
    }
    if (gone.length > 0) deps.released?.(gone);
    if (wake.length > 0) wantStreams(wake);
  }

  function wake(wakes: readonly Wake[]): void {
    const tenants = new Set<string>();
    for (const w of wakes) {
      // An endpoint created or enabled: its tenant's streams are looked at from now on.
      if (w.type === 'webhook.created' || w.type === 'webhook.updated') knowStream(w.tenantId, w.resourceId);
      if (known.has(w.tenantId)) tenants.add(w.tenantId);
    }
    if (tenants.size === 0) return;
    const unheld: string[] = [];
    for (const t of tenants) {
      let all = true;
      for (const id of known.get(t) ?? []) {
        const s = held.get(id);
        if (s) s.woken = true;
        if (!s || s.releasing) all = false;
      }
      if (!all) unheld.push(t);
    }
    if (unheld.length > 0) wantStreams(unheld);
    serveStreams();
  }

  const unsubscribe = onEventsCommitted((events) => wake(wakesOf(events)));

  // ── Worker: attempts made, recorded in batches; the queue's due deliveries claimed ─────────────
  // A claim takes at most the free slots (the instance's, and each endpoint's), so what is claimed
  // is sent at once; a slot frees when its answer arrives, and the next claim fills it while the
  // other attempts are in flight. Answers are recorded by one statement per batch, with the streams'
  // places: while one batch is written the next gathers (and for RECORD_GATHER_MS at least). An
  // answer not recorded yet holds its claim: should the instance die, it is sent again after its
  // lease (same webhook-id).
  let claiming: Promise<void> | null = null;
  let again = false;
  /** The last claim filled the instance's free slots: more may be due, look again as slots free up. */
  let backlog = false;
  /** A claim waited for answers to be recorded: the recorder looks again. */
  let throttled = false;
  /** Endpoints whose free slots the last claims filled: more may be due, look again as theirs free. */
  const fullEndpoints = new Set<string>();

  /** After an answer from `endpoint`: are enough slots free, beyond what the claim under way takes? */
  function worthClaiming(endpoint: string): boolean {
    if (backlog && freeInAll() >= refill(settings.concurrency)) return true;
    return fullEndpoints.has(endpoint) && freeAt(endpoint) >= refill(settings.concurrencyPerEndpoint);
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
    while (toRecord.length > 0 || placesDue()) {
      // A moment to gather more: a statement's own cost is about that of dozens of rows.
      if (toRecord.length < RECORD_BATCH && !stopped) await sleep(RECORD_GATHER_MS);
      const batch = toRecord.splice(0, RECORD_BATCH);
      const places = placesFor(batch);
      let moved: string[];
      try {
        moved = (
          await recordAttempts(
            prisma,
            batch,
            places.map((p) => p.place),
            settings.leaseMs,
          )
        ).moved;
        succeeded();
      } catch (err) {
        // Unrecorded: each comes again once its stream is held again (same webhook-id).
        failed('record attempts (they will be made again)', err);
        for (const p of places) letGoUnrecorded(p.stream);
        continue;
      }
      placesRecorded(places, moved);
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
      serveStreams();
    }
  }

  function startRecording(): void {
    if (recording || (toRecord.length === 0 && !placesDue())) return;
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

  function start(claim: ClaimedDelivery, stream?: Stream): void {
    const endpoint = claim.webhookId;
    busy.set(endpoint, (busy.get(endpoint) ?? 0) + 1);
    const p = makeAttempt(workerDeps, claim)
      .then(record)
      .catch((err: unknown) => {
        failed('make an attempt (it will be made again)', err);
        if (stream) letGoUnrecorded(stream);
      })
      .finally(() => {
        running.delete(p);
        deps.inFlight?.(running.size);
        if (stream) stream.inFlight--;
        const n = (busy.get(endpoint) ?? 1) - 1;
        if (n > 0) busy.set(endpoint, n);
        else busy.delete(endpoint);
        serveStreams();
        if (wanted !== null && !holding) wantStreams([]);
        if (worthClaiming(endpoint)) pump();
      });
    running.add(p);
    deps.inFlight?.(running.size);
  }

  /** Free slots of the endpoints with attempts in flight (any other has all of its own). */
  function freeOfBusyEndpoints(): Map<string, number> {
    const free = new Map<string, number>();
    for (const [endpoint, n] of busy) free.set(endpoint, Math.max(0, settings.concurrencyPerEndpoint - n));
    return free;
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
      const streams = await listStreams(prisma);
      known.clear();
      let unheld = false;
      for (const st of streams) {
        knowStream(st.tenantId, st.webhookId);
        const s = held.get(st.webhookId);
        // Written by another instance (no wake here), or a held stream that missed its wake.
        if (st.behind && s) s.woken = true;
        if (st.behind && !s) unheld = true;
      }
      if (unheld) wantStreams('all');
      succeeded();
    } catch (err) {
      failed('read the event log', err);
    } finally {
      polling = false;
    }
    // Reads what the wakes asked for, and renews the held streams' leases when due.
    serveStreams();
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
      await pruneHistory(prisma, cutoff, () => stopped);
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
    wake,
    inFlight: () => running.size,
    async stop() {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      clearInterval(pollTimer);
      clearInterval(pruneTimer);
      clearTimeout(retryTimer);
      await Promise.allSettled([holding, claiming]);
      // Attempts already sent are answered within WEBHOOKS_TIMEOUT_MS; their results are recorded,
      // and the streams let go at the place they reached (the next holder sends on from there).
      await Promise.allSettled([...running]);
      while (reads.size > 0) await Promise.allSettled([...reads]);
      startRecording();
      while (recording) await recording;
      await connections.destroy().catch(() => {});
    },
  };
}

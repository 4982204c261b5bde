// The event log, a transactional outbox: a write appends its events (and their audit entries) in
// the transaction that makes the change, so a rolled-back write leaves nothing behind; once the
// transaction commits, the events are announced in this process (`onEventsCommitted`) so a webhook
// dispatcher or a subscription can wake without polling the table.
//
// Ids count 1, 2, 3… per tenant, gapless and in commit order: the tenant's `EventSequence` row is
// upserted as the transaction's last statement, and its row lock makes the tenant's other
// event-writing transactions wait there until this one commits. A reader resuming "after id N"
// therefore never meets a lower id committed later.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Prisma } from '../db/database.js';
import { retryingConflicts } from '../db/write-conflict.js';
import type { Prisma as PrismaNS } from '../generated/prisma/client.js';
import type { AuditAction } from './audit.js';
import { type EventType, MAC_KEYS, MENTIONS, type ResourceType, typesOf } from './event-types.js';

export type Tx = PrismaNS.TransactionClient;

/** Who caused an event: a user through a token, the ingest (a controller's token), or the service itself. */
export interface EventActor {
  readonly type: 'user' | 'ingest' | 'system';
  readonly userId: string | null;
  readonly tokenId: string | null;
  /** The request's id (`X-Request-Id` of the answer), null outside a request. */
  readonly requestId: string | null;
}

/** The caller of a request: its user and token, and the request id. */
export function actorOf(
  ctx: Pick<AppContext, 'principal' | 'requestId'>,
  type: 'user' | 'ingest' = 'user',
): EventActor {
  return { type, userId: ctx.principal.userId, tokenId: ctx.principal.tokenId, requestId: ctx.requestId };
}

/** The service acting on its own (a sweeper, a CLI command without a user). */
export const systemActor: EventActor = { type: 'system', userId: null, tokenId: null, requestId: null };

/** `{field: {old, new}}` with REST field names; secrets never (see src/events/audit.ts). */
export type Changes = Record<string, { old: unknown; new: unknown }>;

/** An event to append. */
export interface NewEvent {
  readonly type: EventType;
  readonly resourceType: ResourceType;
  readonly resourceId: string;
  /** The resource in its REST shape, as its REST serializer writes it. */
  readonly payload: unknown;
  /** The tenant whose log holds it; default the writer's (see EventSource). */
  readonly tenantId?: string;
  /** The audit entry written with it (API writes); ingest events have none. */
  readonly audit?: { readonly action: AuditAction; readonly changes: Changes };
  /**
   * The resource's personal data is gone (a guest's erasure): its earlier events carry this event's
   * payload instead of theirs, its earlier audit entries show "[erased]" for every value, and the
   * copies other events hold of it (MENTIONS) are emptied.
   */
  readonly erases?: boolean;
}

/** An event as stored. */
export interface RecordedEvent {
  readonly tenantId: string;
  readonly id: bigint;
  readonly type: EventType;
  readonly occurredAt: Date;
  readonly actorType: EventActor['type'];
  readonly actorUserId: string | null;
  readonly actorTokenId: string | null;
  readonly requestId: string | null;
  readonly resourceType: ResourceType;
  readonly resourceId: string;
  /** The payload as stored (JSON: bigints as numbers or strings, floats as plain numbers). */
  readonly payload: unknown;
}

/**
 * The payload as JSON stores it: a serializer's PhpFloat becomes its number (its toJSON), a bigint
 * a number when exact, else its decimal text.
 */
function jsonOf(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v,
    ),
  );
}

/** Short opaque ids in the alphabet of the schema's nanoid(12) (the audit entries' ids). */
const newAuditId = (): string => randomBytes(9).toString('base64url');

// One statement per tenant: take `n` ids from the tenant's sequence (the row lock, held to commit),
// write the audit entries, append the events in their order. Data-modifying CTEs always run in full.
// Their time is the clock's once the lock is held, not the transaction's start: the tenant's
// appends take turns on that lock to their commits, so times follow ids, and the audit log's
// newest-first order (created_at) is the order its changes were committed in (probe L: a write
// begun earlier but committed later was listed below the one it overwrote). In whole milliseconds,
// so that the event's column (3 digits, rounded) and the audit entry's (6) hold the same time.
const APPEND_SQL = `WITH seq AS (
  INSERT INTO "EventSequence" ("tenantId", "lastId") VALUES ($1, $2::bigint)
  ON CONFLICT ("tenantId") DO UPDATE SET "lastId" = "EventSequence"."lastId" + EXCLUDED."lastId"
  RETURNING "lastId"
), stamp AS (
  SELECT date_trunc('milliseconds', clock_timestamp()) AS "at" FROM seq
), input AS (
  SELECT e.doc, e.ord FROM json_array_elements($3::json) WITH ORDINALITY AS e(doc, ord)
), audit AS (
  INSERT INTO "AuditLog" ("id", "tenantId", "actorUserId", "actorTokenId", "requestId", "action",
    "resourceType", "resourceId", "changes", "createdAt")
  SELECT i.doc->>'auditId', $1, $4, $5, $6, i.doc->>'action', i.doc->>'resourceType',
    i.doc->>'resourceId', i.doc->'changes', stamp."at"
  FROM input i, stamp WHERE i.doc->>'auditId' IS NOT NULL
)
INSERT INTO "Event" ("tenantId", "id", "type", "occurredAt", "actorType", "actorUserId",
  "actorTokenId", "requestId", "resourceType", "resourceId", "payload")
SELECT $1, seq."lastId" - $2::bigint + i.ord, i.doc->>'type', stamp."at", $7, $4, $5, $6,
  i.doc->>'resourceType', i.doc->>'resourceId', i.doc->'payload'
FROM seq, stamp, input i
RETURNING "id", "occurredAt"`;

/**
 * Appends `events` to their tenants' logs, with their audit entries, inside the caller's
 * transaction; call it last in the transaction (its lock is held until commit). Hand the result to
 * `announceEvents` once the transaction has committed (`writeWithEvents` does both).
 */
export async function recordEvents(
  tx: Tx,
  tenantId: string,
  actor: EventActor,
  events: readonly NewEvent[],
): Promise<RecordedEvent[]> {
  const byTenant = new Map<string, NewEvent[]>();
  for (const e of events) {
    const t = e.tenantId ?? tenantId;
    const list = byTenant.get(t);
    if (list) list.push(e);
    else byTenant.set(t, [e]);
  }
  const out: RecordedEvent[] = [];
  for (const e of events) if (e.erases) await forgetEarlier(tx, e.tenantId ?? tenantId, e);
  // Sequences are locked in tenant order: two transactions writing to the same tenants never deadlock.
  for (const t of [...byTenant.keys()].sort()) {
    const list = byTenant.get(t) ?? [];
    const docs = list.map((e) => ({
      type: e.type,
      resourceType: e.resourceType,
      resourceId: e.resourceId,
      payload: jsonOf(e.payload),
      ...(e.audit ? { auditId: newAuditId(), action: e.audit.action, changes: jsonOf(e.audit.changes) } : {}),
    }));
    const rows = await tx.$queryRawUnsafe<{ id: bigint; occurredAt: Date }[]>(
      APPEND_SQL,
      t,
      list.length,
      JSON.stringify(docs),
      actor.userId,
      actor.tokenId,
      actor.requestId,
      actor.type,
    );
    // Ids follow the input's order (RETURNING's order is not promised).
    const ids = rows.map((r) => BigInt(r.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const occurredAt = rows[0]?.occurredAt ?? new Date();
    list.forEach((e, i) => {
      out.push({
        tenantId: t,
        id: ids[i] ?? 0n,
        type: e.type,
        occurredAt: new Date(occurredAt),
        actorType: actor.type,
        actorUserId: actor.userId,
        actorTokenId: actor.tokenId,
        requestId: actor.requestId,
        resourceType: e.resourceType,
        resourceId: e.resourceId,
        payload: docs[i]?.payload,
      });
    });
  }
  return out;
}

const ERASED = '[erased]';

/** What an erasure does to the history of its resource (see NewEvent.erases). */
async function forgetEarlier(tx: Tx, tenantId: string, e: NewEvent): Promise<void> {
  await tx.$executeRawUnsafe(
    `UPDATE "Event" SET "payload" = $4::json
     WHERE "tenantId" = $1 AND "type" = ANY($2::text[]) AND "resourceId" = $3`,
    tenantId,
    typesOf(e.resourceType),
    e.resourceId,
    JSON.stringify(jsonOf(e.payload)),
  );
  const erased = JSON.stringify({ old: ERASED, new: ERASED });
  await tx.$executeRawUnsafe(
    `UPDATE "AuditLog" SET "changes" = ${replaceKeys('"changes"', 'true', '$4::json')}
     WHERE "tenantId" = $1 AND "resourceType" = $2 AND "resourceId" = $3`,
    tenantId,
    e.resourceType,
    e.resourceId,
    erased,
  );
  for (const m of MENTIONS[e.resourceType] ?? []) {
    const blank = [...m.blank];
    await tx.$executeRawUnsafe(
      `UPDATE "Event" SET "payload" = ${replaceKeys('"payload"', 'x.k = ANY($4::text[])', `'""'::json`)}
       WHERE "tenantId" = $1 AND "type" = ANY($2::text[]) AND "payload"->>$5 = $3`,
      tenantId,
      [...m.types],
      e.resourceId,
      blank,
      m.idKey,
    );
    // An audit entry names the resource where it set or unset the id (else the copy did not change).
    await tx.$executeRawUnsafe(
      `UPDATE "AuditLog" SET "changes" = ${replaceKeys('"changes"', 'x.k = ANY($4::text[])', '$6::json')}
       WHERE "tenantId" = $1 AND "resourceType" = $2
         AND ("changes"->$5->>'new' = $3 OR "changes"->$5->>'old' = $3)`,
      tenantId,
      m.resourceType,
      e.resourceId,
      blank,
      m.idKey,
      erased,
    );
  }
}

/**
 * What a guest's erasure does to the log beyond the guest's own events (forgetEarlier): every event
 * holding one of `macs` (its devices' MACs, in every stored form) has its MAC emptied, also where the
 * device was no one's or another guest's then; the devices' own events (`device.first_seen` of
 * `deviceIds`) lose the fields the erasure empties on the devices.
 */
export async function forgetDevices(
  tx: Tx,
  tenantId: string,
  devices: { macs: readonly string[]; deviceIds: readonly string[] },
): Promise<void> {
  if (devices.macs.length > 0) {
    const holds = MAC_KEYS.map((k) => `"payload"->>'${k}' = ANY($2::text[])`).join(' OR ');
    await tx.$executeRawUnsafe(
      `UPDATE "Event" SET "payload" = ${replaceKeys('"payload"', 'x.k = ANY($3::text[])', `'""'::json`)}
       WHERE "tenantId" = $1 AND (${holds})`,
      tenantId,
      devices.macs,
      MAC_KEYS,
    );
  }
  const device = MENTIONS.guest?.find((m) => m.resourceType === 'guest_device');
  if (device && devices.deviceIds.length > 0) {
    await tx.$executeRawUnsafe(
      `UPDATE "Event" SET "payload" = ${replaceKeys('"payload"', 'x.k = ANY($4::text[])', `'""'::json`)}
       WHERE "tenantId" = $1 AND "type" = ANY($2::text[]) AND "resourceId" = ANY($3::text[])`,
      tenantId,
      [...device.types],
      devices.deviceIds,
      [...device.blank],
    );
  }
}

/**
 * SQL: the JSON object `column` with the value of each key matching `when` (over `x.k`) replaced
 * by `by`, keys kept in their order (a `json` column keeps its text: no `jsonb` round trip).
 */
const replaceKeys = (column: string, when: string, by: string): string =>
  `(SELECT coalesce(json_object_agg(x.k, CASE WHEN ${when} THEN ${by} ELSE x.v END ORDER BY x.n), '{}'::json)
    FROM json_each(${column}) WITH ORDINALITY AS x(k, v, n))`;

/** The highest id among `events` (the log position a write reached), null when there are none. */
export function lastIdOf(events: readonly RecordedEvent[]): bigint | null {
  return spanOf(events)?.last ?? null;
}

/** The ids one transaction wrote to its tenant's log: consecutive (the sequence's row is its own till the commit). */
export interface EventSpan {
  first: bigint;
  last: bigint;
}

/** The span of `events` (one transaction's), or null when it wrote none. */
export function spanOf(events: readonly RecordedEvent[]): EventSpan | null {
  let span: EventSpan | null = null;
  for (const e of events) {
    if (span === null) span = { first: e.id, last: e.id };
    else if (e.id < span.first) span.first = e.id;
    else if (e.id > span.last) span.last = e.id;
  }
  return span;
}

// ---------------------------------------------------------------------------------------------
// After commit

type CommittedListener = (events: readonly RecordedEvent[]) => void;
const listeners = new Set<CommittedListener>();

/**
 * Calls `listener` with the events of every transaction of this process once it has committed (in
 * commit order per tenant). The log is the truth: a listener that misses a call (another instance
 * wrote the events, or the process restarted) finds them in the table. Returns the unsubscribe.
 */
export function onEventsCommitted(listener: CommittedListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the listeners about committed events; a listener's failure never fails the write. */
export function announceEvents(events: readonly RecordedEvent[]): void {
  if (events.length === 0) return;
  for (const l of listeners) {
    try {
      l(events);
    } catch {
      // The events are stored; whoever listens reads the log again on its next wake.
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The usual way: a write's transaction with its events

/** Where a write's events go: the database, the tenant whose log holds them, who causes them. */
export interface EventSource {
  readonly prisma: Prisma;
  readonly tenantId: string;
  readonly actor: EventActor;
}

/** A request's writes: its tenant, its caller. */
export function sourceOf(ctx: AppContext): EventSource {
  return { prisma: ctx.prisma, tenantId: ctx.principal.tenantId, actor: actorOf(ctx) };
}

/** What a write's function records its events with. */
export interface EventLog {
  /**
   * Appends events (a null, an update that changed nothing, is left out); they are written when the
   * function has done its work, just before commit.
   */
  record(...events: (NewEvent | null)[]): void;
  /**
   * Appends an event built when the function has done its work, in its place among the others: of a
   * record the same write goes on changing (a guest created, then put online by the session the write
   * opens), so that its payload is the record as the write leaves it.
   */
  recordAtCommit(build: () => Promise<NewEvent | null>): void;
}

/**
 * Inside a transaction: runs the write with a log, then appends the events it recorded (those built
 * at commit built now) to the tenant's log. The events as recorded, with their ids.
 */
export async function runRecordingEvents<T>(
  tx: Tx,
  tenantId: string,
  actor: EventActor,
  fn: WriteFn<T>,
): Promise<{ value: T; events: RecordedEvent[] }> {
  const { log, write } = transactionLog();
  const value = await fn(tx, log);
  const pending = await write();
  return { value, events: pending.length ? await recordEvents(tx, tenantId, actor, pending) : [] };
}

/** A log for one transaction's write, and the events it was given once the write is done. */
export function transactionLog(): { log: EventLog; write: () => Promise<NewEvent[]> } {
  const pending: (NewEvent | (() => Promise<NewEvent | null>))[] = [];
  return {
    log: {
      record: (...events) => {
        for (const e of events) if (e) pending.push(e);
      },
      recordAtCommit: (build) => {
        pending.push(build);
      },
    },
    async write() {
      const events: NewEvent[] = [];
      for (const e of pending) {
        const event = typeof e === 'function' ? await e() : e;
        if (event) events.push(event);
      }
      return events;
    },
  };
}

/**
 * A write that was one statement before waited for a connection as long as any statement does
 * (DB_CONNECT_TIMEOUT_MS, 5 s by default): Prisma's 2 s default for a transaction would be shorter.
 */
const DEFAULT_TRANSACTION = { maxWait: 5_000, timeout: 15_000 };

type TransactionOptions = { maxWait?: number; timeout?: number };
type WriteFn<T> = (tx: Tx, log: EventLog) => Promise<T>;

/**
 * Runs `fn` in one transaction; the events it records are written after its work, inside the same
 * transaction (so they commit or roll back with it), and announced once it has committed. Options
 * (Prisma's `maxWait`, `timeout`) go before `fn`, so a transaction's body keeps its indentation
 * (`fn, options` is accepted too).
 */
export function writeWithEvents<T>(source: EventSource | AppContext, fn: WriteFn<T>): Promise<T>;
export function writeWithEvents<T>(
  source: EventSource | AppContext,
  options: TransactionOptions,
  fn: WriteFn<T>,
): Promise<T>;
export function writeWithEvents<T>(
  source: EventSource | AppContext,
  fn: WriteFn<T>,
  options: TransactionOptions | undefined,
): Promise<T>;
export async function writeWithEvents<T>(
  source: EventSource | AppContext,
  a: WriteFn<T> | TransactionOptions,
  b?: WriteFn<T> | TransactionOptions,
): Promise<T> {
  const fn = (typeof a === 'function' ? a : b) as WriteFn<T>;
  const options = (typeof a === 'function' ? b : a) as TransactionOptions | undefined;
  return (await writeReturningEvents(source, fn, options)).value;
}

/**
 * `writeWithEvents` that also returns the events it recorded, for a caller that tells others where
 * in the log its write landed (the event sweeper's presence changes).
 */
export async function writeReturningEvents<T>(
  source: EventSource | AppContext,
  fn: WriteFn<T>,
  options?: TransactionOptions,
): Promise<{ value: T; events: RecordedEvent[] }> {
  const { prisma, tenantId, actor } = 'principal' in source ? sourceOf(source) : source;
  const done = await retryingConflicts(() =>
    prisma.$transaction((tx) => runRecordingEvents(tx, tenantId, actor, fn), options ?? DEFAULT_TRANSACTION),
  );
  announceEvents(done.events);
  return done;
}

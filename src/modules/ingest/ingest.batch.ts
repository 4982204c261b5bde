// What both ingest pipelines (ingest.presence.ts, ingest.sessions.ts) share: a batch is validated
// whole (every bad event named by index), then applied in one transaction or not at all. Event ids
// are unique per tenant, so a retried batch is applied once and answers the same.
import { createHash, randomBytes } from 'node:crypto';
import type { Prisma } from '../../db/database.js';
import { retryingUniqueViolation } from '../../db/unique-violation.js';
import { retryingConflicts } from '../../db/write-conflict.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import {
  duplicateMessage,
  elementAttribute,
  type FieldErrors,
  type Infer,
  type Rules,
  ValidationError,
  validate,
} from '../../validation/validator.js';
import { batchRules } from './ingest.inputs.js';

export type Tx = PrismaNS.TransactionClient;

export interface IngestResult {
  /** Events of the batch, applied now or by an earlier delivery of the same event ids. */
  accepted: number;
}

const TX_OPTIONS = { maxWait: 30_000, timeout: 120_000 } as const;

/** Short opaque ids in the alphabet of the schema's nanoid(12). */
export const newId = (): string => randomBytes(9).toString('base64url');

/**
 * Keys sorted at every depth, so an event's digest does not depend on the order its keys came in; a
 * Date as its ISO text.
 */
function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries: [string, unknown][] = Object.entries(value);
    // Code-unit order, as Array.prototype.sort orders strings.
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

/** SHA-256 of the event's canonical JSON. */
const digestOf = (event: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(canonical(event)))
    .digest('hex');

/**
 * Per-event messages, flattened index by index into Laravel's `events.N.field` keys, each event's
 * fields in the order of its rules (as Laravel runs them, whichever check found the message).
 */
export class BatchErrors {
  private readonly byEvent = new Map<number, FieldErrors>();
  private readonly rank: ReadonlyMap<string, number>;
  constructor(rules: Rules) {
    this.rank = new Map(Object.keys(rules).map((field, i) => [field, i]));
  }
  add(index: number, field: string, message: string): void {
    const e = this.byEvent.get(index) ?? {};
    const list = e[field] ?? [];
    if (!list.includes(message)) list.push(message);
    e[field] = list;
    this.byEvent.set(index, e);
  }
  has(index: number, field?: string): boolean {
    const e = this.byEvent.get(index);
    return field === undefined ? e !== undefined : e?.[field] !== undefined;
  }
  get any(): boolean {
    return this.byEvent.size > 0;
  }
  throwIfAny(): void {
    if (this.byEvent.size === 0) return;
    const out: FieldErrors = {};
    for (const index of [...this.byEvent.keys()].sort((a, b) => a - b)) {
      const fields = Object.entries(this.byEvent.get(index) ?? {});
      fields.sort(([a], [b]) => (this.rank.get(a) ?? -1) - (this.rank.get(b) ?? -1));
      for (const [field, messages] of fields) {
        out[field === '' ? `events.${index}` : `events.${index}.${field}`] = messages;
      }
    }
    throw new ValidationError(out);
  }
}

/** Laravel's display name of an event's field: `events.3.zone_id`, raw (elementAttribute). */
export const attr = (index: number, field: string): string => elementAttribute(`events.${index}`, field);
export const invalid = (index: number, field: string): string =>
  `The selected ${attr(index, field)} is invalid.`;

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export interface ValidatedBatch<T> {
  /** The events as sent (untrimmed): their digests and their count. */
  raw: readonly unknown[];
  /** The events that passed their own rules, by index, as `read` gives them. */
  valid: Map<number, T>;
  /** The events that failed some of their own rules, by index, as trimmed: their ids are checked too. */
  failed: Map<number, Readonly<Record<string, unknown>>>;
}

/**
 * The ids the events that failed other rules name (`fields`: each key's input field), for the
 * pipeline's id checks: Laravel runs an `exists` rule beside the others (no `bail`), so one 422 names
 * a bad format and an unknown id alike. A string is looked up; another scalar is `''`, which no record
 * has (input trims empty ids to null); null, a list or a map is left out.
 */
export function idsNamed<K extends string>(
  failed: ReadonlyMap<number, Readonly<Record<string, unknown>>>,
  fields: Readonly<Record<K, string>>,
): Map<number, Record<K, string | null>> {
  const keys = Object.keys(fields) as K[];
  return new Map(
    [...failed].map(([i, e]) => [
      i,
      Object.fromEntries(keys.map((k) => [k, idIn(e[fields[k]])])) as Record<K, string | null>,
    ]),
  );
}

function idIn(v: unknown): string | null {
  // One with a NUL character was refused for it, and PostgreSQL cannot compare it.
  if (typeof v === 'string') return v.includes('\0') ? null : v;
  return typeof v === 'number' || typeof v === 'boolean' ? '' : null;
}

/**
 * Validates the envelope (throwing at once) and each event's own fields (into `errors`, thrown by
 * the pipeline once it has also checked the ids the events name).
 */
export async function validateEvents<R extends Rules, T>(
  body: Readonly<Record<string, unknown>>,
  rules: R,
  read: (validated: Infer<R>) => T,
  errors: BatchErrors,
): Promise<ValidatedBatch<T>> {
  const { events } = await validate(body, batchRules);
  // batchRules let only a list through, trimmed (`events`) or as sent (`body.events`).
  const list: readonly unknown[] = Array.isArray(events) ? events : [];
  const raw: readonly unknown[] = Array.isArray(body.events) ? body.events : [];
  const valid = new Map<number, T>();
  const failed = new Map<number, Readonly<Record<string, unknown>>>();
  await Promise.all(
    list.map(async (event, i) => {
      if (!isRecord(event)) {
        errors.add(i, '', `The events.${i} field must be an object.`);
        return;
      }
      try {
        valid.set(i, read(await validate(event, rules, { element: `events.${i}` })));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const [field, messages] of Object.entries(err.errors)) {
          for (const m of messages) errors.add(i, field, m);
        }
        failed.set(i, event);
      }
    }),
  );
  return { raw, valid, failed };
}

/** The distinct non-null values `pick` reads from the events, in first-seen order. */
export function distinct<T>(events: Iterable<T>, pick: (e: T) => string | null): string[] {
  const out = new Set<string>();
  for (const e of events) {
    const value = pick(e);
    if (value !== null) out.add(value);
  }
  return [...out];
}

/**
 * Which events are new: a repeated event id (in this batch or already stored) with the same content
 * is skipped; with other content it is refused (into `errors`, which the caller throws once it has
 * checked the new events' ids). Stores the new ids with their digests while the batch has no error.
 */
export async function claimEvents(
  tx: Tx,
  tenantId: string,
  kind: 'presence' | 'session',
  raw: readonly unknown[],
  valid: ReadonlyMap<number, { eventId: string }>,
  errors: BatchErrors,
): Promise<Set<number>> {
  const seen = new Map<string, { digest: string }>();
  const fresh = new Set<number>();
  const freshIds: string[] = [];
  const freshDigests: string[] = [];
  const ids = [...valid.values()].map((e) => e.eventId);
  const stored = new Map(
    (
      await tx.ingestEvent.findMany({
        where: { tenantId, eventId: { in: ids } },
        select: { eventId: true, digest: true, kind: true },
      })
    ).map((r) => [r.eventId, r]),
  );
  for (const [i, e] of [...valid.entries()].sort((a, b) => a[0] - b[0])) {
    const id = e.eventId;
    // The event as validated: a retry with a field the rules ignore, another MAC notation or
    // untrimmed text is the same event (probe R). Ledgers written before kept the event as sent.
    const digest = digestOf(e);
    const earlier = seen.get(id);
    if (earlier) {
      if (earlier.digest !== digest) errors.add(i, 'event_id', duplicateMessage(attr(i, 'event_id')));
      continue;
    }
    seen.set(id, { digest });
    const prior = stored.get(id);
    if (prior) {
      if ((prior.digest !== digest && prior.digest !== digestOf(raw[i])) || prior.kind !== kind) {
        errors.add(i, 'event_id', `The ${attr(i, 'event_id')} has already been taken.`);
      }
      continue;
    }
    fresh.add(i);
    freshIds.push(id);
    freshDigests.push(digest);
  }
  if (errors.any) return fresh;
  // Raw multi-row inserts (unnest of one array per column): Prisma's createMany costs far more per
  // row in the client than the database spends on it.
  if (fresh.size) {
    await tx.$executeRaw`INSERT INTO "IngestEvent" ("tenantId", "eventId", "kind", "digest")
      SELECT ${tenantId}, e, ${kind}, d FROM unnest(
        ${freshIds}::text[],
        ${freshDigests}::text[]) AS v(e, d)`;
  }
  return fresh;
}

/** The events of `fresh` (claimEvents' new ones), by index: what is checked and applied. */
export function onlyFresh<T>(fresh: ReadonlySet<number>, events: ReadonlyMap<number, T>): Map<number, T> {
  return new Map([...events].filter(([i]) => fresh.has(i)));
}

/** The fresh events, in the batch's order. */
export function inBatchOrder<T>(fresh: Set<number>, events: ReadonlyMap<number, T>): T[] {
  return [...fresh]
    .sort((a, b) => a - b)
    .flatMap((i) => {
      const e = events.get(i);
      return e ? [e] : [];
    });
}

/**
 * Runs `fn` in a transaction; a concurrent delivery of the same event ids makes it retry once, a
 * write conflict (src/db/write-conflict.ts) up to its limit.
 */
export async function inTransaction<T>(prisma: Prisma, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return retryingUniqueViolation(() => retryingConflicts(() => prisma.$transaction(fn, TX_OPTIONS)));
}

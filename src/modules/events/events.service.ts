// The event log (beyond the spec): read a page at a time (REST `GET /events`, GraphQL `events`), or
// followed live (GraphQL subscription `events`): what was missed after a given id from the table,
// then each event as it commits, on whichever instance (src/events/feed.ts).
import type { Scope } from '../../auth/principal.js';
import type { AppContext } from '../../context.js';
import { findManyRows } from '../../db/raw-rows.js';
import { AppError } from '../../errors.js';
import { followLog, logBounds } from '../../events/feed.js';
import type { RecordedEvent } from '../../events/outbox.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { type ListWhere, listOperation } from '../../operations/operation.js';
import { laravelInput } from '../../validation/laravel-input.js';
import { eventFilters, keptTypes } from './events.inputs.js';

/** The log and its live feed: filters → where, oldest first (ids follow commit order). */
export const eventsQuery = listOperation({
  action: 'events.view',
  filters: eventFilters,
  within: (scope: Scope, and: PrismaNS.EventWhereInput[]): PrismaNS.EventWhereInput => ({
    tenantId: scope.tenantId,
    AND: and,
  }),
  orderBy: () => [{ id: 'asc' }] satisfies PrismaNS.EventOrderByWithRelationInput[],
});

export type EventQuery = ListWhere<PrismaNS.EventWhereInput, PrismaNS.EventOrderByWithRelationInput[]>;

/** A page of the log. */
export async function listEvents(
  ctx: AppContext,
  q: EventQuery,
  page: { skip: number; take: number },
): Promise<RecordedEvent[]> {
  const rows = await findManyRows(ctx.prisma, 'Event', { where: q.where, orderBy: q.orderBy, ...page });
  // The table's row is the recorded event: its type, actor and resource columns hold what
  // recordEvents wrote from those unions.
  return rows as RecordedEvent[];
}

/**
 * Where a reader resuming after `after` starts, checked against the log: not past its last event
 * (another tenant's id, a typo), not before what retention still keeps. Without `after`: the last
 * event now (only new events follow).
 */
export async function resumePoint(ctx: AppContext, tenantId: string, after: number | null): Promise<bigint> {
  const { last, oldest } = await logBounds(ctx.prisma, tenantId);
  if (after === null) return last;
  const from = BigInt(after);
  if (from > last) {
    throw new AppError('VALIDATION', {
      fields: { after: [`The after field must not be greater than ${last}.`] },
    });
  }
  // The first event still kept is `oldest` (none kept: the next one to come).
  const floor = (oldest ?? last + 1n) - 1n;
  if (from < floor) {
    throw new AppError('VALIDATION', {
      fields: { after: [`The after field must be at least ${floor}: older events are no longer kept.`] },
    });
  }
  return from;
}

/**
 * Where a subscription resumes: its `after` argument, else (absent, null or blank: no value, as
 * Laravel's input middleware read it) the `Last-Event-ID` a reconnecting SSE client resends, else
 * null (only new events). A client that always sends its `$after` variable, null at first, resumes too.
 */
export function resumeAfter(ctx: AppContext, after: unknown): unknown {
  const given = laravelInput({ after }).after;
  return given ?? ctx.stream?.lastEventId ?? null;
}

function afterOf(ctx: AppContext, raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { ...raw, after: resumeAfter(ctx, raw.after) };
}

/** The subscription: what was missed after `after`, then live; checks before the stream opens. */
export async function watchEvents(
  ctx: AppContext,
  raw: Readonly<Record<string, unknown>>,
): Promise<AsyncIterable<RecordedEvent>> {
  const q = await eventsQuery.query(ctx, afterOf(ctx, raw));
  const { tenantId } = q.scope;
  const after = await resumePoint(ctx, tenantId, q.input.after ?? null);
  if (!ctx.pubsub) throw new AppError('NOT_FOUND');
  return followLog({
    prisma: ctx.prisma,
    pubsub: ctx.pubsub,
    tenantId,
    after,
    types: keptTypes(q.input.types),
  });
}

// The filters of the event log (beyond the spec), shared by REST's list, GraphQL's `events` query and
// the `events` subscription: where to start (`after`) and which types.

import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { filterOf } from '../../operations/operation.js';
import { array, integer, list, min, nullable } from '../../validation/validator.js';
import { ALL_EVENTS, eventTypes } from '../webhooks/webhooks.inputs.js';

const eventFilter = filterOf<PrismaNS.EventWhereInput>();

/** The types a filter keeps: null for every type (no filter, or `["*"]`). */
export const keptTypes = (types: readonly string[] | undefined): string[] | null =>
  !types || types.length === 0 || types.includes(ALL_EVENTS) ? null : [...types];

export const eventFilters = {
  after: eventFilter([nullable(), integer(), min(0)], {
    description:
      'The events after this id (the last one a reader has): ids count 1, 2, 3… per tenant, in commit order',
    where: (v) => ({ id: { gt: BigInt(v) } }),
  }),
  types: eventFilter([nullable(), array(), list(), eventTypes], {
    description: 'Only these event types (as webhooks name them); every type without, or with `["*"]`',
    where: (v) => {
      const kept = keptTypes(v);
      return kept ? { type: { in: kept } } : {};
    },
  }),
};

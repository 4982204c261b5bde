// The filters of spec 4.8, shared by REST and GraphQL: each one's rules (REST name), its GraphQL
// argument's description and the condition it adds, declared once.
import { textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { filterOf } from '../../operations/operation.js';
import { dayStart, nextDayStart } from '../../shared/dates.js';
import { dateFormat, inList, integer, nullable, string, textFilter } from '../../validation/validator.js';

export const ADVERTISEMENT_ORDER_COLUMNS = ['title', 'type', 'method', 'status'] as const;

const advertisementFilter = filterOf<PrismaNS.AdvertisementWhereInput>();

/** The filters of the list and count; `order_by` and `order_direction` are the order, no condition. */
export const advertisementFilters = {
  title: advertisementFilter(textFilter(), {
    description: 'Case-insensitive substring of the title',
    where: (v) => ({ title: textSearch(v) }),
  }),
  url: advertisementFilter(textFilter(2048), {
    description: 'Case-insensitive substring of the URL',
    where: (v) => ({ url: textSearch(v) }),
  }),
  type: advertisementFilter([nullable(), integer(), inList([0, 1])], {
    description: '0 Text, 1 Image',
    where: (v) => ({ type: v }),
  }),
  status: advertisementFilter([nullable(), integer(), inList([0, 1])], {
    description: '0 Draft, 1 Published',
    where: (v) => ({ status: v }),
  }),
  // "Text search with the hashed tag id": a tag whose id contains the text (an exact id matches too).
  // The service keeps the links to the caller's tenant (advertisementsQuery's `within`).
  tag_id: advertisementFilter(textFilter(), {
    description: 'Advertisements with a tag whose id contains this text',
    // Through the tag links of the caller's tenant only.
    where: (v, scope) => ({ tags: { some: { tenantId: scope.tenantId, tag: { id: textSearch(v) } } } }),
  }),
  start_date: advertisementFilter([nullable(), dateFormat('Y-m-d')], {
    description: '`yyyy-mm-dd`: started on or after that day (UTC)',
    where: (v) => ({ startDate: { gte: dayStart(v) } }),
  }),
  end_date: advertisementFilter([nullable(), dateFormat('Y-m-d')], {
    description: '`yyyy-mm-dd`: ended on or before that day (UTC)',
    where: (v) => ({ endDate: { lt: nextDayStart(v) } }),
  }),
  order_by: advertisementFilter([nullable(), string(), inList(ADVERTISEMENT_ORDER_COLUMNS)], {
    description: '`title`, `type`, `method` or `status`',
  }),
  order_direction: advertisementFilter([nullable(), string(), inList(['asc', 'desc'])], {
    description: '`asc` (default) or `desc`',
  }),
};

// The filters of spec 4.8, shared by REST and GraphQL.
import {
  dateFormat,
  inList,
  integer,
  nullable,
  type Rules,
  string,
  textFilter,
} from '../../validation/validator.js';

export const ADVERTISEMENT_ORDER_COLUMNS = ['title', 'type', 'method', 'status'] as const;
export type AdvertisementOrderColumn = (typeof ADVERTISEMENT_ORDER_COLUMNS)[number];

export const advertisementFilterRules: Rules = {
  title: textFilter(),
  url: textFilter(2048),
  type: [nullable(), integer(), inList([0, 1])],
  status: [nullable(), integer(), inList([0, 1])],
  tag_id: textFilter(),
  start_date: [nullable(), dateFormat('Y-m-d')],
  end_date: [nullable(), dateFormat('Y-m-d')],
  order_by: [nullable(), string(), inList(ADVERTISEMENT_ORDER_COLUMNS)],
  order_direction: [nullable(), string(), inList(['asc', 'desc'])],
};

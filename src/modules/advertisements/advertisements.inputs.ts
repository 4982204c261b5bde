// The filters of spec 4.8, shared by REST and GraphQL.
import { dateFormat, inList, integer, type Rules, string } from '../../validation/validator.js';

export const ADVERTISEMENT_ORDER_COLUMNS = ['title', 'type', 'method', 'status'] as const;
export type AdvertisementOrderColumn = (typeof ADVERTISEMENT_ORDER_COLUMNS)[number];

export const advertisementFilterRules: Rules = {
  title: [string()],
  url: [string()],
  type: [integer(), inList([0, 1])],
  status: [integer(), inList([0, 1])],
  tag_id: [string()],
  start_date: [dateFormat('Y-m-d')],
  end_date: [dateFormat('Y-m-d')],
  order_by: [string(), inList(ADVERTISEMENT_ORDER_COLUMNS)],
  order_direction: [string(), inList(['asc', 'desc'])],
};

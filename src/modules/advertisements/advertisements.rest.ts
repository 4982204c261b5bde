// REST endpoints of spec 4.8.
import { countEndpoint, listEndpoint } from '../../rest/endpoint.js';
import { advertisementFilterRules } from './advertisements.inputs.js';
import { AdvertisementItemSchema, advertisementItem } from './advertisements.serializer.js';
import { countAdvertisements, listAdvertisements } from './advertisements.service.js';

export const list = listEndpoint({
  summary: 'List advertisements (title, url, type, status, tag_id, start_date, end_date, order_by, …)',
  action: 'advertisements.list',
  defaultPerPage: 25,
  item: AdvertisementItemSchema,
  filters: advertisementFilterRules,
  list: listAdvertisements,
  serialize: advertisementItem,
});

export const count = countEndpoint({
  summary: 'Count advertisements (the list filters)',
  action: 'advertisements.list',
  filters: advertisementFilterRules,
  count: countAdvertisements,
});

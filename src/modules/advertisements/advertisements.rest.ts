// REST endpoints of spec 4.8: the list operation (advertisements.service.ts) with REST's paging and
// serializer.
import { countEndpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { AdvertisementItemSchema, advertisementItem } from './advertisements.serializer.js';
import { advertisementsQuery, countAdvertisements, listAdvertisements } from './advertisements.service.js';

export const list = listEndpointOf(advertisementsQuery, {
  summary: 'List advertisements (title, url, type, status, tag_id, start_date, end_date, order_by, …)',
  defaultPerPage: 25,
  item: AdvertisementItemSchema,
  read: listAdvertisements,
  serialize: advertisementItem,
});

export const count = countEndpointOf(advertisementsQuery, {
  summary: 'Count advertisements (the list filters)',
  count: countAdvertisements,
});

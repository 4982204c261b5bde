// REST endpoints for service profiles (beyond the spec): the list operation
// (service-profiles.service.ts) with REST's paging and serializer.
import { countEndpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { ServiceProfileItemSchema, serviceProfileItem } from './service-profiles.serializer.js';
import {
  countServiceProfiles,
  listServiceProfiles,
  serviceProfilesQuery,
} from './service-profiles.service.js';

export const list = listEndpointOf(serviceProfilesQuery, {
  summary: 'List service profiles (name, is_default, page, per_page)',
  item: ServiceProfileItemSchema,
  read: listServiceProfiles,
  serialize: serviceProfileItem,
});

export const count = countEndpointOf(serviceProfilesQuery, {
  summary: 'Count service profiles (name, is_default)',
  count: countServiceProfiles,
});

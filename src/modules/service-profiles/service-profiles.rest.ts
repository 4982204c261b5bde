// REST endpoints for service profiles (beyond the spec).
import { countEndpoint, listEndpoint } from '../../rest/endpoint.js';
import { serviceProfileFilterRules } from './service-profiles.inputs.js';
import { ServiceProfileItemSchema, serviceProfileItem } from './service-profiles.serializer.js';
import { countServiceProfiles, listServiceProfiles } from './service-profiles.service.js';

export const list = listEndpoint({
  summary: 'List service profiles (name, is_default, page, per_page)',
  action: 'serviceProfiles.list',
  item: ServiceProfileItemSchema,
  filters: serviceProfileFilterRules,
  list: listServiceProfiles,
  serialize: serviceProfileItem,
});

export const count = countEndpoint({
  summary: 'Count service profiles (name, is_default)',
  action: 'serviceProfiles.list',
  filters: serviceProfileFilterRules,
  count: countServiceProfiles,
});

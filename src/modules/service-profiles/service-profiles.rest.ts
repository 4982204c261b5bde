// REST endpoints for service profiles (beyond the spec).
import { countEndpoint, listEndpoint } from '../../rest/endpoint.js';
import { serviceProfileItem } from './service-profiles.serializer.js';
import { countServiceProfiles, listServiceProfiles } from './service-profiles.service.js';

export const list = listEndpoint({
  summary: 'List service profiles (name, is_default, page, per_page)',
  action: 'serviceProfiles.list',
  list: listServiceProfiles,
  serialize: serviceProfileItem,
});

export const count = countEndpoint({
  summary: 'Count service profiles (name, is_default)',
  action: 'serviceProfiles.list',
  count: countServiceProfiles,
});

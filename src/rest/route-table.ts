// Every /api/v1 path at a glance, and the GraphQL field that serves the same operation through
// the same service function.
import * as locations from '../modules/locations/locations.rest.js';
import { type Route, route } from './endpoint.js';

export const routeTable: readonly Route[] = [
  route('GET', '/locations', locations.list, 'Query.locations'),
  route('GET', '/locations/count', locations.count, 'Query.locations.totalCount'),
  route(
    'GET',
    '/locations/hierarchy',
    locations.hierarchy,
    'Query.locations { buildings { floors { zones } } }',
  ),
  route('POST', '/locations', locations.create, 'Mutation.createLocation'),
  route('PUT', '/locations/:id', locations.update, 'Mutation.updateLocation'),
];

// Every /api/v1 path at a glance, and the GraphQL field that serves the same operation through
// the same service function.
import * as accessCodes from '../modules/access-codes/access-codes.rest.js';
import * as advertisements from '../modules/advertisements/advertisements.rest.js';
import * as analytics from '../modules/analytics/analytics.rest.js';
import * as guestDevices from '../modules/guest-devices/guest-devices.rest.js';
import * as guestSessions from '../modules/guest-sessions/guest-sessions.rest.js';
import * as guests from '../modules/guests/guests.rest.js';
import * as ingest from '../modules/ingest/ingest.rest.js';
import * as locations from '../modules/locations/locations.rest.js';
import * as serviceProfiles from '../modules/service-profiles/service-profiles.rest.js';
import * as tenants from '../modules/tenants/tenants.rest.js';
import * as users from '../modules/users/users.rest.js';
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
  // Guests (spec 4.2). `/guests/count` is static, so it wins over `/guests/:id`.
  route('GET', '/guests', guests.list, 'Query.guests'),
  route('GET', '/guests/count', guests.count, 'Query.guests.totalCount'),
  route('GET', '/guests/:id', guests.show, 'Query.guest'),
  route('POST', '/guests', guests.create, 'Mutation.createGuest'),
  route('PUT', '/guests/:id', guests.update, 'Mutation.updateGuest'),
  // Tenants (spec 4.6) and dashboard users (spec 4.7).
  route('GET', '/tenants', tenants.list, 'Query.tenants'),
  route('GET', '/tenants/count', tenants.count, 'Query.tenants.totalCount'),
  route('POST', '/tenants', tenants.create, 'Mutation.createTenant'),
  route('PUT', '/tenants/:id', tenants.update, 'Mutation.updateTenant'),
  route('PUT', '/tenants/:id/deactivate', tenants.deactivate, 'Mutation.deactivateTenant'),
  route('PUT', '/tenants/:id/activate', tenants.activate, 'Mutation.activateTenant'),
  route('PUT', '/tenants/:id/switch', tenants.switchTo, 'Mutation.switchTenant'),
  route('GET', '/users', users.list, 'Query.users'),
  route('GET', '/users/count', users.count, 'Query.users.totalCount'),
  route('POST', '/users', users.create, 'Mutation.createUser'),
  route('PUT', '/users/:id', users.update, 'Mutation.updateUser'),
  route('PUT', '/users/:id/deactivate', users.deactivate, 'Mutation.deactivateUser'),
  route('PUT', '/users/:id/activate', users.activate, 'Mutation.activateUser'),
  // Guest devices (spec 4.3) and guest sessions (spec 4.4). `/sessions/count` is static, so it wins
  // over `/sessions/:ip_address` in Fastify's router.
  route('GET', '/guest-devices', guestDevices.list, 'Query.guestDevices'),
  route('GET', '/guest-devices/count', guestDevices.count, 'Query.guestDevices.totalCount'),
  route('GET', '/sessions', guestSessions.list, 'Query.guestSessions'),
  route('GET', '/sessions/count', guestSessions.count, 'Query.guestSessions.totalCount'),
  route('GET', '/sessions/:ip_address', guestSessions.byIp, 'Query.sessionsByIp'),
  // Advertisements (spec 4.8), service profiles (beyond the spec) and access codes (spec 4.9; list and
  // count beyond it).
  route('GET', '/advertisements', advertisements.list, 'Query.advertisements'),
  route('GET', '/advertisements/count', advertisements.count, 'Query.advertisements.totalCount'),
  route('GET', '/service-profiles', serviceProfiles.list, 'Query.serviceProfiles'),
  route('GET', '/service-profiles/count', serviceProfiles.count, 'Query.serviceProfiles.totalCount'),
  route('GET', '/access-codes', accessCodes.list, 'Query.accessCodes'),
  route('GET', '/access-codes/count', accessCodes.count, 'Query.accessCodes.totalCount'),
  route('POST', '/access-codes', accessCodes.create, 'Mutation.generateAccessCodes'),
  // Location analytics (spec 4.5; the four deprecated paths declare their sunset) and the ingest
  // (beyond the spec; tokens with the `ingest` scope or tenant users).
  route('GET', '/locations-analytics/active-sessions', analytics.activeSessions, 'Query.activeSessions'),
  route('GET', '/locations-analytics/sessions', analytics.sessions, '(deprecated; none)'),
  route('GET', '/locations-analytics/sessions/count', analytics.sessionsCount, '(deprecated; none)'),
  route('GET', '/locations-analytics/sessions/:id', analytics.session, 'Query.locationSession'),
  route('GET', '/locations-analytics/location-logs', analytics.logs, '(deprecated; none)'),
  route('GET', '/locations-analytics/location-logs/count', analytics.logsCount, '(deprecated; none)'),
  route('POST', '/ingest/presence', ingest.presence, '(none: REST only)'),
  route('POST', '/ingest/sessions', ingest.sessions, '(none: REST only)'),
];

// Every /api/v1 path at a glance, and the GraphQL field that serves the same operation through
// the same service function.
import * as accessCodes from '../modules/access-codes/access-codes.rest.js';
import * as advertisements from '../modules/advertisements/advertisements.rest.js';
import * as analytics from '../modules/analytics/analytics.rest.js';
import * as apiTokens from '../modules/api-tokens/api-tokens.rest.js';
import * as auditLogs from '../modules/audit-logs/audit-logs.rest.js';
import * as events from '../modules/events/events.rest.js';
import * as guestDevices from '../modules/guest-devices/guest-devices.rest.js';
import * as guestSessions from '../modules/guest-sessions/guest-sessions.rest.js';
import * as guests from '../modules/guests/guests.rest.js';
import * as ingest from '../modules/ingest/ingest.rest.js';
import * as locations from '../modules/locations/locations.rest.js';
import * as retention from '../modules/retention/retention.rest.js';
import * as serviceProfiles from '../modules/service-profiles/service-profiles.rest.js';
import * as tenants from '../modules/tenants/tenants.rest.js';
import * as users from '../modules/users/users.rest.js';
import * as webhooks from '../modules/webhooks/webhooks.rest.js';
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
  // Streamed exports (beyond the spec): static paths, so they win over `/…/:id`.
  route('GET', '/guests/export', guests.exportAll, 'Query.guests (not streamed)'),
  route('GET', '/guests/:id', guests.show, 'Query.guest'),
  route('POST', '/guests', guests.create, 'Mutation.createGuest'),
  // Bulk import (beyond the spec): a static path, no `POST /guests/:id` to clash with.
  route('POST', '/guests/import', guests.importRows, 'Mutation.importGuests'),
  route('PUT', '/guests/:id', guests.update, 'Mutation.updateGuest'),
  // A guest's data rights (beyond the spec): the copy and the erasure.
  route('GET', '/guests/:id/export', guests.exportCopy, 'Query.guestExport'),
  route('DELETE', '/guests/:id', guests.erase, 'Mutation.eraseGuest'),
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
  route('GET', '/guest-devices/export', guestDevices.exportAll, 'Query.guestDevices (not streamed)'),
  route('GET', '/sessions', guestSessions.list, 'Query.guestSessions'),
  route('GET', '/sessions/count', guestSessions.count, 'Query.guestSessions.totalCount'),
  route('GET', '/sessions/export', guestSessions.exportAll, 'Query.guestSessions (not streamed)'),
  route('GET', '/sessions/:ip_address', guestSessions.byIp, 'Query.sessionsByIp'),
  // Advertisements (spec 4.8), service profiles (beyond the spec) and access codes (spec 4.9; list and
  // count beyond it).
  route('GET', '/advertisements', advertisements.list, 'Query.advertisements'),
  route('GET', '/advertisements/count', advertisements.count, 'Query.advertisements.totalCount'),
  route('GET', '/service-profiles', serviceProfiles.list, 'Query.serviceProfiles'),
  route('GET', '/service-profiles/count', serviceProfiles.count, 'Query.serviceProfiles.totalCount'),
  route('GET', '/access-codes', accessCodes.list, 'Query.accessCodes'),
  route('GET', '/access-codes/count', accessCodes.count, 'Query.accessCodes.totalCount'),
  route('GET', '/access-codes/export', accessCodes.exportAll, 'Query.accessCodes (not streamed)'),
  route('POST', '/access-codes', accessCodes.create, 'Mutation.generateAccessCodes'),
  // Vouchers (beyond the spec): static paths, so they win over `/access-codes/:id/…`.
  route('POST', '/access-codes/redeem', accessCodes.redeem, 'Mutation.redeemAccessCode'),
  route('POST', '/access-codes/revoke', accessCodes.revokeBatch, 'Mutation.revokeAccessCodes'),
  route('PUT', '/access-codes/:id/revoke', accessCodes.revoke, 'Mutation.revokeAccessCode'),
  // Location analytics (spec 4.5; the four deprecated paths declare their sunset) and the ingest
  // (beyond the spec; tokens with the `ingest` scope or tenant users).
  route('GET', '/locations-analytics/active-sessions', analytics.activeSessions, 'Query.activeSessions'),
  route('GET', '/locations-analytics/sessions', analytics.sessions, '(deprecated)'),
  route('GET', '/locations-analytics/sessions/count', analytics.sessionsCount, '(deprecated)'),
  route('GET', '/locations-analytics/sessions/:id', analytics.session, 'Query.locationSession'),
  route('GET', '/locations-analytics/location-logs', analytics.logs, '(deprecated)'),
  route('GET', '/locations-analytics/location-logs/count', analytics.logsCount, '(deprecated)'),
  route('POST', '/ingest/presence', ingest.presence, '(none: REST only)'),
  route('POST', '/ingest/sessions', ingest.sessions, '(none: REST only)'),
  // API keys (beyond the spec): tenant admins manage their users' tokens.
  route('GET', '/api-tokens', apiTokens.list, 'Query.apiTokens'),
  route('GET', '/api-tokens/count', apiTokens.count, 'Query.apiTokens.totalCount'),
  route('POST', '/api-tokens', apiTokens.create, 'Mutation.createApiToken'),
  route('DELETE', '/api-tokens/:id', apiTokens.revoke, 'Mutation.revokeApiToken'),
  // Data retention (beyond the spec): the tenant admins' settings, applied by the retention sweeper.
  route('GET', '/settings/retention', retention.show, 'Query.retentionSettings'),
  route('PUT', '/settings/retention', retention.update, 'Mutation.updateRetentionSettings'),
  // Webhooks (beyond the spec): tenant admins' endpoints, their deliveries, pings and replays.
  route('GET', '/webhooks', webhooks.list, 'Query.webhooks'),
  route('GET', '/webhooks/count', webhooks.count, 'Query.webhooks.totalCount'),
  route('POST', '/webhooks', webhooks.create, 'Mutation.createWebhook'),
  route('PUT', '/webhooks/:id', webhooks.update, 'Mutation.updateWebhook'),
  route('DELETE', '/webhooks/:id', webhooks.remove, 'Mutation.deleteWebhook'),
  route('POST', '/webhooks/:id/test', webhooks.test, 'Mutation.testWebhook'),
  route('GET', '/webhooks/:id/deliveries', webhooks.deliveries, 'Query.webhookDeliveries'),
  route('POST', '/webhooks/:id/replay', webhooks.replay, 'Mutation.replayWebhook'),
  route('POST', '/webhooks/:id/rotate-secret', webhooks.rotateSecret, 'Mutation.rotateWebhookSecret'),
  // The audit log (beyond the spec): read only; the writes themselves append to it.
  route('GET', '/audit-logs', auditLogs.list, 'Query.auditLogs'),
  route('GET', '/audit-logs/count', auditLogs.count, 'Query.auditLogs.totalCount'),
  // The event log (beyond the spec): a page at a time after an id; live through GraphQL's
  // `events` subscription.
  route('GET', '/events', events.list, 'Query.events'),
];

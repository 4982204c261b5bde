// REST endpoints of spec 4.5. The four deprecated ones declare their deprecation; the adapter adds
// the headers before the sunset and answers 410 from it on.

import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import { descriptionsOf, rulesOf } from '../../operations/operation.js';
import type { Deprecation, Endpoint } from '../../rest/endpoint.js';
import { countEndpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { EncodedJson, phpJsonEncode } from '../../rest/php-json.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import { dateOnly } from '../../shared/format.js';
import { SingleFlight } from '../../shared/single-flight.js';
import {
  ActiveSessionSchema,
  activeSessionItem,
  LocationLogSchema,
  LocationSessionSchema,
  locationLogItem,
  locationSessionItem,
} from './analytics.serializer.js';
import {
  activeSessionsKey,
  activeSessionsQuery,
  countLocationLogs,
  countLocationSessions,
  findLocationSession,
  listActiveSessions,
  listLocationLogs,
  listLocationSessions,
  locationLogsQuery,
  locationSessionsQuery,
  readAnalytics,
} from './analytics.service.js';

const SUCCESSOR = '/locations-analytics/active-sessions';

/** v2.25 of the interface documentation (2025-06-03), the release before the removal date was announced. */
export const ANALYTICS_DEPRECATED_SINCE = new Date('2025-06-03T00:00:00Z');

const deprecated = (count: boolean): Deprecation => ({
  since: ANALYTICS_DEPRECATED_SINCE,
  sunset: (config: Config) => config.legacyAnalyticsSunset,
  successor: SUCCESSOR,
  goneMessage: (sunset) =>
    `This endpoint was removed on ${dateOnly(sunset)}. Use GET /api/v1${SUCCESSOR} ` +
    `(with connected=1 for connected sessions)${count ? ' and count the returned records' : ''}.`,
});

const activeBodies = new SingleFlight<EncodedJson>();

export const activeSessions: Endpoint = {
  action: activeSessionsQuery.action,
  summary: 'Active sessions: per device its latest presence record inside the active window',
  filters: rulesOf(activeSessionsQuery.filters),
  descriptions: descriptionsOf(activeSessionsQuery.filters),
  response: Obj({ data: Type.Array(ActiveSessionSchema) }),
  async handle({ ctx, query }) {
    const q = await activeSessionsQuery.query(ctx, query);
    // Concurrent identical reads share the written body too: writing 50 000 sessions costs more than reading them.
    return activeBodies.run(activeSessionsKey(q.scope, q.input), async () => {
      const sessions = await listActiveSessions(ctx, q);
      return new EncodedJson(phpJsonEncode({ data: sessions.map(activeSessionItem) }));
    });
  },
};

export const sessions: Endpoint = {
  ...listEndpointOf(locationSessionsQuery, {
    summary: 'Location sessions (deprecated)',
    item: LocationSessionSchema,
    read: listLocationSessions,
    serialize: locationSessionItem,
  }),
  deprecated: deprecated(false),
};

export const sessionsCount: Endpoint = {
  ...countEndpointOf(locationSessionsQuery, {
    summary: 'Count location sessions (deprecated)',
    count: countLocationSessions,
  }),
  deprecated: deprecated(true),
};

export const session: Endpoint = {
  action: readAnalytics.action,
  summary: 'One location session',
  response: DataBody(LocationSessionSchema),
  async handle({ ctx, params }) {
    return { data: locationSessionItem(await findLocationSession(ctx, params.id ?? '')) };
  },
};

export const logs: Endpoint = {
  ...listEndpointOf(locationLogsQuery, {
    summary: 'Location logs (deprecated)',
    item: LocationLogSchema,
    read: listLocationLogs,
    serialize: locationLogItem,
  }),
  deprecated: deprecated(false),
};

export const logsCount: Endpoint = {
  ...countEndpointOf(locationLogsQuery, {
    summary: 'Count location logs (deprecated)',
    count: countLocationLogs,
  }),
  deprecated: deprecated(true),
};

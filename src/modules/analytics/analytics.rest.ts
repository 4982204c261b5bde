// REST endpoints of spec 4.5. The four deprecated ones declare their deprecation; the adapter adds
// the headers before the sunset and answers 410 from it on.

import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import { countEndpoint, type Deprecation, type Endpoint, listEndpoint } from '../../rest/endpoint.js';
import { EncodedJson, phpJsonEncode } from '../../rest/php-json.js';
import { DataBody, Obj } from '../../rest/schemas.js';
import { dateOnly } from '../../shared/format.js';
import { SingleFlight } from '../../shared/single-flight.js';
import {
  activeSessionFilterRules,
  locationLogFilterRules,
  locationSessionFilterRules,
} from './analytics.inputs.js';
import {
  ActiveSessionSchema,
  activeSessionItem,
  LocationLogSchema,
  LocationSessionSchema,
  locationLogItem,
  locationSessionItem,
} from './analytics.serializer.js';
import {
  activeSessionRequest,
  activeSessionsIn,
  activeSessionsKey,
  countLocationLogs,
  countLocationSessions,
  findLocationSession,
  listLocationLogs,
  listLocationSessions,
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
  action: 'analytics.read',
  summary: 'Active sessions: per device its latest presence record inside the active window',
  filters: activeSessionFilterRules,
  response: Obj({ data: Type.Array(ActiveSessionSchema) }),
  async handle({ ctx, query }) {
    const { scope, filters } = await activeSessionRequest(ctx, query);
    // Concurrent identical reads share the written body too: writing 50 000 sessions costs more than reading them.
    return activeBodies.run(activeSessionsKey(scope, filters), async () => {
      const sessions = await activeSessionsIn(ctx, scope, filters);
      return new EncodedJson(phpJsonEncode({ data: sessions.map(activeSessionItem) }));
    });
  },
};

export const sessions: Endpoint = {
  ...listEndpoint({
    summary: 'Location sessions (deprecated)',
    item: LocationSessionSchema,
    filters: locationSessionFilterRules,
    list: listLocationSessions,
    serialize: locationSessionItem,
  }),
  action: 'analytics.read',
  deprecated: deprecated(false),
};

export const sessionsCount: Endpoint = {
  ...countEndpoint({
    summary: 'Count location sessions (deprecated)',
    filters: locationSessionFilterRules,
    count: countLocationSessions,
  }),
  action: 'analytics.read',
  deprecated: deprecated(true),
};

export const session: Endpoint = {
  action: 'analytics.read',
  summary: 'One location session',
  response: DataBody(LocationSessionSchema),
  async handle({ ctx, params }) {
    return { data: locationSessionItem(await findLocationSession(ctx, params.id ?? '')) };
  },
};

export const logs: Endpoint = {
  ...listEndpoint({
    summary: 'Location logs (deprecated)',
    item: LocationLogSchema,
    filters: locationLogFilterRules,
    list: listLocationLogs,
    serialize: locationLogItem,
  }),
  action: 'analytics.read',
  deprecated: deprecated(false),
};

export const logsCount: Endpoint = {
  ...countEndpoint({
    summary: 'Count location logs (deprecated)',
    filters: locationLogFilterRules,
    count: countLocationLogs,
  }),
  action: 'analytics.read',
  deprecated: deprecated(true),
};

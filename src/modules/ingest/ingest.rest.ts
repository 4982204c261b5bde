// REST endpoints of the ingest (beyond the spec): one service call per batch.
import { Type } from '@sinclair/typebox';
import type { Endpoint } from '../../rest/endpoint.js';
import { Obj } from '../../rest/schemas.js';
import { batchRules, presenceEventRules, sessionEventRules } from './ingest.inputs.js';
import { ingestPresence } from './ingest.presence.js';
import { ingestSessions } from './ingest.sessions.js';

const Accepted = Obj(
  { accepted: Type.Integer({ minimum: 0, description: 'Events in the batch.' }) },
  'IngestAccepted',
);

export const presence: Endpoint = {
  action: 'ingest.write',
  summary: 'Ingest a batch of up to 1000 presence detections',
  body: batchRules,
  bodyItems: { events: presenceEventRules },
  response: Accepted,
  async handle({ ctx, body }) {
    return ingestPresence(ctx, body);
  },
};

export const sessions: Endpoint = {
  action: 'ingest.write',
  summary: 'Ingest a batch of up to 1000 session accounting events',
  body: batchRules,
  bodyItems: { events: sessionEventRules },
  response: Accepted,
  async handle({ ctx, body }) {
    return ingestSessions(ctx, body);
  },
};

// REST endpoints of the ingest (beyond the spec): one service call per batch.
import type { Endpoint } from '../../rest/endpoint.js';
import { ingestPresence, ingestSessions } from './ingest.service.js';

export const presence: Endpoint = {
  action: 'ingest.write',
  summary: 'Ingest a batch of up to 1000 presence detections',
  async handle({ ctx, body }) {
    return ingestPresence(ctx, body);
  },
};

export const sessions: Endpoint = {
  action: 'ingest.write',
  summary: 'Ingest a batch of up to 1000 session accounting events',
  async handle({ ctx, body }) {
    return ingestSessions(ctx, body);
  },
};

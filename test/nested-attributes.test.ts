// Laravel names a field of a list's element (a wildcard rule's attribute, `events.*.seen_at` →
// `events.0.seen_at`) raw, underscores kept, and only a top-level field spaced (`location id`):
// pinned for both lists that validate their elements field by field, the ingest's events and the
// guest import's rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

describe('nested field names in validation messages', () => {
  it('names an element’s field raw (events.0.seen_at, rows.0.location_id), a top-level one spaced', async () => {
    const a = await newTenant(t.db.prisma);
    const ingest = (await issueToken(t.db.prisma, a.user_id, ['ingest'])).token;
    const event = {
      event_id: `evt-nested-${Date.now()}`,
      mac: 'aa-bb-cc-00-00-09',
      data_type: 1,
      connected: true,
      location_id: a.location_id,
      seen_at: 'yesterday',
    };
    const batch = await t.request('POST', '/api/v1/ingest/presence', {
      token: ingest,
      body: { events: [event] },
    });
    expect(batch.status).toBe(422);
    expect(batch.text).toBe(
      '{"message":"The events.0.seen_at field must be a valid ISO 8601 date-time with a time zone.",' +
        '"errors":{"events.0.seen_at":["The events.0.seen_at field must be a valid ISO 8601 date-time with a time zone."]}}',
    );

    const rows = await t.request('POST', '/api/v1/guests/import', {
      token: a.token,
      body: [{ location_id: 'nowhere', name: 'Nested Name' }],
    });
    expect(rows.status).toBe(422);
    expect(rows.text).toBe(
      '{"message":"The selected rows.0.location_id is invalid.",' +
        '"errors":{"rows.0.location_id":["The selected rows.0.location_id is invalid."]}}',
    );

    // The same field at the top level keeps Laravel's spaced display name.
    const guest = await t.request('POST', '/api/v1/guests', { token: a.token, body: { name: 'Top Level' } });
    expect(guest.status).toBe(422);
    expect(guest.json.errors.location_id).toEqual(['The location id field is required.']);
  });
});

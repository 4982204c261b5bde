// A tenant's data-retention settings (issue 17): `GET`/`PUT /api/v1/settings/retention` and GraphQL
// `retentionSettings`/`updateRetentionSettings`: exact bodies, Laravel's messages at the edges of
// every rule, the tenant admins' (and support's) alone, each tenant its own; each change audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { expectChain, fieldChanges } from './helpers/audit-chain.js';
import { addUser, newTenant } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const URL = '/api/v1/settings/retention';
const FORBIDDEN = '{"message":"This action is unauthorized."}';
const OFF =
  '{"data":{"anonymize_inactive_guests_after_months":null,"delete_presence_records_after_days":null,' +
  '"delete_location_logs_after_days":null,"delete_guest_sessions_after_days":null,"updated_at":null}}';
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The body of a 200 with these settings and `updated_at` (taken from the answer, checked for its form). */
function settingsBody(
  text: string,
  s: { months: number | null; presence: number | null; logs: number | null; sessions: number | null },
): string {
  const updatedAt = JSON.parse(text).data.updated_at as string;
  expect(updatedAt).toMatch(MICROS);
  return JSON.stringify({
    data: {
      anonymize_inactive_guests_after_months: s.months,
      delete_presence_records_after_days: s.presence,
      delete_location_logs_after_days: s.logs,
      delete_guest_sessions_after_days: s.sessions,
      updated_at: updatedAt,
    },
  });
}

const SETTINGS_FIELDS =
  'anonymizeInactiveGuestsAfterMonths deletePresenceRecordsAfterDays deleteLocationLogsAfterDays deleteGuestSessionsAfterDays updatedAt';
const QUERY = `{ retentionSettings { ${SETTINGS_FIELDS} } }`;
const MUTATION = `mutation($input: RetentionSettingsInput!) { updateRetentionSettings(input: $input) { ${SETTINGS_FIELDS} } }`;

describe.concurrent('PUT /settings/retention at once', () => {
  it('takes turns, the first save too: one entry for identical ones, a chain of old values for different ones', async () => {
    const a = await newTenant(t.db.prisma);
    const put = (days: number) =>
      t.request('PUT', URL, { token: a.token, body: { delete_presence_records_after_days: days } });
    for (const res of await Promise.all(Array.from({ length: 8 }, () => put(30))))
      expect(res.status, res.text).toBe(200);
    const field = 'delete_presence_records_after_days';
    expect(await fieldChanges(t.db.prisma, a.tenant_id, a.tenant_id, field)).toEqual([
      { old: null, new: 30 },
    ]);
    const days = Array.from({ length: 8 }, (_, i) => 40 + i);
    for (const res of await Promise.all(days.map(put))) expect(res.status, res.text).toBe(200);
    const final = (
      await t.db.prisma.retentionSettings.findUniqueOrThrow({ where: { tenantId: a.tenant_id } })
    ).deletePresenceRecordsAfterDays;
    const changes = (await fieldChanges(t.db.prisma, a.tenant_id, a.tenant_id, field)).filter(
      (c) => c.new !== 30,
    );
    expect(changes).toHaveLength(8);
    expectChain(changes, 30, final);
  });
});

describe.concurrent('GET /settings/retention', () => {
  it('is every setting off (null) for a tenant that never saved any', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('GET', URL, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(OFF);
  });

  it('answers 401 without a token', async () => {
    const res = await t.request('GET', URL);
    expect(res.status).toBe(401);
    expect(res.text).toBe('{"message":"Unauthenticated."}');
  });
});

describe.concurrent('PUT /settings/retention', () => {
  it('stores the settings sent and answers them; GET answers the same', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('PUT', URL, {
      token: a.token,
      body: {
        anonymize_inactive_guests_after_months: 13,
        delete_presence_records_after_days: 90,
        delete_location_logs_after_days: 30,
        delete_guest_sessions_after_days: 395,
      },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(settingsBody(res.text, { months: 13, presence: 90, logs: 30, sessions: 395 }));
    const got = await t.request('GET', URL, { token: a.token });
    expect(got.status).toBe(200);
    expect(got.text).toBe(res.text);
  });

  it('each change is a retention_settings.updated event with its audit entry (who, what, old and new); an unchanged PUT records nothing and keeps updated_at', async () => {
    const a = await newTenant(t.db.prisma);
    const first = await t.request('PUT', URL, {
      token: a.token,
      body: { delete_presence_records_after_days: 90 },
    });
    expect(first.status, first.text).toBe(200);
    const second = await t.request('PUT', URL, {
      token: a.token,
      body: { delete_presence_records_after_days: 30, anonymize_inactive_guests_after_months: 13 },
    });
    expect(second.status, second.text).toBe(200);
    const same = await t.request('PUT', URL, {
      token: a.token,
      body: { delete_presence_records_after_days: 30 },
    });
    expect(same.status, same.text).toBe(200);
    // Nothing changed: the settings as they were, `updated_at` too (as Laravel's save() of a clean model).
    expect(same.json).toEqual(second.json);
    const events = await t.db.prisma.event.findMany({
      where: { tenantId: a.tenant_id },
      orderBy: { id: 'asc' },
    });
    expect(events.map((e) => [e.type, e.resourceType, e.resourceId])).toEqual([
      ['retention_settings.updated', 'retention_settings', a.tenant_id],
      ['retention_settings.updated', 'retention_settings', a.tenant_id],
    ]);
    expect(events[1]?.payload).toEqual(JSON.parse(second.text).data);
    const audit = await t.request('GET', '/api/v1/audit-logs?resource_type=retention_settings', {
      token: a.token,
    });
    expect(audit.status, audit.text).toBe(200);
    expect(
      audit.json.data.map((e: Record<string, unknown>) => [e.action, e.user_id, e.resource_id, e.changes]),
    ).toEqual([
      [
        'retention.update',
        a.user_id,
        a.tenant_id,
        {
          anonymize_inactive_guests_after_months: { old: null, new: 13 },
          delete_presence_records_after_days: { old: 90, new: 30 },
        },
      ],
      [
        'retention.update',
        a.user_id,
        a.tenant_id,
        { delete_presence_records_after_days: { old: null, new: 90 } },
      ],
    ]);
  });

  it('changes only the fields sent; null (or "") turns one off; a body without any changes nothing', async () => {
    const a = await newTenant(t.db.prisma);
    const first = await t.request('PUT', URL, {
      token: a.token,
      body: { delete_presence_records_after_days: 7, delete_location_logs_after_days: 14 },
    });
    expect(first.text).toBe(
      settingsBody(first.text, { months: null, presence: 7, logs: 14, sessions: null }),
    );

    const second = await t.request('PUT', URL, {
      token: a.token,
      body: { anonymize_inactive_guests_after_months: '6', delete_presence_records_after_days: null },
    });
    expect(second.status).toBe(200);
    expect(second.text).toBe(
      settingsBody(second.text, { months: 6, presence: null, logs: 14, sessions: null }),
    );
    expect(JSON.parse(second.text).data.updated_at >= JSON.parse(first.text).data.updated_at).toBe(true);

    const third = await t.request('PUT', URL, {
      token: a.token,
      body: { delete_location_logs_after_days: '' },
    });
    expect(third.text).toBe(
      settingsBody(third.text, { months: 6, presence: null, logs: null, sessions: null }),
    );

    // Unknown fields are ignored, as everywhere: nothing to change, nothing written.
    const none = await t.request('PUT', URL, { token: a.token, body: { keep_forever: true } });
    expect(none.status).toBe(200);
    expect(none.text).toBe(third.text);
    const empty = await t.request('PUT', URL, { token: a.token });
    expect(empty.status).toBe(200);
    expect(empty.text).toBe(third.text);
  });

  it('takes the bounds themselves: 1, and 120 months or 3650 days', async () => {
    const a = await newTenant(t.db.prisma);
    const low = await t.request('PUT', URL, {
      token: a.token,
      body: {
        anonymize_inactive_guests_after_months: 1,
        delete_presence_records_after_days: 1,
        delete_location_logs_after_days: 1,
        delete_guest_sessions_after_days: 1,
      },
    });
    expect(low.status).toBe(200);
    expect(low.text).toBe(settingsBody(low.text, { months: 1, presence: 1, logs: 1, sessions: 1 }));
    const high = await t.request('PUT', URL, {
      token: a.token,
      body: {
        anonymize_inactive_guests_after_months: 120,
        delete_presence_records_after_days: 3650,
        delete_location_logs_after_days: 3650,
        delete_guest_sessions_after_days: 3650,
      },
    });
    expect(high.status).toBe(200);
    expect(high.text).toBe(
      settingsBody(high.text, { months: 120, presence: 3650, logs: 3650, sessions: 3650 }),
    );
  });

  it('answers 422 with Laravel’s messages just outside the bounds and for non-integers, and stores nothing', async () => {
    const a = await newTenant(t.db.prisma);
    const below = await t.request('PUT', URL, {
      token: a.token,
      body: {
        anonymize_inactive_guests_after_months: 0,
        delete_presence_records_after_days: -5,
        delete_location_logs_after_days: 0,
        delete_guest_sessions_after_days: 0,
      },
    });
    expect(below.status).toBe(422);
    expect(below.text).toBe(
      JSON.stringify({
        message: 'The anonymize inactive guests after months field must be at least 1. (and 3 more errors)',
        errors: {
          anonymize_inactive_guests_after_months: [
            'The anonymize inactive guests after months field must be at least 1.',
          ],
          delete_presence_records_after_days: [
            'The delete presence records after days field must be at least 1.',
          ],
          delete_location_logs_after_days: ['The delete location logs after days field must be at least 1.'],
          delete_guest_sessions_after_days: [
            'The delete guest sessions after days field must be at least 1.',
          ],
        },
      }),
    );

    const above = await t.request('PUT', URL, {
      token: a.token,
      body: {
        anonymize_inactive_guests_after_months: 121,
        delete_presence_records_after_days: 3651,
        delete_location_logs_after_days: 3651,
        delete_guest_sessions_after_days: 100000,
      },
    });
    expect(above.status).toBe(422);
    expect(above.text).toBe(
      JSON.stringify({
        message:
          'The anonymize inactive guests after months field must not be greater than 120. (and 3 more errors)',
        errors: {
          anonymize_inactive_guests_after_months: [
            'The anonymize inactive guests after months field must not be greater than 120.',
          ],
          delete_presence_records_after_days: [
            'The delete presence records after days field must not be greater than 3650.',
          ],
          delete_location_logs_after_days: [
            'The delete location logs after days field must not be greater than 3650.',
          ],
          delete_guest_sessions_after_days: [
            'The delete guest sessions after days field must not be greater than 3650.',
          ],
        },
      }),
    );

    const wrongType = await t.request('PUT', URL, {
      token: a.token,
      body: { anonymize_inactive_guests_after_months: 'soon', delete_presence_records_after_days: 1.5 },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.text).toBe(
      JSON.stringify({
        message: 'The anonymize inactive guests after months field must be an integer. (and 1 more error)',
        errors: {
          anonymize_inactive_guests_after_months: [
            'The anonymize inactive guests after months field must be an integer.',
          ],
          delete_presence_records_after_days: [
            'The delete presence records after days field must be an integer.',
          ],
        },
      }),
    );
    // One bad field refuses the whole body: the good one is not stored either.
    const mixed = await t.request('PUT', URL, {
      token: a.token,
      body: { delete_location_logs_after_days: 30, delete_guest_sessions_after_days: 0 },
    });
    expect(mixed.status).toBe(422);
    expect((await t.request('GET', URL, { token: a.token })).text).toBe(OFF);
  });

  it('answers 400 for malformed JSON', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.request('PUT', URL, {
      token: a.token,
      rawBody: '{"delete_presence_records_after_days":',
    });
    expect(res.status).toBe(400);
    expect(res.text).toBe('{"message":"Malformed JSON body."}');
  });
});

describe.concurrent('who may read and change the settings', () => {
  it('tenant admins and support users; venue and front-desk users get 403 on both transports', async () => {
    const a = await newTenant(t.db.prisma);
    const venue = await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id });
    const desk = await addUser(t.db.prisma, a.tenant_id, 'front-desk', { locationId: a.location_id });
    const support = await addUser(t.db.prisma, a.tenant_id, 'support');
    for (const u of [venue, desk]) {
      const get = await t.request('GET', URL, { token: u.token });
      expect(get.status).toBe(403);
      expect(get.text).toBe(FORBIDDEN);
      const put = await t.request('PUT', URL, {
        token: u.token,
        body: { delete_presence_records_after_days: 1 },
      });
      expect(put.status).toBe(403);
      expect(put.text).toBe(FORBIDDEN);
      for (const [query, variables] of [
        [QUERY, undefined],
        [MUTATION, { input: { deletePresenceRecordsAfterDays: 1 } }],
      ] as const) {
        const res = await t.graphql(u.token, query, variables);
        expect(res.json.data).toBeNull();
        expect(res.json.errors[0].extensions.code).toBe('FORBIDDEN');
      }
    }
    // Nothing was stored by the refused writes.
    expect((await t.request('GET', URL, { token: a.token })).text).toBe(OFF);

    const bySupport = await t.request('PUT', URL, {
      token: support.token,
      body: { delete_guest_sessions_after_days: 400 },
    });
    expect(bySupport.status).toBe(200);
    expect((await t.request('GET', URL, { token: a.token })).text).toBe(bySupport.text);
  });

  it('a read token may read them but not change them', async () => {
    const a = await newTenant(t.db.prisma);
    const { token } = await issueToken(t.db.prisma, a.user_id, ['read']);
    const get = await t.request('GET', URL, { token });
    expect(get.status).toBe(200);
    expect(get.text).toBe(OFF);
    const put = await t.request('PUT', URL, { token, body: { delete_presence_records_after_days: 1 } });
    expect(put.status).toBe(403);
    expect(put.text).toBe(FORBIDDEN);
  });

  it('each tenant has its own: one tenant’s change is not another’s, on REST and GraphQL', async () => {
    const a = await newTenant(t.db.prisma);
    const b = await newTenant(t.db.prisma);
    const put = await t.request('PUT', URL, {
      token: a.token,
      body: { anonymize_inactive_guests_after_months: 24, delete_presence_records_after_days: 60 },
    });
    expect(put.status).toBe(200);
    expect((await t.request('GET', URL, { token: b.token })).text).toBe(OFF);
    const gqlB = await t.graphql(b.token, QUERY);
    expect(gqlB.text).toBe(
      '{"data":{"retentionSettings":{"anonymizeInactiveGuestsAfterMonths":null,"deletePresenceRecordsAfterDays":null,' +
        '"deleteLocationLogsAfterDays":null,"deleteGuestSessionsAfterDays":null,"updatedAt":null}}}',
    );
    // B's change stays B's.
    const mutB = await t.graphql(b.token, MUTATION, { input: { deleteLocationLogsAfterDays: 5 } });
    expect(mutB.json.data.updateRetentionSettings.deleteLocationLogsAfterDays).toBe(5);
    expect((await t.request('GET', URL, { token: a.token })).text).toBe(put.text);
    const gqlA = await t.graphql(a.token, QUERY);
    expect(gqlA.json.data.retentionSettings).toEqual({
      anonymizeInactiveGuestsAfterMonths: 24,
      deletePresenceRecordsAfterDays: 60,
      deleteLocationLogsAfterDays: null,
      deleteGuestSessionsAfterDays: null,
      updatedAt: put.json.data.updated_at,
    });
  });
});

describe.concurrent('GraphQL', () => {
  it('updateRetentionSettings: the fields given change, null turns one off; the query reads the same', async () => {
    const a = await newTenant(t.db.prisma);
    const first = await t.graphql(a.token, MUTATION, {
      input: { anonymizeInactiveGuestsAfterMonths: 13, deleteGuestSessionsAfterDays: 395 },
    });
    const saved = first.json.data.updateRetentionSettings;
    expect(saved).toEqual({
      anonymizeInactiveGuestsAfterMonths: 13,
      deletePresenceRecordsAfterDays: null,
      deleteLocationLogsAfterDays: null,
      deleteGuestSessionsAfterDays: 395,
      updatedAt: expect.any(String),
    });
    const second = await t.graphql(a.token, MUTATION, {
      input: { deleteGuestSessionsAfterDays: null, deletePresenceRecordsAfterDays: 30 },
    });
    expect(second.json.data.updateRetentionSettings).toMatchObject({
      anonymizeInactiveGuestsAfterMonths: 13,
      deletePresenceRecordsAfterDays: 30,
      deleteGuestSessionsAfterDays: null,
    });
    const read = await t.graphql(a.token, QUERY);
    expect(read.json.data.retentionSettings).toEqual(second.json.data.updateRetentionSettings);
    // REST shows the same instant.
    const rest = await t.request('GET', URL, { token: a.token });
    expect(rest.json.data.updated_at.slice(0, 23)).toBe(
      read.json.data.retentionSettings.updatedAt.slice(0, 23),
    );
  });

  it('bad input: the REST messages keyed by the GraphQL field, nothing stored', async () => {
    const a = await newTenant(t.db.prisma);
    const res = await t.graphql(a.token, MUTATION, {
      input: { anonymizeInactiveGuestsAfterMonths: 121, deleteLocationLogsAfterDays: 0 },
    });
    expect(res.status).toBe(200);
    const [error] = res.json.errors;
    expect(error.message).toBe(
      'The anonymize inactive guests after months field must not be greater than 120. (and 1 more error)',
    );
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.fields).toEqual({
      anonymizeInactiveGuestsAfterMonths: [
        'The anonymize inactive guests after months field must not be greater than 120.',
      ],
      deleteLocationLogsAfterDays: ['The delete location logs after days field must be at least 1.'],
    });
    expect(res.json.data).toBeNull();
    // A non-integer is GraphQL's own type error.
    const typed = await t.graphql(a.token, MUTATION, { input: { deleteLocationLogsAfterDays: 'soon' } });
    expect(typed.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((await t.request('GET', URL, { token: a.token })).text).toBe(OFF);
  });
});

// A PostgreSQL whose default time zone is not UTC (initdb copies the machine's): Prisma's adapter
// sends date-times without their offset, so every connection sets its time zone to UTC. Probe T: on
// Pacific/Chatham, times were stored 13 h 45 min early, a token expiring in an hour answered 401 at
// once, and a token list holding a far expiry answered 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { issueToken } from '../src/modules/tenants/bootstrap.service.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addGuest, newTenant, randomMac } from './helpers/fixtures.js';
import { type ScratchDatabase, scratchDatabase } from './helpers/scratch-database.js';

// The embedded database is made by this service, in UTC; an operator's PostgreSQL may be anything.
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'a PostgreSQL database whose time zone is Pacific/Chatham',
  () => {
    let scratch: ScratchDatabase;
    let t: TestApp;
    beforeAll(async () => {
      scratch = await scratchDatabase('time_zone', { timezone: 'Pacific/Chatham' });
      t = await startApp({}, { db: scratch.db });
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await scratch?.drop();
    });

    it('stores and compares instants as sent: token expiry, session times, rows’ own times', async () => {
      const a = await newTenant(t.db.prisma);
      const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
      const created = await t.request('POST', '/api/v1/api-tokens', {
        token: a.token,
        body: { name: 'Hour', scopes: ['read'], expires_at: inAnHour },
      });
      expect(created.status, created.text).toBe(201);
      expect(
        (await t.request('GET', '/api/v1/locations/count', { token: created.json.data.token })).status,
      ).toBe(200);
      const far = await t.request('POST', '/api/v1/api-tokens', {
        token: a.token,
        body: { name: 'Far', scopes: ['read'], expires_at: '9999-12-31T23:59:59.999Z' },
      });
      expect(far.status, far.text).toBe(201);
      const list = await t.request('GET', '/api/v1/api-tokens', { token: a.token });
      expect(list.status, list.text).toBe(200);
      expect(list.json.data.map((i: { expires_at: string | null }) => i.expires_at)).toContain(
        '9999-12-31T23:59:59.999000Z',
      );

      const guest = await addGuest(t.db.prisma, a.tenant_id, a.location_id);
      const ingest = (await issueToken(t.db.prisma, a.user_id, ['ingest'])).token;
      const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
      const sent = await t.request('POST', '/api/v1/ingest/sessions', {
        token: ingest,
        body: {
          events: [
            {
              event_id: `tz-${at.getTime()}`,
              kind: 'start',
              mac: randomMac(),
              ip: '10.0.0.9',
              location_id: a.location_id,
              guest_id: guest.id,
              bytes_up: 0,
              bytes_down: 0,
              login_type: 'Email',
              at: at.toISOString(),
            },
          ],
        },
      });
      expect(sent.status, sent.text).toBe(200);
      const [session] = await t.db.prisma.$queryRaw<{ start: Date; created: Date; now: Date }[]>`
      SELECT s."startTime" AS start, d."createdAt" AS created, now() AS now
      FROM "GuestSession" s JOIN "GuestDevice" d ON d."id" = s."deviceId" WHERE s."tenantId" = ${a.tenant_id}`;
      expect(session?.start.toISOString()).toBe(at.toISOString());
      // Written by Prisma (the client's clock) and read against the server's: minutes apart at most.
      expect(Math.abs((session?.created.getTime() ?? 0) - (session?.now.getTime() ?? 0))).toBeLessThan(
        60_000,
      );
    });

    it('keeps a URL’s own options beside UTC, an empty one included', async () => {
      const name = new URL(scratch.url ?? '').pathname.slice(1);
      // libpq's socket form too, which is no URL to `new URL` (probe W).
      const socketForm = `postgresql://root@/${name}?host=127.0.0.1&port=5432&options=`;
      for (const options of ['', '-c statement_timeout=1234', '-c TimeZone=Asia/Tokyo', socketForm]) {
        const url =
          options === socketForm ? socketForm : `${scratch.url}?options=${encodeURIComponent(options)}`;
        const db = await openDatabase({ url, poolSize: 1, migrate: false, statementTimeoutMs: 0 });
        try {
          const [row] = await db.prisma.$queryRaw<{ zone: string; timeout: string }[]>`
            SELECT current_setting('TimeZone') AS zone, current_setting('statement_timeout') AS timeout`;
          expect(row?.zone, options).toBe('UTC');
          if (options.includes('statement_timeout')) expect(row?.timeout).toBe('1234ms');
        } finally {
          await db.close();
        }
      }
    });
  },
);

// Values unique regardless of case (guest email in the tenant, location name in the tenant, user
// email across the service) are decided by unique indexes on lower(column): concurrent writes of one
// value in different cases end with exactly one row, and every other request gets the rule's 422.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../src/auth/principal.js';
import type { AppContext } from '../src/context.js';
import { toAppError } from '../src/errors.js';
import { restErrorBody } from '../src/http/error-bodies.js';
import { createGuest, updateGuest } from '../src/modules/guests/guests.service.js';
import { createLocation } from '../src/modules/locations/locations.service.js';
import { createUser } from '../src/modules/users/users.service.js';
import { execute } from '../src/operations/operation.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';
import { unprocessable } from './helpers/laravel.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const CONCURRENT = 12;
const PASSWORD = 'Secr3t!pass';
const EMAIL_TAKEN = { email: ['The email has already been taken.'] };
const NAME_TAKEN = { name: ['The name has already been taken.'] };

/** `text` in CONCURRENT different cases (letter j upper-cased by bit j % 4 of the index). */
function cases(text: string): string[] {
  const all = Array.from({ length: CONCURRENT }, (_, i) =>
    [...text].map((c, j) => ((i >> (j % 4)) & 1 ? c.toUpperCase() : c.toLowerCase())).join(''),
  );
  expect(new Set(all).size).toBe(CONCURRENT);
  return all;
}

async function context(token: string): Promise<AppContext> {
  const principal = await authenticate(t.db.prisma, token);
  return { prisma: t.db.prisma, config: t.config, principal, requestId: 'test' };
}

interface Outcome {
  status: number;
  json: unknown;
}

/**
 * Starts the writes in one tick. Returns their outcomes and how many uniqueness checks of `table`
 * completed before its first INSERT/UPDATE did: none of those saw a row, so each of their requests
 * went on to write, and all but one of them were refused by the unique index. (Statements are logged
 * as they complete; a failed one is not logged.)
 */
async function race(table: string, writes: (() => Promise<unknown>)[]) {
  const log: string[] = [];
  const off = t.db.onQuery((sql) => log.push(sql));
  try {
    const settled = await Promise.allSettled(writes.map((w) => w()));
    const outcomes = settled.map((s): Outcome => {
      if (s.status === 'fulfilled') return { status: 200, json: null };
      // A check that ran after the winner's write refuses too (on a loaded machine some do).
      const err = toAppError(s.reason);
      if (!err) throw s.reason;
      return { status: err.status, json: restErrorBody(err) };
    });
    const check = new RegExp(`FROM "${table}" WHERE .*lower\\(`);
    const write = new RegExp(`^(INSERT INTO|UPDATE) "public"\\."${table}"`);
    const firstWrite = log.findIndex((sql) => write.test(sql));
    expect(firstWrite).toBeGreaterThan(0);
    const passedChecks = log.slice(0, firstWrite).filter((sql) => check.test(sql)).length;
    return { outcomes, passedChecks };
  } finally {
    off();
  }
}

/** Exactly one write succeeded; every other one is the rule's own 422 body. */
function expectOneWinner(outcomes: Outcome[], okStatus: number, taken: Record<string, string[]>) {
  const statuses = outcomes.map((o) => o.status);
  expect(
    statuses.filter((s) => s === okStatus),
    statuses.join(','),
  ).toHaveLength(1);
  for (const o of outcomes.filter((x) => x.status !== okStatus)) {
    expect(o.status).toBe(422);
    expect(o.json).toEqual(unprocessable(taken));
  }
}

describe('case-insensitive uniqueness decided by the database', () => {
  // On PostgreSQL these requests overlap; on PGlite each one runs to its end before the next starts
  // (its statements never yield to the others' request bodies), so the tests below, on the services,
  // are the ones that make the checks pass together on both.
  it('REST: concurrent guest creates of one email in different cases: one 201, the rest the 422 body', async () => {
    const a = await newTenant(t.db.prisma);
    const emails = cases(`race.${randomBytes(4).toString('hex')}@example.test`);
    const responses = await Promise.all(
      emails.map((email) =>
        t.request('POST', '/api/v1/guests', { token: a.token, body: { location_id: a.location_id, email } }),
      ),
    );
    expectOneWinner(responses, 201, EMAIL_TAKEN);
    const stored = await t.db.prisma.guest.findMany({
      where: { tenantId: a.tenant_id, email: { equals: emails[0], mode: 'insensitive' } },
      select: { id: true },
    });
    expect(stored.map((g) => g.id)).toEqual([responses.find((r) => r.status === 201)?.json.data.id]);
  });

  it('guest create: the writes that passed the check together get the rule’s 422, not a 500', async () => {
    const a = await newTenant(t.db.prisma);
    const ctx = await context(a.token);
    const emails = cases(`svc.${randomBytes(4).toString('hex')}@example.test`);
    const { outcomes, passedChecks } = await race(
      'Guest',
      emails.map((email) => () => execute(createGuest, ctx, { location_id: a.location_id, email })),
    );
    expectOneWinner(outcomes, 200, EMAIL_TAKEN);
    expect(passedChecks).toBeGreaterThan(1);
    expect(await t.db.prisma.guest.count({ where: { tenantId: a.tenant_id } })).toBe(1);
  });

  it('guest update: moving guests to one email in different cases at once leaves it on one guest', async () => {
    const a = await newTenant(t.db.prisma);
    const ctx = await context(a.token);
    const ids: string[] = [];
    for (let i = 0; i < CONCURRENT; i++) {
      ids.push((await execute(createGuest, ctx, { location_id: a.location_id })).id);
    }
    const emails = cases(`move.${randomBytes(4).toString('hex')}@example.test`);
    const { outcomes, passedChecks } = await race(
      'Guest',
      ids.map(
        (id, i) => () => execute(updateGuest, ctx, { location_id: a.location_id, email: emails[i] }, id),
      ),
    );
    expectOneWinner(outcomes, 200, EMAIL_TAKEN);
    expect(passedChecks).toBeGreaterThan(1);
  });

  it('location create: one name in different cases at once leaves one location', async () => {
    const a = await newTenant(t.db.prisma);
    const ctx = await context(a.token);
    const names = cases(`Hall ${randomBytes(3).toString('hex')}`);
    const { outcomes, passedChecks } = await race(
      'Location',
      names.map((name) => () => execute(createLocation, ctx, { name })),
    );
    expectOneWinner(outcomes, 200, NAME_TAKEN);
    expect(passedChecks).toBeGreaterThan(1);
  });

  it('user create, from two tenants: one email in different cases at once leaves one user', async () => {
    const tenants = [await newTenant(t.db.prisma), await newTenant(t.db.prisma)];
    const contexts = await Promise.all(tenants.map((x) => context(x.token)));
    const emails = cases(`staff.${randomBytes(4).toString('hex')}@example.test`);
    const { outcomes, passedChecks } = await race(
      'User',
      emails.map((email, i) => () => {
        const ctx = contexts[i % 2];
        if (!ctx) throw new Error('no context');
        return execute(createUser, ctx, {
          name: 'Jane Operator',
          email,
          role: 'tenant',
          password: PASSWORD,
          password_confirmation: PASSWORD,
          status: 1,
        });
      }),
    );
    expectOneWinner(outcomes, 200, EMAIL_TAKEN);
    expect(passedChecks).toBeGreaterThan(1);
  });
});

// The per-token budgets of costly GraphQL fields (src/graphql/field-rate-limit.ts) hold for calls
// made at once: on one instance, and on two sharing Redis. graphql-rate-limit's own stores read the
// calls, then write them back; concurrent calls interleaved there and 40 at once passed a budget of 30.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_LIMITS } from '../src/graphql/field-rate-limit.js';
import { startApp, type TestApp } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';

const MAX = FIELD_LIMITS.createLocation.max;
const REFUSED = `Too Many Attempts: createLocation may be called ${MAX} times a minute.`;

/** `n` createLocation calls at once with one token, spread over `apps`: how many passed, and the refusals' messages. */
async function createAtOnce(apps: TestApp[], token: string, n: number) {
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      (apps[i % apps.length] as TestApp).graphql(
        token,
        `mutation { createLocation(input: { name: "At once ${i}" }) { id } }`,
      ),
    ),
  );
  const refusals = answers.filter((a) => a.json.errors);
  return {
    passed: answers.length - refusals.length,
    refusals: refusals.map((r) => [r.json.errors[0].extensions.code, r.json.errors[0].message]),
  };
}

describe('a GraphQL field budget, calls made at once', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it(`passes exactly ${MAX} of ${MAX + 10} createLocation calls of one token on one instance`, async () => {
    const { token } = await newTenant(t.db.prisma);
    const { passed, refusals } = await createAtOnce([t], token, MAX + 10);
    expect(passed).toBe(MAX);
    expect(refusals).toEqual(Array.from({ length: 10 }, () => ['RATE_LIMITED', REFUSED]));
    // Another token has a budget of its own.
    const other = await newTenant(t.db.prisma);
    expect((await createAtOnce([t], other.token, 1)).passed).toBe(1);
  });
});

describe.skipIf(!process.env.REDIS_URL)('a GraphQL field budget across two instances sharing Redis', () => {
  let one: TestApp;
  let two: TestApp;
  beforeAll(async () => {
    const env = { REDIS_URL: process.env.REDIS_URL ?? '' };
    one = await startApp(env);
    two = await startApp(env, { db: one.db });
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  it(`passes exactly ${MAX} of ${MAX + 10} calls of one token made at once through both`, async () => {
    const { token } = await newTenant(one.db.prisma);
    const { passed, refusals } = await createAtOnce([one, two], token, MAX + 10);
    expect(passed).toBe(MAX);
    expect(refusals).toHaveLength(10);
    // Spent on both: the next call on either is refused.
    for (const app of [one, two]) expect((await createAtOnce([app], token, 1)).passed).toBe(0);
  });
});

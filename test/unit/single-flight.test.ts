import { describe, expect, it } from 'vitest';
import { activeSessionsKey } from '../../src/modules/analytics/analytics.service.js';
import { SingleFlight } from '../../src/shared/single-flight.js';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('runs identical concurrent reads once and gives every caller the same answer', async () => {
    const flights = new SingleFlight<string[]>();
    const gate = deferred<string[]>();
    let runs = 0;
    const read = () => {
      runs++;
      return gate.promise;
    };
    const a = flights.run('k', read);
    const b = flights.run('k', read);
    expect(flights.size).toBe(1);
    gate.resolve(['row']);
    const [ra, rb] = await Promise.all([a, b]);
    expect(runs).toBe(1);
    expect(ra).toBe(rb);
    expect(flights.size).toBe(0);
  });

  it('keeps different keys apart and reads afresh once a flight has landed', async () => {
    const flights = new SingleFlight<string>();
    let runs = 0;
    const read = async () => `answer ${++runs}`;
    const [x, y] = await Promise.all([flights.run('x', read), flights.run('y', read)]);
    expect([x, y].sort()).toEqual(['answer 1', 'answer 2']);
    expect(await flights.run('x', read)).toBe('answer 3');
  });

  it('shares a failure with every waiting caller and forgets it', async () => {
    const flights = new SingleFlight<number>();
    const gate = deferred<number>();
    const a = flights.run('k', () => gate.promise);
    const b = flights.run('k', () => Promise.resolve(2));
    gate.reject(new Error('database gone'));
    await expect(a).rejects.toThrow('database gone');
    await expect(b).rejects.toThrow('database gone');
    expect(await flights.run('k', () => Promise.resolve(3))).toBe(3);
  });
});

describe('activeSessionsKey', () => {
  const tenant = { tenantId: 't1', locationId: null };
  it('is the same for the same filters in any order', () => {
    expect(activeSessionsKey(tenant, { zone_id: 'z', connected: 1 })).toBe(
      activeSessionsKey(tenant, { connected: 1, zone_id: 'z' }),
    );
  });
  it('differs by tenant, pinned location and every filter', () => {
    const keys = [
      activeSessionsKey(tenant, {}),
      activeSessionsKey({ tenantId: 't2', locationId: null }, {}),
      activeSessionsKey({ tenantId: 't1', locationId: 'l1' }, {}),
      activeSessionsKey(tenant, { location_id: 'l1' }),
      activeSessionsKey(tenant, { connected: 1 }),
      activeSessionsKey(tenant, { connected: 0 }),
      activeSessionsKey(tenant, { data_type: 1 }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});

// The in-memory publish/subscribe (no REDIS_URL): many subscribers of one topic are ordinary use (a
// location's dashboards, a tenant's event readers), not a leak to warn about in the server's log.
import { afterEach, describe, expect, it } from 'vitest';
import { createAppPubSub } from '../src/redis/pubsub.js';

const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

/** Node emits its warnings on a later tick. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the in-memory pubsub', () => {
  it('takes 50 listeners and 50 subscriptions on one topic without a MaxListenersExceededWarning, each hearing the publication', async () => {
    process.on('warning', onWarning);
    const { pubsub, endSubscriptions } = createAppPubSub(undefined);
    const heard: string[] = [];
    const listeners = Array.from({ length: 50 }, (_, i) =>
      pubsub.listen('eventsCommitted', 'tenant-a', (n) => heard.push(`${i}:${n.lastId}`)),
    );
    const iterators = Array.from({ length: 50 }, () =>
      pubsub.subscribe('presenceChanged', 'tenant-a:loc-1')[Symbol.asyncIterator](),
    );
    const firsts = iterators.map((it) => it.next());
    // A subscription listens once its iterator is first pulled.
    await settled();
    pubsub.publish('eventsCommitted', 'tenant-a', { lastId: '7' });
    pubsub.publish('presenceChanged', 'tenant-a:loc-1', {
      tenantId: 'tenant-a',
      locationId: 'loc-1',
      macs: ['02:00:00:00:00:01'],
      at: new Date(0).toISOString(),
      eventId: '7',
      firstEventId: '7',
    });
    const received = await Promise.all(firsts);
    await settled();
    expect(heard).toHaveLength(50);
    expect(heard[49]).toBe('49:7');
    expect(received.every((r) => !r.done && r.value.macs[0] === '02:00:00:00:00:01')).toBe(true);
    expect(warnings.map((w) => w.name)).toEqual([]);
    for (const l of listeners) l.close();
    endSubscriptions();
  });
});

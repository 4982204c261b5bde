import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/shared/sleep.js';

describe('sleep', () => {
  it('leaves no abort listener behind, however many ticks share one signal', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 20; i++) await sleep(1, stop.signal);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  // A minute's sleep that did not end on abort would outlast the test's 30 s timeout.
  it('ends when the signal aborts, and at once when it has already aborted', async () => {
    const stop = new AbortController();
    const waiting = sleep(60_000, stop.signal);
    stop.abort();
    await waiting;
    await sleep(60_000, stop.signal);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });
});

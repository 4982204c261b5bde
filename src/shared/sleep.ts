// Interruptible waits for long-running CLI loops (the simulators): Ctrl-C must not wait out a tick.

/** Waits `ms`, or less when `signal` aborts; never rejects, and leaves no listener on `signal`. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

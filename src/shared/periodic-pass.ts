// A background pass run every `intervalMs` (the event sweeper, the retention sweeper): one at a
// time in this process, a failed pass logged and retried at the next tick, and a clean stop. The
// pass itself decides what "once across the fleet" means (an advisory lock).
import { failureFields } from '../errors.js';

export interface PeriodicPass<Arg, R> {
  /** One pass now (`arg`: what a test hands it, e.g. the time); while one runs, waits for it and answers `busy`. */
  run(arg?: Arg): Promise<R>;
  /** No more passes; the running one sees its signal aborted, and is waited for. */
  close(): Promise<void>;
}

export function periodicPass<Arg, R>(opts: {
  /** The log's prefix (`events`, `retention`). */
  name: string;
  /** Between passes; 0: none on its own (run() still runs one). */
  intervalMs: number;
  /** The first pass's delay (default: one interval). */
  firstDelayMs?: number;
  /** What run() answers while another pass of this process is running. */
  busy: R;
  log: { warn(obj: object, msg: string): void };
  pass: (signal: AbortSignal, arg?: Arg) => Promise<R>;
}): PeriodicPass<Arg, R> {
  const stop = new AbortController();
  let running: Promise<R> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const run = (arg?: Arg): Promise<R> => {
    if (running) return running.then(() => opts.busy);
    running = opts.pass(stop.signal, arg).finally(() => {
      running = undefined;
    });
    return running;
  };

  const schedule = (ms: number): void => {
    if (opts.intervalMs <= 0 || stop.signal.aborted) return;
    timer = setTimeout(() => {
      run()
        .catch((err: unknown) =>
          opts.log.warn(failureFields(err), `${opts.name}: sweep failed (the next one retries)`),
        )
        .finally(() => schedule(opts.intervalMs));
    }, ms);
    // The timer alone never keeps the process alive.
    timer.unref();
  };
  schedule(opts.firstDelayMs ?? opts.intervalMs);

  return {
    run,
    async close() {
      stop.abort();
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}

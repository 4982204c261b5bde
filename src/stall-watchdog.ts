// The server's watchdog: a thread of its own that ends the process when the main thread has not run
// its event loop for EVENT_LOOP_STALL_SECONDS. A process that no longer answers anything but stays
// alive (the embedded database spins for good after a write the disk refused: probe F) is then one
// line in the log and an exit its supervisor sees, and starts again, instead of a silent outage.
// The main thread counts its beats in shared memory; the watcher, every second, adds the time since
// its own last look to the silence while the count has not moved. Each look adds two beats at most:
// a pause of the whole process (SIGSTOP, `docker pause`, a VM suspended, the clock set forward) is
// no silence of the main thread (probe V: a 6 s SIGSTOP had the process killed). Nothing is sent
// between the threads: a thread that no longer runs JavaScript could not answer a message.
import { Worker } from 'node:worker_threads';

const BEAT_MS = 1000;

// The thread's code (CommonJS, evaluated): its own timer, the shared count, a monotonic clock, and a
// direct write to stdout (the main thread's logger cannot write while it is held), then SIGKILL.
const WATCHER = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { hostname } = require('node:os');
const beats = new Int32Array(workerData.buffer);
let seen = Atomics.load(beats, 0);
let looked = process.hrtime.bigint();
let quiet = 0;
setInterval(() => {
  const now = process.hrtime.bigint();
  const since = Number(now - looked) / 1e6;
  looked = now;
  const count = Atomics.load(beats, 0);
  if (count !== seen) {
    seen = count;
    quiet = 0;
    return;
  }
  quiet += Math.min(since, ${2 * BEAT_MS});
  if (quiet < workerData.limitMs) return;
  const msg = 'The event loop has not run for ' + Math.round(quiet / 1000) + ' s (EVENT_LOOP_STALL_SECONDS is ' +
    workerData.limitMs / 1000 + '): the process is stuck (a full disk under the embedded database, or a loop that never ends); ending it so that its supervisor starts it again';
  try {
    writeSync(1, JSON.stringify({ level: 60, time: Date.now(), pid: process.pid, hostname: hostname(), msg }) + '\\n');
  } finally {
    process.kill(process.pid, 'SIGKILL');
  }
}, ${BEAT_MS});
`;

/** Watches the calling (main) thread until the process ends; `limitSeconds` 0: no watchdog. */
export function startStallWatchdog(limitSeconds: number): void {
  if (limitSeconds <= 0) return;
  const buffer = new SharedArrayBuffer(4);
  const beats = new Int32Array(buffer);
  const timer = setInterval(() => Atomics.add(beats, 0, 1), BEAT_MS);
  timer.unref();
  const worker = new Worker(WATCHER, { eval: true, workerData: { buffer, limitMs: limitSeconds * 1000 } });
  // It never keeps the process alive, and its own failure is no reason to stop serving.
  worker.unref();
  worker.on('error', () => {});
}

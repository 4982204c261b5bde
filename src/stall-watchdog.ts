// The server's watchdog: a thread of its own that ends the process when the main thread has not run
// its event loop for EVENT_LOOP_STALL_SECONDS. A process that no longer answers anything but stays
// alive (the embedded database spins for good after a write the disk refused: probe F) is then one
// line in the log and an exit its supervisor sees, and starts again, instead of a silent outage.
// The main thread stamps a shared clock every second; the thread reads it every second. Nothing is
// sent between them: a thread that no longer runs JavaScript could not answer a message.
import { Worker } from 'node:worker_threads';

const BEAT_MS = 1000;

// The thread's code (CommonJS, evaluated): its own timer, the shared clock, and a direct write to
// stdout (the main thread's logger cannot write while it is held), then SIGKILL for the process.
const WATCHER = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { hostname } = require('node:os');
const clock = new BigInt64Array(workerData.buffer);
setInterval(() => {
  const quiet = Date.now() - Number(Atomics.load(clock, 0));
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
  const buffer = new SharedArrayBuffer(8);
  const clock = new BigInt64Array(buffer);
  const beat = () => Atomics.store(clock, 0, BigInt(Date.now()));
  beat();
  const timer = setInterval(beat, BEAT_MS);
  timer.unref();
  const worker = new Worker(WATCHER, { eval: true, workerData: { buffer, limitMs: limitSeconds * 1000 } });
  // It never keeps the process alive, and its own failure is no reason to stop serving.
  worker.unref();
  worker.on('error', () => {});
}

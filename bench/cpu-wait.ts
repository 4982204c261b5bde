// Where a bench round's time went, thread by thread: the CPU each used and how long each waited for a
// CPU while ready to run (Linux's /proc/<pid>/task/<tid>/schedstat). The wait is what one part of the
// work costs another on a shared machine: a round that slows while its own threads' CPU stays the
// same spent the difference waiting behind someone else's.
//   const before = sampleThreads(pids); … const after = sampleThreads(pids);
//   spentBetween(before, after, (pid, tid) => …)   → { cpuNs, waitNs } of the threads chosen
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuWait {
  /** Nanoseconds on a CPU. */
  cpuNs: number;
  /** Nanoseconds ready to run, waiting for a CPU. */
  waitNs: number;
}

/** Each thread's CPU and wait so far, by `pid/tid` (empty where /proc is not Linux's). */
export type ThreadSample = Map<string, CpuWait & { pid: number; tid: number }>;

function readdir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

export function sampleThreads(pids: Iterable<number>): ThreadSample {
  const out: ThreadSample = new Map();
  for (const pid of pids) {
    for (const t of readdir(`/proc/${pid}/task`)) {
      try {
        const [cpu, wait] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ').map(Number);
        out.set(`${pid}/${t}`, { pid, tid: Number(t), cpuNs: cpu ?? 0, waitNs: wait ?? 0 });
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return out;
}

/**
 * What the chosen threads spent from `before` to `after`: a thread started in between counts from
 * its start; one ended in between is not counted (its last figures are gone with it).
 */
export function spentBetween(
  before: ThreadSample,
  after: ThreadSample,
  chosen: (pid: number, tid: number) => boolean,
): CpuWait {
  const sum: CpuWait = { cpuNs: 0, waitNs: 0 };
  for (const [key, a] of after) {
    if (!chosen(a.pid, a.tid)) continue;
    const b = before.get(key);
    sum.cpuNs += a.cpuNs - (b?.cpuNs ?? 0);
    sum.waitNs += a.waitNs - (b?.waitNs ?? 0);
  }
  return sum;
}

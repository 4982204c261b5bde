// One process owns an embedded data folder at a time. The lock file names its holder (pid, host);
// a holder that is dead is replaced at once, so a crashed server does not block the next start.
// Creation is atomic (a complete file is hard-linked into place) and a dead lock is replaced under
// a guard file, so of two processes starting together on a dead lock exactly one wins.
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export const LOCK_FILE = 'gateway-lock.json';
/** The holder refreshes the file's time this often; a lock not refreshed for STALE_MS is abandoned. */
const HEARTBEAT_MS = 5_000;
const STALE_MS = 30_000;
/** proper-lockfile's lock directory, left by versions before this one. */
const LEGACY_LOCK = 'gateway.lock';

interface Holder {
  pid: number;
  hostname: string;
  /** When it was taken (ISO): tells two holders with the same pid apart. */
  since: string;
}

/** How long a start waits for another process that is taking over a dead lock. */
const TAKEOVER_WAIT_MS = 10_000;

export class DatabaseLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: Holder | null,
  ) {
    const who = !holder
      ? 'another process'
      : holder.hostname === hostname()
        ? `process ${holder.pid}`
        : `process ${holder.pid} on host ${holder.hostname}`;
    super(
      `The embedded database in ${dataDir} is in use by ${who} (is the server running?). ` +
        'Stop it first, or point DATABASE_URL at a PostgreSQL server to share one database.',
    );
  }
}

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, owned by another user.
    return errno(err) === 'EPERM';
  }
}

interface Found {
  holder: Holder | null;
  ageMs: number;
  /** Which file this is (inode and time): a replaced or refreshed lock reads differently. */
  version: string;
}

/** The holder in `file` and the file's age, or null when there is no file. */
function readHolder(file: string): Found | null {
  try {
    const stat = statSync(file);
    const ageMs = Date.now() - stat.mtimeMs;
    const version = `${stat.ino}:${stat.mtimeMs}`;
    let holder: Holder | null = null;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>;
      if (
        Number.isInteger(parsed.pid) &&
        typeof parsed.hostname === 'string' &&
        typeof parsed.since === 'string'
      )
        holder = parsed as Holder;
    } catch (err) {
      // Removed between the stat and the read (a process taking over): there is no file now.
      if (errno(err) === 'ENOENT') return null;
      // Unreadable content: judged by its age alone.
    }
    return { holder, ageMs, version };
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
}

/**
 * When process `pid` started, in ms since the epoch (Linux: /proc, to 10 ms and the boot time's
 * second), or undefined where the system does not say.
 */
function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, starttime, in clock ticks (USER_HZ, 100) since boot; fields count from after `(comm)`.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock still protects a running process. Never true for our own pid: we do not hold it yet.
 * A holder of this host is live while its pid is, however old the file: a long statement of the
 * embedded database holds its thread, and so its heartbeat, past STALE_MS (a 10 000-guest seed went
 * 32 s without one, and a second process opened the folder beside it). Unless that pid now names a
 * process started after the lock was taken (the holder died and its pid was reused).
 */
function isLive(found: Found): boolean {
  const { holder, ageMs } = found;
  // Another host's process cannot be checked: its heartbeat (the file's time) is the only sign.
  if (!holder || holder.hostname !== hostname()) return ageMs <= STALE_MS;
  if (holder.pid === process.pid || !pidAlive(holder.pid)) return false;
  const started = processStart(holder.pid);
  const since = Date.parse(holder.since);
  // A second of slack: the boot time is whole seconds.
  return started === undefined || Number.isNaN(since) || started <= since + 1_000;
}

const sameHolder = (a: Holder | null, b: Holder | null): boolean =>
  a !== null && b !== null && a.pid === b.pid && a.hostname === b.hostname && a.since === b.since;

/** Creates `file` with `content` only if it does not exist, never visible half-written. */
function createExclusive(file: string, content: string): boolean {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { flag: 'wx' });
  try {
    linkSync(temp, file);
    return true;
  } catch (err) {
    if (errno(err) === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}

function removeLegacyLock(dataDir: string): void {
  const legacy = path.join(dataDir, LEGACY_LOCK);
  try {
    // proper-lockfile refreshed its directory every 7.5 s: a fresh one belongs to a running older version.
    if (Date.now() - statSync(legacy).mtimeMs < 15_000) throw new DatabaseLockedError(dataDir, null);
    rmSync(legacy, { recursive: true, force: true });
  } catch (err) {
    if (errno(err) !== 'ENOENT') throw err;
  }
}

/**
 * Takes the lock of `dataDir` (which must exist) or throws DatabaseLockedError naming the live holder.
 * Returns the release function; the lock is also released when the process exits.
 */
export async function lockDataDir(dataDir: string): Promise<() => void> {
  removeLegacyLock(dataDir);
  const file = path.join(dataDir, LOCK_FILE);
  const guard = `${file}.takeover`;
  const me: Holder = { pid: process.pid, hostname: hostname(), since: new Date().toISOString() };
  const content = JSON.stringify(me);
  // Bounded by time, not by tries: on a busy machine the process taking over a dead lock may need
  // a while, and the others should then name it rather than give up on "another process".
  const deadline = Date.now() + TAKEOVER_WAIT_MS;
  while (Date.now() < deadline) {
    if (createExclusive(file, content)) return holdLock(file, me);
    const found = readHolder(file);
    if (!found) continue;
    if (isLive(found)) throw new DatabaseLockedError(dataDir, found.holder);
    // A dead holder: replace it, one process at a time (a guard left by a crash mid-takeover is dead too).
    if (!createExclusive(guard, content)) {
      const other = readHolder(guard);
      if (other && !isLive(other)) rmSync(guard, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    try {
      // Under the guard no one else removes the file: unlink it only if it is still the dead one.
      const again = readHolder(file);
      if (again?.version === found.version) rmSync(file, { force: true });
      if (createExclusive(file, content)) return holdLock(file, me);
    } finally {
      rmSync(guard, { force: true });
    }
  }
  throw new DatabaseLockedError(dataDir, readHolder(file)?.holder ?? null);
}

function holdLock(file: string, me: Holder): () => void {
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // Removed under us (an operator): nothing to refresh.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    process.off('exit', release);
    const found = readHolder(file);
    if (found && sameHolder(found.holder, me)) rmSync(file, { force: true });
  };
  process.on('exit', release);
  return release;
}

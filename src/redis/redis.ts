// Redis (REDIS_URL) is optional and never vital: the rate limit falls back to per-instance counters
// and presence fan-out pauses while it is away. Every ioredis client is created here, the one way:
// an error listener, bounded timeouts, reconnection forever, no rejection left unhandled, and one
// log line per outage (not per reconnect attempt) with counters for diagnostics.
import { createRequire } from 'node:module';
import type { Command, Redis, RedisOptions } from 'ioredis';

/** A command never waits longer than this for Redis (queued or sent). */
export const REDIS_TIMEOUT_MS = 2_000;

/** The part of the app's logger (pino) used here. */
export interface RedisLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const silent: RedisLog = { warn() {}, info() {} };

export interface RedisStats {
  /** Times Redis became unreachable (one per outage, whatever the number of clients and attempts). */
  outages: number;
  /** `error` events of every client. */
  errors: number;
  /** Commands that failed (timeouts, connection lost, refused). */
  failedCommands: number;
}

/**
 * A command nobody awaits (the presence event target's publish/subscribe, ioredis's own resubscribe
 * on reconnect) must not reject unhandled: Node ends the process on that. Callers that await still
 * see the rejection; the promise is only marked handled and counted.
 */
interface GuardedRedis extends Redis {
  onCommandFailure: (err: unknown) => void;
  /**
   * Redis's answer to a SELECT (the database number of REDIS_URL, sent by ioredis on every connect
   * before the connection is ready): its refusal (`ERR DB index is out of range`), or undefined.
   */
  onSelect: (refusal: string | undefined) => void;
  /** The refusal of the last SELECT (undefined: accepted, or none sent, i.e. database 0). */
  selectRefused: string | undefined;
  /** REDIS_URL gives a password this Redis does not ask for (on each connect). */
  onNeedlessPassword: () => void;
}

/** Redis's answers to an AUTH it does not need (as ioredis tells them apart). */
const NEEDLESS_PASSWORD = /no password is set|without any password configured for the default user/;

// ioredis is loaded at the first client, not at every start: most single-box runs (and admin
// commands) have no REDIS_URL, and loading it costs about 0.1 s of CPU.
const require = createRequire(import.meta.url);
let guardedRedisClass: (new (url: string, options: RedisOptions) => GuardedRedis) | undefined;

function newGuardedRedis(url: string, options: RedisOptions): GuardedRedis {
  guardedRedisClass ??= guardedClassOf((require('ioredis') as typeof import('ioredis')).Redis);
  return new guardedRedisClass(url, options);
}

function guardedClassOf(Base: typeof Redis): new (url: string, options: RedisOptions) => GuardedRedis {
  return class extends Base implements GuardedRedis {
    onCommandFailure: (err: unknown) => void = () => {};
    onSelect: (refusal: string | undefined) => void = () => {};
    selectRefused: string | undefined;
    onNeedlessPassword: () => void = () => {};

    /**
     * ioredis answers a password Redis does not ask for with a plain-text console warning of its own,
     * once per connection, among the JSON log lines (probe Z4); its connect handler then goes on as
     * after an accepted AUTH. The same, said through `onNeedlessPassword` instead.
     */
    override auth(...args: unknown[]): ReturnType<Redis['auth']> {
      const done = args.at(-1);
      if (typeof done === 'function') {
        args[args.length - 1] = (err: Error | null | undefined, result?: unknown) => {
          if (err && NEEDLESS_PASSWORD.test(err.message)) {
            this.onNeedlessPassword();
            return done(null, 'OK');
          }
          return done(err, result);
        };
      }
      return (super.auth as (...a: unknown[]) => ReturnType<Redis['auth']>)(...args);
    }

    /** Commands watched already: ioredis sends a command again after a reconnect (one that timed out too). */
    private readonly watched = new WeakSet<Command>();

    override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
      // Once per command: a timed-out command sent again on the new connection would report its
      // time-out again, on a connection that is fine, and drop it (a reconnect loop).
      if (this.watched.has(command)) return super.sendCommand(command, stream);
      this.watched.add(command);
      command.promise.catch((err: unknown) => this.onCommandFailure(err));
      if (command.name === 'select') {
        command.promise.then(
          () => {
            this.selectRefused = undefined;
            this.onSelect(undefined);
          },
          (err: unknown) => {
            // Redis's own reply refusing the number (out of range, cluster mode, an ACL without SELECT),
            // not a lost connection, a time out or a failed AUTH (NOAUTH, WRONGPASS: an outage as before).
            if (!(err instanceof Error) || err.name !== 'ReplyError' || !/^(ERR|NOPERM) /.test(err.message))
              return;
            this.selectRefused = err.message;
            this.onSelect(err.message);
          },
        );
      }
      return super.sendCommand(command, stream);
    }
  };
}

/** REDIS_URL without its password, for messages: `redis://host:6379/2`. */
export function redisWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'REDIS_URL';
  }
}

/**
 * At start: Redis's refusal of REDIS_URL's credentials (`WRONGPASS …`) or database number (`ERR DB
 * index is out of range`), from a Redis that answers, else undefined: accepted, or no answer within
 * `timeoutMs` (the service then starts degraded, as for any outage, and connects when Redis comes).
 */
export async function redisDatabaseRefusal(
  url: string,
  timeoutMs = REDIS_TIMEOUT_MS,
): Promise<string | undefined> {
  const client = newGuardedRedis(url, {
    disableClientInfo,
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // Credentials Redis refuses are a wrong REDIS_URL too (probe F: the service started degraded for
  // good); unreachable is an outage, said by the running service's own connection, not here.
  let credentials: string | undefined;
  client.on('error', (err: Error) => {
    if (/^(WRONGPASS|NOAUTH|NOPERM)\b|^ERR (invalid password|AUTH)/.test(err.message))
      credentials ??= err.message;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
  } catch {
    // No connection: a refusal only if Redis said why (above).
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
  return credentials ?? client.selectRefused;
}

// Reconnect forever, quickly at first, at most every second: recovery is prompt when Redis returns.
const retryStrategy = (times: number): number => Math.min(times * 100, 1_000);

// No `CLIENT SETINFO` on connect: Redis before 7.2 refuses it, and each refusal counted as a failed
// command (`redis_failed_commands_total` rose on every healthy connect and reconnect).
const disableClientInfo = true;

/**
 * Commands: the offline queue stays on so a command issued right after start waits for the
 * connection instead of failing; the wait is bounded by commandTimeout (which starts when the
 * command is issued, queued or not) and by maxRetriesPerRequest (queued commands fail after two
 * failed connection attempts).
 */
const COMMAND_OPTIONS: RedisOptions = {
  disableClientInfo,
  enableOfflineQueue: true,
  // A command in flight when its connection is lost (or dropped after a time-out) is not sent again
  // on the next one: its caller has had its answer (a rate limit from memory), and sent again it
  // would count a request twice.
  autoResendUnfulfilledCommands: false,
  connectTimeout: REDIS_TIMEOUT_MS,
  commandTimeout: REDIS_TIMEOUT_MS,
  maxRetriesPerRequest: 1,
  retryStrategy,
};

/**
 * Pub/sub subscriber: SUBSCRIBE/UNSUBSCRIBE issued during an outage wait in the queue until Redis is
 * back (they are few: one per topic), and channels subscribed before it are resubscribed by ioredis.
 * No commandTimeout: it would drop a queued SUBSCRIBE and leave its subscriber deaf.
 */
const SUBSCRIBER_OPTIONS: RedisOptions = {
  disableClientInfo,
  enableOfflineQueue: true,
  connectTimeout: REDIS_TIMEOUT_MS,
  maxRetriesPerRequest: null,
  retryStrategy,
};

export interface RedisLink {
  /** For commands (rate limit, field limits, PUBLISH). */
  readonly client: Redis;
  /** For SUBSCRIBE; created on first use. */
  subscriber(): Redis;
  /** True from a connection failure of the command client until it is ready again. */
  readonly down: boolean;
  /** `ok` when every client is connected and the command client answers a PING within `timeoutMs`. */
  health(timeoutMs?: number): Promise<'ok' | 'degraded'>;
  stats(): RedisStats;
  close(): Promise<void>;
}

/** A command's answer, or undefined when it failed or did not come within `ms`. */
function answeredWithin<T>(command: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([
    command.then(
      (r) => r,
      () => undefined,
    ),
    new Promise<undefined>((resolve) => setTimeout(resolve, ms, undefined).unref()),
  ]);
}

export function connectRedis(url: string, log: RedisLog = silent): RedisLink {
  const stats: RedisStats = { outages: 0, errors: 0, failedCommands: 0 };
  const downClients = new Set<string>();
  const clients = new Map<string, GuardedRedis>();
  let outageSince = 0;
  // The errors of the current outage (the first sign is often a bare close; the cause follows).
  let errorsBefore = 0;
  let lastError: string | undefined;
  let closing = false;

  const where = (client: Redis): string => `${client.options.host ?? '?'}:${client.options.port ?? '?'}`;

  const markDown = (
    name: string,
    client: Redis,
    reason: string,
    what = 'Redis (REDIS_URL) unreachable',
  ): void => {
    if (closing) return;
    downClients.add(name);
    if (outageSince !== 0) return;
    outageSince = Date.now();
    errorsBefore = stats.errors;
    stats.outages += 1;
    // host:port only: the URL may carry a password.
    log.warn(
      { redis: where(client), reason, outages: stats.outages },
      `${what}: rate limit on per-instance counters and presence fan-out paused until it returns`,
    );
  };

  const markReady = (name: string, client: GuardedRedis): void => {
    // A connection whose database was refused is dropped (below), though ioredis calls it ready.
    if (client.selectRefused !== undefined || client.status !== 'ready') return;
    downClients.delete(name);
    if (outageSince === 0 || downClients.size > 0) return;
    // Back only when every client is: the subscriber reconnects alongside the command client.
    for (const c of clients.values()) if (c.status !== 'ready' || c.selectRefused !== undefined) return;
    log.info(
      {
        redis: where(client),
        downMs: Date.now() - outageSince,
        errors: stats.errors - errorsBefore,
        ...(lastError ? { lastError } : {}),
      },
      'Redis reachable again: shared rate limit and presence fan-out resumed',
    );
    outageSince = 0;
    lastError = undefined;
  };

  let passwordSaid = false;
  const create = (name: string, options: RedisOptions): GuardedRedis => {
    const client = newGuardedRedis(url, options);
    client.onNeedlessPassword = () => {
      if (passwordSaid) return;
      passwordSaid = true;
      log.warn(
        { redis: redisWhere(url) },
        'REDIS_URL gives a password this Redis does not ask for: it is not used',
      );
    };
    client.onCommandFailure = (err) => {
      stats.failedCommands += 1;
      // A Redis that hangs (stopped, overloaded, a dead peer without a reset) closes nothing: treat a
      // timeout as an outage and reconnect, so requests stop waiting on it until it answers again.
      if (err instanceof Error && err.message === 'Command timed out' && client.status === 'ready') {
        markDown(name, client, 'command timed out');
        // Destroyed, not ended: an ended socket closes only once the hung Redis answers (or after
        // ioredis's 2 s), commands still written to it meanwhile. ioredis reconnects on the close,
        // as after a lost connection.
        client.stream.destroy();
      }
    };
    client.onSelect = (refusal) => {
      if (refusal === undefined) return;
      // Commands would go to database 0, shared with others: the connection is dropped before it is
      // ready (the SELECT is answered before the ready check), so none is sent, and is tried again
      // as after an outage (retryStrategy) until Redis accepts the number.
      markDown(name, client, refusal, `Redis (REDIS_URL) refused database ${client.options.db ?? 0}`);
      client.disconnect(true);
    };
    client.on('error', (err: Error) => {
      stats.errors += 1;
      lastError = err.message || err.name;
      markDown(name, client, lastError);
    });
    // A lost connection may emit no error; the failed reconnects that follow do.
    client.on('close', () => markDown(name, client, 'connection lost'));
    client.on('ready', () => markReady(name, client));
    clients.set(name, client);
    return client;
  };

  const client = create('commands', COMMAND_OPTIONS);

  return {
    client,
    subscriber() {
      return clients.get('subscriber') ?? create('subscriber', SUBSCRIBER_OPTIONS);
    },
    get down() {
      return downClients.has('commands');
    },
    async health(timeoutMs = 1_000) {
      for (const c of clients.values()) {
        if (c.status !== 'ready' || c.selectRefused !== undefined) return 'degraded';
      }
      const pong = await answeredWithin(client.ping(), timeoutMs);
      return pong === 'PONG' ? 'ok' : 'degraded';
    },
    stats: () => ({ ...stats }),
    async close() {
      if (closing) return;
      closing = true;
      await Promise.all(
        [...clients.values()].map(async (c) => {
          if (c.status === 'ready') {
            // A Redis that hangs answers no QUIT: the subscriber (no commandTimeout) waited for good,
            // and the stop ran into SHUTDOWN_TIMEOUT_SECONDS, exit 1 (probe F). Bounded as a command.
            if ((await answeredWithin(c.quit(), REDIS_TIMEOUT_MS)) !== undefined) return;
            // Fall through: force the socket closed.
          }
          // quit() on a reconnecting client would wait for the connection; just drop it.
          c.disconnect();
        }),
      );
    },
  };
}

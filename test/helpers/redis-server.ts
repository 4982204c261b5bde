// A redis-server of the test's own on a free loopback port, to kill and restart at will (the
// machine's shared Redis on 6379 is never touched). No persistence: a restart starts empty.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './processes.js';
import { redisAnswers } from './redis.js';

/** Whether the redis-server binary is installed (tests skip, saying so, when it is not). */
export const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

export { freePort };

export interface OwnRedis {
  url: string;
  port: number;
  /** Starts the server (again, on the same port) and waits until it answers. */
  start(): Promise<void>;
  /** SIGKILL, as a crash: no goodbye to the clients. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a Redis that hangs (connections stay open, nothing answers). */
  pause(): void;
  resume(): void;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const self: OwnRedis = {
    url,
    port,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      const until = Date.now() + 10_000;
      while (!(await redisAnswers(url, 500))) {
        if (Date.now() > until || child.exitCode !== null)
          throw new Error(`redis-server on ${port} did not start`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGCONT');
      c.kill('SIGKILL');
      await gone;
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
  };
  return self;
}

/**
 * An own Redis started before the suite's tests and killed after them (call inside a describe). The
 * object stands for the started server, so tests use it as they would ownRedis()'s.
 */
export function ownRedisForSuite(): OwnRedis {
  let redis: OwnRedis | undefined;
  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
  });
  afterAll(async () => {
    await redis?.kill();
  });
  const started = (): OwnRedis => {
    if (!redis) throw new Error("The suite's Redis has not started.");
    return redis;
  };
  return {
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    start: () => started().start(),
    kill: () => started().kill(),
    pause: () => started().pause(),
    resume: () => started().resume(),
  };
}

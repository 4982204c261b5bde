// Whether a Redis answers, for tests that need one (CI sets REDIS_URL; a developer's machine may
// have none). Bounded: never more than `capMs`, whatever the client's timers do.
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function answers(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export function redisAnswers(url = REDIS_URL, capMs = 1_500): Promise<boolean> {
  return Promise.race([
    answers(url),
    new Promise<boolean>((resolve) => setTimeout(resolve, capMs, false).unref()),
  ]);
}

// The environment, parsed and validated once. Everything else receives a Config.
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** postgresql://… or undefined for the embedded PGlite database. */
  databaseUrl: string | undefined;
  dataDir: string;
  rateLimitPerMinute: number;
  redisUrl: string | undefined;
  legacyAnalyticsSunset: Date;
  appUrl: string;
  activeWindowSeconds: number;
  logLevel: string;
  /** On SIGTERM/SIGINT, how long in-flight requests may run before the process gives up and exits 1. */
  shutdownTimeoutSeconds: number;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got "${raw}".`);
  }
  return Number(raw);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 4000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      'DATABASE_URL must start with postgresql:// (leave it unset for the embedded database).',
    );
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://.');
  }
  const sunsetRaw = env.LEGACY_ANALYTICS_SUNSET || '2026-06-01';
  const sunset = new Date(`${sunsetRaw}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(sunsetRaw) || Number.isNaN(sunset.getTime())) {
    throw new ConfigError(`LEGACY_ANALYTICS_SUNSET must be a date YYYY-MM-DD; got "${sunsetRaw}".`);
  }
  const appUrl = (env.APP_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  try {
    new URL(appUrl);
  } catch {
    throw new ConfigError(`APP_URL must be an absolute URL; got "${appUrl}".`);
  }
  return {
    port,
    host,
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    redisUrl,
    legacyAnalyticsSunset: sunset,
    appUrl,
    activeWindowSeconds: int(env, 'ACTIVE_WINDOW_SECONDS', 300, 1, 86_400),
    logLevel: env.LOG_LEVEL || 'info',
    shutdownTimeoutSeconds: int(env, 'SHUTDOWN_TIMEOUT_SECONDS', 25, 1, 3600),
  };
}

// The environment, parsed and validated once. Everything else receives a Config.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
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
  /** How often the API tokens' `lastUsedAt` noted in memory are written (src/auth/token-usage.ts). */
  tokenLastUsedFlushSeconds: number;
  logLevel: string;
  /** Addresses/CIDRs whose X-Forwarded-* headers are believed; empty: the socket address is the client. */
  trustedProxies: string[];
  /** PostgreSQL connections in the pool (DATABASE_URL only). */
  dbPoolSize: number;
  /** Server-side limit on one statement (PostgreSQL `statement_timeout`); 0 turns it off. */
  dbStatementTimeoutMs: number;
  /** Longest wait for a database connection, and for a tenant's turn (see tenantDbConcurrency). */
  dbConnectTimeoutMs: number;
  /** Requests of one tenant served at once; the others wait up to dbConnectTimeoutMs, then 503. */
  tenantDbConcurrency: number;
  /** On SIGTERM/SIGINT, how long in-flight requests may run before the process gives up and exits 1. */
  shutdownTimeoutSeconds: number;
  /** How long a request (its headers and body) may take to arrive before it is refused 408. */
  requestTimeoutSeconds: number;
  /** Seconds without a turn of the event loop before the watchdog ends the server (EVENT_LOOP_STALL_SECONDS; 0: none). */
  eventLoopStallSeconds: number;
  /** GraphQL queries run compiled (src/graphql/compiled-execution.ts); false: graphql-js runs them all. */
  graphqlCompiledQueries: boolean;
  /** Where uploaded files (guest avatars) live; see src/storage/storage.ts. */
  mediaStorage: MediaStorage;
  /** The bucket's settings when mediaStorage is `s3`. */
  s3: S3Settings | undefined;
  /** `Authorization: Bearer …` that GET /metrics asks for on PORT; unset: not served there. */
  metricsToken: string | undefined;
  /** A second listener on HOST serving only GET /metrics, without a token; unset: none. */
  metricsPort: number | undefined;
  /** The largest body (a file part or a JSON array) `POST /guests/import` reads; larger ones are a 413. */
  guestImportMaxBytes: number;
  /** Seconds between two passes of the retention sweeper (src/modules/retention/); 0: none. */
  retentionSweepSeconds: number;
  /** Days the event log keeps an event (EVENT_RETENTION_DAYS). */
  eventRetentionDays: number;
  /** Days the audit log keeps an entry (AUDIT_RETENTION_DAYS); unset: for good. */
  auditRetentionDays: number | undefined;
  /** Seconds between two passes of the event sweeper (EVENT_SWEEP_SECONDS; 0: none). */
  eventSweepSeconds: number;
  /** Webhook delivery (src/events/webhook-*.ts) and the targets webhooks may name. */
  webhooks: WebhookSettings;
}

export interface WebhookSettings {
  /** This instance delivers events to webhooks (WEBHOOKS_DELIVERY). */
  deliver: boolean;
  /** On PostgreSQL, delivery runs on a worker thread of its own (WEBHOOKS_THREAD). */
  thread: boolean;
  /** Loopback, private and link-local targets are allowed (WEBHOOKS_ALLOW_PRIVATE; tests). */
  allowPrivate: boolean;
  /** Attempts in flight at once on this instance. */
  concurrency: number;
  /** Attempts in flight at once to one endpoint (at most `concurrency`). */
  concurrencyPerEndpoint: number;
  /** Longest an attempt may take, connect to last byte. */
  timeoutMs: number;
  /** The first retry's delay; the whole schedule (and its 24 h window) scales with it. */
  retryBaseMs: number;
  /** How long a claimed attempt, or a held stream (renewed as it records), is reserved for its instance; then another may take it over. */
  leaseMs: number;
  /** How often the instance looks for events written elsewhere and for retries come due. */
  pollMs: number;
  /** An endpoint whose attempts only failed for this many days is disabled. */
  disableAfterDays: number;
  /** Attempts, and deliveries that failed for good or gave up, older than this many days are deleted. */
  historyDays: number;
  /** AES-256-GCM key (SHA-256 of WEBHOOKS_SECRETS_KEY) the signing secrets are stored under; none: stored as they are. */
  secretsKey: Buffer | undefined;
}

export type MediaStorage = 'local' | 'database' | 's3';

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible server (MinIO, …); undefined: AWS S3. */
  endpoint: string | undefined;
  /** Both or neither; neither: the AWS SDK's default credentials (AWS_* variables, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  /** Prepended to every object key: `''` or a folder ending in `/`. */
  prefix: string;
}

export class ConfigError extends Error {}

/** pino's levels (LOG_LEVEL). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got "${raw}".`);
  }
  return Number(raw);
}

/** An IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`), as fastify's `trustProxy` reads it. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

function trustedProxies(env: NodeJS.ProcessEnv): string[] {
  const entries = (env.TRUSTED_PROXIES ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const bad = entries.find((e) => !isAddressOrRange(e));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges (10.0.0.0/8); got "${bad}".`,
    );
  }
  return entries;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1)$/i.test(raw)) return true;
  if (/^(false|0)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false; got "${raw}".`);
}

/** Bucket names as S3 allows them today: 3-63 lowercase letters, digits, dots and hyphens. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** A folder of the bucket: segments of letters, digits, `.`, `_`, `-`, none of them `.` or `..`. */
const PREFIX_SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]+$/;

function s3Settings(env: NodeJS.ProcessEnv): S3Settings {
  const bucket = env.S3_BUCKET || '';
  if (!bucket) throw new ConfigError('S3_BUCKET is required when MEDIA_STORAGE=s3.');
  if (!BUCKET.test(bucket)) {
    throw new ConfigError(
      `S3_BUCKET must be a bucket name (3 to 63 lowercase letters, digits, dots and hyphens); got "${bucket}".`,
    );
  }
  const region = env.S3_REGION || 'us-east-1';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(region)) {
    throw new ConfigError(`S3_REGION must be a region name such as eu-west-1; got "${region}".`);
  }
  const endpoint = env.S3_ENDPOINT || undefined;
  if (endpoint !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(endpoint);
    } catch {}
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigError(`S3_ENDPOINT must be an http:// or https:// URL; got "${endpoint}".`);
    }
    // Not echoed: the value holds a secret.
    if (url.username || url.password) {
      throw new ConfigError(
        'S3_ENDPOINT must not carry credentials; set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.',
      );
    }
  }
  const accessKeyId = env.S3_ACCESS_KEY_ID || '';
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError(
      `${accessKeyId ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'} is missing: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY together, or neither for the AWS SDK's default credentials.`,
    );
  }
  const prefixRaw = env.S3_PREFIX || '';
  const segments = prefixRaw.split('/').filter((s) => s !== '');
  if (prefixRaw.length > 200 || !segments.every((s) => PREFIX_SEGMENT.test(s))) {
    throw new ConfigError(
      `S3_PREFIX must be a folder such as gateway/media (letters, digits, ".", "_", "-" between slashes); got "${prefixRaw}".`,
    );
  }
  return {
    bucket,
    region,
    endpoint,
    credentials: accessKeyId ? { accessKeyId, secretAccessKey } : undefined,
    // S3-compatible servers (MinIO) commonly answer path-style requests only.
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
    prefix: segments.length ? `${segments.join('/')}/` : '',
  };
}

/** The settings of MEDIA_STORAGE=s3 (s3Settings). */
const S3_VARIABLES = [
  'S3_BUCKET',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_PREFIX',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
] as const;

function mediaStorage(env: NodeJS.ProcessEnv, databaseUrl: string | undefined): MediaStorage {
  const raw = env.MEDIA_STORAGE || '';
  if (raw === '') {
    // A bucket (or any of its settings) configured without choosing it is most likely a forgotten
    // MEDIA_STORAGE=s3: uploads would go elsewhere without a word.
    const s3 = S3_VARIABLES.find((name) => env[name]);
    if (s3) {
      throw new ConfigError(`${s3} is set but MEDIA_STORAGE is not: set MEDIA_STORAGE=s3 to use the bucket.`);
    }
    return databaseUrl ? 'database' : 'local';
  }
  if (raw !== 'local' && raw !== 'database' && raw !== 's3') {
    throw new ConfigError(`MEDIA_STORAGE must be local, database or s3; got "${raw}".`);
  }
  return raw;
}

function metricsToken(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.METRICS_TOKEN || undefined;
  // Visible ASCII only: it travels in a header, and a short one could be guessed.
  if (token !== undefined && !/^[\x21-\x7e]{16,}$/.test(token)) {
    throw new ConfigError(
      'METRICS_TOKEN must be at least 16 characters, without spaces or non-ASCII characters.',
    );
  }
  return token;
}

function metricsPort(env: NodeJS.ProcessEnv, port: number): number | undefined {
  if (!env.METRICS_PORT) return undefined;
  const metrics = int(env, 'METRICS_PORT', 0, 1, 65535);
  if (metrics === port) throw new ConfigError(`METRICS_PORT must differ from PORT (${port}).`);
  return metrics;
}

/**
 * DATA_DIR as a path; unset: ./data. Blank is a typo or a value that went missing (`DATA_DIR=$DIR`
 * with DIR unset), and spaces around it too (`DATA_DIR=' '` made a folder named ` `): both refused.
 */
function dataDir(value: string | undefined): string {
  if (value === undefined) return path.resolve('./data');
  if (value.trim() === '')
    throw new ConfigError(`DATA_DIR must be a path, not blank (unset, it is ./data); got "${value}".`);
  if (value.trim() !== value)
    throw new ConfigError(`DATA_DIR must be a path without spaces around it; got "${value}".`);
  return path.resolve(value);
}

/**
 * REDIS_URL: redis:// or rediss://, its path the database number (ioredis reads `/abc` as NaN and
 * stays on database 0, shared with whoever uses it). Whether Redis has that database is known when
 * it answers (src/redis/redis.ts). Never echoed whole: it may carry a password.
 */
function redisUrlOf(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.REDIS_URL || undefined;
  if (raw === undefined) return undefined;
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL must be a URL such as redis://host:6379 or redis://host:6379/2.');
  }
  // ioredis decodes them, and a bad escape stopped the start with only "URI malformed" (probe V).
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new ConfigError(
      'REDIS_URL has a user name or password that is not percent-encoded right (write % as %25).',
    );
  }
  // As ioredis reads it: the path, else a `db` query parameter.
  const dbPath = url.pathname === '/' ? '' : url.pathname;
  const db = dbPath !== '' ? dbPath.slice(1) : (url.searchParams.get('db') ?? '');
  if (db !== '' && !/^\d+$/.test(db)) {
    throw new ConfigError(
      `REDIS_URL must end in a database number (redis://host:6379/2), or in none for 0; got "${dbPath || `?db=${db}`}".`,
    );
  }
  return raw;
}

/** A host name or an IP address (an IPv6 one bare, as HOST takes it), as a URL's host reads it. */
function isHostName(host: string): boolean {
  if (isIP(host) !== 0) return true;
  try {
    return new URL(`http://${host}/`).hostname === host.toLowerCase() && !/[/:@?#\\[\]]/.test(host);
  } catch {
    return false;
  }
}

/**
 * DATABASE_URL's `sslmode=prefer`, `require` and `verify-ca` as node-postgres reads them (it
 * verifies the certificate and the host name, as `verify-full`), named so: it printed a
 * many-line SECURITY WARNING at every start, and its next major version gives them libpq's
 * weaker meanings, which a URL written today would then take silently. `uselibpqcompat=true` asks
 * for libpq's meanings now, and is left as it is.
 */
function verifyingSslMode(url: string): string {
  if (/[?&]uselibpqcompat=true(?=[&#]|$)/.test(url)) return url;
  return url.replace(/([?&]sslmode=)(prefer|require|verify-ca)(?=[&#]|$)/g, '$1verify-full');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 4000, 1, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL ? verifyingSslMode(env.DATABASE_URL) : undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      'DATABASE_URL must start with postgresql:// (leave it unset for the embedded database).',
    );
  }
  // Prisma's own `?schema=` is read by no driver adapter: every table went to `public` beside
  // another application's (probe F). The driver's way is named instead.
  if (databaseUrl && /[?&]schema=/i.test(databaseUrl)) {
    throw new ConfigError(
      'DATABASE_URL: ?schema= is not read here (the tables would go to public); name the schema as ?options=-c%20search_path%3Dmyschema,public (public keeps the pg_trgm extension), or give the service a database of its own.',
    );
  }
  const redisUrl = redisUrlOf(env);
  const sunsetRaw = env.LEGACY_ANALYTICS_SUNSET || '2026-06-01';
  const sunset = new Date(`${sunsetRaw}T00:00:00Z`);
  // A real calendar day: Date would roll 2026-02-30 over to March 2.
  if (!/^\d{4}-\d{2}-\d{2}$/.test(sunsetRaw) || sunset.toISOString().slice(0, 10) !== sunsetRaw) {
    throw new ConfigError(`LEGACY_ANALYTICS_SUNSET must be a date YYYY-MM-DD; got "${sunsetRaw}".`);
  }
  const appUrl = (env.APP_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  let parsedAppUrl: URL | null = null;
  try {
    parsedAppUrl = new URL(appUrl);
  } catch {
    // Named below: APP_URL itself, or the HOST it was made of.
  }
  // HOST is judged as the host of a URL whatever APP_URL says (with APP_URL set, `a b` reached the
  // listen, which called it an address of no interface; probe F).
  if (!isHostName(host)) throw new ConfigError(`HOST must be a host name or an IP address; got "${host}".`);
  // A host right after `//` (WHATWG reads `http:///path` as the host `path`).
  if (
    (parsedAppUrl?.protocol !== 'http:' && parsedAppUrl?.protocol !== 'https:') ||
    !/^https?:\/\/[^/?#\\]/i.test(appUrl)
  ) {
    // The value as set: trimmed of its slashes, `http://` would read `http:` (probe Z4).
    throw new ConfigError(
      `APP_URL must be an absolute http:// or https:// URL; got "${env.APP_URL || appUrl}".`,
    );
  }
  // Every link is APP_URL and a path: a query or fragment would swallow the path, credentials would
  // be in every answer and log line.
  if (parsedAppUrl.username || parsedAppUrl.password) {
    throw new ConfigError('APP_URL must not hold a user name or password (every link shows it).');
  }
  if (/[?#]/.test(appUrl)) {
    throw new ConfigError(
      `APP_URL must not have a query or a fragment (links add their path to it); got "${env.APP_URL ?? appUrl}".`,
    );
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}".`);
  }
  const dbPoolSize = int(env, 'DB_POOL_SIZE', 10, 1, 1000);
  const shutdownTimeoutSeconds = int(env, 'SHUTDOWN_TIMEOUT_SECONDS', 25, 1, 3600);
  const media = mediaStorage(env, databaseUrl);
  return {
    port,
    host,
    databaseUrl,
    dataDir: dataDir(env.DATA_DIR),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    redisUrl,
    legacyAnalyticsSunset: sunset,
    appUrl,
    activeWindowSeconds: int(env, 'ACTIVE_WINDOW_SECONDS', 300, 1, 86_400),
    tokenLastUsedFlushSeconds: int(env, 'TOKEN_LAST_USED_FLUSH_SECONDS', 60, 1, 3600),
    logLevel,
    trustedProxies: trustedProxies(env),
    dbPoolSize,
    dbStatementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 0, 3_600_000),
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 1, 600_000),
    // Two connections stay free for other tenants (and for a pool of 1 or 2, one request at a time).
    tenantDbConcurrency: int(env, 'TENANT_DB_CONCURRENCY', Math.max(1, dbPoolSize - 2), 1, 10_000),
    shutdownTimeoutSeconds,
    requestTimeoutSeconds: int(env, 'REQUEST_TIMEOUT_SECONDS', 300, 1, 3600),
    eventLoopStallSeconds: int(env, 'EVENT_LOOP_STALL_SECONDS', 60, 0, 3600),
    graphqlCompiledQueries: bool(env, 'GRAPHQL_COMPILED_QUERIES', true),
    mediaStorage: media,
    s3: media === 's3' ? s3Settings(env) : undefined,
    metricsToken: metricsToken(env),
    metricsPort: metricsPort(env, port),
    guestImportMaxBytes: int(env, 'GUEST_IMPORT_MAX_MB', 20, 1, 1024) * 1024 * 1024,
    retentionSweepSeconds: int(env, 'RETENTION_SWEEP_SECONDS', 3600, 0, 604_800),
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    auditRetentionDays: env.AUDIT_RETENTION_DAYS ? int(env, 'AUDIT_RETENTION_DAYS', 0, 1, 36_500) : undefined,
    eventSweepSeconds: int(env, 'EVENT_SWEEP_SECONDS', 60, 0, 86_400),
    webhooks: webhookSettings(env, shutdownTimeoutSeconds),
  };
}

/**
 * Attempts in flight per instance, and per endpoint: one POST per event (Standard Webhooks), so a
 * venue's ingest (thousands of events a second) needs many at once; a receiver meets at most
 * DEFAULT_PER_ENDPOINT of this instance's connections (kept alive).
 */
const DEFAULT_CONCURRENCY = 256;
const DEFAULT_PER_ENDPOINT = 128;

function webhookSettings(env: NodeJS.ProcessEnv, shutdownTimeoutSeconds: number): WebhookSettings {
  const deliver = bool(env, 'WEBHOOKS_DELIVERY', true);
  // A stopping server waits for the attempts in flight (and records them) within the shutdown timeout.
  const shutdownMs = shutdownTimeoutSeconds * 1000;
  const timeoutMs = int(env, 'WEBHOOKS_TIMEOUT_MS', Math.min(5_000, shutdownMs / 2), 100, 60_000);
  if (deliver && timeoutMs >= shutdownMs) {
    throw new ConfigError(
      `WEBHOOKS_TIMEOUT_MS must be shorter than SHUTDOWN_TIMEOUT_SECONDS (${shutdownTimeoutSeconds} s); got "${timeoutMs}".`,
    );
  }
  const leaseMs = int(env, 'WEBHOOKS_LEASE_MS', Math.max(30_000, timeoutMs + 10_000), 1_000, 3_600_000);
  // A lease shorter than an attempt would let a second instance send while the first still waits.
  if (leaseMs <= timeoutMs) {
    throw new ConfigError(
      `WEBHOOKS_LEASE_MS must be longer than WEBHOOKS_TIMEOUT_MS (${timeoutMs}); got "${leaseMs}".`,
    );
  }
  const concurrency = int(env, 'WEBHOOKS_CONCURRENCY', DEFAULT_CONCURRENCY, 1, 256);
  // An endpoint never gets more than the instance: the default follows a smaller total, a value set
  // above it is refused rather than lowered without a word.
  const concurrencyPerEndpoint = int(
    env,
    'WEBHOOKS_CONCURRENCY_PER_ENDPOINT',
    Math.min(DEFAULT_PER_ENDPOINT, concurrency),
    1,
    256,
  );
  if (concurrencyPerEndpoint > concurrency) {
    throw new ConfigError(
      `WEBHOOKS_CONCURRENCY_PER_ENDPOINT must not be greater than WEBHOOKS_CONCURRENCY (${concurrency}); got "${concurrencyPerEndpoint}".`,
    );
  }
  const keyText = env.WEBHOOKS_SECRETS_KEY || '';
  // Not echoed: the value is a secret.
  if (keyText !== '' && keyText.length < 32) {
    throw new ConfigError(
      'WEBHOOKS_SECRETS_KEY must be at least 32 characters (e.g. `openssl rand -base64 32`).',
    );
  }
  return {
    deliver,
    thread: bool(env, 'WEBHOOKS_THREAD', true),
    allowPrivate: bool(env, 'WEBHOOKS_ALLOW_PRIVATE', false),
    concurrency,
    concurrencyPerEndpoint,
    timeoutMs,
    retryBaseMs: int(env, 'WEBHOOKS_RETRY_BASE_MS', 5_000, 1, 3_600_000),
    leaseMs,
    pollMs: int(env, 'WEBHOOKS_POLL_MS', 1_000, 10, 60_000),
    disableAfterDays: int(env, 'WEBHOOKS_DISABLE_AFTER_DAYS', 5, 1, 365),
    historyDays: int(env, 'WEBHOOKS_HISTORY_DAYS', 30, 1, 3650),
    secretsKey: keyText === '' ? undefined : createHash('sha256').update(keyText).digest(),
  };
}

/** What openDatabase takes from the config. */
export function databaseOptions(config: Config) {
  return {
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.dbPoolSize,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
  };
}

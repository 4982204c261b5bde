// One error type for the whole service and one table that says what each code means on each
// transport. Services throw AppError; REST and GraphQL translate it at their edge.
import { plainReason } from './db/plain-reason.js';
import { type FieldErrors, ValidationError } from './validation/validator.js';

export const errorCodes = {
  MALFORMED_JSON: { status: 400, graphql: 'BAD_REQUEST', message: 'Malformed JSON body.' },
  /** What Symfony refuses to read (a `_method` that is a list): Laravel's `Bad request.` */
  BAD_REQUEST: { status: 400, graphql: 'BAD_REQUEST', message: 'Bad request.' },
  /** Text PostgreSQL cannot hold (U+0000) reached the database outside a validated field (an id). */
  NUL_CHARACTER: { status: 400, graphql: 'BAD_USER_INPUT', message: 'Text may not contain NUL characters.' },
  UNAUTHENTICATED: { status: 401, graphql: 'UNAUTHENTICATED', message: 'Unauthenticated.' },
  FORBIDDEN: { status: 403, graphql: 'FORBIDDEN', message: 'This action is unauthorized.' },
  NOT_FOUND: { status: 404, graphql: 'NOT_FOUND', message: 'Record not found.' },
  ROUTE_NOT_FOUND: { status: 404, graphql: 'NOT_FOUND', message: 'Not Found.' },
  /** A known REST path asked with a method it has no route for (its message names them, see rest/adapter.ts). */
  METHOD_NOT_ALLOWED: { status: 405, graphql: 'METHOD_NOT_ALLOWED', message: 'Method Not Allowed.' },
  GONE: { status: 410, graphql: 'GONE', message: 'This endpoint has been removed.' },
  PAYLOAD_TOO_LARGE: { status: 413, graphql: 'PAYLOAD_TOO_LARGE', message: 'Payload Too Large.' },
  /** A GraphQL request in a body type graphql-yoga reads no request from (`text/plain`). */
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    graphql: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Unsupported Media Type: send application/json, application/graphql or a form.',
  },
  /** A GraphQL answer in none of the types the request's Accept takes (Yoga's 406 had no body). */
  NOT_ACCEPTABLE: {
    status: 406,
    graphql: 'NOT_ACCEPTABLE',
    message:
      'Not Acceptable: a query or mutation answers application/json or application/graphql-response+json, a subscription text/event-stream or multipart/mixed.',
  },
  VALIDATION: { status: 422, graphql: 'BAD_USER_INPUT', message: 'The given data was invalid.' },
  RATE_LIMITED: { status: 429, graphql: 'RATE_LIMITED', message: 'Too Many Attempts.' },
  INTERNAL: { status: 500, graphql: 'INTERNAL_SERVER_ERROR', message: 'Server Error' },
  /** The database is unreachable, timed out, or busy with this caller's other work: try again soon. */
  SERVICE_UNAVAILABLE: { status: 503, graphql: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable' },
  /** `POST /access-codes` created nothing (spec 4.9): its own 500 body, see `restBody`. */
  ACCESS_CODES_NOT_CREATED: {
    status: 500,
    graphql: 'INTERNAL_SERVER_ERROR',
    message: 'Access codes could not be created.',
    restBody: (message: string) => ({ status: false, message, count: 0, access_codes: [] }),
  },
} as const;

export type ErrorCode = keyof typeof errorCodes;

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Field messages of a VALIDATION error. */
  readonly fields: FieldErrors | undefined;
  /** Extra response headers (Retry-After, …). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    opts: { message?: string; fields?: FieldErrors; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(
      opts.message ?? errorCodes[code].message,
      opts.cause === undefined ? undefined : { cause: opts.cause },
    );
    this.name = 'AppError';
    this.code = code;
    this.fields = opts.fields;
    this.headers = opts.headers ?? {};
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

export const notFound = (): AppError => new AppError('NOT_FOUND');
export const forbidden = (): AppError => new AppError('FORBIDDEN');

/** Seconds a client is told to wait (`Retry-After`) when the database cannot serve it now. */
export const RETRY_AFTER_SECONDS = 5;

export const serviceUnavailable = (cause?: unknown): AppError =>
  new AppError('SERVICE_UNAVAILABLE', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    ...(cause === undefined ? {} : { cause }),
  });

/** What logFailure writes to (a Fastify request's logger). */
export interface FailureLog {
  warn(msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Logs a failed request by what it answered (`app`: the AppError `err` stands for, if any). A 503
 * (the database or the media storage cannot serve it now, the server is stopping) is an expected
 * answer under overload, by the hundred: one warn line with its reason, no stack. Any other 5xx, and
 * a failure nothing stands for, at error level with the stack. A 4xx is the caller's: not logged.
 */
export function logFailure(log: FailureLog, err: unknown, app: AppError | null): void {
  if (app?.code === 'SERVICE_UNAVAILABLE') {
    const reason = app.cause === undefined ? '' : `: ${plainReason(app.cause)}`;
    log.warn(`request answered 503 Service Unavailable${reason}`);
  } else if (!app || app.status >= 500) {
    log.error({ err }, 'request failed');
  }
}

/**
 * What a background pass (delivery, sweeps, the token-use flush) logs of its failure: the plain
 * reason of an outage (the database down, unreachable or timed out: expected, no stack, as a
 * request's 503 is logged), the whole error of anything else.
 */
export function failureFields(err: unknown): { reason: string } | { err: unknown } {
  return databaseUnavailable(err) ? { reason: plainReason(err) } : { err };
}

/** The AppError an error stands for (a failed validation is a VALIDATION error), or null. */
export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof ValidationError) return new AppError('VALIDATION', { fields: err.errors });
  if (databaseCode(err) === '22021') return new AppError('NUL_CHARACTER', { cause: err });
  if (databaseUnavailable(err)) return serviceUnavailable(err);
  return null;
}

/**
 * The driver-adapter error under a Prisma error, or thrown as it is (a transaction's own statement,
 * such as its COMMIT: probe F, a 500): its `kind` and, for a PostgreSQL error, the SQLSTATE.
 */
function driverAdapterCause(err: unknown): { kind?: unknown; originalCode?: unknown } | undefined {
  if (err instanceof Error && err.name === 'DriverAdapterError')
    return (err as { cause?: { kind?: unknown; originalCode?: unknown } }).cause;
  const meta = (
    err as { meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } } } | null
  )?.meta;
  return meta?.driverAdapterError?.cause;
}

/**
 * The PostgreSQL error code (SQLSTATE) under a Prisma driver-adapter error, or of a driver's own
 * error from a raw read (src/db/database.ts `rows`: pg and PGlite errors carry `severity` and `code`).
 */
function databaseCode(err: unknown): string | undefined {
  const code = driverAdapterCause(err)?.originalCode;
  if (typeof code === 'string') return code;
  const raw = err as { severity?: unknown; code?: unknown } | null;
  return typeof raw?.severity === 'string' && typeof raw.code === 'string' ? raw.code : undefined;
}

/** @prisma/adapter-pg's kinds for a connection that could not be made or was lost. */
const UNREACHABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);
/**
 * SQLSTATEs of a server that cancelled the statement (57014: statement_timeout), is shutting down or
 * starting (57P01-57P03), has no connection slot left (53300), lost the connection (class 08), or
 * whose database is gone (57P04 database_dropped, 3D000 when a new connection names it): the
 * service's database is unavailable, not the request wrong.
 */
const UNAVAILABLE_SQLSTATE = /^(57014|57P0[1-4]|53300|08...|3D000)$/;
/** Prisma's own codes for the same: server unreachable or timed out, closed, no pooled connection in time. */
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
/**
 * What pg and pg-pool throw as plain Errors (@prisma/adapter-pg passes them through): no connection
 * within `connectionTimeoutMillis`, a connection lost mid-query, no answer within the read timeout (src/db/read-timeout-client.ts).
 */
const PG_MESSAGES = new Set([
  'timeout exceeded when trying to connect',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Connection terminated',
  'Query read timeout',
  // A transaction's next statement after its connection was lost (probe F: answered 500).
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
]);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/** Whether a failure means the database cannot serve the request now (down, unreachable, timed out). */
function databaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const kind = driverAdapterCause(err)?.kind;
  if (typeof kind === 'string' && UNREACHABLE_KINDS.has(kind)) return true;
  const sqlstate = databaseCode(err);
  if (sqlstate && UNAVAILABLE_SQLSTATE.test(sqlstate)) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (err.name.startsWith('PrismaClient') && UNAVAILABLE_PRISMA.has(code)) return true;
    // An interactive transaction that got no connection within its maxWait (a starved pool).
    if (code === 'P2028' && err.message.includes('Unable to start a transaction in the given time'))
      return true;
    if (typeof (err as { syscall?: unknown }).syscall === 'string' && SOCKET_CODES.has(code)) return true;
  }
  return PG_MESSAGES.has(err.message);
}

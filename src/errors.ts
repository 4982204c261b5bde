// One error type for the whole service and one table that says what each code means on each
// transport. Services throw AppError; REST and GraphQL translate it at their edge.
import { type FieldErrors, ValidationError } from './validation/validator.js';

export const errorCodes = {
  MALFORMED_JSON: { status: 400, graphql: 'BAD_REQUEST', message: 'Malformed JSON body.' },
  /** Text PostgreSQL cannot hold (U+0000) reached the database outside a validated field (an id). */
  NUL_CHARACTER: { status: 400, graphql: 'BAD_USER_INPUT', message: 'Text may not contain NUL characters.' },
  UNAUTHENTICATED: { status: 401, graphql: 'UNAUTHENTICATED', message: 'Unauthenticated.' },
  FORBIDDEN: { status: 403, graphql: 'FORBIDDEN', message: 'This action is unauthorized.' },
  NOT_FOUND: { status: 404, graphql: 'NOT_FOUND', message: 'Record not found.' },
  ROUTE_NOT_FOUND: { status: 404, graphql: 'NOT_FOUND', message: 'Not Found.' },
  GONE: { status: 410, graphql: 'GONE', message: 'This endpoint has been removed.' },
  PAYLOAD_TOO_LARGE: { status: 413, graphql: 'PAYLOAD_TOO_LARGE', message: 'Payload Too Large.' },
  VALIDATION: { status: 422, graphql: 'BAD_USER_INPUT', message: 'The given data was invalid.' },
  RATE_LIMITED: { status: 429, graphql: 'RATE_LIMITED', message: 'Too Many Attempts.' },
  INTERNAL: { status: 500, graphql: 'INTERNAL_SERVER_ERROR', message: 'Server Error' },
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

/** The AppError an error stands for (a failed validation is a VALIDATION error), or null. */
export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof ValidationError) return new AppError('VALIDATION', { fields: err.errors });
  if (databaseCode(err) === '22021') return new AppError('NUL_CHARACTER', { cause: err });
  return null;
}

/** The PostgreSQL error code under a Prisma driver-adapter error, if any. */
function databaseCode(err: unknown): string | undefined {
  const meta = (err as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)
    ?.meta;
  const code = meta?.driverAdapterError?.cause?.originalCode;
  return typeof code === 'string' ? code : undefined;
}

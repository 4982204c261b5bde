// AppError → response body, per transport. REST answers Laravel's bodies (decisions "Errors");
// GraphQL answers a GraphQL error with extensions.code from the same code table.
import { type AppError, errorCodes } from '../errors.js';
import { toGraphqlFieldName } from '../graphql/args.js';
import { summarize } from '../validation/validator.js';

export function restErrorBody(err: AppError): Record<string, unknown> {
  // A code may carry a body of its own (spec 4.9's access-code 500).
  const def = errorCodes[err.code];
  if ('restBody' in def) return def.restBody(err.message);
  if (err.code === 'NOT_FOUND') return { error: err.message };
  if (err.code === 'VALIDATION' && err.fields) return { message: summarize(err.fields), errors: err.fields };
  return { message: err.message };
}

/**
 * An AppError as one GraphQL error, whichever path raised it: Yoga's masking (src/graphql/yoga.ts)
 * or the app's error handler for errors raised before Yoga runs (401, 413, 429 on /graphql).
 */
export function graphqlErrorParts(err: AppError): { message: string; extensions: Record<string, unknown> } {
  const extensions: Record<string, unknown> = { code: errorCodes[err.code].graphql };
  if (err.fields) {
    extensions.fields = Object.fromEntries(
      Object.entries(err.fields).map(([k, v]) => [toGraphqlFieldName(k), v]),
    );
  }
  // A validation failure reads as REST's 422 `message` (Laravel's summary), not the generic text.
  const message = err.code === 'VALIDATION' && err.fields ? summarize(err.fields) : err.message;
  return { message, extensions };
}

/** The body of a GraphQL answer refused before Yoga ran. */
export function graphqlErrorBody(err: AppError): Record<string, unknown> {
  return { errors: [graphqlErrorParts(err)] };
}

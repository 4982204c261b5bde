// AppError → response body, per transport. REST answers Laravel's bodies (decisions "Errors");
// GraphQL answers a GraphQL error with extensions.code from the same code table.
import { type AppError, errorCodes } from '../errors.js';
import { summarize } from '../validation/validator.js';

export function restErrorBody(err: AppError): Record<string, unknown> {
  // A code may carry a body of its own (spec 4.9's access-code 500).
  const def = errorCodes[err.code];
  if ('restBody' in def) return def.restBody(err.message);
  if (err.code === 'NOT_FOUND') return { error: err.message };
  if (err.code === 'VALIDATION' && err.fields) return { message: summarize(err.fields), errors: err.fields };
  return { message: err.message };
}

export function graphqlErrorBody(err: AppError): Record<string, unknown> {
  const extensions: Record<string, unknown> = { code: errorCodes[err.code].graphql };
  if (err.fields) extensions.fields = err.fields;
  const message = err.code === 'VALIDATION' && err.fields ? summarize(err.fields) : err.message;
  return { errors: [{ message, extensions }] };
}

// Laravel's method override (Symfony's Request::getMethod with the parameter override Laravel's
// kernel turns on): a POST carrying `X-HTTP-Method-Override`, or else a `_method` field (in the
// body, JSON included, else in the query string), is routed as that method. PHP reads no multipart
// body of a PUT, so Laravel clients send an update with a file as `POST` + `_method=PUT`.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/**
 * The method a POST asks to be routed as: `POST` when it asks none (or names it with no text).
 * Throws what Laravel answers a name Symfony refuses (SuspiciousOperationException: 404 `Bad
 * hostname provided.`) and a `_method` that is a list or an object (its InputBag refuses to read it:
 * 400 `Bad request.`), both counted as unrouted. `withBody: false` reads the header and the query
 * string only, before the body is (a caller without a token never has its body read).
 */
export function overriddenMethod(request: FastifyRequest, withBody = true): string {
  const header = request.headers['x-http-method-override'];
  // PHP's `!$method`: an empty header, or "0", asks nothing.
  let asked: unknown = typeof header === 'string' && header !== '' && header !== '0' ? header : undefined;
  if (asked === undefined) {
    const body = withBody ? request.body : undefined;
    const query = request.query as Record<string, unknown> | undefined;
    // The body's field wins when present, whatever its value (null or a number asks nothing).
    if (body !== null && typeof body === 'object' && Object.hasOwn(body, '_method')) {
      asked = (body as Record<string, unknown>)._method;
    } else if (query && Object.hasOwn(query, '_method')) asked = query._method;
  }
  if (asked !== null && typeof asked === 'object') {
    request.unrouted = true;
    throw new AppError('BAD_REQUEST');
  }
  if (typeof asked !== 'string') return 'POST';
  // PHP's strtoupper: ASCII letters only (`ß` stays, and the name is then refused).
  const method = asked.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
  // Symfony takes its known methods and any other name of letters only: letters, either way.
  if (/^[A-Z]+$/.test(method)) return method;
  request.unrouted = true;
  throw new AppError('ROUTE_NOT_FOUND', { message: 'Bad hostname provided.' });
}

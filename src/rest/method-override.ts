// Laravel's method override (Symfony's Request::getMethod with the parameter override Laravel's
// kernel turns on): a POST carrying `X-HTTP-Method-Override`, or else a `_method` field (in the
// body, JSON included, else in the query string), is routed as that method. PHP reads no multipart
// body of a PUT, so Laravel clients send an update with a file as `POST` + `_method=PUT`.
import type { FastifyRequest } from 'fastify';

/** The methods Symfony takes as they are; any other must be letters only. */
const KNOWN = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'PATCH',
  'PURGE',
  'TRACE',
]);

/**
 * The method a POST asks to be routed as: `POST` when it asks none (or names it with no text),
 * `null` for a name Symfony refuses (SuspiciousOperationException, which Laravel answers 404
 * `Bad hostname provided.`). `withBody: false` reads the header and the query string only, before
 * the body is (a caller without a token never has its body read).
 */
export function overriddenMethod(request: FastifyRequest, withBody = true): string | null {
  const header = request.headers['x-http-method-override'];
  let asked: unknown = typeof header === 'string' && header !== '' ? header : undefined;
  if (asked === undefined) {
    const body = withBody ? request.body : undefined;
    const query = request.query as Record<string, unknown> | undefined;
    // The body's field wins when present, whatever its value (a non-text one asks nothing).
    if (body !== null && typeof body === 'object' && Object.hasOwn(body, '_method')) {
      asked = (body as Record<string, unknown>)._method;
    } else if (query && Object.hasOwn(query, '_method')) asked = query._method;
  }
  if (typeof asked !== 'string') return 'POST';
  // PHP's strtoupper: ASCII letters only (`ß` stays, and the name is then refused).
  const method = asked.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
  if (KNOWN.has(method)) return method;
  return /^[A-Z]+$/.test(method) ? method : null;
}

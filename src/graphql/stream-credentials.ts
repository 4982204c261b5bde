// A subscription is authorised when it opens (the request gate); an open stream would otherwise keep
// sending its tenant's events to a token revoked or expired since, a user deactivated, moved to
// another tenant or location or given other rights, or a trashed tenant. So before a payload is
// sent, the token is authenticated again (at most once per RECHECK_MS: a stream of many payloads
// costs one read a second): a failure ends the stream with an UNAUTHENTICATED error, and rights that
// changed end it asking the client to subscribe again (where the new rights are judged). No payload
// after that point is sent.
import type { FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { authenticate, bearerToken, type Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { AppError, serviceUnavailable, toAppError } from '../errors.js';
import { graphqlErrorParts } from '../http/error-bodies.js';

/** A stream's credentials are read again before a payload when they were last read this long ago. */
export const RECHECK_MS = 1000;

export const RIGHTS_CHANGED = "The caller's rights changed since the subscription opened: subscribe again.";

/** What a principal may see: any change of it ends the stream. */
const rightsOf = (p: Principal): string =>
  JSON.stringify([p.tokenId, p.userId, p.tenantId, p.groupId, p.role, p.locationId, p.permissions, p.scopes]);

/** Why the stream may not go on (null: it may). */
async function refusal(ctx: AppContext, token: string | null): Promise<AppError | null> {
  try {
    const now = await authenticate(ctx.prisma, token);
    return rightsOf(now) === rightsOf(ctx.principal)
      ? null
      : new AppError('UNAUTHENTICATED', { message: RIGHTS_CHANGED });
  } catch (err) {
    // A database that cannot answer ends the stream too: nothing is sent unchecked.
    return toAppError(err) ?? serviceUnavailable(err);
  }
}

/**
 * `source` with a check before each value: a refusal is sent as the last value (an error result),
 * then the stream ends and `source` is closed. `return()` reaches `source` at once, also while a
 * value is awaited (a client that leaves closes the subscription).
 */
function guarded<T>(
  source: AsyncIterable<T>,
  check: () => Promise<AppError | null>,
  refused: (err: AppError) => T,
): AsyncIterableIterator<T> {
  const it = source[Symbol.asyncIterator]();
  let ended = false;
  const end = async (): Promise<IteratorResult<T>> => {
    ended = true;
    await it.return?.();
    return { done: true, value: undefined };
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (ended) return { done: true, value: undefined };
      const step = await it.next();
      if (step.done || ended) return step;
      const err = await check();
      if (err === null) return step;
      await end();
      return { done: false, value: refused(err) };
    },
    return: end,
    async throw(error: unknown) {
      ended = true;
      if (it.throw) return it.throw(error);
      throw error;
    },
  };
}

/** Ends a subscription's stream once its credentials no longer hold (see the top of this file). */
export function streamCredentials(): Plugin<Record<string, unknown>, { req: FastifyRequest }> {
  return {
    onExecutionResult({ result, setResult, context: built }) {
      if (!isAsyncIterable(result)) return;
      // The context of the execution: the server's (`req`) with ours (yoga.ts `context`) built on it.
      const context = built as typeof built & AppContext;
      const token = bearerToken(context.req.headers.authorization);
      let checkedAt = Date.now();
      const check = async (): Promise<AppError | null> => {
        if (Date.now() - checkedAt < RECHECK_MS) return null;
        const err = await refusal(context, token);
        if (err === null) checkedAt = Date.now();
        return err;
      };
      setResult(
        guarded(result, check, (err) => {
          const { message, extensions } = graphqlErrorParts(err);
          return { errors: [new GraphQLError(message, { extensions })] };
        }),
      );
    },
  };
}

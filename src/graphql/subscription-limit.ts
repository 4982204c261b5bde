// Open subscriptions per API token, on this instance. Each stream holds a connection, a log reader and
// its buffered events; without a cap one token could hold thousands (a probe held 1 000) and starve
// the instance's other tenants. The cap is per instance: a fleet behind a load balancer lets a token
// hold at most this many on each instance.

import type { FastifyReply } from 'fastify';
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { graphqlErrorParts } from '../http/error-bodies.js';

/** Open subscriptions a token may hold on one instance. */
export const MAX_SUBSCRIPTIONS_PER_TOKEN = 50;

export const TOO_MANY_SUBSCRIPTIONS = `Too many open subscriptions for this token (at most ${MAX_SUBSCRIPTIONS_PER_TOKEN}): close one first.`;

/**
 * `source`, calling `done` once when it ends: by its own end, an error, or `return()` (a client that
 * leaves closes the subscription).
 */
function counted<T>(source: AsyncIterable<T>, done: () => void): AsyncIterableIterator<T> {
  const it = source[Symbol.asyncIterator]();
  let open = true;
  const close = () => {
    if (open) {
      open = false;
      done();
    }
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      try {
        const step = await it.next();
        if (step.done) close();
        return step;
      } catch (err) {
        close();
        throw err;
      }
    },
    async return() {
      close();
      return (await it.return?.()) ?? { done: true, value: undefined };
    },
    async throw(error: unknown) {
      close();
      if (it.throw) return it.throw(error);
      throw error;
    },
  };
}

/** Refuses a subscription past MAX_SUBSCRIPTIONS_PER_TOKEN open ones of its token (429 RATE_LIMITED). */
export function subscriptionLimit(max = MAX_SUBSCRIPTIONS_PER_TOKEN): Plugin {
  const open = new Map<string, number>();
  return {
    onExecutionResult({ result, setResult, context }) {
      if (!isAsyncIterable(result)) return;
      const { tokenId } = (context as unknown as AppContext).principal;
      const held = open.get(tokenId) ?? 0;
      if (held >= max) {
        void result[Symbol.asyncIterator]().return?.();
        const { message, extensions } = graphqlErrorParts(
          new AppError('RATE_LIMITED', { message: TOO_MANY_SUBSCRIPTIONS }),
        );
        setResult({
          errors: [new GraphQLError(message, { extensions: { ...extensions, http: { status: 429 } } })],
        });
        return;
      }
      open.set(tokenId, held + 1);
      const stream = counted(result, () => {
        const left = (open.get(tokenId) ?? 1) - 1;
        if (left === 0) open.delete(tokenId);
        else open.set(tokenId, left);
      });
      // A client that leaves before its stream's first read: Yoga's cancel then fails before it
      // reaches return() (its SSE reader starts on that read), which left the place taken and the
      // log reader running. The response's close ends the stream here too, or at once if it came
      // while the operation ran (a second return() is a no-op).
      const response = (context as { reply?: FastifyReply }).reply?.raw;
      const end = () => void stream.return?.().catch(() => {});
      if (response?.closed || response?.destroyed) end();
      else response?.once('close', end);
      setResult(stream);
    },
  };
}

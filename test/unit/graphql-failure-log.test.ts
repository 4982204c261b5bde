// What a GraphQL operation's failures log (src/graphql/yoga.ts, failuresLogged): through its
// request's logger, one warn line per answer for the database's 503 however many fields failed so
// (probe X: one line per field), a fault's stack each time, nothing for the caller's own errors.
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AppError, serviceUnavailable } from '../../src/errors.js';
import { failuresLogged } from '../../src/graphql/yoga.js';

type Line = [level: string, ...args: unknown[]];

function logger(lines: Line[]) {
  return {
    warn: (msg: string) => lines.push(['warn', msg]),
    error: (obj: object, msg: string) => lines.push(['error', msg, obj]),
  };
}

/** A field's error as graphql-js reports it: the resolver's error under a located GraphQLError. */
const fieldError = (field: string, err: Error) =>
  new GraphQLError(err.message, { path: [field], originalError: err });

/** Runs the plugin over one execution whose result holds `errors`, for a request logging to `lines`. */
function execute(lines: Line[], errors: GraphQLError[]): void {
  const plugin = failuresLogged(logger([]));
  const args = { contextValue: { req: { log: logger(lines) } } };
  // biome-ignore lint/suspicious/noExplicitAny: the hook payloads are envelop's; only `args` and `result` are read.
  const hooks = plugin.onExecute?.({ args } as any) as any;
  hooks.onExecuteDone({ args, result: { data: null, errors }, setResult: () => {} });
}

describe('GraphQL failures in the log', () => {
  it('one warn line for an answer whose fields failed with 503, in the request’s log', () => {
    const lines: Line[] = [];
    const timedOut = new Error('canceling statement due to statement timeout');
    execute(lines, [
      fieldError('a', serviceUnavailable(timedOut)),
      fieldError('b', serviceUnavailable(timedOut)),
    ]);
    expect(lines).toEqual([
      ['warn', 'request answered 503 Service Unavailable: canceling statement due to statement timeout'],
    ]);
    // Another answer has its own line.
    execute(lines, [fieldError('a', serviceUnavailable(timedOut))]);
    expect(lines).toHaveLength(2);
  });

  it('each fault with its stack; the caller’s errors not at all', () => {
    const lines: Line[] = [];
    const fault = new TypeError('x is undefined');
    execute(lines, [
      fieldError('a', fault),
      fieldError('b', new AppError('NOT_FOUND')),
      fieldError('c', new AppError('VALIDATION', { message: 'The name field is required.' })),
      fieldError('d', new TypeError('y is undefined')),
    ]);
    expect(lines.map(([level, msg]) => [level, msg])).toEqual([
      ['error', 'GraphQL resolver failed'],
      ['error', 'GraphQL resolver failed'],
    ]);
    expect(lines[0]?.[2]).toEqual({ err: fault });
  });
});

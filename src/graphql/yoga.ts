// GraphQL over HTTP with Yoga: GraphiQL served from the package (no CDN), limits on depth,
// aliases, tokens and cost, and AppError translated into `extensions.code` at this edge.
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import {
  type FieldNode,
  GraphQLError,
  type GraphQLErrorOptions,
  getOperationAST,
  Kind,
  type ValidationContext,
} from 'graphql';
import { createYoga, handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';
import { type AppContext, requestContext } from '../context.js';
import type { Prisma } from '../db/database.js';
import { AppError, errorCodes, type FailureLog, logFailure, toAppError } from '../errors.js';
import { graphqlErrorParts } from '../http/error-bodies.js';
import type { AppPubSub } from '../redis/pubsub.js';
import { checkedRootConnections } from './args.js';
import { compiledQueries } from './compiled-execution.js';
import type { FieldGuard } from './field-rate-limit.js';
import { nestedConnectionArgs } from './nested-connection-args.js';
import { nestingLimit, requestErrorHttp } from './nesting-limit.js';
import { queryCostLimit } from './query-cost.js';
import { schema } from './schema.js';
import { sseEventIds, streamPositionOf } from './sse-event-ids.js';
import { streamCredentials } from './stream-credentials.js';
import { subscriptionLimit } from './subscription-limit.js';

/** `nesting`: levels of brackets in the query text, and of arrays/objects in a variable's value. */
export const GRAPHQL_LIMITS = { depth: 10, aliases: 15, tokens: 3000, cost: 50_000, nesting: 32 } as const;

/** The schema served: root connections check paging and permission first (see checkedRootConnections). */
const servedSchema = checkedRootConnections(schema);

/**
 * graphql-armor's depth and alias limits are validation rules that throw by default, which leaves
 * their error without the code of a validation error (it read `BAD_REQUEST`, the code of a body
 * that is no GraphQL request). Reported as a validation error instead, it answers as every other
 * one does: `GRAPHQL_VALIDATION_FAILED`; the limits checked while parsing (tokens, nesting) answer
 * `GRAPHQL_PARSE_FAILED` as every syntax error does. Their messages lose the `Syntax Error: ` the
 * plugins put first: the document parsed; it is refused as a validation error.
 */
const asValidationError = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) =>
      context?.reportError(
        new GraphQLError(error.message.replace(/^Syntax Error: /, ''), {
          ...located(error),
          extensions: error.extensions,
        }),
      ),
  ],
};

/** Where in the operation an error happened (`locations`, `path`), kept on the translated error. */
function located(error: unknown): Pick<GraphQLErrorOptions, 'nodes' | 'source' | 'positions' | 'path'> {
  if (!isGraphqlError(error)) return {};
  return { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path };
}

function graphqlError(err: AppError, at: ReturnType<typeof located>): GraphQLError {
  const { message, extensions } = graphqlErrorParts(err);
  // The database cannot serve now: the HTTP answer says so too (503, Retry-After), as REST's does.
  // Yoga reads `http` for the response and leaves it out of the body.
  if (err.code === 'SERVICE_UNAVAILABLE') extensions.http = { status: err.status, headers: err.headers };
  return new GraphQLError(message, { ...at, extensions });
}

const isGraphqlError = (e: unknown): e is GraphQLError => e instanceof GraphQLError;

/** The error a resolver threw, under any GraphQLError wrappers. */
function unwrap(error: unknown): unknown {
  let e = error;
  while (isGraphqlError(e) && e.originalError) e = e.originalError;
  return e;
}

const NEGATIVE_PAGE = /^Argument "(first|last)" must be a non-negative integer$/;
const PAGING_CLASH = /^Arguments "(\w+)" and "(\w+)" are not supported at the same time$/;
/** Of two paging arguments given together, the one Laravel's `prohibits` names first. */
const PROHIBITS: Record<string, [field: string, other: string]> = {
  'before,first': ['first', 'before'],
  'after,last': ['last', 'after'],
  'before,after': ['before', 'after'],
};

/** AppError, or a client error Pothos reports (bad cursor, negative `first`) as a 400-class error. */
function clientError(err: unknown): AppError | null {
  const app = toAppError(err);
  if (app) return app;
  if (err instanceof Error && err.name === 'PothosValidationError') {
    // A negative `first`/`last`, refused by the connection before the resolver: REST's wording and
    // fields, as every other bad argument gets.
    const paging = NEGATIVE_PAGE.exec(err.message);
    if (paging) {
      const message = `The ${paging[1]} field must be at least 0.`;
      return new AppError('VALIDATION', { message, fields: { [paging[1] as string]: [message] } });
    }
    // `first` with `before`, `last` with `after`: as `first` with `last` is refused (args.ts).
    const clash = PAGING_CLASH.exec(err.message);
    const pair = clash && PROHIBITS[`${clash[1]},${clash[2]}`];
    if (pair) {
      const message = `The ${pair[0]} field prohibits ${pair[1]} from being present.`;
      return new AppError('VALIDATION', { message, fields: { [pair[0]]: [message] } });
    }
    return new AppError('VALIDATION', { message: err.message });
  }
  return null;
}

/**
 * An error graphql-js raised itself (parse, validation, variable coercion, a scalar refusing a value),
 * perhaps wrapping another of its own: the caller's error, shown as is.
 */
function graphqlOwn(error: unknown): error is GraphQLError {
  return isGraphqlError(error) && (!error.originalError || graphqlOwn(error.originalError));
}

/**
 * graphql-js names a variable's invalid value by printing it whole: `Variable "$input" got invalid
 * value { password: "…", bogus: 1 }; Field "bogus" is not defined…`, which would send a password or
 * an avatar's bytes back (to logs and proxies too). The message keeps where and why, not the value.
 */
function withoutEchoedValue(error: GraphQLError): string {
  const why = error.originalError?.message;
  const head = /^Variable "\$[^"]+" got invalid value/.exec(error.message)?.[0];
  if (why === undefined || head === undefined || !error.message.endsWith(`; ${why}`)) return error.message;
  const printed = error.message.slice(0, -(why.length + 2));
  // The path graphql-js appends (` at "input.tags[0]"`); a printed string's quotes are escaped.
  const at = / at "[^"\\]*"$/.exec(printed)?.[0] ?? '';
  return `${head}${at}; ${why}`;
}

/**
 * Yoga's own refusal of a body it could not read carries the JSON parser's message in
 * `extensions.originalError`: it gets the message REST answers for malformed JSON, and no more.
 */
function withoutParserDetail(error: GraphQLError): GraphQLError {
  const { originalError: _parser, ...extensions } = error.extensions;
  const message =
    error.message === 'POST body sent invalid JSON.' ? errorCodes.MALFORMED_JSON.message : error.message;
  // 400 whatever the Accept, as a body the server's own parser refuses (`{`).
  return new GraphQLError(message, {
    ...located(error),
    extensions: { ...extensions, http: { status: 400 } },
  });
}

/**
 * A request error raised before any field ran (bad variables, unknown operation) has no path and no
 * code: it gets a code, and 400 under `application/graphql-response+json` as the GraphQL over HTTP
 * spec asks when there is no `data` (Yoga does so for validation errors only). A body that is no
 * GraphQL request (Yoga's `BAD_REQUEST`: `{}` without a query among them) answers 400 whatever the
 * Accept, as a batch or malformed JSON does (`{}` answered 200 under `application/json`; probe O).
 */
function withRequestCode(error: GraphQLError): GraphQLError {
  if (error.extensions.originalError !== undefined) return withoutParserDetail(error);
  const http = error.extensions.http as { spec?: boolean; status?: number } | undefined;
  // A mutation sent with GET: Yoga's 405 (with `Allow: POST`) had the code of a malformed body.
  if (http?.status === 405) {
    return new GraphQLError(error.message, {
      ...located(error),
      extensions: { ...error.extensions, code: 'METHOD_NOT_ALLOWED' },
    });
  }
  if (error.extensions.code === 'BAD_REQUEST' && http?.spec) {
    return new GraphQLError(error.message, {
      ...located(error),
      extensions: { ...error.extensions, http: { ...http, spec: false } },
    });
  }
  if (error.path) return error;
  const variable = error.nodes?.some((n) => n.kind === Kind.VARIABLE_DEFINITION);
  if (error.extensions.code) {
    // A subscription's variables are coerced by @graphql-tools/executor, which codes its error
    // itself: the value printed whole is left out all the same (probe R).
    if (!variable) return error;
    return new GraphQLError(withoutEchoedValue(error), {
      ...located(error),
      originalError: error.originalError,
      extensions: error.extensions,
    });
  }
  return new GraphQLError(variable ? withoutEchoedValue(error) : error.message, {
    ...located(error),
    originalError: error.originalError,
    extensions: {
      ...error.extensions,
      code: variable ? 'BAD_USER_INPUT' : 'BAD_REQUEST',
      http: requestErrorHttp,
    },
  });
}

/**
 * A relation connection's bad paging argument, refused before the operation ran: worded as the
 * connection's own refusal is, at the field (no path: nothing ran), 400 under the GraphQL over HTTP
 * media type as every request error.
 */
function refusedArgument(err: unknown, node: FieldNode): GraphQLError {
  // connectionArgumentsError returns AppErrors and the plugin's own validation errors, which
  // clientError words all; anything else would be a fault, masked as one.
  const app = clientError(err) ?? new AppError('INTERNAL', { message: 'Unexpected error.' });
  const { message, extensions } = graphqlErrorParts(app);
  return new GraphQLError(message, { nodes: [node], extensions: { ...extensions, http: requestErrorHttp } });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A GraphQL mutation ran for it: a write, whose answer lost with its client is logged (app.ts). */
    ranMutation: boolean;
  }
}

/** Marks the request of each mutation executed (a batch's too): a query sent by POST writes nothing. */
const mutationsMarked: Plugin = {
  onExecute({ args }) {
    if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
    const req = (args.contextValue as { req?: FastifyRequest }).req;
    if (req) req.ranMutation = true;
  },
};

/**
 * A request whose `operationName` is no string is the caller's malformed request, as Yoga words one
 * whose `query` is none (it was looked up as a name and answered OPERATION_RESOLUTION_FAILURE; probe R).
 */
const operationNameChecked: Plugin = {
  onParams({ params }) {
    const name: unknown = params.operationName;
    if (name === undefined || name === null || typeof name === 'string') return;
    const given = Array.isArray(name) ? 'array' : typeof name;
    throw new GraphQLError(`Expected "operationName" param to be a string, but given ${given}.`, {
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
  },
};

/**
 * Parse, validation and variable-coercion errors (graphql-armor limits included), raised before any
 * field ran: no path; shown as they are. A field's failure is masked, a scalar refusing a resolver's
 * value too, whether graphql-js wraps the scalar's error or graphql-jit reports it bare (probe R: the
 * compiled path showed `Int cannot represent …` unmasked, without a code).
 */
const requestError = (error: unknown): error is GraphQLError =>
  isGraphqlError(error) && !error.path && (!error.originalError || graphqlOwn(error));

/**
 * The errors of answers already logged, each once, though both failuresLogged and maskError see it:
 * the answer's own error objects, not what they wrap (an error shared by several requests, as a
 * single-flight read's, is logged for each).
 */
const loggedFailures = new WeakSet<object>();

/**
 * Logs what an error answers: a 503's warn line (one per answer, `answer`, however many of its fields
 * failed so), any other 5xx or a masked fault with its stack.
 */
function logFailureOnce(log: FailureLog, error: unknown, answer?: { warned: boolean }): void {
  if (typeof error === 'object' && error !== null) {
    if (loggedFailures.has(error)) return;
    loggedFailures.add(error);
  }
  const original = unwrap(error);
  const app = clientError(original);
  if (app) {
    if (app.code === 'SERVICE_UNAVAILABLE' && answer) {
      if (answer.warned) return;
      answer.warned = true;
    }
    if (app.status >= 500) logFailure(log, original, app);
  } else if (!requestError(error)) {
    log.error({ err: original }, 'GraphQL resolver failed');
  }
}

/**
 * The failures of an operation's result (each payload of a stream), logged to its request's log,
 * as REST's are: the line carries the request's id (probe F2: a GraphQL 503 had none). Before the
 * masking, which sees no request.
 */
export function failuresLogged(fallback: FailureLog): Plugin {
  const logResult = (log: FailureLog) => {
    const answer = { warned: false };
    return ({ result }: { result: { errors?: readonly unknown[] } }): void => {
      for (const error of result.errors ?? []) logFailureOnce(log, error, answer);
    };
  };
  const logOf = (context: unknown): FailureLog => (context as { req?: FastifyRequest }).req?.log ?? fallback;
  return {
    onExecute({ args }) {
      const log = logResult(logOf(args.contextValue));
      return { onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, log) };
    },
    onSubscribe({ args }) {
      const log = logResult(logOf(args.contextValue));
      return { onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, log) };
    },
  };
}

export function createGraphqlHandler(deps: {
  prisma: Prisma;
  config: Config;
  log: FastifyBaseLogger;
  fieldGuard: FieldGuard;
  pubsub?: AppPubSub;
  /** Counts operations and errors (src/metrics/graphql.ts). */
  metrics?: Plugin;
}) {
  return createYoga<{ req: FastifyRequest; reply: FastifyReply }, AppContext>({
    schema: servedSchema,
    graphqlEndpoint: '/graphql',
    logging: false,
    batching: false,
    landingPage: false,
    // Served by the route before Yoga (src/graphql/graphiql-page.ts): rendered and compressed once.
    graphiql: false,
    context: ({ req, request }) => ({ ...requestContext(deps, req), stream: streamPositionOf(request) }),
    maskedErrors: {
      maskError(error) {
        // Logged here only when failuresLogged did not (an error outside execution): without the
        // request's id.
        logFailureOnce(deps.log, error);
        const app = clientError(unwrap(error));
        if (app) return graphqlError(app, located(error));
        if (requestError(error)) return withRequestCode(error);
        return graphqlError(new AppError('INTERNAL', { message: 'Unexpected error.' }), located(error));
      },
    },
    plugins: [
      // First, so it also sees the answers of the limits below that stop an operation.
      ...(deps.metrics ? [deps.metrics] : []),
      failuresLogged(deps.log),
      mutationsMarked,
      operationNameChecked,
      maxDepthPlugin({
        n: GRAPHQL_LIMITS.depth,
        exposeLimits: true,
        flattenFragments: true,
        ...asValidationError,
      }),
      // Every alias counts, `__typename`'s too (the plugin's default leaves it out).
      maxAliasesPlugin({
        n: GRAPHQL_LIMITS.aliases,
        allowList: [],
        exposeLimits: true,
        ...asValidationError,
      }),
      maxTokensPlugin({ n: GRAPHQL_LIMITS.tokens, exposeLimits: true }),
      // After max-tokens: it wraps that parser, so nesting is checked before the parser recurses.
      nestingLimit({ maxNesting: GRAPHQL_LIMITS.nesting, maxTokens: GRAPHQL_LIMITS.tokens }),
      queryCostLimit(GRAPHQL_LIMITS.cost),
      // Before the compiled path, which answers relation connections too.
      nestedConnectionArgs(refusedArgument),
      ...(deps.config.graphqlCompiledQueries ? [compiledQueries(servedSchema)] : []),
      subscriptionLimit(),
      // Late: it sets the serializer of each streamed result, which nothing after it may replace,
      sseEventIds(),
      // but for a refusal: the error that ends a stream replaces a payload never sent, and its id with it.
      streamCredentials(),
    ],
  });
}

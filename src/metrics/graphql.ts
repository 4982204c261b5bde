// GraphQL series, from a Yoga (envelop) plugin: operations by name and type, and the requests that
// answered errors, by the phase that raised them. Operation names are the client's to choose: the
// first MAX_OPERATION_NAMES distinct ones are labels of their own, later ones count as `other`.
import { type DocumentNode, getOperationAST } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';

export const MAX_OPERATION_NAMES = 100;

type Phase = 'parse' | 'validate' | 'execute';

interface Labels {
  operation_name: string;
  operation_type: string;
}

/** Before the document is parsed, nothing is known of the operation. */
const UNKNOWN: Labels = { operation_name: 'unknown', operation_type: 'unknown' };

/** A result's `errors`, none when it has no list of them. */
const errorsOf = (result: unknown): readonly unknown[] =>
  typeof result === 'object' && result !== null && 'errors' in result && Array.isArray(result.errors)
    ? result.errors
    : [];

const hasErrors = (result: unknown): boolean => errorsOf(result).length > 0;

const unresolvedOperation = (result: unknown): boolean =>
  errorsOf(result).some(
    (e) =>
      (e as { extensions?: { code?: unknown } } | null)?.extensions?.code === 'OPERATION_RESOLUTION_FAILURE',
  );

/** The longest operation name that is a label of its own (a longer one is `other`). */
export const MAX_NAME_LENGTH = 64;

export function graphqlMetrics(registry: Registry): Plugin {
  const operations = new Counter({
    name: 'graphql_operations_total',
    help: `GraphQL operations run (parsed and valid), by operation name (anonymous: "anonymous"; past ${MAX_OPERATION_NAMES} distinct names, or longer than ${MAX_NAME_LENGTH} characters: "other") and type.`,
    labelNames: ['operation_name', 'operation_type'],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'graphql_errors_total',
    help: 'GraphQL requests answered with errors, by operation name, type and the phase that raised them (parse, validate, execute; a subscription counts once).',
    labelNames: ['operation_name', 'operation_type', 'phase'],
    registers: [registry],
  });

  const names = new Set<string>();
  const nameLabel = (name: string | undefined): string => {
    if (name === undefined) return 'anonymous';
    // A name is any caller's text: a long one would be a label of every scrape until the restart.
    if (name.length > MAX_NAME_LENGTH) return 'other';
    if (names.has(name)) return name;
    if (names.size >= MAX_OPERATION_NAMES) return 'other';
    names.add(name);
    return name;
  };
  const labelsOf = (document: DocumentNode, operationName: string | null | undefined): Labels => {
    // No such operation (or several anonymous ones): graphql-js answers the error itself.
    const operation = getOperationAST(document, operationName);
    if (!operation) return UNKNOWN;
    return { operation_name: nameLabel(operation.name?.value), operation_type: operation.operation };
  };
  const failed = (labels: Labels, phase: Phase) => errors.inc({ ...labels, phase });

  /** Counts a failed result once, whether it came whole or as a stream of results. */
  const watchResult = (labels: Labels, result: unknown) => {
    if (!isAsyncIterable(result)) {
      if (hasErrors(result)) failed(labels, 'execute');
      return undefined;
    }
    let counted = false;
    return {
      onNext({ result: next }: { result: unknown }) {
        if (counted || !hasErrors(next)) return;
        counted = true;
        failed(labels, 'execute');
      },
    };
  };

  return {
    onParse() {
      return ({ result }) => {
        if (result instanceof Error) failed(UNKNOWN, 'parse');
      };
    },
    onValidate({ params, context }) {
      return ({ valid }) => {
        if (valid) return;
        const requested = (context as { params?: { operationName?: string } }).params?.operationName;
        failed(labelsOf(params.documentAST, requested), 'validate');
      };
    },
    onExecute({ args }) {
      const labels = labelsOf(args.document, args.operationName);
      operations.inc({ ...labels });
      return { onExecuteDone: ({ result }) => watchResult(labels, result) };
    },
    onResultProcess({ result }) {
      // A document without the operation asked for (none of that name, or several unnamed ones):
      // Yoga answers 400 from its own parse hook, before validation and execution.
      if (!Array.isArray(result) && unresolvedOperation(result)) {
        operations.inc({ ...UNKNOWN });
        failed(UNKNOWN, 'validate');
      }
    },
    onSubscribe({ args }) {
      const labels = labelsOf(args.document, args.operationName);
      operations.inc({ ...labels });
      return { onSubscribeResult: ({ result }) => watchResult(labels, result) };
    },
  };
}

// The cost limit, evaluated when the operation runs so that `first`/`last` passed as variables
// count as much as literals (a validation-time rule sees no variable values and can be bypassed).
import {
  GraphQLError,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isListType,
} from 'graphql';
import { type ComplexityEstimator, getComplexity } from 'graphql-query-complexity';
import type { Plugin } from 'graphql-yoga';
import type { ConnectionPage } from './args.js';

/** Default page of a connection without `first`/`last`. */
const DEFAULT_PAGE = 10;
/** Plain lists (buildings, floors, zones, tags) are bounded by the data, not by the caller. */
const PLAIN_LIST_FACTOR = 2;

/**
 * A list field's own count of items (its `extensions`): a plain list the data bounds, but not by
 * little (`activeSessions`: a venue's present devices), or one its arguments bound (`sessionsByIp`).
 */
export interface CostExtensions {
  costItems?: number | ((args: Record<string, unknown>) => number);
}

/** What `activeSessions` counts for: the devices a busy venue has present at once. */
export const PRESENT_DEVICES_COST = 1000;

/**
 * A field costs 1 plus its children times the number of items it may return (its `costItems` when
 * it declares them): `first`/`last` for a connection, at most its maximum (its `edges` then count
 * once), PLAIN_LIST_FACTOR for a plain list, 1 otherwise. So the cost grows with what the caller
 * asks for, whether written inline or passed as variables.
 */
export const itemsEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const returns = getNamedType(field.type).name;
  let items = 1;
  const declared = (field.extensions as CostExtensions | undefined)?.costItems;
  if (declared !== undefined) {
    items = typeof declared === 'function' ? declared(args) : declared;
  } else if (returns.endsWith('Connection')) {
    const size =
      typeof args.first === 'number' ? args.first : typeof args.last === 'number' ? args.last : null;
    // Above the field's maximum counts as the maximum: the argument's own check then answers
    // (`The first field must not be greater than 100.`), not the cost of a page never served.
    const max = (field.extensions as { page?: ConnectionPage } | undefined)?.page?.maxSize;
    items = size === null ? DEFAULT_PAGE : max === undefined ? size : Math.min(size, max);
  } else if (isListType(getNullableType(field.type)) && !type.name.endsWith('Connection')) {
    items = PLAIN_LIST_FACTOR;
  }
  return 1 + items * childComplexity;
};

/** Fields and fragment spreads the cost's walk reads, each fragment expanded where spread (graphql-query-complexity's default). */
export const MAX_QUERY_NODES = 10_000;

/** Costs already worked out, by document and by operation name and variables (small ones only). */
const MAX_KEY = 1024;
const MAX_PER_DOCUMENT = 100;

export function queryCostLimit(maxCost: number): Plugin {
  // Yoga's parser cache hands back the same document for the same text; a cost depends on nothing
  // else than the document, the operation and the variables' values.
  const known = new WeakMap<object, Map<string, number>>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      // No such operation, or variables that do not coerce: execution refuses them itself, every
      // error at once and before any field runs (getComplexity would throw only the last one).
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      const inputs = (args.variableValues ?? {}) as Record<string, unknown>;
      if (getVariableValues(args.schema, operation.variableDefinitions ?? [], inputs).errors) return;
      const key = `${args.operationName ?? ''}\u0000${JSON.stringify(inputs)}`;
      let byInputs = known.get(args.document);
      let cost = byInputs?.get(key);
      if (cost === undefined) {
        try {
          cost = getComplexity({
            schema: args.schema,
            query: args.document,
            variables: inputs,
            operationName: args.operationName ?? undefined,
            estimators: [itemsEstimator],
            maxQueryNodes: MAX_QUERY_NODES,
          });
        } catch (err) {
          // Its walk's own bound (fields and fragments spread, counted as expanded): a cost too, as
          // this limit's (it answered BAD_REQUEST, a code no other limit has; probe V).
          if (!(err instanceof Error) || !/maximum allowed number of nodes/.test(err.message)) throw err;
          setResultAndStopExecution({
            errors: [
              new GraphQLError(
                `Query exceeds the limit of ${MAX_QUERY_NODES} fields and fragment spreads (each fragment counted where spread): ask for fewer fields or spread fewer fragments.`,
                { extensions: { code: 'QUERY_TOO_COSTLY', limit: MAX_QUERY_NODES } },
              ),
            ],
          });
          return;
        }
        if (key.length <= MAX_KEY) {
          if (!byInputs) {
            byInputs = new Map();
            known.set(args.document, byInputs);
          }
          if (byInputs.size >= MAX_PER_DOCUMENT) byInputs.clear();
          byInputs.set(key, cost);
        }
      }
      if (cost > maxCost) {
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              `Query cost ${cost} exceeds the limit of ${maxCost}: ask for fewer items (first/last) or fewer nested lists.`,
              { extensions: { code: 'QUERY_TOO_COSTLY', cost, limit: maxCost } },
            ),
          ],
        });
      }
    },
  };
}

// The paging arguments of relation connections (`guests { devices(first: 101) }`), checked before
// the operation runs. plugin-prisma plans a relation connection inside its parent's query, so a bad
// argument threw in the parent's resolver: the error named the root field, and that field's data
// went with it. Checked here first, each bad argument is reported at its own field (`locations`),
// as a request error: nothing runs, as for an argument of the wrong type. Root connections keep
// their check in their own resolver (checkedRootConnections in args.ts): their error is theirs.
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type ConnectionPage, connectionArgumentsError } from './args.js';

/** A relation connection asked for by the operation, where the document asks for it. */
interface NestedConnection {
  node: FieldNode;
  field: GraphQLField<unknown, unknown>;
  page: ConnectionPage;
}

/**
 * The relation connections an operation asks for, fragments spread, each field of the document
 * once. `@skip`/`@include` are not read: like an argument of the wrong type, a bad page is refused
 * wherever it is written.
 */
function nestedConnections(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): NestedConnection[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const found: NestedConnection[] = [];
  const seen = new Set<FieldNode>();
  // Each fragment is walked once per level (root or not): its fields are the same wherever it is
  // spread, and a document spreading fragments in fragments twice over would otherwise be walked
  // 2^depth times.
  const walked = new Set<string>();
  const walk = (type: GraphQLNamedType | undefined, set: SelectionSetNode, root: boolean): void => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (!isObjectType(type) && !isInterfaceType(type)) continue;
        const field = type.getFields()[sel.name.value];
        if (!field) continue;
        const page = (field.extensions as { page?: ConnectionPage } | undefined)?.page;
        if (page && !root && !seen.has(sel)) {
          seen.add(sel);
          found.push({ node: sel, field, page });
        }
        if (sel.selectionSet) walk(getNamedType(field.type), sel.selectionSet, false);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : type, sel.selectionSet, root);
      } else {
        const fragment = fragments.get(sel.name.value);
        const key = `${sel.name.value}|${root}`;
        if (!fragment || walked.has(key)) continue;
        walked.add(key);
        walk(schema.getType(fragment.typeCondition.name.value), fragment.selectionSet, root);
      }
    }
  };
  walk(schema.getRootType(operation.operation) ?? undefined, operation.selectionSet, true);
  return found;
}

/** `refuse` makes the error of a bad argument (as connectionArgumentsError returns it) at its field. */
export function nestedConnectionArgs(refuse: (err: unknown, node: FieldNode) => GraphQLError): Plugin {
  // Yoga's parser cache hands back the same document for the same text.
  const planned = new WeakMap<DocumentNode, Map<string, NestedConnection[]>>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      let byOperation = planned.get(args.document);
      if (!byOperation) {
        byOperation = new Map();
        planned.set(args.document, byOperation);
      }
      const name = args.operationName ?? '';
      let connections = byOperation.get(name);
      if (!connections) {
        connections = nestedConnections(args.schema, args.document, operation);
        byOperation.set(name, connections);
      }
      if (connections.length === 0) return;
      // Variables that do not coerce: execution refuses them itself, before any field runs.
      const variables = getVariableValues(
        args.schema,
        operation.variableDefinitions ?? [],
        (args.variableValues ?? {}) as Record<string, unknown>,
      );
      if (variables.errors) return;
      const errors: GraphQLError[] = [];
      for (const c of connections) {
        const err = connectionArgumentsError(
          getArgumentValues(c.field, c.node, variables.coerced),
          c.page.maxSize,
        );
        if (err) errors.push(refuse(err, c.node));
      }
      if (errors.length > 0) setResultAndStopExecution({ errors });
    },
  };
}

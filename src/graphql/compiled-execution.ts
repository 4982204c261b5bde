// Query operations run compiled (graphql-jit) over a copy of the schema whose nested fields read the
// rows the root field planned, instead of graphql-js walking plugin-prisma's per-field wrappers.
//
// Why: plugin-prisma plans a root field's whole selection into one query (query-from-info), so the
// rows arrive with every relation and column the document asks for. What remained per field was the
// wrapper that looks up a loader mapping for every leaf of every row, and graphql-js's own walk; for
// the dashboard (100 guests × 10 devices × 5 sessions, ~10 000 fields) that was most of the CPU.
// Fields that only read a column or property have no resolver in the copy, so graphql-jit inlines
// the read. A resolver returning rows checks that they carry what the document reads that way; a
// row some other path returned without it sends the operation to graphql-js, whose plugin-prisma
// wrapper loads it as before: the copy changes the cost, never the answer.
// Mutations and subscriptions keep graphql-js: they run once per request and carry side effects.
import { collectSubFields, MapperKind, mapSchema, type VariableValues } from '@graphql-tools/utils';
import { encodeBase64, encodeCursorChunk, getConnectionPageSize } from '@pothos/core';
import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type Source,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { ConnectionPage } from './args.js';

type Resolver = GraphQLFieldResolver<Record<string, unknown>, unknown>;

interface PothosFieldExtensions {
  pothosOriginalResolve?: Resolver;
  pothosExposedField?: string;
  pothosPrismaSelect?: unknown;
  pothosPrismaLoaded?: (parent: unknown, info: unknown, ctx: unknown) => boolean;
  pothosPrismaRelationField?: { name: string; isList: boolean };
  /** Set by connectionPage() (src/graphql/args.ts). */
  page?: ConnectionPage;
}

type Row = Record<string, unknown>;

/** An edge whose cursor is written only if the document asks for it. */
class LoadedEdge {
  constructor(
    readonly connection: LoadedConnection,
    readonly node: Row,
  ) {}
  get cursor(): string {
    return this.connection.cursorOf(this.node);
  }
}

/** A forward page's PageInfo; its cursors are written only if asked for. */
class LoadedPageInfo {
  readonly hasPreviousPage = false;
  constructor(
    private readonly edges: LoadedEdge[],
    readonly hasNextPage: boolean,
  ) {}
  get startCursor(): string | null {
    return this.edges[0]?.cursor ?? null;
  }
  get endCursor(): string | null {
    return this.edges[this.edges.length - 1]?.cursor ?? null;
  }
}

/** plugin-prisma's connection of a relation (wrapConnectionResult), for a forward page already loaded. */
class LoadedConnection {
  readonly edges: LoadedEdge[];
  readonly pageInfo: LoadedPageInfo;
  constructor(
    readonly parent: Row,
    readonly args: Row,
    readonly totalCount: number | undefined,
    rows: Row[],
    size: number,
    hasNextPage: boolean,
    readonly cursorOf: (row: Row) => string,
  ) {
    // The first `size` rows (the extra row that tells a next page exists is left out).
    const edges = new Array<LoadedEdge>(size);
    for (let i = 0; i < size; i++) edges[i] = new LoadedEdge(this, rows[i] as Row);
    this.edges = edges;
    this.pageInfo = new LoadedPageInfo(this.edges, hasNextPage);
  }
}

/**
 * A relation connection (plugin-prisma's relatedConnection) answered from the rows its parent
 * loaded, as the plugin answers it but without its per-row planning work. Backward pages, cursors
 * given, and rows that were not loaded take the plugin's own resolver.
 */
function loadedConnection(
  ext: PothosFieldExtensions,
  original: Resolver,
  wrapped: Resolver,
): Resolver | undefined {
  const relation = ext.pothosPrismaRelationField;
  const loaded = ext.pothosPrismaLoaded;
  const page = ext.page;
  if (!relation?.isList || !loaded || !page) return undefined;
  const { name } = relation;
  const { cursor, maxSize, defaultSize } = page;
  // plugin-prisma's cursor of a single-column cursor field: base64 of `GPC:` and the tagged value.
  const cursorOf = (row: Row) => encodeBase64(`GPC:${encodeCursorChunk(row[cursor])}`);
  // Whether the document asks for totalCount here: the plugin's check on a row with the page and
  // no count, asked once per field of a request (the selection is the same for every row).
  const countAsked = new WeakMap<object, Map<unknown, boolean>>();
  const asksCount = (ctx: object, info: GraphQLResolveInfo): boolean => {
    let byField = countAsked.get(ctx);
    if (!byField) {
      byField = new Map();
      countAsked.set(ctx, byField);
    }
    let asked = byField.get(info.fieldNodes);
    if (asked === undefined) {
      asked = !loaded({ [name]: [] }, info, ctx);
      byField.set(info.fieldNodes, asked);
    }
    return asked;
  };
  return (parent, args, ctx, info) => {
    const rows = parent[name] as Row[] | undefined;
    const count = (parent._count as Record<string, number> | undefined)?.[name];
    const forward = args.after == null && args.before == null && args.last == null;
    if (rows === undefined || !forward || (count === undefined && asksCount(ctx as object, info))) {
      return loaded(parent, info, ctx) ? original(parent, args, ctx, info) : wrapped(parent, args, ctx, info);
    }
    const { limit } = getConnectionPageSize({ args, defaultSize, maxSize });
    const full = rows.length === limit;
    return new LoadedConnection(
      parent,
      args,
      count,
      rows,
      full ? rows.length - 1 : rows.length,
      full,
      cursorOf,
    );
  };
}

/**
 * The fields of an operation that ask for a relation which another field of the same selection asks
 * for under another response name (`newest: sessions(first: 1)` beside `sessions(first: 100)`): the
 * parent's row holds one of them under the relation's name, and plugin-prisma's wrapper alone knows
 * which, loading the others apart. Keyed by the fields' positions in the document.
 */
const sharedRelations = new WeakMap<OperationDefinitionNode, Set<number>>();

function asksSharedRelation(info: GraphQLResolveInfo): boolean {
  let shared = sharedRelations.get(info.operation);
  if (!shared) {
    shared = sharedRelationFields(info.operation, info.fragments);
    sharedRelations.set(info.operation, shared);
  }
  const start = info.fieldNodes[0]?.loc?.start;
  // Without positions (a document built in code) every relation takes the wrapper.
  return start === undefined || shared.has(start);
}

function sharedRelationFields(
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
): Set<number> {
  const shared = new Set<number>();
  const visited = new Set<SelectionSetNode>();
  const visit = (set: SelectionSetNode): void => {
    if (visited.has(set)) return;
    visited.add(set);
    // The fields of the selection with its fragments spread (whatever their type condition).
    const fields: FieldNode[] = [];
    const spread = (s: SelectionSetNode, inside: ReadonlySet<string>): void => {
      for (const sel of s.selections) {
        if (sel.kind === Kind.FIELD) {
          fields.push(sel);
          if (sel.selectionSet) visit(sel.selectionSet);
        } else if (sel.kind === Kind.INLINE_FRAGMENT) spread(sel.selectionSet, inside);
        else {
          const fragment = fragments[sel.name.value];
          if (fragment && !inside.has(sel.name.value))
            spread(fragment.selectionSet, new Set([...inside, sel.name.value]));
        }
      }
    };
    spread(set, new Set());
    const byName = new Map<string, FieldNode[]>();
    for (const f of fields) byName.set(f.name.value, [...(byName.get(f.name.value) ?? []), f]);
    for (const same of byName.values()) {
      if (new Set(same.map((f) => (f.alias ?? f.name).value)).size < 2) continue;
      for (const f of same) if (f.loc) shared.add(f.loc.start);
    }
  };
  visit(operation.selectionSet);
  return shared;
}

/** The resolver of a nested field that answers from the planned row, or the wrapper when it is not there. */
function fromRow(wrapped: Resolver, ext: PothosFieldExtensions): Resolver | undefined {
  const original = ext.pothosOriginalResolve;
  if (!original) return undefined;
  if (ext.pothosExposedField !== undefined) {
    const column = ext.pothosExposedField;
    return (parent, args, ctx, info) => {
      const value = parent[column];
      return value === undefined ? wrapped(parent, args, ctx, info) : value;
    };
  }
  const fast = relationFromRow(ext, original, wrapped);
  if (!fast) return undefined;
  // A relation asked twice under different names: the wrapper, which knows which one the row holds.
  if (ext.pothosPrismaRelationField || typeof ext.pothosPrismaSelect === 'function') {
    return (parent, args, ctx, info) =>
      asksSharedRelation(info) ? wrapped(parent, args, ctx, info) : fast(parent, args, ctx, info);
  }
  return fast;
}

/** fromRow's reading of a relation or a computed field from the planned row. */
function relationFromRow(
  ext: PothosFieldExtensions,
  original: Resolver,
  wrapped: Resolver,
): Resolver | undefined {
  const connection = loadedConnection(ext, original, wrapped);
  if (connection) return connection;
  const loaded = ext.pothosPrismaLoaded;
  if (loaded) {
    return (parent, args, ctx, info) =>
      loaded(parent, info, ctx) ? original(parent, args, ctx, info) : wrapped(parent, args, ctx, info);
  }
  const select = ext.pothosPrismaSelect;
  if (select && typeof select === 'object') {
    // A computed field that declared its columns: its own resolver once they are on the row.
    const columns = Object.keys(select);
    return (parent, args, ctx, info) =>
      columns.every((c) => parent[c] !== undefined)
        ? original(parent, args, ctx, info)
        : wrapped(parent, args, ctx, info);
  }
  if (typeof select === 'function') {
    // A computed field whose selection is a function (a relation under a rule, loaded with what the
    // document asks of it: `nested`): likewise, once the keys it selects are on the row. The
    // wrapper would look up a loader mapping that is not there below another such field (a
    // session's device's guest), and load each row again.
    const selectOf = select as SelectFunction;
    return (parent, args, ctx, info) => {
      // Only the top-level keys are read, so each nested selection may be plain `true`.
      const selected = selectOf(args, ctx, () => true)?.select;
      return selected && Object.keys(selected).every((k) => parent[k] !== undefined)
        ? original(parent, args, ctx, info)
        : wrapped(parent, args, ctx, info);
    };
  }
  return undefined;
}

/** plugin-prisma's field selection: `{ select }` (or null) from the field's arguments and context. */
type SelectFunction = (args: unknown, ctx: unknown, nested: () => unknown) => { select?: object } | null;

/**
 * A field graphql-jit may read as a plain property (`parent[name]`, inlined, no resolver call): an
 * exposed column of the same name, or a resolver that only reads the property of its own name
 * (the relay plugin's `edges`, `pageInfo`, `node`). Reading a property costs nothing; a resolver
 * call costs an info object and an arguments object, for each of ~10 000 fields of a dashboard.
 */
function readsOwnProperty(name: string, field: GraphQLFieldConfig<unknown, unknown>): boolean {
  const ext = (field.extensions ?? {}) as PothosFieldExtensions;
  // Its only wrapper is plugin-prisma's (builder.ts has no other field plugin; rules live in resolvers).
  if (ext.pothosExposedField !== undefined) return ext.pothosExposedField === name;
  const resolve = field.resolve;
  // Only an unwrapped resolver of the parent alone can be probed without effects.
  if (!resolve || resolve !== ext.pothosOriginalResolve || resolve.length > 1) return false;
  if (Object.keys(field.args ?? {}).length > 0) return false;
  try {
    const probe = {};
    return resolve({ [name]: probe }, {}, {}, {} as GraphQLResolveInfo) === probe;
  } catch {
    return false;
  }
}

/** A row lacks a column the document asks for: the operation runs on graphql-js instead. */
class IncompleteRow extends Error {}

/**
 * What a value returned by a resolver must carry before graphql-jit reads it by property: the
 * columns asked of it (read without plugin-prisma's wrapper, which would load a missing one) and,
 * through fields read by property, of the objects inside it.
 */
interface RowCheck {
  columns: string[];
  nested: [string, RowCheck][];
}

function checkOf(
  schema: GraphQLSchema,
  info: GraphQLResolveInfo,
  type: GraphQLObjectType,
  nodes: FieldNode[],
  wrappedColumns: Map<GraphQLObjectType, Set<string>>,
  propertyFields: Map<GraphQLObjectType, Set<string>>,
): RowCheck | null {
  // @graphql-tools/utils 12 takes graphql 17's VariableValues and, on graphql 16, reads @skip and
  // @include from its `coerced` (a plain object there would be read as no variables at all).
  const variables = { sources: {}, coerced: info.variableValues } as unknown as VariableValues;
  const { fields } = collectSubFields(schema, info.fragments, variables, type, nodes);
  const check: RowCheck = { columns: [], nested: [] };
  for (const subNodes of fields.values()) {
    const name = (subNodes[0] as FieldNode).name.value;
    if (wrappedColumns.get(type)?.has(name)) check.columns.push(name);
    else if (propertyFields.get(type)?.has(name)) {
      const sub = getNamedType(type.getFields()[name]?.type);
      if (!isObjectType(sub)) continue;
      const inner = checkOf(schema, info, sub, subNodes, wrappedColumns, propertyFields);
      if (inner) check.nested.push([name, inner]);
    }
  }
  return check.columns.length || check.nested.length ? check : null;
}

function assertComplete(value: unknown, check: RowCheck): void {
  if (value === null || value === undefined || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) assertComplete(item, check);
    return;
  }
  const row = value as Row;
  for (const c of check.columns) if (row[c] === undefined) throw new IncompleteRow(c);
  for (const [name, inner] of check.nested) assertComplete(row[name], inner);
}

/**
 * The schema the compiled queries run on: the same types; nested prisma fields read the row, and
 * fields that only read a property have no resolver. A resolver returning objects checks that they
 * carry every column the document reads from them without a resolver.
 */
export function rowReadingSchema(schema: GraphQLSchema): GraphQLSchema {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map((t) => t?.name),
  );
  // Per type: fields read by property, and among them the columns plugin-prisma's wrapper guarded.
  const propertyFields = new Map<GraphQLObjectType, Set<string>>();
  const wrappedColumns = new Map<GraphQLObjectType, Set<string>>();
  const typeNames = new Map<string, GraphQLObjectType>();
  const add = (m: Map<GraphQLObjectType, Set<string>>, t: GraphQLObjectType, f: string) => {
    const set = m.get(t) ?? new Set<string>();
    set.add(f);
    m.set(t, set);
  };
  // Checks are built per document (its fields and fragments) and variables (@skip, @include).
  const checks = new WeakMap<readonly FieldNode[], { variables: unknown; check: RowCheck | null }>();
  const checked =
    (resolve: Resolver): Resolver =>
    (parent, args, ctx, info) => {
      let entry = checks.get(info.fieldNodes);
      if (!entry || entry.variables !== info.variableValues) {
        const type = getNamedType(info.returnType);
        const own = isObjectType(type) ? typeNames.get(type.name) : undefined;
        entry = {
          variables: info.variableValues,
          check: own
            ? checkOf(fastSchema, info, own, [...info.fieldNodes], wrappedColumns, propertyFields)
            : null,
        };
        checks.set(info.fieldNodes, entry);
      }
      const check = entry.check;
      const result = resolve(parent, args, ctx, info);
      if (!check) return result;
      if (result instanceof Promise)
        return result.then((v) => {
          assertComplete(v, check);
          return v;
        });
      assertComplete(result, check);
      return result;
    };
  const fastSchema: GraphQLSchema = mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, name, typeName) => {
      if (!field.resolve) return field;
      const rootField = roots.has(typeName);
      if (!rootField && readsOwnProperty(name, field)) {
        const { resolve, ...plain } = field;
        const ext = field.extensions as PothosFieldExtensions;
        (plain.extensions as Record<string, unknown>) = {
          ...field.extensions,
          rowReading: { property: true, wrapped: resolve !== ext.pothosOriginalResolve },
        };
        return plain;
      }
      const own = rootField
        ? undefined
        : fromRow(field.resolve as Resolver, field.extensions as PothosFieldExtensions);
      const resolve = own ?? (field.resolve as Resolver);
      const type = getNamedType(field.type);
      return isObjectType(type)
        ? { ...field, resolve: checked(resolve) }
        : own
          ? { ...field, resolve }
          : field;
    },
  });
  for (const type of Object.values(fastSchema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    typeNames.set(type.name, type);
    for (const field of Object.values(type.getFields())) {
      const mark = (field.extensions as { rowReading?: { property: boolean; wrapped: boolean } }).rowReading;
      if (!mark) continue;
      add(propertyFields, type, field.name);
      if (mark.wrapped) add(wrappedColumns, type, field.name);
    }
  }
  return fastSchema;
}

const MAX_COMPILED = 500;

/** The offset of a 1-based line and column in `body`. */
function offsetOf(body: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) offset = body.indexOf('\n', offset) + 1;
  return offset + column - 1;
}

/**
 * graphql-jit's errors are its own class with `locations` but no source; graphql-js's, with the
 * same positions, keep every error of the compiled path reading as graphql-js writes it.
 */
function asGraphqlJsErrors(result: ExecutionResult, source: Source | undefined): ExecutionResult {
  if (!result.errors) return result;
  const errors = result.errors.map((e) => {
    const original = (e as { originalError?: Error }).originalError;
    return new GraphQLError(e.message, {
      ...(source && e.locations
        ? { source, positions: e.locations.map((l) => offsetOf(source.body, l.line, l.column)) }
        : {}),
      ...(e.path ? { path: e.path } : {}),
      ...(original ? { originalError: original } : {}),
      ...(e.extensions ? { extensions: e.extensions } : {}),
    });
  });
  // graphql-js writes `errors` before `data`.
  const { data, extensions } = result;
  return { errors, ...(data !== undefined ? { data } : {}), ...(extensions ? { extensions } : {}) };
}

/**
 * Runs query operations compiled. A document whose variables graphql-js would refuse, or that the
 * compiler cannot take, runs on graphql-js, so every error reads as it always has.
 */
export function compiledQueries(schema: GraphQLSchema): Plugin {
  const fast = rowReadingSchema(schema);
  // Yoga's parser cache hands back the same DocumentNode for the same text.
  const compiled = new Map<DocumentNode, Map<string, CompiledQuery | null>>();
  let size = 0;

  function compiledFor(document: DocumentNode, operationName: string | undefined): CompiledQuery | null {
    let byName = compiled.get(document);
    if (!byName) {
      if (size >= MAX_COMPILED) {
        compiled.clear();
        size = 0;
      }
      byName = new Map();
      compiled.set(document, byName);
    }
    const key = operationName ?? '';
    let c = byName.get(key);
    if (c === undefined) {
      // Not customJSONSerializer: it refuses custom scalars (DateTime).
      const result = compileQuery(fast, document, operationName, { disablingCapturingStackErrors: true });
      c = isCompiledQuery(result) ? result : null;
      byName.set(key, c);
      size++;
    }
    return c;
  }

  /** A document that met a row without a column it reads: graphql-js answers it from now on. */
  const forget = (document: DocumentNode, operationName: string | undefined): void => {
    compiled.get(document)?.set(operationName ?? '', null);
  };

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation: OperationDefinitionNode | null | undefined = getOperationAST(
        args.document,
        args.operationName ?? undefined,
      );
      if (operation?.operation !== 'query') return;
      const variables = (args.variableValues ?? {}) as Record<string, unknown>;
      if (operation.variableDefinitions?.length) {
        const coerced = getVariableValues(fast, operation.variableDefinitions, variables);
        if (coerced.errors) return;
      }
      const c = compiledFor(args.document, args.operationName ?? undefined);
      if (!c) return;
      const source = args.document.loc?.source;
      setExecuteFn(async (executeArgs) => {
        const result = (await c.query(args.rootValue, args.contextValue, variables)) as ExecutionResult;
        // A row some other path returned lacks a column: plugin-prisma's wrappers (graphql-js) load it.
        if (
          result.errors?.some(
            (e) => (e as { originalError?: unknown }).originalError instanceof IncompleteRow,
          )
        ) {
          forget(args.document, args.operationName ?? undefined);
          return executeFn(executeArgs);
        }
        return asGraphqlJsErrors(result, source);
      });
    },
  };
}

// GraphQL arguments and input types read from an operation's fields (src/operations/operation.ts):
// the camelCase name of each REST field, its type from the field's type rule, its description. The
// resolver turns the arguments back into REST names and the operation validates them, so both
// transports give the same messages.
import { requires } from '../auth/permissions.js';
import type { AppContext } from '../context.js';
import type { Fields, Filters, FilterValues, ListOperation, ListQuery } from '../operations/operation.js';
import type { ValueType } from '../validation/validator.js';
import { type ArgsCheck, connectionPage, toGraphqlFieldName } from './args.js';
import { builder } from './builder.js';

/** The GraphQL type of a field, from its type rule: free-form values (dates, JSON text, files) are strings. */
function graphqlKind(type: ValueType | undefined): 'string' | 'int' | 'float' | 'boolean' | 'stringList' {
  switch (type) {
    case 'integer':
      return 'int';
    case 'numeric':
      return 'float';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'stringList';
    default:
      return 'string';
  }
}

interface Spec {
  name: string;
  kind: ReturnType<typeof graphqlKind>;
  options: { description?: string };
}

function specsOf(fields: Fields): Spec[] {
  return Object.entries(fields).map(([name, f]) => ({
    name: toGraphqlFieldName(name),
    kind: graphqlKind(f.rules.find((rule) => rule.type !== undefined)?.type),
    options: f.description === undefined ? {} : { description: f.description },
  }));
}

const namePairs = new WeakMap<Fields, [graphql: string, rest: string][]>();

/**
 * The arguments `argsOf(fields)` declared, under their REST names (what the operation validates);
 * other arguments of the field (a connection's paging) are left out, and so are absent ones.
 */
export function restInputOf(
  fields: Fields,
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  let pairs = namePairs.get(fields);
  if (!pairs) {
    pairs = Object.keys(fields).map((rest) => [toGraphqlFieldName(rest), rest]);
    namePairs.set(fields, pairs);
  }
  const out: Record<string, unknown> = {};
  for (const [graphql, rest] of pairs) if (args[graphql] !== undefined) out[rest] = args[graphql];
  return out;
}

/** What a field's resolvers read once, by its arguments object (the one graphql-js hands them), then by key. */
const perField = new WeakMap<object, Map<object, Promise<unknown>>>();

/**
 * `read()` once per field and `key`: the arguments' check (checkedRootConnections), the rows and
 * the count share its answer. Each key is read by one caller alone, so its answer is of its type.
 */
export function oncePerField<T>(args: object, key: object, read: () => Promise<T>): Promise<T> {
  let byKey = perField.get(args);
  if (!byKey) {
    byKey = new Map();
    perField.set(args, byKey);
  }
  let answer = byKey.get(key);
  if (!answer) {
    answer = read();
    byKey.set(key, answer);
  }
  return answer as Promise<T>;
}

/** The list operation's query (authorized, its filters validated) for a root field's arguments, once per field. */
export function listQueryOf<F extends Filters<W>, W, O>(
  op: ListOperation<F, W, O>,
  ctx: AppContext,
  args: object,
): Promise<ListQuery<FilterValues<F>, W, O>> {
  // A field's arguments are a plain object of its argument names (typed per field by Pothos).
  return oncePerField(args, op, () =>
    op.query(ctx, restInputOf(op.filters, args as Readonly<Record<string, unknown>>)),
  );
}

/**
 * A root connection over a list operation (options of plugin-prisma's prismaConnection): its paging
 * (connectionPage), the action it authorizes, and its filters, checked before the rows or the count
 * are read (checkedRootConnections), as REST checks them before reading; `defaultSize` as connectionPage's.
 */
export function listConnection<F extends Filters<W>, W, O>(
  op: ListOperation<F, W, O>,
  maxSize: number,
  more: { defaultSize?: number; checkArgs?: ArgsCheck } = {},
) {
  const checkArgs: ArgsCheck = more.checkArgs ?? ((ctx, args) => listQueryOf(op, ctx, args));
  return connectionPage(maxSize, {
    ...requires(op.action, { checkArgs }),
    ...(more.defaultSize === undefined ? {} : { defaultSize: more.defaultSize }),
  });
}

/** The fields as an input type (all optional, as arguments). */
export function inputTypeOf(name: string, description: string, fields: Fields) {
  return builder.inputType(name, {
    description,
    fields: (t) => {
      const field = ({ kind, options }: Spec) =>
        kind === 'int'
          ? t.int(options)
          : kind === 'float'
            ? t.float(options)
            : kind === 'boolean'
              ? t.boolean(options)
              : kind === 'stringList'
                ? t.stringList(options)
                : t.string(options);
      return Object.fromEntries(specsOf(fields).map((s) => [s.name, field(s)]));
    },
  });
}

/**
 * The fields as arguments of a root field (all optional: required-ness is a rule, with its message).
 * The fields named in `ids` (REST names) are `ID` arguments: filters by id that the schema types `ID`;
 * the operation validates them as the strings GraphQL makes of any ID.
 */
export function argsOf<F extends Fields>(fields: F, ids: readonly (keyof F & string)[] = []) {
  const idArgs = ids.map(toGraphqlFieldName);
  return builder.args((t) => {
    const arg = ({ name, kind, options }: Spec) =>
      idArgs.includes(name)
        ? t.id(options)
        : kind === 'int'
          ? t.int(options)
          : kind === 'float'
            ? t.float(options)
            : kind === 'boolean'
              ? t.boolean(options)
              : kind === 'stringList'
                ? t.stringList(options)
                : t.string(options);
    return Object.fromEntries(specsOf(fields).map((s) => [s.name, arg(s)]));
  });
}

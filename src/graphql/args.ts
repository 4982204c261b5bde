// GraphQL arguments are camelCase; the shared rules speak the REST field names. Converting here
// keeps one set of rules and identical messages on both transports. Connections' paging arguments
// are checked here too, for root and relation connections alike.
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { PothosValidationError, validateConnectionArguments } from '@pothos/core';
import { parsePrismaCursor } from '@pothos/plugin-prisma';
import { type GraphQLFieldResolver, type GraphQLSchema, getNamedType } from 'graphql';
import { type Action, authorize } from '../auth/permissions.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { ValidationError } from '../validation/validator.js';

// `customField1` → `custom_field_1`, as the spec spells digit-suffixed fields.
const snake = (s: string): string =>
  s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/([a-z])(\d)/g, '$1_$2');
const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** `{ countryCode: 'US' }` → `{ country_code: 'US' }`; undefined members are dropped. */
export function toRestInput(input: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) out[snake(k)] = v;
  return out;
}

export function toGraphqlFieldName(restField: string): string {
  return camel(restField);
}

/**
 * The one check of a connection's `first`/`last` beyond their sign (plugin-relay refuses a negative
 * one itself): plugin-relay's `maxSize` silently clamps them to the maximum, refused instead with
 * the message REST gives for `per_page` over its maximum; and both at once, where the plugins would
 * silently ignore `first`, refused as Laravel's `prohibits` rule words it.
 */
export function assertPageSize(args: { first?: number | null; last?: number | null }, max: number): void {
  const fields = pageSizeErrors(args, max);
  if (fields) throw new AppError('VALIDATION', { fields });
}

/** assertPageSize's messages, or null. */
export function pageSizeErrors(
  args: { first?: number | null; last?: number | null },
  max: number,
): Record<string, string[]> | null {
  const fields: Record<string, string[]> = {};
  for (const key of ['first', 'last'] as const) {
    const value = args[key];
    if (value != null && value > max) fields[key] = [`The ${key} field must not be greater than ${max}.`];
  }
  if (args.first != null && args.last != null) {
    fields.first = [...(fields.first ?? []), 'The first field prohibits last from being present.'];
  }
  return Object.keys(fields).length > 0 ? fields : null;
}

/**
 * The value a cursor names, as plugin-prisma reads it, or null when it reads none: its own error
 * repeated the whole cursor (`Invalid cursor: …`, however long), beside this one's `Invalid cursor.`
 * for the others (probe V).
 */
function idOfCursor(cursor: string): unknown {
  try {
    return parsePrismaCursor(cursor);
  } catch {
    return null;
  }
}

/**
 * What a connection refuses in its paging arguments, or null: the page size (pageSizeErrors), then
 * what plugin-prisma throws before reading (prismaCursorConnectionQuery: a negative size, paging in
 * both directions, a cursor it cannot read), in its order and with its conditions, and a cursor
 * that names no id: every connection pages by its rows' string ids, and another value the plugin
 * decodes (a crafted `GPC:D:…` date, a number) reached the database as a value of the wrong type,
 * a server error; so did an id with NUL. Thrown errors are returned as thrown: the GraphQL edge words them as it words
 * the plugin's own. Checked before the operation runs for relation connections
 * (src/graphql/nested-connection-args.ts), in the resolver for root ones (checkedRootConnections).
 */
export function connectionArgumentsError(args: Readonly<Record<string, unknown>>, max: number): unknown {
  const { first, last, before, after } = args as {
    first?: number | null;
    last?: number | null;
    before?: string | null;
    after?: string | null;
  };
  const fields = pageSizeErrors({ first, last }, max);
  if (fields) return new AppError('VALIDATION', { fields });
  try {
    validateConnectionArguments({ first, last });
    if (before && after)
      throw new PothosValidationError('Arguments "before" and "after" are not supported at the same time');
    if (before != null && first != null)
      throw new PothosValidationError('Arguments "before" and "first" are not supported at the same time');
    if (after != null && last != null)
      throw new PothosValidationError('Arguments "after" and "last" are not supported at the same time');
    const cursor = before ?? after;
    const id = cursor == null ? null : idOfCursor(cursor);
    // An id with NUL is no id a row can have, and PostgreSQL text cannot hold it (probe Q).
    if (cursor != null && (typeof id !== 'string' || id.includes('\0')))
      throw new AppError('VALIDATION', { message: 'Invalid cursor.' });
  } catch (err) {
    return err;
  }
  return null;
}

/**
 * A refused page size, with the other arguments' messages before it when they fail too (`check`):
 * one error naming every bad argument, filters first, as REST's one 422 names them.
 */
export async function refusePageSize(
  pageFields: Record<string, string[]>,
  check: (() => Promise<unknown>) | undefined,
): Promise<never> {
  try {
    await check?.();
  } catch (err) {
    const fields =
      err instanceof ValidationError
        ? err.errors
        : err instanceof AppError && err.code === 'VALIDATION'
          ? err.fields
          : undefined;
    if (fields) throw new AppError('VALIDATION', { fields: { ...fields, ...pageFields } });
  }
  throw new AppError('VALIDATION', { fields: pageFields });
}

/** The paging arguments of a connection, which assertPageSize and plugin-prisma check. */
const PAGING_ARGS = new Set(['first', 'last', 'before', 'after']);

/**
 * A root connection's check of its other arguments (in its extensions, `checkArgs`): rejects with
 * the validation error REST would answer, before the rows or the count are read.
 */
export type ArgsCheck = (ctx: AppContext, args: Readonly<Record<string, unknown>>) => Promise<unknown>;

/** A connection's paging figures, in its field's extensions (`page`). */
export interface ConnectionPage {
  cursor: 'id';
  maxSize: number;
  defaultSize: number;
}

/**
 * A connection's paging (options of plugin-prisma's prismaConnection or relatedConnection): by id,
 * `defaultSize` rows (10) unless `first`/`last` say otherwise, at most `maxSize`. The figures also
 * travel in the field's extensions (`page`, beside `more.extensions`: a root field's
 * `requires(action)`), where the paging check of root connections (checkedRootConnections), the
 * cost limit (src/graphql/query-cost.ts) and the compiled path (src/graphql/compiled-execution.ts)
 * read them.
 */
export function connectionPage<E extends object = object>(
  maxSize: number,
  more: { extensions?: E; defaultSize?: number } = {},
) {
  const page: ConnectionPage = { cursor: 'id', maxSize, defaultSize: more.defaultSize ?? 10 };
  return { ...page, extensions: { ...(more.extensions as E), page } };
}

/**
 * The schema served: every root connection checks its paging arguments, then authorizes the action
 * it declares, before plugin-prisma's connection resolver runs. That resolver calls the field's own
 * `resolve` only when the selection asks for rows, and `totalCount` only when it asks for the count:
 * `{ auditLogs { __typename } }` ran neither, answering a caller the table refuses (no rows, but no
 * FORBIDDEN either) and leaving `first: 101` and the filters unchecked. So the filters are checked
 * here too (the field's `checkArgs`, see listConnection in src/graphql/operation-fields.ts), and a
 * root connection with arguments beyond paging but no such check refuses to start. Relation
 * connections' paging is checked before the operation runs (src/graphql/nested-connection-args.ts),
 * and again in their `query` (assertPageSize), which plugin-prisma calls while planning the parent's
 * query, for an operation that does not come through Yoga.
 */
export function checkedRootConnections(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.QUERY_ROOT_FIELD]: (field, name) => {
      const { page, action, checkArgs } = (field.extensions ?? {}) as {
        page?: ConnectionPage;
        action?: Action;
        checkArgs?: ArgsCheck;
      };
      if (!page) {
        // A root connection without connectionPage() would be served unchecked: refuse to start.
        if (getNamedType(field.type).name.endsWith('Connection')) {
          throw new Error(`Query.${name} is a connection without connectionPage() (src/graphql/args.ts).`);
        }
        return field;
      }
      const resolve = field.resolve as GraphQLFieldResolver<unknown, AppContext> | undefined;
      if (!resolve) return field;
      const filtered = Object.keys(field.args ?? {}).filter((a) => !PAGING_ARGS.has(a));
      if (filtered.length > 0 && !checkArgs) {
        throw new Error(
          `Query.${name} has arguments (${filtered.join(', ')}) but no checkArgs: a selection without rows or count would leave them unchecked (src/graphql/args.ts).`,
        );
      }
      const checked: GraphQLFieldResolver<unknown, AppContext> = (root, args, ctx, info) => {
        const pageFields = pageSizeErrors(args, page.maxSize);
        if (pageFields) return refusePageSize(pageFields, checkArgs && (() => checkArgs(ctx, args)));
        if (action) authorize(ctx.principal, action);
        const paged = () => {
          const bad = connectionArgumentsError(args, page.maxSize);
          if (bad) throw bad;
          return resolve(root, args, ctx, info);
        };
        return checkArgs ? checkArgs(ctx, args).then(paged) : paged();
      };
      return { ...field, resolve: checked };
    },
  });
}

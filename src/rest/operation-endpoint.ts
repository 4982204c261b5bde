// REST endpoints read from an operation's declaration (src/operations/operation.ts): the action, the
// filters or body rules the OpenAPI document shows, and the call itself; the resource adds only what
// is REST's own (summary, status, body limit, the serializer).
import type { TSchema } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import {
  descriptionsOf,
  execute,
  type Fields,
  type Filters,
  type FilterValues,
  fieldsOf,
  type ListOperation,
  type ListQuery,
  type Operation,
  rulesOf,
} from '../operations/operation.js';
import { countEndpoint, docsOnly, type Endpoint, listEndpoint, type RestRequest } from './endpoint.js';

/** `GET /things`: paging here, the operation's filters and scope, the rows the resource reads, serialized. */
export function listEndpointOf<F extends Filters<W>, W, O, Row>(
  op: ListOperation<F, W, O>,
  def: {
    summary: string;
    /** Default `per_page` (10; advertisements 25). */
    defaultPerPage?: number;
    /** The schema of one serialized row (declared next to `serialize`). */
    item: TSchema;
    read(
      ctx: AppContext,
      query: ListQuery<FilterValues<F>, W, O>,
      page: { skip: number; take: number },
    ): Promise<Row[]>;
    serialize(row: Row, ctx: AppContext): unknown;
  },
): Endpoint {
  return {
    ...listEndpoint({
      summary: def.summary,
      action: op.action,
      ...(def.defaultPerPage !== undefined ? { defaultPerPage: def.defaultPerPage } : {}),
      item: def.item,
      filters: rulesOf(op.filters),
      list: async (ctx, raw, page) => def.read(ctx, await op.query(ctx, raw), page),
      serialize: def.serialize,
    }),
    descriptions: descriptionsOf(op.filters),
  };
}

/** `GET /things/count`: `{ "count": N }` with the operation's filters. */
export function countEndpointOf<F extends Filters<W>, W, O>(
  op: ListOperation<F, W, O>,
  def: { summary: string; count(ctx: AppContext, query: ListQuery<FilterValues<F>, W, O>): Promise<number> },
): Endpoint {
  return {
    ...countEndpoint({
      summary: def.summary,
      action: op.action,
      filters: rulesOf(op.filters),
      count: async (ctx, raw) => def.count(ctx, await op.query(ctx, raw)),
    }),
    descriptions: descriptionsOf(op.filters),
  };
}

/**
 * A write's input as Laravel's `$request->all()` reads it: the body's fields, and the query string's
 * beside them, the body's winning on a name both send (probe P: `?user_status=0` on a tenant's
 * deactivation, or a location's `?name=`, went unread).
 */
const inputOf = (req: RestRequest): Readonly<Record<string, unknown>> => ({ ...req.query, ...req.body });

/**
 * A write (or any operation on one record): the JSON body (or, for GET, the query) validated by the
 * operation, the path's `:id` handed to its `find`, the result shaped by `answer`.
 */
export function endpointOf<F extends Fields, Found, Out>(
  op: Operation<F, Found, Out>,
  def: Omit<Endpoint, 'action' | 'body' | 'handle'> & {
    /** Where the input comes from: the JSON body (default) or the query string. */
    from?: 'body' | 'query';
    answer(result: Out, req: RestRequest): unknown;
  },
): Endpoint {
  const { from = 'body', answer, ...rest } = def;
  return {
    ...rest,
    action: op.action,
    ...(from === 'body' ? { body: () => rulesOf(fieldsOf(op, docsOnly)) } : {}),
    async handle(req) {
      const result = await execute(op, req.ctx, from === 'body' ? inputOf(req) : req.query, req.params.id);
      return answer(result, req);
    },
  };
}

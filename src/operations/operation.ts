// An operation is declared once, in its resource folder: the action it needs (the permission table),
// its input fields (rules whose output type TypeScript infers, and what GraphQL says of each) and the
// service function that takes the validated input. The REST endpoint (src/rest/operation-endpoint.ts),
// the Pothos field's arguments and `requires` (src/graphql/operation-fields.ts), the OpenAPI document
// and the README's permission table all read that one declaration; validation runs once, here.
import { type Action, authorize } from '../auth/permissions.js';
import type { Scope } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import type { Prisma } from '../db/database.js';
import {
  type FieldOutput,
  type Infer,
  type InferFilters,
  type Rule,
  type Rules,
  validate,
  validateFilters,
} from '../validation/validator.js';

/** One input field: its rules, and the description of its GraphQL argument or input field. */
export interface Field<L extends readonly Rule[] = readonly Rule[]> {
  readonly rules: L;
  readonly description?: string;
}

export type Fields = Record<string, Field>;

/** A field's rules with the description its GraphQL argument shows. */
export function field<const L extends readonly Rule[]>(rules: L, description?: string): Field<L> {
  return description === undefined ? { rules } : { rules, description };
}

export type RulesOf<F extends Fields> = { [K in keyof F]: F[K]['rules'] };

const rulesCache = new WeakMap<Fields, Rules>();

/** The fields' rules, as `validate()` takes them (built once per field set). */
export function rulesOf<F extends Fields>(fields: F): RulesOf<F> {
  let rules = rulesCache.get(fields);
  if (!rules) {
    rules = Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.rules]));
    rulesCache.set(fields, rules);
  }
  // Built from `fields` key by key just above: each key holds that field's own rules.
  return rules as RulesOf<F>;
}

const descriptionsCache = new WeakMap<Fields, Record<string, string>>();

/** The fields' descriptions, by field (the OpenAPI document shows them too). */
export function descriptionsOf(fields: Fields): Readonly<Record<string, string>> {
  let out = descriptionsCache.get(fields);
  if (!out) {
    out = {};
    for (const [name, f] of Object.entries(fields)) if (f.description) out[name] = f.description;
    descriptionsCache.set(fields, out);
  }
  return out;
}

/** The validated input of these fields. */
export type InputOf<F extends Fields> = Infer<RulesOf<F>>;

// ---------------------------------------------------------------------------------------------
// Filters of a list

/** A filter: a field, and the condition it adds to the list's where clause when it is given. */
export interface Filter<L extends readonly Rule[], W> extends Field<L> {
  /**
   * Absent for options that are no condition (ordering, `withBeacon`). `scope` is the caller's, for a
   * condition through a relation that must stay in the tenant. Method syntax: bivariant.
   */
  where?(value: Exclude<FieldOutput<L>, null>, scope: Scope): W;
}

export type Filters<W> = Record<string, Filter<readonly Rule[], W>>;

/**
 * The filter declarer of one model, `W` its where-input type:
 * `const guestFilter = filterOf<Prisma.GuestWhereInput>()`, then
 * `email: guestFilter(textFilter(), { description: '…', where: (v) => ({ email: textSearch(v) }) })`.
 */
export function filterOf<W>() {
  return <const L extends readonly Rule[]>(
    rules: L,
    options: { description?: string; where?: (value: Exclude<FieldOutput<L>, null>, scope: Scope) => W } = {},
  ): Filter<L, W> => ({ rules, ...options });
}

/** What a list's filters validate to: every filter optional, the empty ones left out. */
export type FilterValues<F extends Fields> = InferFilters<RulesOf<F>>;

/** The conditions of the given filters, in declaration order, for the caller's scope. */
export function conditionsOf<W>(
  filters: Filters<W>,
  values: Readonly<Record<string, unknown>>,
  scope: Scope,
): W[] {
  const out: W[] = [];
  for (const name in filters) {
    const value = values[name];
    const where = filters[name]?.where;
    if (value !== undefined && where) out.push(where(value as never, scope));
  }
  return out;
}

/** A list's query: the validated filters, the where clause inside the caller's scope, the order. */
export interface ListQuery<I, W, O> {
  readonly input: I;
  readonly scope: Scope;
  readonly where: W;
  readonly orderBy: O;
}

/** What a list's rows and count are read by: the where clause inside the caller's scope, the order. */
export type ListWhere<W, O> = Pick<ListQuery<unknown, W, O>, 'where' | 'orderBy'>;

export interface ListOperation<F extends Filters<W>, W, O> {
  readonly action: Action;
  readonly filters: F;
  /** Authorizes, validates the filters (REST names) and builds the query: one call per request. */
  query(ctx: AppContext, raw: Readonly<Record<string, unknown>>): Promise<ListQuery<FilterValues<F>, W, O>>;
}

/**
 * A list (and its count): `within` turns the caller's scope and the filters' conditions into the
 * where clause (the scope stays its own condition, so a `location_id` filter can only narrow a
 * pinned caller; `ctx` for a scope beyond tenant and location, as the tenants' group); `orderBy`
 * reads the validated filters.
 */
export function listOperation<const F extends Filters<W>, W, O>(def: {
  action: Action;
  filters: F;
  within(scope: Scope, conditions: W[], ctx: AppContext): W;
  orderBy(input: FilterValues<F>): O;
}): ListOperation<F, W, O> {
  return {
    action: def.action,
    filters: def.filters,
    async query(ctx, raw) {
      const scope = authorize(ctx.principal, def.action);
      const input = await validateFilters(raw, rulesOf(def.filters));
      return {
        input,
        scope,
        where: def.within(scope, conditionsOf(def.filters, input, scope), ctx),
        orderBy: def.orderBy(input),
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reads whose shape the transport picks

/**
 * A read by id whose row shape each transport chooses (REST's detail include, plugin-prisma's query
 * for GraphQL), so its service function takes that shape: the declaration is its action, named once,
 * and the scope that action grants.
 */
export interface Reader {
  readonly action: Action;
  /** authorize(): the caller's scope for this read, or 403. */
  scope(ctx: AppContext): Scope;
}

export function reader(action: Action): Reader {
  return { action, scope: (ctx) => authorize(ctx.principal, action) };
}

// ---------------------------------------------------------------------------------------------
// Operations on one record, and writes

/** What input rules may close over: look-ups (`exists`, `unique`) run in the caller's scope. */
export interface InputEnv {
  readonly prisma: Prisma;
  readonly scope: Scope;
  /** The path id of an operation on one record (its own email is not "taken"). */
  readonly id?: string;
}

/**
 * Stand-ins for rule factories' database and scope when the rules are only described (OpenAPI,
 * GraphQL input types): building the rules stores them in closures, only validating would use them
 * (and then this throws).
 */
export const docsOnly: InputEnv = {
  prisma: new Proxy({} as Prisma, {
    get(_t, key) {
      throw new Error(`documentation rules never query the database (prisma.${String(key)})`);
    },
  }),
  scope: { tenantId: '(docs)', locationId: null },
};

/** What the service function of an operation receives. */
export interface Call<I, Found> {
  readonly ctx: AppContext;
  /** The operation's action (what the audit log names the write). */
  readonly action: Action;
  readonly scope: Scope;
  readonly input: I;
  /** What `find` loaded (undefined without `find`). */
  readonly found: Found;
}

export interface Operation<F extends Fields, Found, Out> {
  readonly action: Action;
  /** The input fields; a function when their rules look records up (see InputEnv). */
  readonly input: F | ((env: InputEnv) => F);
  /** Loads the record the operation acts on by its path id, or throws 404: before any 422, as Laravel's route binding. */
  readonly find?: (ctx: AppContext, scope: Scope, id: string) => Promise<Found>;
  run(call: Call<InputOf<F>, Found>): Promise<Out>;
}

/** Declares an operation (identity: it fixes the types). */
export function operation<const F extends Fields, Found = undefined, Out = unknown>(
  def: Operation<F, Found, Out>,
): Operation<F, Found, Out> {
  return def;
}

/** The fields of an operation, for documents (OpenAPI, GraphQL input types): rules never run there. */
export function fieldsOf<F extends Fields>(op: { input: F | ((env: InputEnv) => F) }, env: InputEnv): F {
  return typeof op.input === 'function' ? op.input(env) : op.input;
}

/** Runs an operation: authorize (403), find by id (404), validate (422), then the service function. */
export async function execute<F extends Fields, Found, Out>(
  op: Operation<F, Found, Out>,
  ctx: AppContext,
  raw: Readonly<Record<string, unknown>>,
  id?: string,
): Promise<Out> {
  const scope = authorize(ctx.principal, op.action);
  // Without `find`, `found` stays undefined, which is what Found defaults to.
  const found = (op.find && id !== undefined ? await op.find(ctx, scope, id) : undefined) as Found;
  const fields = fieldsOf(op, { prisma: ctx.prisma, scope, ...(id !== undefined ? { id } : {}) });
  const input = await validate(raw, rulesOf(fields));
  return op.run({ ctx, action: op.action, scope, input, found });
}

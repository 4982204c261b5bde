// Reads a model's rows with one raw SQL statement and returns what Prisma's findMany returns for
// the same arguments (keys, JS types, nested relations), skipping Prisma's per-value decoding.
// Everything is derived from the Prisma models (the DMMF), so a new column is read without a change
// here; test/raw-rows.test.ts compares the rows with Prisma's own on both databases.
// Supported arguments: `where` (scalar filters: equality, null, `in`, `notIn`, comparisons, `not`,
// `contains`/`startsWith`/`endsWith`/`equals` with `mode`; `AND`, `OR`, `NOT`), `orderBy` (scalar, or
// a scalar of a to-one relation), `take` (not negative), `skip`, `cursor` (on non-null order columns),
// `include`/`select` (scalars, `_count` of to-many relations, to-one and to-many relations with their
// own arguments). Anything else throws UnsupportedArgs: findManyRows() then asks Prisma.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { getDatamodel } from '../generated/prisma/pothos-types.js';
import { type Prisma, rawRowsOf } from './database.js';

/** Arguments this reader does not translate; Prisma reads them instead. */
export class UnsupportedArgs extends Error {}

interface Field {
  name: string;
  kind: string;
  type: string;
  isList: boolean;
  isId: boolean;
  isRequired: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

interface Model {
  fields: Field[];
  byName: Map<string, Field>;
  scalars: string[];
}

const models = new Map<string, Model>(
  Object.entries(getDatamodel().datamodel.models).map(([name, m]) => {
    const fields = m.fields as unknown as Field[];
    return [
      name,
      {
        fields,
        byName: new Map(fields.map((f) => [f.name, f])),
        scalars: fields.filter((f) => f.kind !== 'object').map((f) => f.name),
      },
    ];
  }),
);

function modelOf(name: string): Model {
  const m = models.get(name);
  if (!m) throw new Error(`Unknown model ${name}.`);
  return m;
}

const modelFields = (model: string): Field[] => modelOf(model).fields;

/** The scalar fields of `model`, in the schema's order: the columns a row without `select` has. */
export function scalarFields(model: string): string[] {
  return [...modelOf(model).scalars];
}

function field(model: string, name: string): Field {
  const f = modelOf(model).byName.get(name);
  if (!f) throw new Error(`Unknown field ${model}.${name}.`);
  return f;
}

/** Prisma's orderBy objects; the forms not supported (nulls first, relation counts…) throw. */
type OrderBy = Record<string, unknown>;
type Where = Record<string, unknown>;
interface RelationArgs {
  where?: Where;
  orderBy?: OrderBy | OrderBy[];
  select?: Selection;
  include?: Selection;
  take?: number;
  skip?: number;
  cursor?: Where;
}
type Selection = Record<string, boolean | RelationArgs | undefined>;
export interface RawFindManyArgs extends RelationArgs {
  where: Where;
}

/** A value read from json back into Prisma's type (json has no dates or 64-bit integers). */
type Decode = (v: unknown) => unknown;

const q = (name: string) => `"${name}"`;
const SUPPORTED = new Set(['String', 'Int', 'Float', 'Boolean', 'DateTime', 'BigInt', 'Json']);

/** Reads a part of the caller's arguments: a compiled statement takes its values from new ones. */
type Get<T> = (args: RawFindManyArgs) => T;

class Statement {
  readonly params: Get<unknown>[] = [];
  private aliases = 0;
  param(get: Get<unknown>): string {
    this.params.push(get);
    return `$${this.params.length}`;
  }
  alias(): string {
    return `r${this.aliases++}`;
  }
}

function idField(model: string): string {
  const ids = modelFields(model).filter((f) => f.isId);
  if (ids.length !== 1) throw new Error(`${model} has no single-column id.`);
  return (ids[0] as Field).name;
}

/** The condition tying `child` (the relation's model) to `parent`. */
function joinCondition(model: string, rel: Field, parent: string, child: string): string {
  const from = rel.relationFromFields ?? [];
  if (from.length === 1) return `${child}.${q(idField(rel.type))} = ${parent}.${q(from[0] as string)}`;
  const back = modelFields(rel.type).filter(
    (f) =>
      f.relationName === rel.relationName && f.type === model && (f.relationFromFields?.length ?? 0) === 1,
  );
  if (back.length !== 1 || from.length > 0)
    throw new UnsupportedArgs(`Relation ${model}.${rel.name} is not supported.`);
  const fk = (back[0] as Field).relationFromFields?.[0] as string;
  return `${child}.${q(fk)} = ${parent}.${q(idField(model))}`;
}

const unsupported = (what: string): never => {
  throw new UnsupportedArgs(what);
};

/** A filter value as the driver should send it: dates as UTC text (columns hold UTC wall time). */
const sqlValue = (v: unknown): unknown =>
  v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? v.toString() : v;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !(v instanceof Date) && !Array.isArray(v);

const COMPARISONS: Record<string, string> = { lt: '<', lte: '<=', gt: '>', gte: '>=' };
const LIKE: Record<string, (v: string) => string> = {
  contains: (v) => `%${v}%`,
  startsWith: (v) => `${v}%`,
  endsWith: (v) => `%${v}`,
};

/** One column's filter object (`{ gte, lt }`, `{ contains, mode }` …) as conditions. */
function scalarFilterSql(
  col: string,
  filter: Record<string, unknown>,
  st: Statement,
  get: Get<Record<string, unknown>>,
): string[] {
  const insensitive = filter.mode === 'insensitive';
  if (filter.mode !== undefined && filter.mode !== 'insensitive' && filter.mode !== 'default')
    unsupported(`mode ${String(filter.mode)}`);
  const out: string[] = [];
  for (const [op, value] of Object.entries(filter)) {
    if (op === 'mode' || value === undefined) continue;
    const param = () => st.param((a) => sqlValue(get(a)[op]));
    if (op === 'equals') {
      if (value === null) out.push(`${col} IS NULL`);
      else out.push(insensitive ? `${col} ILIKE ${param()}` : `${col} = ${param()}`);
    } else if (op === 'in' || op === 'notIn') {
      const list = st.param((a) => (get(a)[op] as unknown[]).map(sqlValue));
      out.push(op === 'in' ? `${col} = ANY(${list})` : `NOT (${col} = ANY(${list}))`);
    } else if (COMPARISONS[op]) {
      out.push(`${col} ${COMPARISONS[op]} ${param()}`);
    } else if (LIKE[op]) {
      const pattern = LIKE[op];
      const p = st.param((a) => pattern(String(get(a)[op])));
      out.push(`${col} ${insensitive ? 'ILIKE' : 'LIKE'} ${p}`);
    } else if (op === 'not') {
      if (value === null) out.push(`${col} IS NOT NULL`);
      else if (isPlainObject(value)) {
        const inner = scalarFilterSql(col, value, st, (a) => get(a).not as Record<string, unknown>);
        out.push(`NOT (${inner.join(' AND ') || 'TRUE'})`);
      } else out.push(`${col} IS DISTINCT FROM ${param()}`);
    } else unsupported(`filter ${op}`);
  }
  return out;
}

/** Prisma's `where` as conditions joined by AND (none: every row). */
function whereSql(model: string, alias: string, where: Where, st: Statement, get: Get<Where>): string[] {
  const out: string[] = [];
  const all = (conds: string[]) => (conds.length ? conds.join(' AND ') : 'TRUE');
  for (const [name, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (name === 'AND' || name === 'OR' || name === 'NOT') {
      const list = Array.isArray(value) ? value : [value];
      const parts = list.map((w, i) =>
        all(
          whereSql(model, alias, w as Where, st, (a) => {
            const v = get(a)[name];
            return (Array.isArray(v) ? v[i] : v) as Where;
          }),
        ),
      );
      if (name === 'AND') out.push(...parts.map((p) => `(${p})`));
      else if (name === 'OR')
        out.push(parts.length ? `(${parts.map((p) => `(${p})`).join(' OR ')})` : 'FALSE');
      else out.push(...parts.map((p) => `NOT (${p})`));
      continue;
    }
    const f = field(model, name);
    if (f.kind === 'object') unsupported(`filtering on relation ${model}.${name}`);
    const col = `${alias}.${q(name)}`;
    if (value === null) out.push(`${col} IS NULL`);
    else if (isPlainObject(value))
      out.push(...scalarFilterSql(col, value, st, (a) => get(a)[name] as Record<string, unknown>));
    else out.push(`${col} = ${st.param((a) => sqlValue(get(a)[name]))}`);
  }
  return out;
}

function orderSql(model: string, alias: string, orderBy: OrderBy | OrderBy[], st: Statement): string[] {
  const dir = (d: unknown) => {
    if (d !== 'asc' && d !== 'desc')
      throw new UnsupportedArgs(`Order ${JSON.stringify(d)} is not supported.`);
    return d === 'desc' ? 'DESC' : 'ASC';
  };
  return (Array.isArray(orderBy) ? orderBy : [orderBy]).flatMap((o) =>
    Object.entries(o).map(([name, d]) => {
      const f = field(model, name);
      if (f.kind !== 'object') return `${alias}.${q(name)} ${dir(d)}`;
      const entries = Object.entries(d as Record<string, unknown>);
      if (f.isList || entries.length !== 1)
        throw new UnsupportedArgs(`Order by ${model}.${name} is not supported.`);
      const [sub, subDir] = entries[0] as [string, unknown];
      if (field(f.type, sub).kind === 'object')
        throw new UnsupportedArgs(`Order by ${model}.${name}.${sub} is not supported.`);
      const c = st.alias();
      return `(SELECT ${c}.${q(sub)} FROM ${q(f.type)} ${c} WHERE ${joinCondition(model, f, alias, c)}) ${dir(subDir)}`;
    }),
  );
}

const ARG_KEYS = new Set(['where', 'orderBy', 'select', 'include', 'take', 'skip', 'cursor']);

/** `_count: { select: { rel: true | { where } } }`: each to-many relation counted. */
type CountSelection = { select: Record<string, boolean | { where?: Where }> };

/** The fields a selection reads (`select` as given, else every scalar plus `include`'s relations), with where each one's arguments are. */
function selected(
  model: string,
  args: RelationArgs,
  get: Get<RelationArgs>,
): [Field, RelationArgs, Get<RelationArgs>][] {
  const unknown = Object.keys(args).filter(
    (k) => !ARG_KEYS.has(k) && (args as Record<string, unknown>)[k] !== undefined,
  );
  if (unknown.length > 0) unsupported(`arguments ${unknown.join(', ')} on ${model}`);
  if (args.select && args.include) unsupported('select and include together');
  const key = args.select ? 'select' : 'include';
  const sel: Selection = args.select ?? {
    ...Object.fromEntries(modelOf(model).scalars.map((n) => [n, true])),
    ...args.include,
  };
  return Object.entries(sel)
    .filter(([, v]) => v !== false && v !== undefined)
    .map(([name, v]) => {
      const sub: Get<RelationArgs> = (a) =>
        (get(a)[key] as Record<string, RelationArgs>)[name] as RelationArgs;
      if (name === '_count') return [COUNT_FIELD, v as RelationArgs, sub];
      const f = field(model, name);
      if (f.kind !== 'object' && !SUPPORTED.has(f.type)) unsupported(`${model}.${name} (${f.type})`);
      if (f.kind !== 'object' && f.isList && (f.type === 'DateTime' || f.type === 'BigInt'))
        unsupported(`${model}.${name} (${f.type}[])`);
      return [f, v === true ? {} : (v as RelationArgs), sub];
    });
}

/** Stands for `_count` among a selection's fields. */
const COUNT_FIELD: Field = {
  name: '_count',
  kind: 'count',
  type: '',
  isList: false,
  isId: false,
  isRequired: true,
};

/** `_count` as a json object of the counted relations. */
function countJson(
  model: string,
  sel: CountSelection,
  parent: string,
  st: Statement,
  get: Get<RelationArgs>,
): string {
  if (!isPlainObject(sel) || !isPlainObject(sel.select)) return unsupported(`_count on ${model}`);
  const pairs = Object.entries(sel.select)
    .filter(([, v]) => v !== false && v !== undefined)
    .map(([name, v]) => {
      const rel = field(model, name);
      if (rel.kind !== 'object' || !rel.isList) unsupported(`_count of ${model}.${name}`);
      const c = st.alias();
      const w = v === true ? {} : ((v as { where?: Where }).where ?? {});
      if (v !== true && Object.keys(v as object).some((k) => k !== 'where'))
        unsupported(`_count arguments of ${name}`);
      const conds = [
        joinCondition(model, rel, parent, c),
        ...whereSql(rel.type, c, w, st, (a) => {
          const one = ((get(a) as unknown as CountSelection).select[name] ?? true) as
            | { where?: Where }
            | true;
          return one === true ? {} : (one.where ?? {});
        }),
      ];
      return `'${name}', (SELECT count(*)::int FROM ${q(rel.type)} ${c} WHERE ${conds.join(' AND ')})`;
    });
  return `json_build_object(${pairs.join(', ')})`;
}

/** `ORDER BY` columns of `orderBy` as [column, direction] (cursors compare them). */
function orderColumns(model: string, orderBy: OrderBy | OrderBy[] | undefined): [string, 'asc' | 'desc'][] {
  if (!orderBy) return [];
  return (Array.isArray(orderBy) ? orderBy : [orderBy]).flatMap((o) =>
    Object.entries(o).map(([name, d]): [string, 'asc' | 'desc'] => {
      const f = field(model, name);
      // A cursor over a nullable or relation column needs Prisma's own null handling.
      if (f.kind === 'object' || !f.isRequired || f.isList)
        unsupported(`cursor with order by ${model}.${name}`);
      if (d !== 'asc' && d !== 'desc') unsupported(`order ${JSON.stringify(d)}`);
      return [name, d as 'asc' | 'desc'];
    }),
  );
}

/**
 * Prisma's cursor: the rows from the cursor's row on, in the order given (the cursor's row
 * included). No such row: no rows, as Prisma answers. With `skip` (a connection's next page: `skip:
 * 1`), the rows strictly after it, then `skip − 1` more left out (pageSql): Prisma's offset would
 * leave out the first row after the cursor instead of the cursor's own when that row no longer
 * matches the filters (a guest erased, a user moved away between two pages), skipping a row.
 */
function cursorSql(
  model: string,
  alias: string,
  args: RelationArgs,
  st: Statement,
  get: Get<RelationArgs>,
): string {
  const cursor = args.cursor as Where;
  const c = st.alias();
  const at = whereSql(model, c, cursor, st, (a) => get(a).cursor as Where);
  if (at.length === 0) unsupported('an empty cursor');
  const cols = orderColumns(model, args.orderBy);
  const value = (col: string) => `(SELECT ${c}.${q(col)} FROM ${q(model)} ${c} WHERE ${at.join(' AND ')})`;
  if (cols.length === 0) unsupported('a cursor without order');
  // (a > ca) OR (a = ca AND b > cb) OR … OR (a = ca AND … AND z >= cz); after the cursor: z > cz.
  const after = skipsCursor(args);
  const ors = cols.map((_, i) => {
    const eq = cols.slice(0, i).map(([col]) => `${alias}.${q(col)} = ${value(col)}`);
    const [col, d] = cols[i] as [string, 'asc' | 'desc'];
    const last = i === cols.length - 1 && !after;
    const op = d === 'asc' ? (last ? '>=' : '>') : last ? '<=' : '<';
    return `(${[...eq, `${alias}.${q(col)} ${op} ${value(col)}`].join(' AND ')})`;
  });
  // The first column's bound on its own as well: an index on the order columns then starts at the
  // cursor (an index condition) instead of filtering every row before it, so walking a long list
  // page after page (a streamed export) reads each row once.
  const [firstCol, firstDir] = cols[0] as [string, 'asc' | 'desc'];
  if (cols.length === 1) return `(${ors.join(' OR ')})`;
  const bound = `${alias}.${q(firstCol)} ${firstDir === 'asc' ? '>=' : '<='} ${value(firstCol)}`;
  return `(${bound} AND (${ors.join(' OR ')}))`;
}

/** A cursor with a skip: the page starts after the cursor's row (cursorSql), which the skip counts. */
const skipsCursor = (args: RelationArgs): boolean =>
  args.cursor !== undefined && args.skip !== undefined && args.skip !== 0;

/** `LIMIT`/`OFFSET` of take and skip (a negative take reads backwards: Prisma does that). */
function pageSql(args: RelationArgs, st: Statement, get: Get<RelationArgs>): string {
  let sql = '';
  if (args.take !== undefined) {
    if (!Number.isInteger(args.take) || args.take < 0) unsupported(`take ${String(args.take)}`);
    sql += ` LIMIT ${st.param((a) => get(a).take)}`;
  }
  if (args.skip !== undefined && args.skip !== 0) {
    if (!Number.isInteger(args.skip) || args.skip < 0) unsupported(`skip ${String(args.skip)}`);
    sql += skipsCursor(args)
      ? ` OFFSET ${st.param((a) => (get(a).skip ?? 1) - 1)}`
      : ` OFFSET ${st.param((a) => get(a).skip)}`;
  }
  return sql;
}

/** Conditions, order and page of a read of `model` under `alias`. */
function filterSql(
  model: string,
  alias: string,
  args: RelationArgs,
  st: Statement,
  get: Get<RelationArgs>,
  extra: string[],
): { where: string; order: string; page: string } {
  const conds = [...extra, ...whereSql(model, alias, args.where ?? {}, st, (a) => get(a).where ?? {})];
  if (args.cursor !== undefined) conds.push(cursorSql(model, alias, args, st, get));
  const order = args.orderBy ? orderSql(model, alias, args.orderBy, st) : [];
  return {
    where: conds.length ? ` WHERE ${conds.join(' AND ')}` : '',
    order: order.length ? ` ORDER BY ${order.join(', ')}` : '',
    page: pageSql(args, st, get),
  };
}

/** A relation as one json value (an object, null, or an array) and how to decode it. */
function relationJson(
  model: string,
  rel: Field,
  args: RelationArgs,
  parent: string,
  st: Statement,
  get: Get<RelationArgs>,
): { sql: string; decode: Decode | null } {
  const c = st.alias();
  const obj = objectJson(rel.type, c, args, st, get);
  if (!rel.isList) {
    if (args.where || args.orderBy || args.take !== undefined || args.skip !== undefined || args.cursor)
      unsupported(`arguments on to-one ${model}.${rel.name}`);
    return {
      sql: `(SELECT ${obj.sql} FROM ${q(rel.type)} ${c} WHERE ${joinCondition(model, rel, parent, c)})`,
      decode: obj.decode,
    };
  }
  // A backward page (`last`/`before` of a nested connection): the forward page of the reversed
  // order, aggregated back in the order asked (as reversedPage does at the top).
  const back = reversedPage(args);
  const f = back
    ? filterSql(rel.type, c, back, st, reversedValues(get), [joinCondition(model, rel, parent, c)])
    : filterSql(rel.type, c, args, st, get, [joinCondition(model, rel, parent, c)]);
  const from = `FROM ${q(rel.type)} ${c}${f.where}`;
  const one = obj.decode;
  // In place: the parsed array is the caller's already.
  const decode =
    one &&
    ((v: unknown) => {
      const list = v as unknown[];
      for (let i = 0; i < list.length; i++) list[i] = one(list[i]);
      return list;
    });
  // A page is cut in a subquery whose order json_agg keeps; a backward page's, cut in the reversed
  // order, is aggregated in the order asked, by its order columns.
  let sql: string;
  if (back) {
    const cols = orderColumns(rel.type, args.orderBy);
    const keys = cols.map(([col], i) => `${c}.${q(col)} AS o${i}`).join(', ');
    const order = cols.map(([, d], i) => `p.o${i} ${d === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
    sql = `COALESCE((SELECT json_agg(p.j ORDER BY ${order}) FROM (SELECT ${obj.sql} AS j, ${keys} ${from}${f.order}${f.page}) p), '[]'::json)`;
  } else
    sql = f.page
      ? `COALESCE((SELECT json_agg(p.j) FROM (SELECT ${obj.sql} AS j ${from}${f.order}${f.page}) p), '[]'::json)`
      : `COALESCE((SELECT json_agg(${obj.sql}${f.order}) ${from}), '[]'::json)`;
  return { sql, decode };
}

/** A row of `model` (alias `alias`) as a json object of the selected fields. */
function objectJson(
  model: string,
  alias: string,
  args: RelationArgs,
  st: Statement,
  get: Get<RelationArgs>,
): { sql: string; decode: Decode | null } {
  const pairs: string[] = [];
  const decoders: [string, Decode][] = [];
  for (const [f, rel, sub] of selected(model, args, get)) {
    let sql = `${alias}.${q(f.name)}`;
    if (f === COUNT_FIELD) {
      sql = countJson(model, rel as unknown as CountSelection, alias, st, sub);
    } else if (f.kind === 'object') {
      const r = relationJson(model, f, rel, alias, st, sub);
      sql = r.sql;
      if (r.decode) decoders.push([f.name, r.decode]);
    } else if (f.type === 'DateTime') {
      // Milliseconds since the epoch (`date`/`timestamp` read as UTC), cut to the millisecond as a
      // top-level read cuts a column the database wrote with microseconds (probe T: rounding made
      // one instant .864 at the top and .865 nested). date_part is float8 and half the database's
      // cost of extract (numeric); rounding the whole milliseconds undoes its last-digit error.
      sql = `round(date_part('epoch', date_trunc('milliseconds', ${sql})) * 1000)`;
      decoders.push([f.name, (v) => (v === null ? null : new Date(v as number))]);
    } else if (f.type === 'BigInt') {
      sql = `${sql}::text`;
      decoders.push([f.name, (v) => (v === null ? null : BigInt(v as string))]);
    }
    pairs.push(`'${f.name}', ${sql}`);
  }
  // json_build_object takes at most 100 arguments: wider rows are merged from pieces.
  const pieces: string[] = [];
  for (let i = 0; i < pairs.length; i += 50)
    pieces.push(`json_build_object(${pairs.slice(i, i + 50).join(', ')})`);
  const sql =
    pieces.length === 1 ? (pieces[0] as string) : `(${pieces.map((p) => `${p}::jsonb`).join(' || ')})::json`;
  if (decoders.length === 0) return { sql, decode: null };
  return {
    sql,
    decode: (v) => {
      if (v === null) return null;
      const o = v as Record<string, unknown>;
      for (const [k, d] of decoders) o[k] = d(o[k]);
      return o;
    },
  };
}

interface Plan {
  sql: string;
  params: Get<unknown>[];
  decode: (row: Record<string, unknown>) => void;
  /** The prepared statement's name: the same text always gets the same name. */
  name?: string;
}

/** A prepared statement's name for `sql` (PostgreSQL keeps its plan per connection). */
const statementName = (sql: string): string =>
  `raw_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;

/** The statement of a findMany on `model` (values as parameters) and the decoding its rows still need. */
function plan(model: string, args: RawFindManyArgs): Plan {
  const st = new Statement();
  const a = st.alias();
  const cols: string[] = [];
  const decoders: [string, Decode][] = [];
  let relations = false;
  for (const [f, rel, sub] of selected(model, args, (x) => x)) {
    if (f.kind === 'object' || f === COUNT_FIELD) relations = true;
    if (f === COUNT_FIELD) {
      cols.push(`${countJson(model, rel as unknown as CountSelection, a, st, sub)} AS "_count"`);
    } else if (f.kind !== 'object') {
      // The driver decodes scalars itself (src/db/database.ts sets the parsers Prisma's types need).
      cols.push(`${a}.${q(f.name)}`);
    } else {
      const r = relationJson(model, f, rel, a, st, sub);
      cols.push(`${r.sql} AS ${q(f.name)}`);
      if (r.decode) decoders.push([f.name, r.decode]);
    }
  }
  let from: string;
  if (args.skip && relations) {
    // Skipped rows would have their relations built too (the select list is computed below OFFSET):
    // the page's ids are cut first, in a subquery an index can answer alone, and only the page's
    // rows are read and get their relations.
    const b = st.alias();
    const id = q(idField(model));
    const f = filterSql(model, b, args, st, (x) => x, []);
    const order = args.orderBy ? ` ORDER BY ${orderSql(model, a, args.orderBy, st).join(', ')}` : '';
    from =
      `(SELECT ${b}.${id} FROM ${q(model)} ${b}${f.where}${f.order}${f.page}) ${b}_page` +
      ` JOIN ${q(model)} ${a} ON ${a}.${id} = ${b}_page.${id}${order}`;
  } else {
    const f = filterSql(model, a, args, st, (x) => x, []);
    from = `${q(model)} ${a}${f.where}${f.order}${f.page}`;
  }
  return {
    sql: `SELECT ${cols.join(', ')} FROM ${from}`,
    params: st.params,
    decode: (row) => {
      for (const [k, d] of decoders) row[k] = d(row[k]);
    },
  };
}

/** The shape of a `where`: what decides its SQL text (operators, nesting, null), not its values. */
function whereShape(where: unknown): string {
  if (Array.isArray(where)) return `[${where.map(whereShape).join(',')}]`;
  if (where === null) return 'null';
  if (where === undefined) return 'u';
  if (!isPlainObject(where)) return '=';
  let key = '{';
  for (const [k, v] of Object.entries(where))
    key += k === 'mode' ? `mode:${String(v)};` : `${k}:${whereShape(v)};`;
  return `${key}}`;
}

/** What decides a statement's text: the arguments with their values left out. */
function shapeKey(args: RelationArgs): string {
  let key = '';
  for (const [k, v] of Object.entries(args)) {
    if (k === 'where' || k === 'cursor') key += `${k}${whereShape(v)}`;
    else if (k === 'take' || k === 'skip')
      key += `${k}:${v === undefined ? 'u' : v === 0 && k === 'skip' ? '0' : Number.isInteger(v) ? ((v as number) >= 0 ? 'n' : '-n') : String(v)};`;
    else if (k === 'select' || k === 'include') {
      key += `${k}(`;
      for (const [name, sub] of Object.entries(v as Selection))
        key +=
          name === '_count'
            ? `_count${whereShape(sub)};`
            : `${name}:${typeof sub === 'object' && sub !== null ? shapeKey(sub) : String(sub)};`;
      key += ')';
    } else key += `${k}:${JSON.stringify(v)};`;
  }
  return key;
}

// One plan per call site's shape (a handful), so a request only fills in its values; a shape this
// reader cannot translate is remembered too (null), so Prisma takes it at once next time.
const plans = new Map<string, Plan | null>();
const countPlans = new Map<string, Plan | null>();
const MAX_PLANS = 1000;

/** The cached plan of `key`, built (and named) on first use; null when the reader cannot translate it. */
function cachedPlan(cache: Map<string, Plan | null>, key: string, build: () => Plan): Plan | null {
  let p = cache.get(key);
  if (p === undefined) {
    try {
      p = build();
      p.name = statementName(p.sql);
    } catch (err) {
      if (!(err instanceof UnsupportedArgs)) throw err;
      p = null;
    }
    if (cache.size >= MAX_PLANS) cache.clear();
    cache.set(key, p);
  }
  return p;
}

function planFor(model: string, args: RawFindManyArgs): Plan | null {
  return cachedPlan(plans, `${model}|${shapeKey(args)}`, () => plan(model, args));
}

/** Runs a plan with the values of `args` and decodes its rows. */
async function runPlan<T>(prisma: Prisma, p: Plan, args: RawFindManyArgs): Promise<T[]> {
  const rows = await rawRowsOf(prisma)<Record<string, unknown>>(
    p.sql,
    p.params.map((get) => get(args)),
    p.name,
  );
  for (const row of rows) p.decode(row);
  return rows as T[];
}

/**
 * A backward page at the top (a negative `take`: a connection's `last`/`before`) as the forward page
 * of the reversed order, whose rows are then put back in order; null for any other read, or an order
 * this does not reverse. So a `before` page starts strictly before its cursor's row too (cursorSql).
 */
function reversedPage<A extends RelationArgs>(args: A): A | null {
  if (args.take === undefined || args.take >= 0 || args.orderBy === undefined) return null;
  const flip = (o: OrderBy): OrderBy | null => {
    const out: OrderBy = {};
    for (const [k, d] of Object.entries(o)) {
      if (d !== 'asc' && d !== 'desc') return null;
      out[k] = d === 'asc' ? 'desc' : 'asc';
    }
    return out;
  };
  const list = Array.isArray(args.orderBy) ? args.orderBy.map(flip) : [flip(args.orderBy)];
  if (list.some((o) => o === null)) return null;
  return { ...args, orderBy: list as OrderBy[], take: -args.take };
}

/** The values of a reversed page's arguments: its take as the forward page's (positive). */
const reversedValues =
  (get: Get<RelationArgs>): Get<RelationArgs> =>
  (a) => {
    const r = get(a);
    return { ...r, take: -(r.take as number) };
  };

/** Runs `args` raw (reversed first when it is a backward page); null when no plan translates them. */
async function runRaw<T>(prisma: Prisma, model: string, args: RawFindManyArgs, planOf: typeof planFor) {
  const reversed = reversedPage(args);
  const p = planOf(model, reversed ?? args);
  if (!p) return null;
  const rows = await runPlan<T>(prisma, p, reversed ?? args);
  return reversed ? rows.reverse() : rows;
}

/**
 * Prisma's `findMany(args)` on `model` in one raw statement, or UnsupportedArgs saying why not. `T` is
 * the caller's Prisma payload type (e.g. `Prisma.GuestGetPayload<…>` for the same args);
 * test/raw-rows.test.ts holds it to that.
 */
export async function rawFindMany<T>(prisma: Prisma, model: string, args: RawFindManyArgs): Promise<T[]> {
  // A shape remembered as untranslatable is planned again, to throw the error that says why.
  return (await runRaw<T>(prisma, model, args, (m, a) => planFor(m, a) ?? plan(m, a))) as T[];
}

type Delegate = {
  findMany(args: unknown): Promise<unknown[]>;
  count(args: { where: unknown }): Promise<number>;
};

/** `prisma.guest` for `Guest`: where the reader hands over what it cannot translate. */
function delegateOf(prisma: Prisma, model: string): Delegate {
  const delegate = (prisma as unknown as Record<string, Delegate | undefined>)[
    model.charAt(0).toLowerCase() + model.slice(1)
  ];
  if (!delegate) throw new Error(`Unknown model ${model}.`);
  return delegate;
}

/**
 * A page's cursor (a client's `after`/`before`, decoded) names a row by plain values, and a row of
 * the list's tenant: a cursor naming another tenant's row would place the page by that row (telling
 * that it exists, and where), so it finds none, as an unknown id does. So at every level: a nested
 * relation's page (`guest { devices(after:) }`) takes its own filter's tenant, or the list's. A value
 * that is not plain (a crafted `GPC:J:{…}` chunk decodes to an object) is the client's mistake.
 */
/** A cursor's value is a column's plain value: a crafted one that decodes to an object is refused. */
function assertPlainCursor(v: unknown): void {
  const plain = typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || v instanceof Date;
  if (!plain) throw new AppError('VALIDATION', { message: 'Invalid cursor.' });
}

function scopedCursor<A extends RelationArgs>(model: string, args: A, outerTenantId?: unknown): A {
  const own = args.where?.tenantId;
  const tenantId = typeof own === 'string' ? own : outerTenantId;
  let scoped = args;
  const cursor = args.cursor as Record<string, unknown> | undefined;
  if (cursor !== undefined) {
    for (const v of Object.values(cursor)) assertPlainCursor(v);
    if (typeof tenantId === 'string' && modelOf(model).byName.has('tenantId'))
      scoped = { ...scoped, cursor: { ...cursor, tenantId } as Where };
  }
  for (const key of ['select', 'include'] as const) {
    const selection = args[key];
    if (!selection) continue;
    let copy: Selection | undefined;
    for (const [name, value] of Object.entries(selection)) {
      const rel = modelOf(model).byName.get(name);
      if (typeof value !== 'object' || rel?.kind !== 'object') continue;
      const inner = scopedCursor(rel.type, value, tenantId);
      if (inner !== value) {
        copy ??= { ...selection };
        copy[name] = inner;
      }
    }
    if (copy) scoped = { ...scoped, [key]: copy };
  }
  return scoped;
}

/**
 * `prisma.<model>.findMany(args)`: in one raw statement when this reader translates the arguments,
 * else by Prisma. For reads outside a transaction (the raw statement takes a pool connection).
 */
export async function findManyRows<T>(prisma: Prisma, model: string, prismaArgs: object): Promise<T[]> {
  // Prisma's own argument type for the model; anything this reader does not know makes it unsupported.
  const args = scopedCursor(model, prismaArgs as RawFindManyArgs);
  const full = { ...args, where: args.where ?? {} };
  const rows = await runRaw<T>(prisma, model, full, planFor);
  return rows ?? ((await delegateOf(prisma, model).findMany(args)) as T[]);
}

/** `prisma.<model>.findFirst(args)`: findManyRows with `take: 1`, the row or null. */
export async function findFirstRow<T>(prisma: Prisma, model: string, prismaArgs: object): Promise<T | null> {
  const [row] = await findManyRows<T>(prisma, model, { ...prismaArgs, take: 1 });
  return row ?? null;
}

function countPlanFor(model: string, where: Where): Plan | null {
  return cachedPlan(countPlans, `${model}|${whereShape(where)}`, () => {
    const st = new Statement();
    const a = st.alias();
    const conds = whereSql(model, a, where, st, (x) => x.where);
    const sql = `SELECT count(*)::int AS n FROM ${q(model)} ${a}${conds.length ? ` WHERE ${conds.join(' AND ')}` : ''}`;
    return { sql, params: st.params, decode: () => {} };
  });
}

/** `prisma.<model>.count({ where })` in one raw statement when the filter translates, else by Prisma. */
export async function countRows(prisma: Prisma, model: string, prismaWhere: object): Promise<number> {
  const where = prismaWhere as Where;
  const p = countPlanFor(model, where);
  if (!p) return delegateOf(prisma, model).count({ where });
  const [row] = await runPlan<{ n: number }>(prisma, p, { where });
  return row?.n ?? 0;
}

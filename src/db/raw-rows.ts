// Reads a model's rows with one raw SQL statement and returns what Prisma's findMany returns for
// the same arguments (keys, JS types, nested relations), skipping Prisma's per-value decoding.
// Everything is derived from the Prisma models (the DMMF), so a new column is read without a change
// here; test/raw-rows.test.ts compares the rows with Prisma's own on both databases.
// Supported arguments: `where` (equality, null, `in`), `orderBy` (scalar, or a scalar of a to-one
// relation), `include`/`select` (scalars, to-one and to-many relations with their own `where`,
// `orderBy`, `select`, `include`). Anything else throws: callers use Prisma for it.
import { getDatamodel } from '../generated/prisma/pothos-types.js';
import { type Prisma, rawRowsOf } from './database.js';

interface Field {
  name: string;
  kind: string;
  type: string;
  isList: boolean;
  isId: boolean;
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
}
type Selection = Record<string, boolean | RelationArgs | undefined>;
export interface RawFindManyArgs {
  where: Where;
  orderBy?: OrderBy | OrderBy[];
  select?: Selection;
  include?: Selection;
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
    throw new Error(`Relation ${model}.${rel.name} is not supported.`);
  const fk = (back[0] as Field).relationFromFields?.[0] as string;
  return `${child}.${q(fk)} = ${parent}.${q(idField(model))}`;
}

function whereSql(model: string, alias: string, where: Where, st: Statement, get: Get<Where>): string[] {
  return Object.entries(where).map(([name, value]) => {
    const f = field(model, name);
    if (f.kind === 'object') throw new Error(`Filtering on relation ${model}.${name} is not supported.`);
    const col = `${alias}.${q(name)}`;
    if (value === null) return `${col} IS NULL`;
    if (typeof value === 'object' && !(value instanceof Date)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === 'in')
        return `${col} = ANY(${st.param((a) => (get(a)[name] as { in: unknown[] }).in)})`;
      throw new Error(`Filter ${JSON.stringify(keys)} on ${model}.${name} is not supported.`);
    }
    return `${col} = ${st.param((a) => get(a)[name])}`;
  });
}

function orderSql(model: string, alias: string, orderBy: OrderBy | OrderBy[], st: Statement): string[] {
  const dir = (d: unknown) => {
    if (d !== 'asc' && d !== 'desc') throw new Error(`Order ${JSON.stringify(d)} is not supported.`);
    return d === 'desc' ? 'DESC' : 'ASC';
  };
  return (Array.isArray(orderBy) ? orderBy : [orderBy]).flatMap((o) =>
    Object.entries(o).map(([name, d]) => {
      const f = field(model, name);
      if (f.kind !== 'object') return `${alias}.${q(name)} ${dir(d)}`;
      const entries = Object.entries(d as Record<string, unknown>);
      if (f.isList || entries.length !== 1) throw new Error(`Order by ${model}.${name} is not supported.`);
      const [sub, subDir] = entries[0] as [string, unknown];
      if (field(f.type, sub).kind === 'object')
        throw new Error(`Order by ${model}.${name}.${sub} is not supported.`);
      const c = st.alias();
      return `(SELECT ${c}.${q(sub)} FROM ${q(f.type)} ${c} WHERE ${joinCondition(model, f, alias, c)}) ${dir(subDir)}`;
    }),
  );
}

/** The fields a selection reads: `select` as given, else every scalar plus `include`'s relations. */
const ARG_KEYS = new Set(['where', 'orderBy', 'select', 'include']);

/** The fields a selection reads (`select` as given, else every scalar plus `include`'s relations), with where each one's arguments are. */
function selected(
  model: string,
  args: RelationArgs,
  get: Get<RelationArgs>,
): [Field, RelationArgs, Get<RelationArgs>][] {
  const unknown = Object.keys(args).filter((k) => !ARG_KEYS.has(k));
  if (unknown.length > 0) throw new Error(`Arguments ${unknown.join(', ')} on ${model} are not supported.`);
  if (args.select && args.include) throw new Error('select and include together are not supported.');
  const key = args.select ? 'select' : 'include';
  const sel: Selection = args.select ?? {
    ...Object.fromEntries(modelOf(model).scalars.map((n) => [n, true])),
    ...args.include,
  };
  return Object.entries(sel)
    .filter(([, v]) => v !== false && v !== undefined)
    .map(([name, v]) => {
      const f = field(model, name);
      if (f.kind !== 'object' && !SUPPORTED.has(f.type))
        throw new Error(`${model}.${name} (${f.type}) is not supported.`);
      if (f.kind !== 'object' && f.isList && (f.type === 'DateTime' || f.type === 'BigInt'))
        throw new Error(`${model}.${name} (${f.type}[]) is not supported.`);
      const sub: Get<RelationArgs> = (a) =>
        (get(a)[key] as Record<string, RelationArgs>)[name] as RelationArgs;
      return [f, v === true ? {} : (v as RelationArgs), sub];
    });
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
  const conds = [
    joinCondition(model, rel, parent, c),
    ...whereSql(rel.type, c, args.where ?? {}, st, (a) => get(a).where as Where),
  ];
  const from = `FROM ${q(rel.type)} ${c} WHERE ${conds.join(' AND ')}`;
  if (!rel.isList) {
    if (args.where || args.orderBy)
      throw new Error(`Arguments on to-one ${model}.${rel.name} are not supported.`);
    return { sql: `(SELECT ${obj.sql} ${from})`, decode: obj.decode };
  }
  const order = args.orderBy ? ` ORDER BY ${orderSql(rel.type, c, args.orderBy, st).join(', ')}` : '';
  const one = obj.decode;
  return {
    sql: `COALESCE((SELECT json_agg(${obj.sql}${order}) ${from}), '[]'::json)`,
    decode: one && ((v) => (v as unknown[]).map(one)),
  };
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
    if (f.kind === 'object') {
      const r = relationJson(model, f, rel, alias, st, sub);
      sql = r.sql;
      if (r.decode) decoders.push([f.name, r.decode]);
    } else if (f.type === 'DateTime') {
      // Milliseconds since the epoch: exact for timestamptz, and `date`/`timestamp` read as UTC.
      sql = `floor(extract(epoch from ${sql}) * 1000)::float8`;
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
}

/** The statement of a findMany on `model` (values as parameters) and the decoding its rows still need. */
function plan(model: string, args: RawFindManyArgs): Plan {
  const st = new Statement();
  const a = st.alias();
  const cols: string[] = [];
  const decoders: [string, Decode][] = [];
  for (const [f, rel, sub] of selected(model, args, (x) => x)) {
    if (f.kind !== 'object') {
      // The driver decodes scalars itself (src/db/database.ts sets the parsers Prisma's types need).
      cols.push(`${a}.${q(f.name)}`);
      continue;
    }
    const r = relationJson(model, f, rel, a, st, sub);
    cols.push(`${r.sql} AS ${q(f.name)}`);
    if (r.decode) decoders.push([f.name, r.decode]);
  }
  const where = whereSql(model, a, args.where, st, (x) => x.where);
  const order = args.orderBy ? orderSql(model, a, args.orderBy, st) : [];
  const sql =
    `SELECT ${cols.join(', ')} FROM ${q(model)} ${a}` +
    (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
    (order.length ? ` ORDER BY ${order.join(', ')}` : '');
  return {
    sql,
    params: st.params,
    decode: (row) => {
      for (const [k, d] of decoders) row[k] = d(row[k]);
    },
  };
}

/** What decides a statement's text: the arguments with their filter values left out. */
function shapeKey(args: RelationArgs): string {
  let key = '';
  for (const [k, v] of Object.entries(args)) {
    if (k === 'where') {
      key += 'w(';
      for (const [name, value] of Object.entries(v as Where)) {
        const kind =
          value === null
            ? 'null'
            : typeof value === 'object' && !(value instanceof Date)
              ? Object.keys(value)
              : '=';
        key += `${name}:${kind};`;
      }
      key += ')';
    } else if (k === 'select' || k === 'include') {
      key += `${k}(`;
      for (const [name, sub] of Object.entries(v as Selection))
        key += `${name}:${typeof sub === 'object' && sub !== null ? shapeKey(sub) : String(sub)};`;
      key += ')';
    } else key += `${k}:${JSON.stringify(v)};`;
  }
  return key;
}

// One plan per call site's shape (a handful), so a request only fills in its values.
const plans = new Map<string, Plan>();
const MAX_PLANS = 1000;

/** The statement of a findMany on `model`, its parameters and the decoding its rows still need. */
export function rawFindManySql(
  model: string,
  args: RawFindManyArgs,
): { sql: string; params: unknown[]; decode: (row: Record<string, unknown>) => void } {
  const key = `${model}|${shapeKey(args)}`;
  let p = plans.get(key);
  if (!p) {
    p = plan(model, args);
    if (plans.size >= MAX_PLANS) plans.clear();
    plans.set(key, p);
  }
  return { sql: p.sql, params: p.params.map((get) => get(args)), decode: p.decode };
}

/**
 * Prisma's `findMany(args)` on `model` in one raw statement. `T` is the caller's Prisma payload type
 * (e.g. `Prisma.GuestGetPayload<…>` for the same args); test/raw-rows.test.ts holds it to that.
 */
export async function rawFindMany<T>(prisma: Prisma, model: string, args: RawFindManyArgs): Promise<T[]> {
  const { sql, params, decode } = rawFindManySql(model, args);
  const rows = await rawRowsOf(prisma)<Record<string, unknown>>(sql, params);
  for (const row of rows) decode(row);
  return rows as T[];
}

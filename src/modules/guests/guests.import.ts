// Bulk import of guests (issue 17, beyond the spec): `POST /guests/import`, GraphQL `importGuests`
// and `admin import guests`. Every row is checked by the create rules (guests.inputs.ts) with its
// messages keyed `rows.<index>.<field>` as Laravel words nested attributes; the rules' look-ups
// (location, e-mail taken) and the upsert's matches are loaded for all rows at once, and the rows
// are written in multi-row statements inside one transaction. `all_or_nothing` stores nothing when a
// row fails; `skip_invalid` stores the others. Validated outside `execute`, like the ingest batches:
// each row on its own.
import { randomBytes } from 'node:crypto';
import { type Action, authorize, hasPermission } from '../../auth/permissions.js';
import type { Scope } from '../../auth/principal.js';
import type { Config } from '../../config.js';
import type { AppContext } from '../../context.js';
import type { Prisma } from '../../db/database.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { isWriteConflict } from '../../db/write-conflict.js';
import { serviceUnavailable } from '../../errors.js';
import { changeEvent } from '../../events/audit.js';
import {
  actorOf,
  announceEvents,
  type EventActor,
  type NewEvent,
  type RecordedEvent,
  recordEvents,
} from '../../events/outbox.js';
import { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { getDatamodel } from '../../generated/prisma/pothos-types.js';
import { type Fields, rulesOf } from '../../operations/operation.js';
import { countryName } from '../../validation/countries.js';
import {
  array,
  custom,
  DUPLICATE_VALUE,
  elementAttribute,
  type FieldErrors,
  inList,
  laravelInput,
  max,
  nullable,
  type Rule,
  required,
  rules,
  string,
  ValidationError,
  validate,
} from '../../validation/validator.js';
import { newId } from '../ingest/ingest.batch.js';
import { MAX_ROW_FIELDS, UnreadableRow } from './guests.import.source.js';
import { type GuestLookups, guestWriteFields } from './guests.inputs.js';
import { guestDetailItem, tagNames } from './guests.serializer.js';
import {
  type GuestRow,
  type GuestWriteInput,
  guestAuditView,
  guestChanged,
  MANAGE_GLOBAL,
  toColumns,
} from './guests.service.js';

export const IMPORT_ACTION = 'guests.import' satisfies Action;

/** Rows of one REST or GraphQL import (the CLI takes any number). */
export const MAX_IMPORT_ROWS = 50_000;
export const IMPORT_MODES = ['all_or_nothing', 'skip_invalid'] as const;
export const UPSERT_KEYS = ['email', 'partner_id'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];
export type UpsertKey = (typeof UPSERT_KEYS)[number];

/** The import's options, on REST (query, form or body) and GraphQL alike. */
export const importOptionRules = rules({
  mode: [nullable(), string(), inList(IMPORT_MODES)],
  upsert_by: [nullable(), string(), inList(UPSERT_KEYS)],
});

export const IMPORT_DESCRIPTIONS = {
  rows: `The guests (at most ${MAX_IMPORT_ROWS}), each with the fields of a guest create and checked by its rules; \`avatar\` is refused`,
  mode: '`all_or_nothing` (default): a refused row stores nothing (a validation error names every refused row); `skip_invalid`: the other rows are stored and the refused ones answered in `errors`',
  upsert_by:
    '`email` (compared case-insensitively) or `partner_id`: a row matching a guest of the tenant updates it (the fields the row sends); without it every row creates a guest',
} as const;

/** The body's rules as the OpenAPI document shows them (`rows` is checked by `importRequest`). */
export const importBodyRules = rules({
  rows: [required(), array(), max(MAX_IMPORT_ROWS)],
  ...importOptionRules,
});

export interface ImportOptions {
  mode: ImportMode;
  upsertBy: UpsertKey | null;
}

export interface ImportSummary {
  created: number;
  updated: number;
  /** Rows refused (skip_invalid). */
  skipped: number;
  /** Each refused row's messages, keyed `rows.N.field` (`rows.N` for the row itself), by row. */
  errors: FieldErrors;
}

export interface ImportProgress {
  phase: 'checking' | 'storing';
  done: number;
  total: number;
}

/** Who imports: the scope rows must stay in, and whether a matched guest may change location. */
export interface ImportEnv {
  prisma: Prisma;
  scope: Scope;
  /** `guests.manage-global` (and not pinned): an upsert may move a guest to another location. */
  mayMoveGuests: boolean;
  /** Who the stored rows' `guest.created` / `guest.updated` events and audit entries name. */
  actor: EventActor;
  /** For the events' payloads (the avatar's URL). */
  config: Pick<Config, 'appUrl'>;
  progress?: (p: ImportProgress) => void;
}

// ---------------------------------------------------------------------------------------------
// The request

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof UnreadableRow);

/**
 * The envelope as Laravel's `rows => required|list|max:50000` and the options' rules judge it, in one
 * 422. `rows` is checked here rather than by `validate`, which would judge the rows' text as one
 * field (a NUL character in one row would refuse the whole import instead of that row).
 */
export async function importRequest(
  raw: Readonly<Record<string, unknown>>,
): Promise<{ rows: readonly unknown[]; options: ImportOptions }> {
  const errors: FieldErrors = {};
  const rows = raw.rows;
  const empty =
    rows === undefined ||
    rows === null ||
    (typeof rows === 'string' && rows.trim() === '') ||
    (Array.isArray(rows) && rows.length === 0) ||
    (isRecord(rows) && Object.keys(rows).length === 0);
  if (empty) errors.rows = ['The rows field is required.'];
  else if (!Array.isArray(rows)) errors.rows = ['The rows field must be a list.'];
  else if (rows.length > MAX_IMPORT_ROWS)
    errors.rows = [`The rows field must not have more than ${MAX_IMPORT_ROWS} items.`];
  let options: ImportOptions = { mode: 'all_or_nothing', upsertBy: null };
  try {
    const valid = await validate({ mode: raw.mode, upsert_by: raw.upsert_by }, importOptionRules);
    // `inList` let only these words through.
    options = {
      mode: (valid.mode ?? 'all_or_nothing') as ImportMode,
      upsertBy: (valid.upsert_by ?? null) as UpsertKey | null,
    };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    Object.assign(errors, err.errors);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { rows: rows as unknown[], options };
}

/** REST's and GraphQL's import: authorized, checked, stored (or refused). */
export async function importGuests(
  ctx: AppContext,
  raw: Readonly<Record<string, unknown>>,
): Promise<ImportSummary> {
  const scope = authorize(ctx.principal, IMPORT_ACTION);
  const { rows, options } = await importRequest(raw);
  const mayMoveGuests = hasPermission(ctx.principal, MANAGE_GLOBAL) && !scope.locationId;
  return runGuestImport(
    { prisma: ctx.prisma, scope, mayMoveGuests, actor: actorOf(ctx), config: ctx.config },
    rows,
    options,
  );
}

// ---------------------------------------------------------------------------------------------
// Checking every row

/** Laravel's display name of a row's field: `rows.3.location_id`, raw (elementAttribute). */
const attribute = (index: number, field: string): string => elementAttribute(`rows.${index}`, field);

/** A guest an upsert row may update. */
interface Match {
  id: string;
  locationId: string;
  firstName: string | null;
  lastName: string | null;
}

/** What the rules and the upsert read, loaded for all rows in three statements. */
interface Loaded {
  locations: Set<string>;
  /** Each e-mail as sent → its key as the unique index compares it (PostgreSQL's `lower`). */
  emailKey: Map<string, string>;
  /** E-mail key → the tenant's guest holding it. */
  emailOwner: Map<string, Match>;
  /** Partner id → the guests in reach carrying it (upsert_by partner_id). */
  partners: Map<string, Match[]>;
}

/** Distinct strings of one field over the rows, without NUL characters (PostgreSQL cannot compare them). */
function valuesOf(inputs: readonly (Record<string, unknown> | null)[], field: string): string[] {
  const out = new Set<string>();
  for (const input of inputs) {
    const v = input?.[field];
    if (typeof v === 'string' && !v.includes('\0')) out.add(v);
  }
  return [...out];
}

async function load(
  env: ImportEnv,
  inputs: readonly (Record<string, unknown> | null)[],
  options: ImportOptions,
): Promise<Loaded> {
  const { prisma, scope } = env;
  const tenantId = scope.tenantId;
  const locationIds = valuesOf(inputs, 'location_id');
  const emails = valuesOf(inputs, 'email');
  const partnerIds = options.upsertBy === 'partner_id' ? valuesOf(inputs, 'partner_id') : [];
  // As the create rule's `exists`: any location of the tenant (a pinned caller's reach is checked apart).
  const locations = locationIds.length
    ? await prisma.$queryRaw<{ id: string }[]>`
        SELECT "id" FROM "Location" WHERE "tenantId" = ${tenantId} AND "id" = ANY(${locationIds}::text[])`
    : [];
  // As the unique index compares (lower(email) within the tenant): each e-mail's key and its holder.
  const owners = emails.length
    ? await prisma.$queryRaw<
        {
          given: string;
          key: string;
          id: string | null;
          locationId: string | null;
          firstName: string | null;
          lastName: string | null;
        }[]
      >`
        SELECT v.given, lower(v.given) AS key, g."id", g."locationId", g."firstName", g."lastName"
        FROM unnest(${emails}::text[]) AS v(given)
        LEFT JOIN "Guest" g
          ON g."tenantId" = ${tenantId} AND g."email" IS NOT NULL AND lower(g."email") = lower(v.given)`
    : [];
  // Partner ids are not unique: every guest in the caller's reach that carries one.
  const partnerRows = partnerIds.length
    ? await prisma.$queryRaw<(Match & { partnerId: string })[]>`
        SELECT "id", "locationId", "firstName", "lastName", "partnerId" FROM "Guest"
        WHERE "tenantId" = ${tenantId} AND "erasedAt" IS NULL AND "partnerId" = ANY(${partnerIds}::text[])
          AND (${scope.locationId}::text IS NULL OR "locationId" = ${scope.locationId}::text)`
    : [];
  const loaded: Loaded = {
    locations: new Set(locations.map((l) => l.id)),
    emailKey: new Map(),
    emailOwner: new Map(),
    partners: new Map(),
  };
  for (const o of owners) {
    loaded.emailKey.set(o.given, o.key);
    if (o.id !== null && o.locationId !== null) {
      loaded.emailOwner.set(o.key, {
        id: o.id,
        locationId: o.locationId,
        firstName: o.firstName,
        lastName: o.lastName,
      });
    }
  }
  for (const p of partnerRows) {
    const list = loaded.partners.get(p.partnerId) ?? [];
    list.push(p);
    loaded.partners.set(p.partnerId, list);
  }
  return loaded;
}

/** How many rows carry each key (`distinct`: every row sharing one with another is refused). */
function tally(keys: Iterable<string | undefined>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** Laravel's `prohibited`: the field must be absent or empty (an import stores no avatar files). */
const prohibited: Rule = {
  name: 'prohibited',
  implicit: true,
  doc: { description: 'Prohibited in an import.' },
  check: (value, ctx) =>
    value === undefined || value === null || (Array.isArray(value) && value.length === 0)
      ? null
      : `The ${ctx.attribute} field is prohibited.`,
};

/**
 * Columns a guest export writes (the list item's keys) for a create field named otherwise, so that an
 * export reads back as written: each is judged by its field's rules under its own name and stored as
 * that field. The export writes a country's name beside its code: a row with both must agree.
 */
export const EXPORT_COLUMNS = {
  nationality_code: 'nationality',
  residency_code: 'residency',
  room_number: 'room_no',
  receive_marketing: 'marketing_consent',
} as const;
type ExportColumn = keyof typeof EXPORT_COLUMNS;

/**
 * Laravel's `same` between a field and its export column, when both are sent: the same value, or
 * for a country the code's English name (`Spain` beside `ES`). Implicit, to catch a null beside a value.
 */
function agreesWith(column: ExportColumn): Rule {
  const country = column === 'nationality_code' || column === 'residency_code';
  const name = country ? 'its code or the code’s English name' : 'the same value';
  return {
    name: 'same',
    implicit: true,
    doc: { description: `With \`${column}\` (a guest export's column) too: ${name}.` },
    check: (value, ctx) => {
      const other = ctx.input[column];
      if (value === undefined || other === undefined || value === other) return null;
      // A CSV cell is text, a JSON value a number: `1` and "1" are the same room or consent.
      if (!country && value !== null && other !== null && String(value) === String(other)) return null;
      if (country && typeof other === 'string' && value === countryName(other)) return null;
      return `The ${ctx.attribute} field must match ${ctx.attributeOf(column)}.`;
    },
  };
}

/** A field's own rules yield to its export column's when both are sent (the column holds the value). */
const unlessColumnSent = (column: ExportColumn, rule: Rule): Rule => ({
  ...rule,
  check: (value, ctx) => (ctx.input[column] !== undefined ? null : rule.check(value, ctx)),
});

/** A validated row with its export columns stored as their fields. */
function withExportColumns(valid: Record<string, unknown>): GuestWriteInput {
  for (const [column, target] of Object.entries(EXPORT_COLUMNS)) {
    if (!(column in valid)) continue;
    valid[target] = valid[column];
    delete valid[column];
  }
  // The create rules' output (guestWriteFields infers it): the columns now hold their fields' values.
  return valid as GuestWriteInput;
}

/** A row's rules: the create rules with the import's look-ups, `distinct` keys and no avatar. */
export function importRowFields(
  env: Pick<ImportEnv, 'prisma' | 'scope'>,
  extra: {
    lookups?: GuestLookups;
    /** Whether another row carries the same e-mail (compared as the unique index does). */
    emailRepeated?: (email: string) => boolean;
    /** With upsert_by partner_id: another row carries it, or it matches several guests. */
    partnerIdProblem?: (partnerId: string) => string | null;
  } = {},
): Fields {
  const fields = guestWriteFields({
    prisma: env.prisma,
    scope: env.scope,
    mode: 'create',
    ...(extra.lookups ? { lookups: extra.lookups } : {}),
  });
  const { emailRepeated, partnerIdProblem } = extra;
  const exported: Fields = {};
  for (const [column, target] of Object.entries(EXPORT_COLUMNS) as [ExportColumn, string][]) {
    const own = fields[target as keyof typeof fields];
    exported[target] = {
      ...own,
      rules: [agreesWith(column), ...own.rules.map((r) => unlessColumnSent(column, r))],
    };
    exported[column] = { rules: own.rules };
  }
  return {
    ...fields,
    ...exported,
    email: emailRepeated
      ? {
          ...fields.email,
          rules: [...fields.email.rules, custom((v) => (emailRepeated(String(v)) ? DUPLICATE_VALUE : null))],
        }
      : fields.email,
    partner_id: partnerIdProblem
      ? {
          ...fields.partner_id,
          rules: [...fields.partner_id.rules, custom((v) => partnerIdProblem(String(v)))],
        }
      : fields.partner_id,
    avatar: {
      rules: [prohibited],
      description: 'Not taken by an import (`The rows.N.avatar field is prohibited.`)',
    },
  };
}

/** A row that passed: a guest to create, or (upsert) one to update. */
interface Plan {
  index: number;
  locationId: string;
  columns: ReturnType<typeof toColumns>;
  /** Tag names to set; undefined leaves them (an update's `null` clears them: []). */
  tags: string[] | undefined;
  tagType: number | null;
  /** The guest updated; absent for a new one. */
  id?: string;
  /** A new guest's username (its e-mail, or `guest-` and ten hex digits). */
  username?: string;
}

interface Checked {
  plans: Plan[];
  /** Messages of each refused row, by index. */
  errors: Map<number, FieldErrors>;
}

/** Rows checked between two progress reports (and two turns of the event loop for other requests). */
const PROGRESS_EVERY = 500;

/** A row with more fields than any guest has (counted without building a list of a million keys). */
function tooWide(row: Record<string, unknown>): boolean {
  let n = 0;
  for (const _ in row) if (++n > MAX_ROW_FIELDS) return true;
  return false;
}

async function checkRows(env: ImportEnv, rows: readonly unknown[], options: ImportOptions): Promise<Checked> {
  const inputs = rows.map((r) => (isRecord(r) && !tooWide(r) ? laravelInput(r) : null));
  const loaded = await load(env, inputs, options);
  const emailKeyOf = (input: Record<string, unknown> | null): string | undefined => {
    const v = input?.email;
    return typeof v === 'string' ? loaded.emailKey.get(v) : undefined;
  };
  const partnerOf = (input: Record<string, unknown> | null): string | undefined => {
    const v = input?.partner_id;
    return options.upsertBy === 'partner_id' && typeof v === 'string' ? v : undefined;
  };
  const emailCounts = tally(inputs.map(emailKeyOf));
  const partnerCounts = tally(inputs.map(partnerOf));
  const inReach = (m: Match): boolean => !env.scope.locationId || m.locationId === env.scope.locationId;

  // The row being checked, which the rules below read. Rows are checked one at a time (each
  // `validate` ends before the next begins), so one set of rules serves them all: building the
  // create rules anew for each of 10 000 rows cost more than checking them.
  let row: {
    emailKey: string | undefined;
    emailOwner: Match | undefined;
    partnerId: string | undefined;
    partnerMatches: Match[];
    target: Match | undefined;
  };
  const fields = importRowFields(env, {
    lookups: {
      locationExists: async (id) =>
        loaded.locations.has(id) && (!env.scope.locationId || id === env.scope.locationId),
      // Held by another guest than the one this row updates (outside a pinned caller's reach: taken).
      emailTaken: async () => row.emailOwner !== undefined && row.emailOwner.id !== row.target?.id,
    },
    emailRepeated: () => row.emailKey !== undefined && (emailCounts.get(row.emailKey) ?? 0) > 1,
    ...(options.upsertBy === 'partner_id'
      ? {
          partnerIdProblem: () =>
            row.partnerId !== undefined && (partnerCounts.get(row.partnerId) ?? 0) > 1
              ? DUPLICATE_VALUE
              : row.partnerMatches.length > 1
                ? 'The :attribute field matches more than one guest.'
                : null,
        }
      : {}),
  });
  const list = rulesOf(fields);

  const errors = new Map<number, FieldErrors>();
  const plans: Plan[] = [];
  for (const [index, input] of inputs.entries()) {
    if (index % PROGRESS_EVERY === 0) {
      env.progress?.({ phase: 'checking', done: index, total: rows.length });
      // The rules' awaits resolve at once: let other requests run between batches of rows.
      if (index > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    if (!input) {
      const raw = rows[index];
      const message =
        raw instanceof UnreadableRow
          ? raw.message
          : isRecord(raw)
            ? `The :attribute field must not have more than ${MAX_ROW_FIELDS} fields.`
            : 'The :attribute field must be an object.';
      errors.set(index, { [`rows.${index}`]: [message.replace(':attribute', `rows.${index}`)] });
      continue;
    }
    // The guest this row updates, if any (upsert).
    const emailKey = emailKeyOf(input);
    const emailOwner = emailKey === undefined ? undefined : loaded.emailOwner.get(emailKey);
    const partnerId = partnerOf(input);
    const partnerMatches = partnerId === undefined ? [] : (loaded.partners.get(partnerId) ?? []);
    let target: Match | undefined;
    if (options.upsertBy === 'email' && emailOwner && inReach(emailOwner)) target = emailOwner;
    if (options.upsertBy === 'partner_id' && partnerMatches.length === 1) target = partnerMatches[0];
    row = { emailKey, emailOwner, partnerId, partnerMatches, target };

    let valid: GuestWriteInput;
    try {
      // `avatar` is never present here.
      valid = withExportColumns(await validate(input, list, { element: `rows.${index}` }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      errors.set(
        index,
        Object.fromEntries(Object.entries(err.errors).map(([f, m]) => [`rows.${index}.${f}`, m])),
      );
      continue;
    }
    // As `PUT /guests/:id`: moving a guest to another location needs guests.manage-global.
    if (target && valid.location_id !== target.locationId && !env.mayMoveGuests) {
      errors.set(index, {
        [`rows.${index}.location_id`]: [
          `The ${attribute(index, 'location_id')} field cannot move a guest to another location without the guests.manage-global permission.`,
        ],
      });
      continue;
    }
    plans.push(planOf(index, valid, target));
  }
  env.progress?.({ phase: 'checking', done: rows.length, total: rows.length });
  return { plans, errors };
}

function planOf(index: number, valid: GuestWriteInput, target: Match | undefined): Plan {
  const tagType = valid.tag_type ?? null;
  if (target) {
    return {
      index,
      id: target.id,
      locationId: valid.location_id,
      columns: toColumns(valid, target),
      tags: 'tags' in valid ? (valid.tags ?? []) : undefined,
      tagType,
    };
  }
  const email = valid.email ?? null;
  return {
    index,
    locationId: valid.location_id,
    columns: toColumns(valid, null),
    tags: Array.isArray(valid.tags) ? valid.tags : undefined,
    tagType,
    username: email ?? `guest-${randomBytes(5).toString('hex')}`,
  };
}

/** The refused rows' messages as one Laravel `errors` object, row by row. */
function flatten(errors: Map<number, FieldErrors>): FieldErrors {
  const out: FieldErrors = {};
  for (const index of [...errors.keys()].sort((a, b) => a - b)) Object.assign(out, errors.get(index));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Storing

/**
 * Checks and stores the rows: in `all_or_nothing` a refused row makes the whole import a 422 (every
 * refused row's messages) with nothing stored. The writes run in one transaction; should another
 * request store one of the e-mails meanwhile (the unique index refuses the write), or erase a guest
 * a row matched, or PostgreSQL end the transaction for a deadlock, the import is checked again once:
 * that row is then answered as taken, or creates.
 */
export async function runGuestImport(
  env: ImportEnv,
  rows: readonly unknown[],
  options: ImportOptions,
): Promise<ImportSummary> {
  for (let attempt = 1; ; attempt++) {
    const { plans, errors } = await checkRows(env, rows, options);
    if (errors.size > 0 && options.mode === 'all_or_nothing') throw new ValidationError(flatten(errors));
    try {
      const stored = await store(env, plans);
      return { ...stored, skipped: errors.size, errors: flatten(errors) };
    } catch (err) {
      // A deadlock the lock order above does not foresee ended the transaction whole: run it again.
      if (!isUniqueViolation(err) && !(err instanceof MatchErased) && !isWriteConflict(err)) throw err;
      // Twice raced: the caller may retry; nothing was stored.
      if (attempt === 2) throw serviceUnavailable(err);
    }
  }
}

/** A row's matched guest was erased between the check and the write (store's transaction rolls back). */
class MatchErased extends Error {}

/**
 * Rows per statement. Prisma keeps the text of its last 100 raw statements with their parameters
 * (its debug history, kept whether or not debugging is on), about 2.5 KB a row here: at 2 000 rows a
 * statement that held ~500 MB through an import, and a 50 000-row import needed more than a 256 MB
 * heap (probe I). At 500 it fits one, in the same time.
 */
const CHUNK = 500;

type SqlType = 'text' | 'smallint' | 'date';
type GuestColumns = ReturnType<typeof toColumns>;

/** The SQL type of every column a guest write sets (toColumns' keys, no more, no fewer). */
const COLUMN_TYPES = {
  phone: 'text',
  passportNo: 'text',
  nationalityCode: 'text',
  residencyCode: 'text',
  reservationNo: 'text',
  partnerId: 'text',
  hotelStatus: 'smallint',
  customField1: 'text',
  customField2: 'text',
  customField3: 'text',
  directLogin: 'smallint',
  receiveMarketing: 'smallint',
  email: 'text',
  birthDate: 'date',
  gender: 'smallint',
  roomNo: 'text',
  customData: 'text',
  name: 'text',
  firstName: 'text',
  lastName: 'text',
} as const satisfies Record<keyof GuestColumns, SqlType>;

type Column = keyof typeof COLUMN_TYPES;
const COLUMNS = Object.keys(COLUMN_TYPES) as Column[];

/** What a new guest holds in a NOT NULL column its row leaves out (the schema's defaults). */
const INSERT_DEFAULTS: Partial<Record<Column, string>> = {
  name: "''",
  gender: '0',
  directLogin: '0',
  receiveMarketing: '0',
};

const ident = (name: string) => PrismaNS.raw(`"${name}"`);

/** A column's value as its array parameter holds it (dates as `yyyy-mm-dd`). */
function sqlValue(value: unknown): string | number | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return value as string | number;
}

/** `$1::text[]` for one column of the rows. */
const arrayOf = (values: (string | number | null)[], type: string) =>
  PrismaNS.sql`${values}::${PrismaNS.raw(type)}[]`;

type Tx = PrismaNS.TransactionClient;

async function store(env: ImportEnv, plans: Plan[]): Promise<{ created: number; updated: number }> {
  if (plans.length === 0) return { created: 0, updated: 0 };
  const tenantId = env.scope.tenantId;
  const creates = plans.filter((p) => p.id === undefined);
  const updates = plans.filter((p) => p.id !== undefined);
  const total = plans.length;
  let done = 0;
  const advance = async (n: number): Promise<void> => {
    // A turn of the event loop between chunks, as between batches of rows checked: PGlite answers
    // without one, and the CLI hears its Ctrl-C in one (its progress then throws: nothing is stored).
    await new Promise((resolve) => setImmediate(resolve));
    done += n;
    env.progress?.({ phase: 'storing', done, total });
  };
  env.progress?.({ phase: 'storing', done: 0, total });
  const recorded: RecordedEvent[] = [];
  const result = await env.prisma.$transaction(
    async (tx) => {
      // The matched guests first, before the tenant's event sequence (ImportEvents): a writer of one
      // of them (an erasure, a PUT) holds its row and then waits for that sequence, so taking them
      // the other way round was a deadlock, and PostgreSQL ended the import (probe D).
      await lockGuests(tx, tenantId, updates);
      const events = new ImportEvents(tx, env, recorded);
      for (let i = 0; i < creates.length; i += CHUNK) {
        const chunk = creates.slice(i, i + CHUNK);
        await insertGuests(tx, tenantId, chunk);
        await setTags(tx, tenantId, chunk);
        await events.record(null, chunk);
        await advance(chunk.length);
      }
      let updated = 0;
      for (const group of bySentColumns(updates)) {
        for (let i = 0; i < group.plans.length; i += CHUNK) {
          const chunk = group.plans.slice(i, i + CHUNK);
          const before = await events.read(chunk);
          // As an update is judged (guestChanged): a row that changes nothing is not written (its
          // `updated_at`, tags, audit log and events stay), but is counted as matched.
          const changing: Plan[] = [];
          for (const p of chunk) {
            const old = p.id === undefined ? undefined : before.get(p.id);
            // Erased since the rows were checked: its e-mail or partner id is free, so the row is
            // checked again (runGuestImport) and then creates a guest, rather than going uncounted.
            if (!old) throw new MatchErased();
            if (guestChanged(old, written(old, p), env.config)) changing.push(p);
            else updated++;
          }
          if (changing.length > 0) {
            // Fewer rows written than matched: an erasure got there first (it waits on none of ours).
            const rows = await updateGuests(tx, tenantId, group.columns, changing);
            if (rows < changing.length) throw new MatchErased();
            updated += rows;
            await setTags(tx, tenantId, changing);
            await events.record(before, changing);
          }
          await advance(chunk.length);
        }
      }
      return { created: creates.length, updated };
    },
    // Long imports are long transactions: each statement still has DB_STATEMENT_TIMEOUT_MS.
    { maxWait: 30_000, timeout: Math.max(120_000, plans.length * 10) },
  );
  announceEvents(recorded);
  return result;
}

/** Locks the rows the updates match, in id order (two imports lock a shared guest in the same order). */
async function lockGuests(tx: Tx, tenantId: string, updates: readonly Plan[]): Promise<void> {
  const ids = updates.map((p) => p.id).filter((id): id is string => id !== undefined);
  for (let i = 0; i < ids.length; i += CHUNK * 5) {
    const chunk = ids.slice(i, i + CHUNK * 5);
    await tx.$executeRaw`SELECT 1 FROM (SELECT "id" FROM "Guest" WHERE "tenantId" = ${tenantId}
      AND "id" = ANY(${chunk}::text[]) ORDER BY "id" FOR UPDATE) locked`;
  }
}

/** The guest as `p` would leave it: the columns its row sends, its location and its tags. */
function written(old: GuestRow, p: Plan): GuestRow {
  const sentColumns = Object.fromEntries(Object.entries(p.columns).filter(([, v]) => v !== undefined));
  // The same names in another order are the same tags (the detail lists them by name).
  const names = tagNames(old);
  const sameTags =
    p.tags === undefined || (p.tags.length === names.length && p.tags.every((n) => names.includes(n)));
  return {
    ...old,
    // toColumns' values as the guest's columns hold them (the undefined ones, not sent, left out).
    ...(sentColumns as Partial<GuestRow>),
    locationId: p.locationId,
    tags: sameTags ? old.tags : (p.tags ?? []).map((name) => ({ tag: { name } })),
  };
}

/** Guest fields JSON carries as text (dates) or numbers (bigints), from the schema. */
const guestFields = (getDatamodel().datamodel.models.Guest?.fields ?? []) as unknown as {
  name: string;
  type: string;
}[];
const GUEST_DATES = guestFields.filter((f) => f.type === 'DateTime').map((f) => f.name);
const GUEST_BIGINTS = guestFields.filter((f) => f.type === 'BigInt').map((f) => f.name);

/**
 * The import's events, chunk by chunk as it writes: each chunk's guests are read back in one
 * statement (REST's detail, as `POST /guests` reads its guest) and their events appended in one
 * more, with the audit entries an API write makes (action `guests.import`). The tenant's event
 * sequence is thereby locked from the first chunk to the commit: the tenant's other event-writing
 * transactions wait for the import (it must commit before them to keep the ids in commit order).
 */
class ImportEvents {
  constructor(
    private readonly tx: Tx,
    private readonly env: ImportEnv,
    private readonly recorded: RecordedEvent[],
  ) {}

  /**
   * The chunk's guests as stored now, by id, in the shape `guestInclude` reads (one raw statement:
   * Prisma's decoding of 2000 wide rows took as long as the import's writes).
   */
  async read(plans: readonly Plan[]): Promise<Map<string, GuestRow>> {
    const tenantId = this.env.scope.tenantId;
    const ids = plans.map((p) => p.id).filter((id): id is string => id !== undefined);
    // Each row as one JSON value: Prisma decodes one column a row instead of ~55 (a third of the
    // import's time went there); the few non-JSON types are restored from the schema's field types.
    const rows = await this.tx.$queryRaw<{ row: Record<string, unknown> }[]>`
      SELECT json_build_object('guest', row_to_json(g), 'locationName', l."name",
        'tagNames', ARRAY(SELECT t."name" FROM "GuestTag" gt JOIN "Tag" t ON t."id" = gt."tagId"
              WHERE gt."guestId" = g."id" AND gt."tenantId" = ${tenantId} ORDER BY t."name")) AS "row"
      FROM "Guest" g JOIN "Location" l ON l."id" = g."locationId"
      WHERE g."tenantId" = ${tenantId} AND g."id" = ANY(${ids}::text[])`;
    const out = new Map<string, GuestRow>();
    for (const { row } of rows) {
      const g = row.guest as Record<string, unknown>;
      for (const f of GUEST_DATES) if (typeof g[f] === 'string') g[f] = new Date(g[f] as string);
      for (const f of GUEST_BIGINTS) if (g[f] !== null && g[f] !== undefined) g[f] = BigInt(g[f] as number);
      const tags = (row.tagNames as string[]).map((name) => ({ tag: { name } }));
      // The JSON has every column of the table, typed back above: the shape guestInclude reads.
      const guest = { ...g, location: { name: row.locationName as string }, tags } as unknown as GuestRow;
      out.set(guest.id, guest);
    }
    return out;
  }

  /** `guest.created` (null `before`) or `guest.updated` for each stored row that changed, in row order. */
  async record(before: Map<string, GuestRow> | null, plans: readonly Plan[]): Promise<void> {
    const after = await this.read(plans);
    const config = this.env.config;
    const view = (g: GuestRow) => guestAuditView(g, config);
    const events: NewEvent[] = [];
    for (const p of plans) {
      const now = p.id === undefined ? undefined : after.get(p.id);
      if (!now) continue; // an update's guest erased meanwhile: nothing stored
      const old = before?.get(now.id);
      const event = changeEvent({
        type: old ? 'guest.updated' : 'guest.created',
        resourceType: 'guest',
        resourceId: now.id,
        action: IMPORT_ACTION,
        payload: guestDetailItem(now, config),
        before: old ? view(old) : null,
        after: view(now),
      });
      if (event) events.push(event);
    }
    if (events.length === 0) return;
    const tenantId = this.env.scope.tenantId;
    this.recorded.push(...(await recordEvents(this.tx, tenantId, this.env.actor, events)));
  }
}

/**
 * New guests in one statement: `created_at` is the transaction's time plus the row's index in
 * microseconds, so the list (oldest first, then id) shows an import in the file's order.
 */
async function insertGuests(tx: Tx, tenantId: string, plans: Plan[]): Promise<void> {
  const ids = plans.map(() => newId());
  plans.forEach((p, i) => {
    p.id = ids[i];
  });
  const columns = COLUMNS.map((c) => ident(c));
  const arrays = COLUMNS.map((c) =>
    arrayOf(
      plans.map((p) => sqlValue(p.columns[c])),
      COLUMN_TYPES[c],
    ),
  );
  const selected = COLUMNS.map((c) => {
    const fallback = INSERT_DEFAULTS[c];
    return fallback ? PrismaNS.raw(`COALESCE(v."${c}", ${fallback})`) : PrismaNS.raw(`v."${c}"`);
  });
  await tx.$executeRaw`
    INSERT INTO "Guest" ("id", "tenantId", "locationId", "username", "createdAt", "updatedAt", ${PrismaNS.join(columns)})
    SELECT v."id", ${tenantId}, v."locationId", v."username",
           now() + v."ord" * interval '1 microsecond', now() + v."ord" * interval '1 microsecond',
           ${PrismaNS.join(selected)}
    FROM unnest(
      ${arrayOf(ids, 'text')}, ${arrayOf(
        plans.map((p) => p.locationId),
        'text',
      )},
      ${arrayOf(
        plans.map((p) => p.username ?? null),
        'text',
      )}, ${arrayOf(
        plans.map((p) => p.index),
        'int',
      )},
      ${PrismaNS.join(arrays)}
    ) AS v("id", "locationId", "username", "ord", ${PrismaNS.join(columns)})`;
}

/** Updates sending the same columns, so one statement sets them for all. */
function bySentColumns(plans: Plan[]): { columns: Column[]; plans: Plan[] }[] {
  const groups = new Map<string, { columns: Column[]; plans: Plan[] }>();
  for (const p of plans) {
    const columns = COLUMNS.filter((c) => p.columns[c] !== undefined);
    const key = columns.join(',');
    const group = groups.get(key) ?? { columns, plans: [] };
    group.plans.push(p);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Matched guests in one statement: the columns their rows sent, and the location. */
async function updateGuests(tx: Tx, tenantId: string, columns: Column[], plans: Plan[]): Promise<number> {
  const sets = [
    PrismaNS.sql`"locationId" = v."locationId"`,
    ...columns.map((c) => PrismaNS.raw(`"${c}" = v."${c}"`)),
    PrismaNS.sql`"updatedAt" = now()`,
  ];
  const arrays = columns.map((c) =>
    arrayOf(
      plans.map((p) => sqlValue(p.columns[c])),
      COLUMN_TYPES[c],
    ),
  );
  const names = [PrismaNS.sql`"id"`, PrismaNS.sql`"locationId"`, ...columns.map((c) => ident(c))];
  return tx.$executeRaw`
    UPDATE "Guest" AS g SET ${PrismaNS.join(sets)}
    FROM unnest(${PrismaNS.join([
      arrayOf(
        plans.map((p) => p.id ?? null),
        'text',
      ),
      arrayOf(
        plans.map((p) => p.locationId),
        'text',
      ),
      ...arrays,
    ])}) AS v(${PrismaNS.join(names)})
    WHERE g."id" = v."id" AND g."tenantId" = ${tenantId} AND g."erasedAt" IS NULL`;
}

/**
 * The tags of the rows that send them, as `syncTags` sets one guest's: missing tags of the tenant are
 * created (with the first row's `tag_type`), an update's links are replaced.
 */
async function setTags(tx: Tx, tenantId: string, plans: Plan[]): Promise<void> {
  const tagged = plans.filter(
    (p): p is Plan & { id: string; tags: string[] } => p.tags !== undefined && !!p.id,
  );
  if (tagged.length === 0) return;
  const replaced = tagged.filter((p) => p.username === undefined).map((p) => p.id);
  if (replaced.length > 0) {
    await tx.$executeRaw`
      DELETE FROM "GuestTag" WHERE "tenantId" = ${tenantId} AND "guestId" = ANY(${replaced}::text[])`;
  }
  const types = new Map<string, number | null>();
  for (const p of tagged) for (const name of p.tags) if (!types.has(name)) types.set(name, p.tagType);
  if (types.size === 0) return;
  const names = [...types.keys()];
  await tx.$executeRaw`
    INSERT INTO "Tag" ("id", "tenantId", "name", "type")
    SELECT v."id", ${tenantId}, v."name", v."type"
    FROM unnest(${names.map(() => newId())}::text[], ${names}::text[], ${[...types.values()]}::smallint[])
      AS v("id", "name", "type")
    ON CONFLICT ("tenantId", "name") DO NOTHING`;
  const tags = await tx.$queryRaw<{ id: string; name: string }[]>`
    SELECT "id", "name" FROM "Tag" WHERE "tenantId" = ${tenantId} AND "name" = ANY(${names}::text[])`;
  const idOf = new Map(tags.map((t) => [t.name, t.id]));
  const guestIds: string[] = [];
  const tagIds: string[] = [];
  for (const p of tagged) {
    for (const name of p.tags) {
      const tagId = idOf.get(name);
      if (tagId === undefined) continue;
      guestIds.push(p.id);
      tagIds.push(tagId);
    }
  }
  if (guestIds.length === 0) return;
  await tx.$executeRaw`
    INSERT INTO "GuestTag" ("tenantId", "guestId", "tagId")
    SELECT ${tenantId}, v."guestId", v."tagId" FROM unnest(${guestIds}::text[], ${tagIds}::text[]) AS v("guestId", "tagId")`;
}

// Bulk import in the graph (guests.import.ts): `importGuests(rows, mode, upsertBy)`, the rows as
// `createGuest` takes one. Refused rows answer as REST's: a BAD_USER_INPUT error whose
// `extensions.fields` are keyed `rows.N.field` (all_or_nothing), or the summary's `errors`.
import { requires } from '../../auth/permissions.js';
import { toGraphqlFieldName, toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { GuestCreateInput } from './guests.graphql.js';
import { IMPORT_ACTION, IMPORT_DESCRIPTIONS, type ImportSummary, importGuests } from './guests.import.js';

interface RowError {
  key: string;
  row: number;
  field: string | null;
  messages: string[];
}

/** `rows.3.location_id` → row 3, field `locationId`; `rows.3` → row 3, no field. */
function rowErrors(summary: ImportSummary): RowError[] {
  return Object.entries(summary.errors).map(([key, messages]) => {
    const [, row = '0', field] = /^rows\.(\d+)(?:\.(.+))?$/.exec(key) ?? [];
    const name = field === undefined ? null : toGraphqlFieldName(field);
    return { key: toGraphqlFieldName(key), row: Number(row), field: name, messages };
  });
}

const GuestImportError = builder.objectRef<RowError>('GuestImportError').implement({
  description: 'A refused row of `importGuests` and its messages (REST `errors`)',
  fields: (t) => ({
    key: t.exposeString('key', { description: '`rows.N.field` (GraphQL field name), or `rows.N`' }),
    row: t.exposeInt('row', { description: 'The 0-based index of the row in `rows`' }),
    field: t.exposeString('field', { nullable: true, description: 'The input field, or null for the row' }),
    messages: t.exposeStringList('messages'),
  }),
});

const GuestImport = builder.objectRef<ImportSummary>('GuestImport').implement({
  description: 'The answer of `importGuests` (REST `POST /guests/import`)',
  fields: (t) => ({
    created: t.exposeInt('created'),
    updated: t.exposeInt('updated', { description: 'Guests matched by `upsertBy` and updated' }),
    skipped: t.exposeInt('skipped', { description: 'Rows refused and not stored (skip_invalid)' }),
    errors: t.field({ type: [GuestImportError], resolve: rowErrors }),
  }),
});

builder.mutationFields((t) => ({
  importGuests: t.field({
    ...requires(IMPORT_ACTION),
    type: GuestImport,
    description:
      'Creates (or, with `upsertBy`, updates) guests from rows checked by the `createGuest` rules (REST `POST /guests/import`); at most 50 000 rows, within the 1 MiB body limit.',
    args: {
      rows: t.arg({ type: [GuestCreateInput], required: true, description: IMPORT_DESCRIPTIONS.rows }),
      mode: t.arg.string({ description: IMPORT_DESCRIPTIONS.mode }),
      upsertBy: t.arg.string({ description: IMPORT_DESCRIPTIONS.upsert_by }),
    },
    resolve: async (_root, args, ctx, info) => {
      await ctx.fieldGuard?.check('importGuests', ctx.principal.tokenId, info);
      return importGuests(ctx, {
        rows: args.rows.map((row) => toRestInput(row)),
        mode: args.mode,
        upsert_by: args.upsertBy,
      });
    },
  }),
}));

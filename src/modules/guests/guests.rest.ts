// REST endpoints of spec 4.2: the guest operations (guests.service.ts) with REST's paging, status and
// serializers.
import { Type } from '@sinclair/typebox';
import { authorize } from '../../auth/permissions.js';
import type { AppContext } from '../../context.js';
import { docsOnly, rulesOf } from '../../operations/operation.js';
import type { Endpoint } from '../../rest/endpoint.js';
import { type ExportPage, exportEndpointOf } from '../../rest/export.js';
import { countEndpointOf, endpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { DataBody, MessageBody, Obj } from '../../rest/schemas.js';
import { UploadedFile } from '../../validation/php-values.js';
import {
  type FieldErrors,
  inList,
  nullable,
  rules,
  string,
  ValidationError,
  validate,
} from '../../validation/validator.js';
import {
  IMPORT_ACTION,
  IMPORT_DESCRIPTIONS,
  importBodyRules,
  importGuests,
  importOptionRules,
  importRowFields,
} from './guests.import.js';
import { GuestImportSchema, guestImportBody } from './guests.import.serializer.js';
import { IMPORT_FORMATS, type ImportFormat, readImportFile } from './guests.import.source.js';
import { eraseGuest, exportGuest } from './guests.privacy.js';
import { GuestCopySchema, guestCopyItem } from './guests.privacy.serializer.js';
import {
  GuestDetailSchema,
  GuestListItemSchema,
  guestDetailItem,
  guestListItem,
} from './guests.serializer.js';
import {
  countGuests,
  createGuest,
  GUEST_SETTINGS,
  type GuestQuery,
  guestDetail,
  guestListQuery,
  guestListSelect,
  guestsQuery,
  listGuests,
  updateGuest,
  viewGuest,
  withBeacons,
} from './guests.service.js';

/** A 2048 KB avatar is about 2.7 MiB of base64 text; the rest of a guest is small. */
export const GUEST_BODY_LIMIT = 3 * 1024 * 1024;

/** The list's rows (with their beacons when asked): a page, or an export's batch. */
async function read(
  ctx: AppContext,
  q: GuestQuery & { input: { withBeacon?: boolean } },
  page: ExportPage | { skip: number; take: number },
) {
  const rows = await listGuests(ctx, q, { ...page, select: guestListSelect(ctx.principal.tenantId) });
  return q.input.withBeacon === true ? withBeacons(ctx, rows) : rows;
}

export const list = listEndpointOf(guestListQuery, {
  summary: 'List guests (every filter of 4.2, withBeacon, page, per_page)',
  item: GuestListItemSchema,
  read,
  serialize: guestListItem,
});

export const exportAll = exportEndpointOf(guestListQuery, {
  summary: 'Export guests as CSV or NDJSON, streamed (every filter of 4.2, withBeacon, format, bom)',
  name: 'guests',
  model: 'Guest',
  item: GuestListItemSchema,
  // `withBeacon` adds the list item's `beacon` (a JSON object in its CSV cell).
  columns: (input, base) => (input.withBeacon === true ? [...base, 'beacon'] : base),
  read,
  serialize: guestListItem,
});

export const count = countEndpointOf(guestsQuery, {
  summary: 'Count guests (the list filters)',
  count: countGuests,
});
export const show: Endpoint = {
  summary: 'One guest with settings',
  action: viewGuest.action,
  response: Obj({
    data: GuestDetailSchema,
    settings: Obj(
      {
        disconnect_enabled: Type.Boolean({ const: GUEST_SETTINGS.disconnect_enabled }),
        name_registration_rule: Type.Integer({ const: GUEST_SETTINGS.name_registration_rule }),
      },
      'GuestSettings',
    ),
  }),
  async handle({ ctx, params }) {
    return {
      data: guestDetailItem(await guestDetail(ctx, params.id ?? ''), ctx.config),
      settings: GUEST_SETTINGS,
    };
  },
};

export const create = endpointOf(createGuest, {
  summary: 'Create a guest',
  status: 201,
  bodyLimit: GUEST_BODY_LIMIT,
  fileFields: ['avatar'],
  response: DataBody(GuestDetailSchema),
  answer: (guest, { ctx }) => ({ data: guestDetailItem(guest, ctx.config) }),
});

export const update = endpointOf(updateGuest, {
  summary: 'Update a guest',
  bodyLimit: GUEST_BODY_LIMIT,
  fileFields: ['avatar'],
  response: DataBody(GuestDetailSchema),
  answer: (guest, { ctx }) => ({ data: guestDetailItem(guest, ctx.config) }),
});

// A guest's data rights (beyond the spec; guests.privacy.ts). No input: the body is not read, the
// query string has no rules.
export const exportCopy = endpointOf(exportGuest, {
  summary:
    'A copy of everything held on a guest (detail, tags, devices, sessions, presence, movements, codes)',
  from: 'query',
  params: { id: 'The guest id' },
  response: GuestCopySchema,
  answer: (copy, { ctx }) => ({ data: guestCopyItem(copy, ctx.config) }),
});

export const erase = endpointOf(eraseGuest, {
  summary: 'Erase a guest: personal data removed, MACs replaced by stand-ins, counts kept (then 404)',
  status: 204,
  from: 'query',
  params: { id: 'The guest id' },
  answer: () => undefined,
});

// Bulk import (beyond the spec; guests.import.ts): a file part, or the rows in JSON.

const formRules = rules({
  ...importOptionRules,
  format: [nullable(), string(), inList(IMPORT_FORMATS)],
});

const pick = (from: Readonly<Record<string, unknown>>, keys: readonly string[]) =>
  Object.fromEntries(keys.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));

const OPTION_KEYS = ['mode', 'upsert_by'] as const;

/**
 * The rows of a multipart form's `file` part (with `format`, `mode` and `upsert_by` as form fields or
 * in the query), or the form's 422: the options' messages and the file's in one answer.
 */
async function formRows(
  body: Readonly<Record<string, unknown>>,
  query: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const sent = { ...pick(query, [...OPTION_KEYS, 'format']), ...pick(body, [...OPTION_KEYS, 'format']) };
  const errors: FieldErrors = {};
  let format: ImportFormat | undefined;
  try {
    // `inList` let only the formats through.
    format = ((await validate(sent, formRules)).format ?? undefined) as ImportFormat | undefined;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    Object.assign(errors, err.errors);
  }
  const file = body.file;
  if (!(file instanceof UploadedFile)) {
    const absent = file === undefined || file === null || file === '';
    errors.file = [absent ? 'The file field is required.' : 'The file field must be a file.'];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const upload = file as UploadedFile;
  const { rows } = readImportFile(upload.bytes, {
    filename: upload.filename,
    mimetype: upload.mimetype,
    format,
  });
  return { ...pick(sent, OPTION_KEYS), rows };
}

const CSV_EXAMPLE =
  'location_id,name,email,phone,tags\r\n' +
  'vPgIMFjk7PAL,Ann Lee,ann@example.com,+971500000001,"vip,late checkout"\r\n' +
  'vPgIMFjk7PAL,Omar Haddad,omar@example.com,,\r\n';

export const importRows: Endpoint = {
  summary:
    'Import guests: a CSV, NDJSON or JSON file, or the rows in JSON (all or nothing, or skipping bad rows; upsert by email or partner_id)',
  description:
    'Every row is checked by the rules of `POST /guests`; a refused row is named by its 0-based index in ' +
    '`rows.N.field` (a file: the N-th row after the CSV header, the N-th non-blank NDJSON line). ' +
    'A guest export reads back: its `nationality_code`, `residency_code`, `room_number` and `receive_marketing` ' +
    'are taken as `nationality`, `residency`, `room_no` and `marketing_consent` ' +
    '(a row with both must agree: the same value, or the code’s country name), ' +
    'and a matched guest the row does not change is not written. ' +
    "`all_or_nothing` (default) answers 422 with every refused row's messages and stores nothing; " +
    '`skip_invalid` stores the other rows and answers 200 with the refused ones in `errors`. ' +
    'Files up to `GUEST_IMPORT_MAX_MB` (20 MiB by default); larger ones, and JSON bodies over it, answer 413.',
  action: IMPORT_ACTION,
  body: importBodyRules,
  bodyItems: { rows: rulesOf(importRowFields(docsOnly)) },
  // The options may come in the query too (the array and multipart forms).
  filters: formRules,
  descriptions: {
    ...IMPORT_DESCRIPTIONS,
    format: 'The file part’s format (multipart only): `csv`, `ndjson` or `json`; otherwise guessed',
  },
  upload: {
    maxBytes: (config) => config.guestImportMaxBytes,
    listField: 'rows',
    form: {
      file: "The guests: CSV (a header row of field names, then one guest per record; an empty cell is a field not sent; `tags` a JSON list or names separated by commas), NDJSON (one object per line) or a JSON array. The format is `format`, else the file name's extension (`.csv`, `.ndjson`/`.jsonl`, `.json`), else its content type, else its first character (`[` JSON, `{` NDJSON, else CSV).",
      fields: formRules,
    },
    examples: {
      'application/json': {
        array: {
          summary: 'The rows alone (options in the query)',
          value: [
            { location_id: 'vPgIMFjk7PAL', name: 'Ann Lee', email: 'ann@example.com', tags: ['vip'] },
            { location_id: 'vPgIMFjk7PAL', name: 'Omar Haddad', gender: 'male' },
          ],
        },
        object: {
          summary: 'The rows with the options',
          value: {
            mode: 'skip_invalid',
            upsert_by: 'email',
            rows: [{ location_id: 'vPgIMFjk7PAL', name: 'Ann Lee', email: 'ann@example.com' }],
          },
        },
      },
      'multipart/form-data': {
        csv: { summary: 'A CSV file', value: { file: CSV_EXAMPLE, mode: 'skip_invalid' } },
      },
    },
  },
  response: GuestImportSchema,
  responses: {
    413: {
      description: 'The body or the file is over `GUEST_IMPORT_MAX_MB` (20 MiB by default).',
      schema: MessageBody,
    },
  },
  async handle({ ctx, query, body, rawBody, form }) {
    // Refused before the file is read.
    authorize(ctx.principal, IMPORT_ACTION);
    const options = pick(query, OPTION_KEYS);
    const raw = Array.isArray(rawBody)
      ? { ...options, rows: rawBody }
      : form
        ? await formRows(body, query)
        : { ...options, ...pick(body, [...OPTION_KEYS, 'rows']) };
    return guestImportBody(await importGuests(ctx, raw));
  },
};

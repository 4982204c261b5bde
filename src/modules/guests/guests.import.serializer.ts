// The answer of `POST /guests/import` (guests.import.ts): what was stored, and the rows refused.
import { Type } from '@sinclair/typebox';
import { Int, Obj } from '../../rest/schemas.js';
import type { ImportSummary } from './guests.import.js';

export const GuestImportSchema = Obj(
  {
    data: Obj(
      {
        created: Int('Guests created.'),
        updated: Int(
          'Guests matched by `upsert_by` (one its row leaves unchanged is counted but not written).',
        ),
        skipped: Int('Rows refused and not stored (skip_invalid).'),
      },
      'GuestImportCounts',
    ),
    errors: Type.Record(Type.String(), Type.Array(Type.String(), { minItems: 1 }), {
      description:
        'Messages of each refused row, keyed `rows.N.field` (`rows.N` for the row itself), as a 422 gives them; `{}` when none.',
    }),
  },
  'GuestImport',
);

export function guestImportBody(summary: ImportSummary) {
  return {
    data: { created: summary.created, updated: summary.updated, skipped: summary.skipped },
    errors: summary.errors,
  };
}

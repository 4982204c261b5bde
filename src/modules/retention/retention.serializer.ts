// The REST shape of a tenant's retention settings (beyond the spec, in its dialect: snake_case,
// Carbon's date format).

import { Type } from '@sinclair/typebox';
import { IsoMicros, Nullable, Obj } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { MAX_DAYS, MAX_MONTHS } from './retention.inputs.js';
import type { RetentionSettingsView } from './retention.service.js';

export function retentionSettingsItem(s: RetentionSettingsView) {
  return {
    anonymize_inactive_guests_after_months: s.anonymizeInactiveGuestsAfterMonths,
    delete_presence_records_after_days: s.deletePresenceRecordsAfterDays,
    delete_location_logs_after_days: s.deleteLocationLogsAfterDays,
    delete_guest_sessions_after_days: s.deleteGuestSessionsAfterDays,
    updated_at: isoMicros(s.updatedAt),
  };
}

const setting = (maximum: number, description: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum }), Type.Null()], { description });

export const RetentionSettingsSchema = Obj(
  {
    anonymize_inactive_guests_after_months: setting(
      MAX_MONTHS,
      'Guests inactive for this many months are anonymised (erased); null: off.',
    ),
    delete_presence_records_after_days: setting(
      MAX_DAYS,
      'Presence records seen more than this many days ago are deleted; null: off.',
    ),
    delete_location_logs_after_days: setting(
      MAX_DAYS,
      'Location logs that began more than this many days ago are deleted; null: off.',
    ),
    delete_guest_sessions_after_days: setting(
      MAX_DAYS,
      'Guest sessions that ended more than this many days ago are deleted; null: off.',
    ),
    updated_at: Nullable(IsoMicros()),
  },
  'RetentionSettings',
);

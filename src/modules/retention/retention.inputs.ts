// The rules of a tenant's retention settings (`PUT /settings/retention`, GraphQL
// `updateRetentionSettings`), shared by both transports.
import { field } from '../../operations/operation.js';
import { integer, max, min, nullable } from '../../validation/validator.js';

/** The longest a setting may say: ten years, in months or in days. */
export const MAX_MONTHS = 120;
export const MAX_DAYS = 3650;

/**
 * Each setting is `nullable|integer|min:1|max:…`: null turns it off, a number of months or days turns
 * it on. Only the fields sent change (as the other PUTs of the API).
 */
export const retentionFields = {
  anonymize_inactive_guests_after_months: field(
    [nullable(), integer(), min(1), max(MAX_MONTHS)],
    `Anonymise (erase, as DELETE /guests/:id does) guests inactive for this many months, 1 to ${MAX_MONTHS}; null: off`,
  ),
  delete_presence_records_after_days: field(
    [nullable(), integer(), min(1), max(MAX_DAYS)],
    `Delete presence records seen more than this many days ago, 1 to ${MAX_DAYS}; null: off`,
  ),
  delete_location_logs_after_days: field(
    [nullable(), integer(), min(1), max(MAX_DAYS)],
    `Delete location logs (zone visits) that began more than this many days ago, 1 to ${MAX_DAYS}; null: off`,
  ),
  delete_guest_sessions_after_days: field(
    [nullable(), integer(), min(1), max(MAX_DAYS)],
    `Delete guest sessions that ended more than this many days ago (open ones stay), 1 to ${MAX_DAYS}; null: off`,
  ),
};

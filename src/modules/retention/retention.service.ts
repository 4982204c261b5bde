// A tenant's data-retention settings (issue 17): read and changed by its admins
// (`GET`/`PUT /settings/retention`, GraphQL `retentionSettings`/`updateRetentionSettings`), applied by
// the retention sweeper (retention.sweep.ts). Stored in `RetentionSettings`, one row per tenant that
// saved them; a tenant without a row has every setting off.
import type { Prisma } from '../../db/database.js';
import { lockRow } from '../../db/row-lock.js';
import { changeEvent } from '../../events/audit.js';
import { type Tx, writeWithEvents } from '../../events/outbox.js';
import { operation } from '../../operations/operation.js';
import { retentionFields } from './retention.inputs.js';
import { retentionSettingsItem } from './retention.serializer.js';

/** The settings as both transports show them: null is off. */
export interface RetentionSettingsView {
  anonymizeInactiveGuestsAfterMonths: number | null;
  deletePresenceRecordsAfterDays: number | null;
  deleteLocationLogsAfterDays: number | null;
  deleteGuestSessionsAfterDays: number | null;
  /** When they were last saved; null until the first save. */
  updatedAt: Date | null;
}

export const RETENTION_OFF: RetentionSettingsView = {
  anonymizeInactiveGuestsAfterMonths: null,
  deletePresenceRecordsAfterDays: null,
  deleteLocationLogsAfterDays: null,
  deleteGuestSessionsAfterDays: null,
  updatedAt: null,
};

export const settingsSelect = {
  anonymizeInactiveGuestsAfterMonths: true,
  deletePresenceRecordsAfterDays: true,
  deleteLocationLogsAfterDays: true,
  deleteGuestSessionsAfterDays: true,
  updatedAt: true,
} as const;

/** Whether any setting is on (the sweeper skips a tenant with none). */
export const anySettingOn = (s: RetentionSettingsView): boolean =>
  s.anonymizeInactiveGuestsAfterMonths !== null ||
  s.deletePresenceRecordsAfterDays !== null ||
  s.deleteLocationLogsAfterDays !== null ||
  s.deleteGuestSessionsAfterDays !== null;

/** The tenant's settings (all off when it never saved any). */
export async function retentionSettingsOf(
  prisma: Prisma | Tx,
  tenantId: string,
): Promise<RetentionSettingsView> {
  const row = await prisma.retentionSettings.findUnique({ where: { tenantId }, select: settingsSelect });
  return row ?? RETENTION_OFF;
}

/** `GET /settings/retention`, GraphQL `retentionSettings`: the caller's tenant's settings. */
export const viewRetentionSettings = operation({
  action: 'retention.view',
  input: {},
  run: ({ ctx, scope }): Promise<RetentionSettingsView> => retentionSettingsOf(ctx.prisma, scope.tenantId),
});

/** REST field → column. */
const COLUMNS = {
  anonymize_inactive_guests_after_months: 'anonymizeInactiveGuestsAfterMonths',
  delete_presence_records_after_days: 'deletePresenceRecordsAfterDays',
  delete_location_logs_after_days: 'deleteLocationLogsAfterDays',
  delete_guest_sessions_after_days: 'deleteGuestSessionsAfterDays',
} as const satisfies Record<keyof typeof retentionFields, keyof RetentionSettingsView>;

/**
 * `PUT /settings/retention`, GraphQL `updateRetentionSettings`: the fields sent change (null turns one
 * off), the others stay; a body with none of them changes nothing. Resolves to the settings after.
 */
export const updateRetentionSettings = operation({
  action: 'retention.update',
  input: retentionFields,
  async run({ ctx, scope, input }): Promise<RetentionSettingsView> {
    const data: Partial<Record<(typeof COLUMNS)[keyof typeof COLUMNS], number | null>> = {};
    for (const [name, column] of Object.entries(COLUMNS)) {
      const value = input[name as keyof typeof COLUMNS];
      if (value !== undefined) data[column] = value;
    }
    if (Object.keys(data).length === 0) return retentionSettingsOf(ctx.prisma, scope.tenantId);
    return writeWithEvents(ctx, async (tx, log) => {
      // The settings may have no row yet: concurrent saves take turns on the tenant's row instead,
      // each reading what the one before it wrote.
      await lockRow(tx, 'Tenant', scope.tenantId);
      const before = await retentionSettingsOf(tx, scope.tenantId);
      // Only what differs is written: a save that changes nothing leaves `updated_at` (as Laravel's
      // save() of a clean model), and records no event.
      const changed = Object.fromEntries(
        Object.entries(data).filter(([column, value]) => before[column as keyof typeof data] !== value),
      );
      if (Object.keys(changed).length === 0) return before;
      const after = await tx.retentionSettings.upsert({
        where: { tenantId: scope.tenantId },
        create: { tenantId: scope.tenantId, ...changed },
        update: changed,
        select: settingsSelect,
      });
      // What the sweeper will delete is the tenant's data: who changed it, and to what, is audited.
      const event = changeEvent({
        type: 'retention_settings.updated',
        resourceType: 'retention_settings',
        resourceId: scope.tenantId,
        action: 'retention.update',
        payload: retentionSettingsItem(after),
        before: retentionSettingsItem(before),
        after: retentionSettingsItem(after),
      });
      if (event) log.record(event);
      return after;
    });
  },
});

// The filters of the audit log (beyond the spec), shared by REST and GraphQL.
import { AUDIT_ACTIONS } from '../../events/audit.js';
import type { ResourceType } from '../../events/event-types.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { filterOf } from '../../operations/operation.js';
import { dayStart, nextDayStart } from '../../shared/dates.js';
import {
  afterOrEqual,
  dateFormat,
  inList,
  nullable,
  string,
  textFilter,
} from '../../validation/validator.js';

/** What an entry can be about: the resource's singular REST name (src/events/event-types.ts). */
export const AUDIT_RESOURCE_TYPES = [
  'access_code',
  'api_token',
  'guest',
  'location',
  'retention_settings',
  'tenant',
  'user',
  'webhook',
] as const satisfies readonly ResourceType[];

const auditFilter = filterOf<PrismaNS.AuditLogWhereInput>();

/**
 * The filters of the audit log and its count, on both transports: each one's rules (REST name), its
 * GraphQL argument's description, and the condition it adds. A new filter is one entry here.
 */
export const auditLogFilters = {
  user_id: auditFilter(textFilter(), {
    description: "The entries of that user's writes (another tenant's user matches nothing)",
    where: (v) => ({ actorUserId: v }),
  }),
  resource_type: auditFilter([nullable(), string(), inList(AUDIT_RESOURCE_TYPES)], {
    description: AUDIT_RESOURCE_TYPES.map((t) => `\`${t}\``).join(', '),
    where: (v) => ({ resourceType: v }),
  }),
  resource_id: auditFilter(textFilter(), {
    description: 'The entries of one resource (its id)',
    where: (v) => ({ resourceId: v }),
  }),
  action: auditFilter([nullable(), string(), inList(AUDIT_ACTIONS)], {
    description:
      'The write: `guests.update`, `users.deactivate`, `accessCodes.redeem`, … (an action of the permission table, `tenants.deactivate`, `users.deactivate` or `retention.anonymize`)',
    where: (v) => ({ action: v }),
  }),
  from: auditFilter([nullable(), dateFormat('Y-m-d')], {
    description: 'Written on or after that day, from 00:00 UTC (`YYYY-MM-DD`)',
    where: (v) => ({ createdAt: { gte: dayStart(v) } }),
  }),
  to: auditFilter([nullable(), dateFormat('Y-m-d'), afterOrEqual('from')], {
    description: 'Written on or before that day, through 24:00 UTC (`YYYY-MM-DD`)',
    where: (v) => ({ createdAt: { lt: nextDayStart(v) } }),
  }),
};

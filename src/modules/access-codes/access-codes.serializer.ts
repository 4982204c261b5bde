// The exact shape of spec 2.13, keys in the spec's order.
import { isoMicros } from '../../shared/format.js';
import type { AccessCodeWithNames } from './access-codes.service.js';

export const TYPE_NAMES: Record<number, string> = { 1: 'Shared', 2: 'Access Code' };
/** Only status 1 is named by the spec; codes never leave it today (no transitions are specified). */
export const STATUS_NAMES: Record<number, string> = { 1: 'Available' };

export const typeName = (type: number): string => TYPE_NAMES[type] ?? '';
export const statusName = (status: number): string => STATUS_NAMES[status] ?? '';

export function accessCodeItem(c: AccessCodeWithNames) {
  return {
    id: c.id,
    location_id: c.locationId,
    location_name: c.location.name,
    code: c.code,
    type: c.type,
    type_name: typeName(c.type),
    description: c.description,
    service_profile_id: c.serviceProfileId,
    service_profile_name: c.serviceProfile.name,
    start_date: isoMicros(c.startDate),
    expiry_date: isoMicros(c.expiryDate),
    status: c.status,
    status_name: statusName(c.status),
    use_count: c.useCount,
    used_at: isoMicros(c.usedAt),
    guest_id: c.guestId,
    guest_name: c.guest?.name ?? '',
    created_at: isoMicros(c.createdAt),
  };
}

// An access code's value labels and its shown status, for both transports: the serializer and the
// GraphQL type import them.

export const TYPE_NAMES: Record<number, string> = { 1: 'Shared', 2: 'Access Code' };

/** Stored statuses (1, 2, 4) and the one read from the expiry date (3). */
export const AVAILABLE = 1;
export const USED = 2;
export const EXPIRED = 3;
export const REVOKED = 4;

export const STATUS_NAMES: Record<number, string> = {
  [AVAILABLE]: 'Available',
  [USED]: 'Used',
  [EXPIRED]: 'Expired',
  [REVOKED]: 'Revoked',
};

/** An unnamed value reads as "". */
export const typeName = (type: number): string => TYPE_NAMES[type] ?? '';
export const statusName = (status: number): string => STATUS_NAMES[status] ?? '';

/**
 * The status a code shows (REST `status`, GraphQL `status`), judged when it is read: 4 Revoked, else
 * 2 Used (its uses reached `max_uses`), else 3 Expired once `expiry_date` has come, else 1 Available.
 * No sweeper is needed: an expired code shows 3 from that instant on.
 */
export function shownStatus(
  c: { status: number; revokedAt: Date | null; expiryDate: Date | null },
  now: Date = new Date(),
): number {
  if (c.status === REVOKED || c.revokedAt !== null) return REVOKED;
  if (c.status === USED) return USED;
  if (c.expiryDate !== null && c.expiryDate.getTime() <= now.getTime()) return EXPIRED;
  return c.status;
}

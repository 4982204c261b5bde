// Concurrent writes of one record must each read what the one before wrote: then the audit entries
// of a field chain (each old value is an earlier entry's new one) whatever order they were stored in.
import { expect } from 'vitest';
import type { Prisma } from '../../src/db/database.js';

/** The `{old, new}` of `field` in each audit entry of the resource. */
export async function fieldChanges(
  prisma: Prisma,
  tenantId: string,
  resourceId: string,
  field: string,
): Promise<{ old: unknown; new: unknown }[]> {
  const entries = await prisma.auditLog.findMany({ where: { tenantId, resourceId } });
  return entries.flatMap((e) => {
    const change = (e.changes as Record<string, { old: unknown; new: unknown }>)[field];
    return change ? [change] : [];
  });
}

/**
 * Asserts the entries chain from `initial` to `final`: every value written but the last was the old
 * value of exactly one later entry, and no entry started from a value that was never there.
 */
export function expectChain(
  changes: { old: unknown; new: unknown }[],
  initial: unknown,
  final: unknown,
): void {
  const olds = changes.map((c) => JSON.stringify(c.old)).sort();
  const news = changes.map((c) => JSON.stringify(c.new));
  const expected = [JSON.stringify(initial), ...news.filter((n) => n !== JSON.stringify(final))].sort();
  expect(olds).toEqual(expected);
}

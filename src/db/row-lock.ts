// A write that reads a row, then writes what follows from it (the entry's "before", a status
// flipped, a secret kept as the previous one), first locks the row in its transaction: two such
// writes at once then run one after the other, the second reading what the first wrote, and a row
// deleted meanwhile is found absent (404) rather than failing the write.
import { Prisma as PrismaNS } from '../generated/prisma/client.js';

type Tx = PrismaNS.TransactionClient;

/** The tables whose rows are written this way. */
export type LockedTable = 'User' | 'Tenant' | 'Location' | 'Webhook' | 'AccessCode' | 'Guest';

/**
 * Locks the row `id` of `table` until the transaction ends; false when there is none. FOR NO KEY
 * UPDATE (an UPDATE's own lock): such writes of the row take turns, while rows that refer to it may
 * still be written, as the delivery worker writes a webhook's deliveries and attempts (FOR UPDATE
 * would hold the worker's statement behind the transaction, which may be waiting for its rows).
 */
export async function lockRow(tx: Tx, table: LockedTable, id: string): Promise<boolean> {
  const rows = await tx.$queryRaw<unknown[]>(
    PrismaNS.sql`SELECT 1 FROM ${PrismaNS.raw(`"${table}"`)} WHERE "id" = ${id} FOR NO KEY UPDATE`,
  );
  return rows.length > 0;
}

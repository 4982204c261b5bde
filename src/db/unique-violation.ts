// Two writes racing for one unique value both pass the `unique` rule; the unique index decides, and
// the loser is answered as the rule would have answered it.
import { AppError } from '../errors.js';
import { takenMessage } from '../validation/validator.js';

/** A write refused by a unique index: Prisma's P2002, or PostgreSQL's own message from a raw statement. */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ('code' in err && err.code === 'P2002') return true;
  return 'message' in err && typeof err.message === 'string' && /unique constraint/i.test(err.message);
}

/**
 * Runs `transaction` (the whole of one), once more when a unique index refused it: a concurrent
 * writer committed the same new value first (the same group, the same event ids), which the run
 * again reads and reuses.
 */
export async function retryingUniqueViolation<T>(transaction: () => Promise<T>): Promise<T> {
  try {
    return await transaction();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return transaction();
  }
}

/** The 422 of the `unique` rule on `field` (`The email has already been taken.`). */
export function takenError(field: string): AppError {
  return new AppError('VALIDATION', { fields: { [field]: [takenMessage(field)] } });
}

// Two transactions that wait on each other's rows (a deadlock, 40P01: say an endpoint's deletion and
// the delivery worker recording attempts of it) are ended by PostgreSQL, one of them with an error;
// a serialization failure (40001) is the same kind of answer. Nothing of the ended one was committed,
// so it is run again, after a short random pause, rather than answered with a 500.

/** Prisma's P2034 (the driver adapter's TransactionWriteConflict), or PostgreSQL's code (pg, or a raw query's message). */
export function isWriteConflict(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ('code' in err && (err.code === 'P2034' || err.code === '40P01' || err.code === '40001')) return true;
  return (
    'message' in err &&
    typeof err.message === 'string' &&
    /\b(40P01|40001)\b|deadlock detected/.test(err.message)
  );
}

/** Runs attempts at most. */
const ATTEMPTS = 3;

/** Runs `transaction` (the whole of one), again when PostgreSQL ended it for a write conflict. */
export async function retryingConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      if (attempt >= ATTEMPTS || !isWriteConflict(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, attempt * (5 + Math.random() * 20)));
    }
  }
}

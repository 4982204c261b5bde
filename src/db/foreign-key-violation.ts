// A write naming a row a concurrent transaction deleted (a webhook endpoint deleted while its ping or
// its attempts were being recorded) is refused by the foreign key: the caller decides what that means.

/** PostgreSQL's foreign key violation (23503): Prisma's P2003, pg's code, or the message of a raw statement. */
export function isForeignKeyViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ('code' in err && (err.code === '23503' || err.code === 'P2003')) return true;
  return (
    'message' in err && typeof err.message === 'string' && /violates foreign key constraint/.test(err.message)
  );
}

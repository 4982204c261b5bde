// The one line of a database error worth a log line: Prisma wraps the driver's message in lines of
// its own ("Invalid `prisma.$queryRawUnsafe()` invocation:", then "Raw query failed. Code: `N/A`.
// Message: `Can't reach database server at …`"), starting with an empty line.

/** The error's last line with text, or the driver's message inside Prisma's wrapping. */
export function plainReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const lines = err.message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = lines.at(-1) ?? err.name;
  return /Message: `([^`]*)`/.exec(last)?.[1] ?? last;
}

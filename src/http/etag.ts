// Conditional requests on an entity tag (RFC 9110 §13.1.2).

/** Whether an If-None-Match header holds `etag` (weak comparison, as §13.1.2 asks for it) or `*`. */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  return (
    header?.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t.replace(/^W\//, '') === etag;
    }) ?? false
  );
}

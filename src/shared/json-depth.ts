// PHP's json_decode refuses JSON nested deeper than 512 arrays and objects (its default depth), and
// so does this service, wherever JSON comes in (a request body, an imported file): such input is
// unreadable like any other, not work for the validators' walks over it.
export const JSON_DEPTH = 512;

/** Whether `value` holds arrays or objects nested deeper than `depth` (a walk of at most that depth). */
export function nestedDeeperThan(value: unknown, depth = JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth === 0) return true;
  const items = Array.isArray(value) ? value : Object.values(value);
  for (const item of items) if (nestedDeeperThan(item, depth - 1)) return true;
  return false;
}

// Rules on a list's elements (Laravel's `field.*`): their errors are keyed `field.0`, `field.3`.
import { DUPLICATE_VALUE, fill } from '../messages.js';
import { phpString } from '../php-values.js';

/**
 * Laravel's `distinct`, on values' string forms: the indexes of the elements whose value another
 * element repeats; every occurrence counts, the first one too.
 */
export function duplicatedIndexes(list: readonly unknown[]): Set<number> {
  const seen = new Map<string, number[]>();
  list.forEach((item, i) => {
    const key = item === null ? '' : phpString(item);
    if (key === null) return;
    const at = seen.get(key);
    if (at) at.push(i);
    else seen.set(key, [i]);
  });
  return new Set([...seen.values()].filter((at) => at.length > 1).flat());
}

/** Laravel's `distinct` message for an element (`tags.2`) or any other attribute. */
export const duplicateMessage = (attribute: string): string => fill(DUPLICATE_VALUE, { attribute });

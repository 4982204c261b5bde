// What PHP's json_decode refuses, this service refuses too, wherever JSON comes in (a request body, an
// imported file): JSON nested deeper than 512 arrays and objects (its default depth), and a string or
// key holding an unpaired UTF-16 surrogate (`"\ud800"`: JSON_ERROR_UTF16). Such input is unreadable
// like any other. A lone surrogate would otherwise be stored as U+FFFD, so what was checked (an ingest
// event id's duplicate) and what was stored would differ.
const JSON_DEPTH = 512;

/** An unpaired surrogate (in a `u` expression, a paired one is one code point, not a match). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether json_decode would refuse what JSON.parse made `value`: arrays or objects nested deeper than
 * `depth`, or an unpaired surrogate in a string or key. A walk with a stack of its own: JSON.parse
 * builds nestings deeper than a call stack takes.
 */
export function undecodable(value: unknown, depth = JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, depth]];
  while (stack.length > 0) {
    const [item, left] = stack.pop() as [unknown, number];
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return true;
    } else if (typeof item === 'object' && item !== null) {
      if (left === 0) return true;
      if (Array.isArray(item)) {
        for (const inner of item) stack.push([inner, left - 1]);
      } else {
        for (const [key, inner] of Object.entries(item)) {
          if (LONE_SURROGATE.test(key)) return true;
          stack.push([inner, left - 1]);
        }
      }
    }
  }
  return false;
}

/**
 * Whether a string or key of `value` holds an unpaired surrogate, however deep (GraphQL judges its
 * variables' nesting itself; their text is refused as REST's is).
 */
export const hasLoneSurrogate = (value: unknown): boolean => undecodable(value, Number.POSITIVE_INFINITY);

// When a failed webhook attempt is tried again. With the default base of 5 s the delays after each
// failed attempt are 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, then 12 h, each ±20 % (jitter,
// so endpoints that failed together do not retry together), until an attempt fails 24 h or more
// after the first one: the delivery is then dead (replay sends it again). The eleventh attempt comes
// about 34 h after the first. WEBHOOKS_RETRY_BASE_MS scales the schedule and its window together
// (tests run it in milliseconds).

/** The delays in units of the base (5 s): 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h. */
export const RETRY_STEPS = [1, 6, 24, 120, 360, 720, 2160, 4320, 8640] as const;
/** How long after the first attempt retries go on, in units of the base: 24 h at 5 s. */
export const RETRY_WINDOW_STEPS = 17_280;
/** ± this share of each delay is random. */
export const JITTER = 0.2;

/**
 * The delay before the next attempt once `attempts` attempts failed, or null when the delivery is
 * given up (the last one was made at or after the window's end).
 */
export function nextRetryDelay(
  attempts: number,
  firstAttemptAt: Date,
  now: Date,
  baseMs: number,
  random: () => number = Math.random,
): number | null {
  if (now.getTime() - firstAttemptAt.getTime() >= RETRY_WINDOW_STEPS * baseMs) return null;
  const step = RETRY_STEPS[Math.min(Math.max(attempts, 1), RETRY_STEPS.length) - 1] ?? 1;
  const jitter = 1 - JITTER + 2 * JITTER * random();
  return Math.max(1, Math.round(step * baseMs * jitter));
}

/** The schedule in words, for the README and the OpenAPI descriptions. */
export const RETRY_SCHEDULE_TEXT =
  '5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, then every 12 h (each ±20 %), until an attempt fails 24 h after the first';

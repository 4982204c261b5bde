// Date filters and date fields arrive as `yyyy-mm-dd` (already checked by `dateFormat('Y-m-d')`)
// and are read as UTC days, as the decisions say.

const DAY_MS = 86_400_000;

/** Start of a `yyyy-mm-dd` day in UTC. */
export const dayStart = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

/** Start of the day after a `yyyy-mm-dd` day in UTC: the exclusive end of "on or before that day". */
export const nextDayStart = (day: string): Date => new Date(dayStart(day).getTime() + DAY_MS);

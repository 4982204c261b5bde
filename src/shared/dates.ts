// Date filters and date fields arrive as `yyyy-mm-dd` (already checked by `dateFormat('Y-m-d')`)
// and are read as UTC days, as the decisions say.

const DAY_MS = 86_400_000;

/** Start of a `yyyy-mm-dd` day in UTC. */
export const dayStart = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

/**
 * The instants a database date can hold: from 0001-01-01 (PostgreSQL has no year 0) to the last
 * millisecond of 9999 (a later one is year 10000, which no driver writes).
 */
const FIRST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Whether the instant `ms` (epoch ms, UTC) can be stored: a date or time outside is no valid date here. */
export const storableInstant = (ms: number): boolean => ms >= FIRST_MS && ms <= LAST_MS;

/**
 * Start of the day after a `yyyy-mm-dd` day in UTC: the exclusive end of "on or before that day"
 * (for 9999-12-31, its last millisecond).
 */
export const nextDayStart = (day: string): Date => writableDate(dayStart(day).getTime() + DAY_MS);

/** A bound of a date range as the database can be given it: at most 9999-12-31's last millisecond. */
export const writableDate = (ms: number): Date => new Date(Math.min(ms, LAST_MS));

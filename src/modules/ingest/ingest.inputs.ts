// The rules of the ingest batches (beyond the spec). Each event is checked on its own and its
// messages are keyed `events.<index>.<field>`, with Laravel's wording for nested attributes.
import { storableInstant } from '../../shared/dates.js';
import { storedIpAddress } from '../../shared/ip-address.js';
import { daysIn } from '../../validation/rules/dates.js';
import {
  array,
  boolean,
  custom,
  type Infer,
  inList,
  integer,
  ip,
  type Keep,
  max,
  min,
  nullable,
  numeric,
  type Rule,
  required,
  requiredWithoutAll,
  rules,
  string,
} from '../../validation/validator.js';
import { isMac, normalizeMac } from '../presence/mac.js';

export const MAX_BATCH = 1000;

export const batchRules = rules({
  events: [
    required(),
    array(),
    custom((v) => (Array.isArray(v) ? null : 'The :attribute field must be a list.')),
    max(MAX_BATCH),
  ],
});

// RFC 3339's `t` and `z` in either case; ISO 8601's offsets `+04:00`, `+0400` and `+04`.
const ISO_8601 =
  /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** An ISO 8601 date-time with a zone (`2026-11-21T09:05:03Z`, `…+04:00`), or null. */
export function parseIsoDateTime(v: unknown): Date | null {
  const m = typeof v === 'string' ? ISO_8601.exec(v) : null;
  if (!m) return null;
  const [
    ,
    date = '',
    hh = '',
    mm = '',
    ss = '00',
    fraction = '',
    zulu,
    sign = '+',
    offH = '00',
    offM = '00',
  ] = m;
  // A day the calendar has: Date would roll 2026-02-30 over to March 2, and T24:00 to the next day.
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(Number(date.slice(0, 4)), month)) return null;
  if (Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59 || Number(offH) > 23 || Number(offM) > 59)
    return null;
  const d = new Date(`${date}T${hh}:${mm}:${ss}${fraction}${zulu ? 'Z' : `${sign}${offH}:${offM}`}`);
  // Also a moment the database cannot hold (year 0, or past 9999 once the offset is applied).
  return storableInstant(d.getTime()) ? d : null;
}

/**
 * How far ahead of this server's clock a detection may be dated: a controller's clock a little fast
 * is tolerated; one dated years ahead would hold the device "present" until then, and every real
 * detection after it would count as late.
 */
export const MAX_CLOCK_SKEW_MINUTES = 5;

/** Not later than MAX_CLOCK_SKEW_MINUTES from now (Laravel's `before_or_equal` wording). */
const notAhead = (): Rule<Keep> =>
  custom(
    // After isoDateTime(): a Date when that passed (a value it refused is its message alone).
    (v) =>
      v instanceof Date && v.getTime() > Date.now() + MAX_CLOCK_SKEW_MINUTES * 60_000
        ? `The :attribute field must be a date before or equal to ${MAX_CLOCK_SKEW_MINUTES} minutes from now.`
        : null,
    { description: `At most ${MAX_CLOCK_SKEW_MINUTES} minutes ahead of the server's clock.` },
  );

/**
 * The earliest a detection or a session's event may be dated: a controller whose clock was reset
 * reports 1970 or year 1; stored, such a time made a session decades long (its duration past a
 * 32-bit integer, which took a whole GraphQL list down) and a visit counted (probe R).
 */
export const EARLIEST_EVENT = '2000-01-01';

const EARLIEST_EVENT_MS = Date.parse(`${EARLIEST_EVENT}T00:00:00Z`);

/** Not earlier than EARLIEST_EVENT (Laravel's `after_or_equal` wording). */
const notBeforeEarliest = (): Rule<Keep> =>
  custom(
    (v) =>
      v instanceof Date && v.getTime() < EARLIEST_EVENT_MS
        ? `The :attribute field must be a date after or equal to ${EARLIEST_EVENT}.`
        : null,
    { description: `Not before ${EARLIEST_EVENT} (UTC).` },
  );

/** A value its rules guarantee; missing only when a rule's check and its coercion disagree (a bug). */
function ensured<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`Validated ingest ${what} is unreadable.`);
  return value;
}

/** Passes ISO 8601 date-times with a zone, output as Dates. */
const isoDateTime = (): Rule<Date> =>
  custom(
    (v) =>
      parseIsoDateTime(v)
        ? null
        : 'The :attribute field must be a valid ISO 8601 date-time with a time zone.',
    { format: 'date-time', description: 'ISO 8601 with a time zone (`2026-11-21T09:05:03Z`).' },
    (v) => ensured(parseIsoDateTime(v), 'date-time'),
  );

/** Passes MAC addresses in any common notation, output normalized (`aa:bb:cc:dd:ee:ff`). */
const mac = (): Rule<string> =>
  custom(
    (v) => (isMac(v) ? null : 'The :attribute field must be a valid MAC address.'),
    { description: 'A MAC address.' },
    (v) => normalizeMac(String(v)),
  );

const eventId = [required(), string(), max(100)] as const;

export const presenceEventRules = rules({
  event_id: eventId,
  mac: [required(), string(), mac()],
  data_type: [required(), integer(), inList([1, 2])],
  x: [nullable(), numeric()],
  y: [nullable(), numeric()],
  zone_id: [nullable(), string()],
  floor_id: [nullable(), string()],
  location_id: [requiredWithoutAll('zone_id', 'floor_id'), nullable(), string()],
  connected: [required(), boolean()],
  seen_at: [required(), string(), isoDateTime(), notBeforeEarliest(), notAhead()],
});

export const SESSION_KINDS = ['start', 'interim', 'stop'] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

export const sessionEventRules = rules({
  event_id: eventId,
  kind: [required(), string(), inList(SESSION_KINDS)],
  mac: [required(), string(), mac()],
  ip: [required(), string(), ip()],
  guest_id: [nullable(), string()],
  location_id: [required(), string()],
  bytes_up: [required(), integer(), min(0)],
  bytes_down: [required(), integer(), min(0)],
  login_type: [required(), string(), max(50)],
  access_code: [nullable(), string(), max(64)],
  service_profile_id: [nullable(), string()],
  at: [required(), string(), isoDateTime(), notBeforeEarliest(), notAhead()],
});

// ── The events as their rules let them through ─────────────────────────────────────────────────
// `validate` infers each event's fields from the rules above (MAC normalized, dates as Dates); these
// readers only rename them for the pipelines.

/** A presence detection as `presenceEventRules` let it through. */
export interface PresenceInput {
  eventId: string;
  mac: string;
  dataType: number;
  x: number | null;
  y: number | null;
  zoneId: string | null;
  floorId: string | null;
  locationId: string | null;
  connected: boolean;
  seenAt: Date;
}

export const readPresenceEvent = (e: Infer<typeof presenceEventRules>): PresenceInput => ({
  eventId: e.event_id,
  mac: e.mac,
  dataType: e.data_type,
  x: e.x ?? null,
  y: e.y ?? null,
  zoneId: e.zone_id ?? null,
  floorId: e.floor_id ?? null,
  locationId: e.location_id ?? null,
  connected: e.connected,
  seenAt: e.seen_at,
});

const sessionKind = (v: string): SessionKind | undefined => SESSION_KINDS.find((k) => k === v);

/** A session accounting event as `sessionEventRules` let it through. */
export interface SessionInput {
  eventId: string;
  kind: SessionKind;
  mac: string;
  ip: string;
  guestId: string | null;
  locationId: string;
  bytesUp: number;
  bytesDown: number;
  loginType: string;
  accessCode: string | null;
  serviceProfileId: string | null;
  at: Date;
}

export const readSessionEvent = (e: Infer<typeof sessionEventRules>): SessionInput => ({
  eventId: e.event_id,
  kind: ensured(sessionKind(e.kind), 'kind'),
  mac: e.mac,
  ip: storedIpAddress(e.ip),
  guestId: e.guest_id ?? null,
  locationId: e.location_id,
  bytesUp: e.bytes_up,
  bytesDown: e.bytes_down,
  loginType: e.login_type,
  accessCode: e.access_code ?? null,
  serviceProfileId: e.service_profile_id ?? null,
  at: e.at,
});

// The rules of the ingest batches (beyond the spec). Each event is checked on its own and its
// messages are keyed `events.<index>.<field>`, with Laravel's wording for nested attributes.
import {
  array,
  boolean,
  custom,
  inList,
  integer,
  max,
  min,
  nullable,
  numeric,
  type Rule,
  type Rules,
  required,
  string,
} from '../../validation/validator.js';
import { isMac } from '../presence/mac.js';

export const MAX_BATCH = 1000;

export const batchRules: Rules = {
  events: [
    required(),
    array(),
    custom((v) => (Array.isArray(v) ? null : 'The :attribute field must be a list.')),
    max(MAX_BATCH),
  ],
};

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** An ISO 8601 date-time with a zone (`2026-11-21T09:05:03Z`, `…+04:00`), or null. */
export function parseIsoDateTime(v: unknown): Date | null {
  if (typeof v !== 'string' || !ISO_8601.test(v)) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

const isoDateTime = (): Rule =>
  custom(
    (v) =>
      parseIsoDateTime(v)
        ? null
        : 'The :attribute field must be a valid ISO 8601 date-time with a time zone.',
    { format: 'date-time', description: 'ISO 8601 with a time zone (`2026-11-21T09:05:03Z`).' },
  );

const filled = (v: unknown): boolean =>
  v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/** Laravel's `required_without_all`. */
function requiredWithoutAll(...others: string[]): Rule {
  return {
    name: 'requiredWithoutAll',
    implicit: true,
    doc: { description: `Required when none of ${others.join(', ')} is present.` },
    check: (value, ctx) =>
      filled(value) || others.some((o) => filled(ctx.input[o]))
        ? null
        : `The ${ctx.attribute} field is required when none of ${others.map(ctx.attributeOf).join(' / ')} are present.`,
  };
}

const mac = (): Rule =>
  custom((v) => (isMac(v) ? null : 'The :attribute field must be a valid MAC address.'), {
    description: 'A MAC address.',
  });

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;
const ip = (): Rule =>
  custom(
    (v) =>
      typeof v === 'string' && (IPV4.test(v) || (v.includes(':') && IPV6.test(v)))
        ? null
        : 'The :attribute field must be a valid IP address.',
    { description: 'An IPv4 or IPv6 address.' },
  );

const eventId = [required(), string(), max(100)];

export const presenceEventRules: Rules = {
  event_id: eventId,
  mac: [required(), string(), mac()],
  data_type: [required(), integer(), inList([1, 2])],
  x: [nullable(), numeric()],
  y: [nullable(), numeric()],
  zone_id: [nullable(), string()],
  floor_id: [nullable(), string()],
  location_id: [requiredWithoutAll('zone_id', 'floor_id'), nullable(), string()],
  connected: [required(), boolean()],
  seen_at: [required(), string(), isoDateTime()],
};

export const sessionEventRules: Rules = {
  event_id: eventId,
  kind: [required(), string(), inList(['start', 'interim', 'stop'])],
  mac: [required(), string(), mac()],
  ip: [required(), string(), ip()],
  guest_id: [nullable(), string()],
  location_id: [required(), string()],
  bytes_up: [required(), integer(), min(0)],
  bytes_down: [required(), integer(), min(0)],
  login_type: [required(), string(), max(50)],
  access_code: [nullable(), string(), max(64)],
  service_profile_id: [nullable(), string()],
  at: [required(), string(), isoDateTime()],
};

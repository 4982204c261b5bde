// The filters of spec 4.3, shared by REST and GraphQL, and the MAC and date helpers the session
// filters (spec 4.4) reuse.

import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { filterOf } from '../../operations/operation.js';
import { dayStart } from '../../shared/dates.js';
import {
  custom,
  dateFormat,
  type Keep,
  nullable,
  queryBoolean,
  type Rule,
  textFilter,
} from '../../validation/validator.js';

// PHP's FILTER_VALIDATE_MAC (Laravel's `mac_address`): six pairs split by `:` or `-`, or three
// groups of four split by `.`; hex digits in either case.
const MAC_PAIRS = /^[0-9a-f]{2}([:-])[0-9a-f]{2}(?:\1[0-9a-f]{2}){4}$/i;
const MAC_DOTTED = /^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$/i;

/** `AA-BB-CC-DD-EE-FF`, `aa:bb:…`, `aabb.ccdd.eeff` → `aa:bb:cc:dd:ee:ff`; null when not a MAC. */
export function normaliseMac(value: string): string | null {
  if (!MAC_PAIRS.test(value) && !MAC_DOTTED.test(value)) return null;
  const hex = value.replace(/[:.-]/g, '').toLowerCase();
  return hex.match(/../g)?.join(':') ?? null;
}

/** Laravel's `mac_address` rule (a check: the value stays the string sent). */
export function macAddress(): Rule<Keep> {
  return custom(
    (v) =>
      typeof v === 'string' && normaliseMac(v) !== null
        ? null
        : 'The :attribute field must be a valid MAC address.',
    { description: 'A MAC address: `aa:bb:cc:dd:ee:ff`, `AA-BB-…` or `aabb.ccdd.eeff`.' },
  );
}

const deviceFilter = filterOf<PrismaNS.GuestDeviceWhereInput>();

/**
 * The filters of the device list and count, on both transports: each one's rules (REST name), its
 * GraphQL argument's description, and the condition it adds. A new filter is one entry here.
 */
export const deviceFilters = {
  guest_id: deviceFilter(textFilter(), { where: (v) => ({ guestId: v }) }),
  mac: deviceFilter([...textFilter(), macAddress()], {
    description: 'The MAC, matched in any notation',
    where: (v) => ({ mac: { equals: normaliseMac(v) ?? '', mode: 'insensitive' } }),
  }),
  online: deviceFilter([nullable(), queryBoolean()], { where: (v) => ({ online: v }) }),
  created_at: deviceFilter([nullable(), dateFormat('Y-m-d')], {
    description: 'Created on or after this day (UTC), `yyyy-mm-dd`',
    where: (v) => ({ createdAt: { gte: dayStart(v) } }),
  }),
  updated_at: deviceFilter([nullable(), dateFormat('Y-m-d')], {
    description: 'Updated on or after this day (UTC), `yyyy-mm-dd`',
    where: (v) => ({ updatedAt: { gte: dayStart(v) } }),
  }),
  partner_id: deviceFilter(textFilter(), { where: (v) => ({ partnerId: v }) }),
};

/** The list also takes the order switch (the count ignores it, as spec 4.3 says). */
export const deviceListFilters = {
  ...deviceFilters,
  last_guest_device_first: deviceFilter([nullable(), queryBoolean()], { description: 'Newest first' }),
};

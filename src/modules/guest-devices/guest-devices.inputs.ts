// The filters of spec 4.3, shared by REST and GraphQL, and the MAC and date helpers the session
// filters (spec 4.4) reuse.

import {
  boolean,
  custom,
  dateFormat,
  nullable,
  type Rule,
  type Rules,
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

/** Laravel's `mac_address` rule. */
export function macAddress(): Rule {
  return custom(
    (v) =>
      typeof v === 'string' && normaliseMac(v) !== null
        ? null
        : 'The :attribute field must be a valid MAC address.',
    { description: 'A MAC address: `aa:bb:cc:dd:ee:ff`, `AA-BB-…` or `aabb.ccdd.eeff`.' },
  );
}

export const deviceFilterRules: Rules = {
  guest_id: textFilter(),
  mac: [...textFilter(), macAddress()],
  online: [nullable(), boolean()],
  created_at: [nullable(), dateFormat('Y-m-d')],
  updated_at: [nullable(), dateFormat('Y-m-d')],
  partner_id: textFilter(),
};

/** The list also takes the order switch (the count ignores it, as spec 4.3 says). */
export const deviceListRules: Rules = {
  ...deviceFilterRules,
  last_guest_device_first: [nullable(), boolean()],
};

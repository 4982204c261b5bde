// The filters of spec 4.4 and the rules of `GET /sessions/:ip_address` (2.6), shared by REST and
// GraphQL.
import type { Scope } from '../../auth/principal.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { filterOf } from '../../operations/operation.js';
import { dayStart, nextDayStart } from '../../shared/dates.js';
import { isPhpIp } from '../../validation/rules/formats.js';
import {
  dateFormat,
  type FieldErrors,
  nullable,
  queryBoolean,
  textFilter,
  ValidationError,
} from '../../validation/validator.js';
import { macAddress, normaliseMac } from '../guest-devices/guest-devices.inputs.js';

const sessionFilter = filterOf<PrismaNS.GuestSessionWhereInput>();

// For a pinned caller, a session whose guest (or device's guest) is at another location shows no
// partner id (or device MAC) (guest-sessions.serializer.ts): the filter on it must not find such a
// session either, one value at a time.
const atCallersLocation = (scope: Scope) =>
  scope.locationId === null ? {} : { locationId: scope.locationId };
const day = () => dateFormat('Y-m-d');

/**
 * The filters of the session list and count, on both transports: each one's rules (REST name), its
 * GraphQL argument's description, and the condition it adds. A new filter is one entry here.
 */
export const sessionFilters = {
  guest_id: sessionFilter(textFilter(), { where: (v) => ({ guestId: v }) }),
  // Its own condition: merged into the scope it would replace a pinned user's location.
  location_id: sessionFilter(textFilter(), { where: (v) => ({ locationId: v }) }),
  guest_device_mac: sessionFilter([...textFilter(), macAddress()], {
    description: 'The device’s MAC, matched in any notation',
    where: (v, scope) => ({
      device: {
        mac: { equals: normaliseMac(v) ?? '', mode: 'insensitive' },
        guest: atCallersLocation(scope),
      },
    }),
  }),
  start_time: sessionFilter([nullable(), day()], {
    description: 'Started on or after this day (UTC), `yyyy-mm-dd`',
    where: (v) => ({ startTime: { gte: dayStart(v) } }),
  }),
  end_time: sessionFilter([nullable(), day()], {
    description: 'Ended on or before this day (UTC), `yyyy-mm-dd`',
    where: (v) => ({ endTime: { lt: nextDayStart(v) } }),
  }),
  partner_id: sessionFilter(textFilter(), {
    description: "The guest's partner id",
    where: (v, scope) => ({ guest: { partnerId: v, ...atCallersLocation(scope) } }),
  }),
  online: sessionFilter([nullable(), queryBoolean()], { where: (v) => ({ online: v }) }),
  // Accepted by the list and the count (decisions); it only orders the list.
  last_session_first: sessionFilter([nullable(), queryBoolean()], { description: 'Newest first' }),
};

export const MAX_IP_ADDRESSES = 100;

/**
 * Laravel's `ip_address` => `array|max:100` and `ip_address.*` => `ip`: one message for too many
 * addresses, one per malformed address (keyed `ip_address.N`, the wildcard attribute as Laravel
 * shows it). `field` names the input (`ip_addresses` from GraphQL).
 */
export function checkIpAddresses(addresses: readonly string[], field = 'ip_address'): void {
  const errors: FieldErrors = {};
  if (addresses.length > MAX_IP_ADDRESSES) {
    errors[field] = [
      `The ${field.replaceAll('_', ' ')} field must not have more than ${MAX_IP_ADDRESSES} items.`,
    ];
  }
  addresses.forEach((ip, i) => {
    if (!isPhpIp(ip)) errors[`${field}.${i}`] = [`The ${field}.${i} field must be a valid IP address.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

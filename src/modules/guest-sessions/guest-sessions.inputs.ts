// The filters of spec 4.4 and the rules of `GET /sessions/:ip_address` (2.6), shared by REST and
// GraphQL.
import { isIP } from 'node:net';
import {
  boolean,
  dateFormat,
  type FieldErrors,
  nullable,
  type Rules,
  textFilter,
  ValidationError,
} from '../../validation/validator.js';
import { macAddress } from '../guest-devices/guest-devices.inputs.js';

export const sessionFilterRules: Rules = {
  guest_id: textFilter(),
  location_id: textFilter(),
  guest_device_mac: [...textFilter(), macAddress()],
  start_time: [nullable(), dateFormat('Y-m-d')],
  end_time: [nullable(), dateFormat('Y-m-d')],
  partner_id: textFilter(),
  online: [nullable(), boolean()],
  // Accepted by the list and the count (decisions); it only orders the list.
  last_session_first: [nullable(), boolean()],
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
    if (isIP(ip) === 0) errors[`${field}.${i}`] = [`The ${field}.${i} field must be a valid IP address.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

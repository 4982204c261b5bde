// The exact shapes of spec 2.5 and 2.6, keys in the spec's order; dates in the offset form, local
// display times in the session's location's time zone.

import {
  Hms,
  HumanSize,
  Id,
  Int,
  IntEnum,
  IsoOffset,
  LocalDisplay,
  Nullable,
  Obj,
  Str,
  StrEnum,
} from '../../rest/schemas.js';
import { hms, humanSize, isoOffset, localDisplay } from '../../shared/format.js';
import { CONNECTION_STATUS_NAMES, connectionStatusName } from '../../shared/labels.js';
import { type SessionByIp, type SessionItemRow, sessionSeconds } from './guest-sessions.service.js';

/**
 * `shown`: whether the caller may see the session's device (else its description and MAC are `""`)
 * and its guest (else `partner_id` is null), as GraphQL's `device` and `guest` are null there.
 */
export function sessionItem(s: SessionItemRow, shown: { device: boolean; guest: boolean }, now = new Date()) {
  const tz = s.location.timezone;
  return {
    id: s.id,
    location_id: s.locationId,
    location_name: s.location.name,
    guest_device_description: shown.device ? s.device.description : '',
    guest_device_mac: shown.device ? s.device.mac : '',
    guest_device_ip: s.ipAddress,
    access_code: s.accessCode?.code ?? '',
    login_type_name: s.loginType,
    service_profile_name: s.serviceProfile?.name ?? '',
    total_duration: hms(sessionSeconds(s, now)),
    downloaded_data: humanSize(s.downloadedData),
    uploaded_data: humanSize(s.uploadedData),
    connection_status: connectionStatusName(s.connectionStatus),
    connection_status_value: s.connectionStatus,
    start_time: isoOffset(s.startTime),
    end_time: isoOffset(s.endTime),
    start_time_formatted: localDisplay(s.startTime, tz),
    end_time_formatted: localDisplay(s.endTime, tz),
    guest_id: s.guestId,
    partner_id: shown.guest ? s.guest.partnerId : null,
  };
}

/** Spec 2.6, keys in order. */
export function sessionByIpItem(r: SessionByIp) {
  return {
    ip_address: r.ip_address,
    username: r.username,
    name: r.name,
    email: r.email,
    duration: r.duration,
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const SessionItemSchema = Obj(
  {
    id: Id(),
    location_id: Id(),
    location_name: Str(),
    guest_device_description: Str(),
    guest_device_mac: Str(),
    guest_device_ip: Str(),
    access_code: Str('The code, or "" when none.'),
    login_type_name: Str(),
    service_profile_name: Str('The name, or "" when none.'),
    total_duration: Hms(),
    downloaded_data: HumanSize(),
    uploaded_data: HumanSize(),
    connection_status: StrEnum([...CONNECTION_STATUS_NAMES]),
    connection_status_value: IntEnum([0, 1]),
    start_time: IsoOffset(),
    end_time: Nullable(IsoOffset()),
    start_time_formatted: LocalDisplay(),
    end_time_formatted: Nullable(LocalDisplay()),
    guest_id: Id(),
    partner_id: Nullable(Str()),
  },
  'GuestSession',
);

export const SessionByIpSchema = Obj(
  {
    ip_address: Str(),
    username: Str(),
    name: Str(),
    email: Nullable(Str()),
    duration: Int('Seconds; an open session counts up to now.'),
  },
  'SessionByIp',
);

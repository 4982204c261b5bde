// The exact shape of spec 2.4, keys in the spec's order; dates in the offset form.
import { HumanSize, Id, IntEnum, IsoOffset, Nullable, Obj, Str, StrEnum } from '../../rest/schemas.js';
import { humanSize, isoOffset } from '../../shared/format.js';
import { CONNECTION_STATUS_NAMES, connectionStatusName } from '../../shared/labels.js';
import type { DeviceListRow } from './guest-devices.service.js';

export function deviceItem(d: DeviceListRow) {
  return {
    id: d.id,
    guest_id: d.guestId,
    partner_id: d.partnerId,
    type_name: d.typeName,
    mac: d.mac,
    ip: d.ip,
    user_agent: d.userAgent,
    description: d.description,
    platform: d.platform,
    browser: d.browser,
    connection_status: connectionStatusName(d.connectionStatus),
    connection_status_value: d.connectionStatus,
    total_downloaded_data: humanSize(d.totalDownloadedData),
    total_uploaded_data: humanSize(d.totalUploadedData),
    last_seen_time: isoOffset(d.lastSeenTime),
    created_at: isoOffset(d.createdAt),
    updated_at: isoOffset(d.updatedAt),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const DeviceItemSchema = Obj(
  {
    id: Id(),
    guest_id: Id(),
    partner_id: Nullable(Str()),
    type_name: Str(),
    mac: Str(),
    ip: Nullable(Str()),
    user_agent: Nullable(Str()),
    description: Str(),
    platform: Str(),
    browser: Str(),
    connection_status: StrEnum([...CONNECTION_STATUS_NAMES]),
    connection_status_value: IntEnum([0, 1]),
    total_downloaded_data: HumanSize(),
    total_uploaded_data: HumanSize(),
    last_seen_time: Nullable(IsoOffset()),
    created_at: IsoOffset(),
    updated_at: IsoOffset(),
  },
  'GuestDevice',
);

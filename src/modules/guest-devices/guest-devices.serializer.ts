// The exact shape of spec 2.4, keys in the spec's order; dates in the offset form.
import type { GuestDevice } from '../../generated/prisma/client.js';
import { humanSize, isoOffset } from '../../shared/format.js';

/** `connection_status` text of a 0/1 value. */
export const connectionStatusName = (value: number): string => (value === 1 ? 'Online' : 'Offline');

export function deviceItem(d: GuestDevice) {
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

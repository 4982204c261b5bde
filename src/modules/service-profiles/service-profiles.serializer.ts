// `GET /service-profiles` item (beyond the spec; documented in the README).
import type { ServiceProfile } from '../../generated/prisma/client.js';
import { isoMicros } from '../../shared/format.js';

export function serviceProfileItem(p: ServiceProfile) {
  return {
    id: p.id,
    name: p.name,
    bandwidth_up: p.bandwidthUp,
    bandwidth_down: p.bandwidthDown,
    session_duration: p.sessionDuration,
    data_quota: p.dataQuota === null ? null : Number(p.dataQuota),
    is_default: p.isDefault,
    created_at: isoMicros(p.createdAt),
  };
}

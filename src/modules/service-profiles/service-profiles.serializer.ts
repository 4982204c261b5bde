// `GET /service-profiles` item (beyond the spec; documented in the README).
import type { ServiceProfile } from '../../generated/prisma/client.js';
import { Bool, Id, Int, IsoMicros, Nullable, Obj, Str } from '../../rest/schemas.js';
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

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const ServiceProfileItemSchema = Obj(
  {
    id: Id(),
    name: Str(),
    bandwidth_up: Int(),
    bandwidth_down: Int(),
    session_duration: Int(),
    data_quota: Nullable(Int()),
    is_default: Bool(),
    created_at: IsoMicros(),
  },
  'ServiceProfile',
);

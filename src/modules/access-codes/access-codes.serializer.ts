// The exact shape of spec 2.13, keys in the spec's order.

import { Id, Int, IntEnum, IsoMicros, Nullable, Obj, Str, StrEnum } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { statusName, TYPE_NAMES, typeName } from './access-codes.labels.js';
import type { AccessCodeWithNames } from './access-codes.service.js';

export function accessCodeItem(c: AccessCodeWithNames) {
  return {
    id: c.id,
    location_id: c.locationId,
    location_name: c.location.name,
    code: c.code,
    type: c.type,
    type_name: typeName(c.type),
    description: c.description,
    service_profile_id: c.serviceProfileId,
    service_profile_name: c.serviceProfile.name,
    start_date: isoMicros(c.startDate),
    expiry_date: isoMicros(c.expiryDate),
    status: c.status,
    status_name: statusName(c.status),
    use_count: c.useCount,
    used_at: isoMicros(c.usedAt),
    guest_id: c.guestId,
    guest_name: c.guest?.name ?? '',
    created_at: isoMicros(c.createdAt),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const AccessCodeItemSchema = Obj(
  {
    id: Id(),
    location_id: Id(),
    location_name: Str(),
    code: Str(),
    type: IntEnum([1, 2], '1 shared, 2 generated'),
    type_name: StrEnum(Object.values(TYPE_NAMES)),
    description: Nullable(Str()),
    service_profile_id: Id(),
    service_profile_name: Str(),
    start_date: Nullable(IsoMicros()),
    expiry_date: Nullable(IsoMicros()),
    status: Int(),
    status_name: Str(),
    use_count: Int(),
    used_at: Nullable(IsoMicros()),
    guest_id: Nullable(Id()),
    guest_name: Str('"" without a guest.'),
    created_at: IsoMicros(),
  },
  'AccessCode',
);

// The exact shape of spec 2.13, keys in the spec's order (then `max_uses` and `revoked_at`, beyond it),
// and the redeem's answer.

import { Id, Int, IntEnum, IsoMicros, Nullable, Obj, Str, StrEnum } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { STATUS_NAMES, shownStatus, statusName, TYPE_NAMES, typeName } from './access-codes.labels.js';
import type { Limits } from './access-codes.redeem.js';
import type { AccessCodeWithNames } from './access-codes.service.js';

/** `guestShown`: whether the caller may see the code's guest (else `guest_name` is ""). */
export function accessCodeItem(c: AccessCodeWithNames, guestShown: boolean) {
  const status = shownStatus(c);
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
    status,
    status_name: statusName(status),
    use_count: c.useCount,
    used_at: isoMicros(c.usedAt),
    guest_id: c.guestId,
    guest_name: guestShown ? (c.guest?.name ?? '') : '',
    created_at: isoMicros(c.createdAt),
    max_uses: c.maxUses,
    revoked_at: isoMicros(c.revokedAt),
  };
}

/** The service profile's limits in the redeem's answer. */
export function limitsItem(l: Limits) {
  return {
    session_duration: l.sessionDuration,
    data_quota: l.dataQuota === null ? null : Number(l.dataQuota),
    bandwidth_up: l.bandwidthUp,
    bandwidth_down: l.bandwidthDown,
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
    status: IntEnum([1, 2, 3, 4], '1 Available, 2 Used, 3 Expired (read from expiry_date), 4 Revoked'),
    status_name: StrEnum(Object.values(STATUS_NAMES)),
    use_count: Int(),
    used_at: Nullable(IsoMicros()),
    guest_id: Nullable(Id()),
    guest_name: Str('"" without a guest.'),
    created_at: IsoMicros(),
    max_uses: Nullable(Int('Redemptions allowed; null: unlimited.')),
    revoked_at: Nullable(IsoMicros()),
  },
  'AccessCode',
);

export const LimitsSchema = Obj(
  {
    session_duration: Int('Minutes; 0: unlimited.'),
    data_quota: Nullable(Int('Bytes; null: unlimited.')),
    bandwidth_up: Int('kbit/s; 0: unlimited.'),
    bandwidth_down: Int('kbit/s; 0: unlimited.'),
  },
  'AccessCodeLimits',
);

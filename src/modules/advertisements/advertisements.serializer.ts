// The exact shape of spec 2.12, keys in the spec's order.
import { Type } from '@sinclair/typebox';
import { Id, Int, IntEnum, IsoMicros, Nullable, Obj, Str } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import type { AdvertisementWithTags } from './advertisements.service.js';

export function advertisementItem(a: AdvertisementWithTags) {
  return {
    id: a.id,
    title: a.title,
    type: a.type,
    method: a.method,
    condition_value: a.conditionValue,
    impression_count: a.impressionCount,
    click_count: a.clickCount,
    status: a.status,
    start_date: isoMicros(a.startDate),
    end_date: isoMicros(a.endDate),
    // `group_name` is a string in the spec: a tag without a group shows "".
    tags: a.tags.map(({ tag }) => ({ id: tag.id, name: tag.name, group_name: tag.groupName ?? '' })),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const AdvertisementItemSchema = Obj(
  {
    id: Id(),
    title: Str(),
    type: IntEnum([0, 1]),
    method: Int(),
    condition_value: Int(),
    impression_count: Int(),
    click_count: Int(),
    status: IntEnum([0, 1]),
    start_date: Nullable(IsoMicros()),
    end_date: Nullable(IsoMicros()),
    tags: Type.Array(
      Obj({ id: Id(), name: Str(), group_name: Str('"" when the tag has no group.') }, 'AdvertisementTag'),
    ),
  },
  'Advertisement',
);

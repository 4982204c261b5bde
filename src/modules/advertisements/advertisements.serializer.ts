// The exact shape of spec 2.12, keys in the spec's order.
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

// The query rules of spec 4.5, shared by REST and GraphQL.
import { dateFormat, inList, integer, nullable, type Rules, textFilter } from '../../validation/validator.js';

export const activeSessionFilterRules: Rules = {
  location_id: textFilter(),
  building_id: textFilter(),
  floor_id: textFilter(),
  zone_id: textFilter(),
  segment_id: textFilter(),
  data_type: [nullable(), integer(), inList([1, 2])],
  connected: [nullable(), integer(), inList([0, 1])],
};

export const locationSessionFilterRules: Rules = {
  guest_id: textFilter(),
  location_id: textFilter(),
  mac: textFilter(),
  started_at: [nullable(), dateFormat('Y-m-d H:i')],
  ended_at: [nullable(), dateFormat('Y-m-d H:i')],
  visit_type: [nullable(), integer()],
};

export const locationLogFilterRules: Rules = {
  guest_id: textFilter(),
  guest_mac: textFilter(),
  session_id: textFilter(),
  zone_id: textFilter(),
  timestamp: [nullable(), dateFormat('Y-m-d H:i')],
};

// The query rules of spec 4.5, shared by REST and GraphQL.
import { dateFormat, inList, integer, nullable, type Rules, string } from '../../validation/validator.js';

export const activeSessionFilterRules: Rules = {
  location_id: [nullable(), string()],
  building_id: [nullable(), string()],
  floor_id: [nullable(), string()],
  zone_id: [nullable(), string()],
  segment_id: [nullable(), string()],
  data_type: [nullable(), integer(), inList([1, 2])],
  connected: [nullable(), integer(), inList([0, 1])],
};

export const locationSessionFilterRules: Rules = {
  guest_id: [nullable(), string()],
  location_id: [nullable(), string()],
  mac: [nullable(), string()],
  started_at: [nullable(), dateFormat('Y-m-d H:i')],
  ended_at: [nullable(), dateFormat('Y-m-d H:i')],
  visit_type: [nullable(), integer()],
};

export const locationLogFilterRules: Rules = {
  guest_id: [nullable(), string()],
  guest_mac: [nullable(), string()],
  session_id: [nullable(), string()],
  zone_id: [nullable(), string()],
  timestamp: [nullable(), dateFormat('Y-m-d H:i')],
};

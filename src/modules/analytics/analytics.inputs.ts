// The query rules of spec 4.5, shared by REST and GraphQL.
import { dateFormat, inList, integer, type Rules, string } from '../../validation/validator.js';

export const activeSessionFilterRules: Rules = {
  location_id: [string()],
  building_id: [string()],
  floor_id: [string()],
  zone_id: [string()],
  segment_id: [string()],
  data_type: [integer(), inList([1, 2])],
  connected: [integer(), inList([0, 1])],
};

export const locationSessionFilterRules: Rules = {
  guest_id: [string()],
  location_id: [string()],
  mac: [string()],
  started_at: [dateFormat('Y-m-d H:i')],
  ended_at: [dateFormat('Y-m-d H:i')],
  visit_type: [integer()],
};

export const locationLogFilterRules: Rules = {
  guest_id: [string()],
  guest_mac: [string()],
  session_id: [string()],
  zone_id: [string()],
  timestamp: [dateFormat('Y-m-d H:i')],
};

// REST endpoints of spec 4.3: validate paging, call one service function, serialize.
import { countEndpoint, listEndpoint } from '../../rest/endpoint.js';
import { deviceFilterRules, deviceListRules } from './guest-devices.inputs.js';
import { DeviceItemSchema, deviceItem } from './guest-devices.serializer.js';
import { countDevices, listDeviceRows } from './guest-devices.service.js';

export const list = listEndpoint({
  action: 'guestDevices.list',
  summary:
    'List guest devices (guest_id, mac, online, created_at, updated_at, partner_id, last_guest_device_first, page, per_page)',
  item: DeviceItemSchema,
  filters: deviceListRules,
  list: listDeviceRows,
  serialize: deviceItem,
});

export const count = countEndpoint({
  action: 'guestDevices.list',
  summary: 'Count guest devices (guest_id, mac, online, created_at, updated_at, partner_id)',
  filters: deviceFilterRules,
  count: countDevices,
});

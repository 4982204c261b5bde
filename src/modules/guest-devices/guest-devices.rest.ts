// REST endpoints of spec 4.3: the device list operations (guest-devices.service.ts) with REST's
// paging and serializer.
import type { AppContext } from '../../context.js';
import { type ExportPage, exportEndpointOf } from '../../rest/export.js';
import { countEndpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { DeviceItemSchema, deviceItem } from './guest-devices.serializer.js';
import {
  countDevices,
  type DeviceQuery,
  deviceListQuery,
  deviceListSelect,
  devicesQuery,
  listDevices,
} from './guest-devices.service.js';

/** The list's rows: a page, or an export's batch. */
const read = (ctx: AppContext, q: DeviceQuery, page: ExportPage | { skip: number; take: number }) =>
  listDevices(ctx, q, { ...page, select: deviceListSelect });

export const list = listEndpointOf(deviceListQuery, {
  summary:
    'List guest devices (guest_id, mac, online, created_at, updated_at, partner_id, last_guest_device_first, page, per_page)',
  item: DeviceItemSchema,
  read,
  serialize: deviceItem,
});

export const exportAll = exportEndpointOf(deviceListQuery, {
  summary: 'Export guest devices as CSV or NDJSON, streamed (the list filters, format, bom)',
  name: 'guest-devices',
  model: 'GuestDevice',
  item: DeviceItemSchema,
  read,
  serialize: deviceItem,
});

export const count = countEndpointOf(devicesQuery, {
  summary: 'Count guest devices (guest_id, mac, online, created_at, updated_at, partner_id)',
  count: countDevices,
});

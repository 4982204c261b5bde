// REST's copy of a guest (`GET /guests/:id/export`): the detail as `GET /guests/:id` shows it, then
// each collection in its own list's item shape, newest first.
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import { phpFloat } from '../../rest/php-json.js';
import { DataBody, Float, Id, IntEnum, IsoMicros, Nullable, Obj, Str } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { AccessCodeItemSchema, accessCodeItem } from '../access-codes/access-codes.serializer.js';
import {
  LocationLogSchema,
  LocationSessionSchema,
  locationLogItem,
  locationSessionItem,
} from '../analytics/analytics.serializer.js';
import { DeviceItemSchema, deviceItem } from '../guest-devices/guest-devices.serializer.js';
import { SessionItemSchema, sessionItem } from '../guest-sessions/guest-sessions.serializer.js';
import type { GuestCopy } from './guests.privacy.js';
import { GuestDetailSchema, guestDetailItem } from './guests.serializer.js';

type PresenceRow = GuestCopy['presenceRecords'][number];

function presenceRecordItem(p: PresenceRow) {
  return {
    id: p.id,
    mac_address: p.mac,
    data_type: p.dataType,
    x: phpFloat(p.x),
    y: phpFloat(p.y),
    location_id: p.locationId,
    building_id: p.buildingId,
    floor_id: p.floorId,
    zone_id: p.zoneId,
    connected: p.connected ? 1 : 0,
    seen_at: isoMicros(p.seenAt),
  };
}

export function guestCopyItem(c: GuestCopy, config: Pick<Config, 'appUrl'>) {
  return {
    guest: guestDetailItem(c.guest, config),
    custom_data: c.guest.customData,
    tags: c.tags.map((t) => ({ name: t.name, type: t.type, group_name: t.groupName })),
    devices: c.devices.map(deviceItem),
    // The sessions are the guest's own: its partner id is shown.
    sessions: c.sessions.map((s) => sessionItem(s, { device: true, guest: true })),
    presence_records: c.presenceRecords.map(presenceRecordItem),
    location_sessions: c.locationSessions.map(locationSessionItem),
    location_logs: c.locationLogs.map(locationLogItem),
    // The codes the guest held or logged in with: its own name is shown.
    access_codes: c.accessCodes.map((a) => accessCodeItem(a, true)),
  };
}

const PresenceRecordSchema = Obj(
  {
    id: Id(),
    mac_address: Str(),
    data_type: IntEnum([1, 2], '1 WiFi, 2 BLE'),
    x: Nullable(Float()),
    y: Nullable(Float()),
    location_id: Nullable(Id()),
    building_id: Nullable(Id()),
    floor_id: Nullable(Id()),
    zone_id: Nullable(Id()),
    connected: IntEnum([0, 1]),
    seen_at: IsoMicros(),
  },
  'GuestCopyPresenceRecord',
);

export const GuestCopySchema = DataBody(
  Obj(
    {
      guest: GuestDetailSchema,
      custom_data: Nullable(Str('JSON text, as stored')),
      tags: Type.Array(
        Obj({ name: Str(), type: Nullable(Type.Integer()), group_name: Nullable(Str()) }, 'GuestCopyTag'),
      ),
      devices: Type.Array(DeviceItemSchema),
      sessions: Type.Array(SessionItemSchema),
      presence_records: Type.Array(PresenceRecordSchema),
      location_sessions: Type.Array(LocationSessionSchema),
      location_logs: Type.Array(LocationLogSchema),
      access_codes: Type.Array(AccessCodeItemSchema),
    },
    'GuestCopy',
  ),
);

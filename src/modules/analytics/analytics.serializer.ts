// The exact shapes of spec 2.7, 2.8 and 2.9, keys in the spec's order.
import { Type } from '@sinclair/typebox';
import { phpFloat } from '../../rest/php-json.js';
import { Float, Id, Int, IntEnum, IsoMicros, Nullable, Obj, Str, StrEnum } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { GENDER_NAMES, genderName } from '../../shared/labels.js';
import type { ActiveSession, LocationLogRow, LocationSessionRow } from './analytics.service.js';

export function activeSessionItem(s: ActiveSession) {
  return {
    mac_address: s.mac,
    data_type: s.dataType,
    x: phpFloat(s.x),
    y: phpFloat(s.y),
    location_id: s.locationId,
    location: s.location,
    building_id: s.buildingId,
    building: s.building,
    floor_id: s.floorId,
    floor: s.floor,
    zone_id: s.zoneId,
    zone: s.zone,
    gender: genderName(s.gender),
    nationality: s.nationalityCode,
    country_of_residency: s.residencyCode,
    guest_id: s.guestId,
    segment: s.segment.map((t) => ({ id: t.id, name: t.name })),
    last_seen: isoMicros(s.seenAt),
    connected: s.connected ? 1 : 0,
  };
}

export function locationSessionItem(s: LocationSessionRow) {
  return {
    id: s.id,
    guest_id: s.guestId,
    location_id: s.locationId,
    mac: s.mac,
    started_at: isoMicros(s.startedAt),
    ended_at: isoMicros(s.endedAt),
    duration: String(s.duration),
    visit_type: s.visitType,
  };
}

export function locationLogItem(l: LocationLogRow) {
  return {
    guest_id: l.guestId,
    guest_mac: l.guestMac,
    session_id: l.sessionId,
    zone_id: l.zoneId,
    timestamp: isoMicros(l.timestamp),
    duration: String(l.duration),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const ActiveSessionSchema = Obj(
  {
    mac_address: Str(),
    data_type: IntEnum([1, 2], '1 WiFi, 2 BLE'),
    x: Nullable(Float()),
    y: Nullable(Float()),
    location_id: Nullable(Id()),
    location: Nullable(Str()),
    building_id: Nullable(Id()),
    building: Nullable(Str()),
    floor_id: Nullable(Id()),
    floor: Nullable(Str()),
    zone_id: Nullable(Id()),
    zone: Nullable(Str()),
    gender: Nullable(StrEnum([...GENDER_NAMES])),
    nationality: Nullable(Str()),
    country_of_residency: Nullable(Str()),
    guest_id: Nullable(Id()),
    segment: Type.Array(Obj({ id: Id(), name: Str() }, 'Segment')),
    last_seen: IsoMicros(),
    connected: IntEnum([0, 1]),
  },
  'ActiveSession',
);

export const LocationSessionSchema = Obj(
  {
    id: Id(),
    guest_id: Nullable(Id()),
    location_id: Id(),
    mac: Str(),
    started_at: IsoMicros(),
    ended_at: Nullable(IsoMicros()),
    duration: Type.String({ pattern: '^\\d+$', description: 'Seconds, as text.' }),
    visit_type: Int(),
  },
  'LocationSession',
);

export const LocationLogSchema = Obj(
  {
    guest_id: Nullable(Id()),
    guest_mac: Str(),
    session_id: Id(),
    zone_id: Nullable(Id()),
    timestamp: IsoMicros(),
    duration: Type.String({ pattern: '^\\d+$', description: 'Seconds, as text.' }),
  },
  'LocationLog',
);

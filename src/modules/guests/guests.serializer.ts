// The exact shapes of spec 2.3, keys in the spec's order: the list item and the detail.
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import { phpFloat } from '../../rest/php-json.js';
import {
  Bool,
  DateOnly,
  Float,
  Id,
  Int,
  IntEnum,
  IsoMicros,
  Nullable,
  Obj,
  Str,
  StrEnum,
} from '../../rest/schemas.js';
import { dateOnly, isoMicros } from '../../shared/format.js';
import { avatarUrl } from '../../storage/storage.js';
import { countryName } from '../../validation/countries.js';
import type { Beacon, GuestListRow, GuestRow } from './guests.service.js';

export const GENDER_NAMES = ['Unknown', 'Male', 'Female'] as const;

/** 0 Unknown, 1 Male, 2 Female → `Male`…; anything else reads as Unknown. */
export const genderName = (g: number): string => GENDER_NAMES[g] ?? 'Unknown';

/** The list's text form: `male`, `female`, or null when unknown. */
const genderText = (g: number): string | null => (g === 1 ? 'male' : g === 2 ? 'female' : null);

const country = (code: string | null): string | null => (code ? countryName(code) : null);

export const tagNames = (g: { tags: { tag: { name: string } }[] }): string[] => g.tags.map((t) => t.tag.name);

export function beaconItem(b: Beacon) {
  return {
    mac_address: b.mac,
    location_id: b.locationId,
    building_id: b.buildingId,
    floor_id: b.floorId,
    zone_id: b.zoneId,
    zone: b.zone,
    x: phpFloat(b.x),
    y: phpFloat(b.y),
    last_seen: isoMicros(b.seenAt),
  };
}

export function guestListItem(g: GuestListRow) {
  return {
    id: g.id,
    username: g.username,
    name: g.name,
    email: g.email,
    birth_date: dateOnly(g.birthDate),
    gender: genderText(g.gender),
    phone: g.phone,
    passport_no: g.passportNo,
    nationality: country(g.nationalityCode),
    nationality_code: g.nationalityCode,
    residency: country(g.residencyCode),
    residency_code: g.residencyCode,
    room_number: g.roomNo,
    reservation_no: g.reservationNo,
    hotel_status: g.hotelStatus,
    social_id: g.socialId,
    partner_id: g.partnerId,
    custom_field_1: g.customField1,
    custom_field_2: g.customField2,
    custom_field_3: g.customField3,
    online: g.online,
    location_id: g.locationId,
    location_name: g.location.name,
    last_visit_date: isoMicros(g.lastVisitDate),
    last_attempt_time: isoMicros(g.lastAttemptTime),
    visit_count: g.visitCount,
    receive_marketing: g.receiveMarketing,
    last_login_type: g.lastLoginType,
    connection_status: g.connectionStatus,
    last_connection_time: isoMicros(g.lastConnectionTime),
    last_ssid_name: g.lastSsidName,
    created_at: isoMicros(g.createdAt),
    updated_at: isoMicros(g.updatedAt),
    tags: tagNames(g),
    type: g.type,
    checkin_date: isoMicros(g.checkinDate),
    checkout_date: isoMicros(g.checkoutDate),
    ...(g.beacon !== undefined ? { beacon: g.beacon === null ? null : beaconItem(g.beacon) } : {}),
  };
}

/** The detail: the list item's keys with the differences of 2.3 in place, detail-only fields last. */
export function guestDetailItem(g: GuestRow, config: Pick<Config, 'appUrl'>) {
  return {
    id: g.id,
    username: g.username,
    name: g.name,
    first_name: g.firstName,
    last_name: g.lastName,
    email: g.email,
    birth_date: dateOnly(g.birthDate),
    gender: g.gender,
    gender_name: genderName(g.gender),
    phone: g.phone,
    passport_no: g.passportNo,
    nationality: country(g.nationalityCode),
    nationality_code: g.nationalityCode,
    residency: country(g.residencyCode),
    residency_code: g.residencyCode,
    room_no: g.roomNo,
    reservation_no: g.reservationNo,
    hotel_status: g.hotelStatus,
    social_id: g.socialId,
    partner_id: g.partnerId,
    custom_field_1: g.customField1,
    custom_field_2: g.customField2,
    custom_field_3: g.customField3,
    online: g.online,
    location_id: g.locationId,
    location_name: g.location.name,
    last_visit_date: isoMicros(g.lastVisitDate),
    last_attempt_time: isoMicros(g.lastAttemptTime),
    visit_count: g.visitCount,
    receive_marketing: g.receiveMarketing,
    connection_status: g.connectionStatus,
    last_connection_time: isoMicros(g.lastConnectionTime),
    last_ssid_name: g.lastSsidName,
    created_at: isoMicros(g.createdAt),
    updated_at: isoMicros(g.updatedAt),
    tags: tagNames(g),
    type: g.type,
    checkin_date: isoMicros(g.checkinDate),
    checkout_date: isoMicros(g.checkoutDate),
    connection_method: g.connectionMethod,
    total_downloaded_data: Number(g.totalDownloadedData),
    total_uploaded_data: Number(g.totalUploadedData),
    direct_login: g.directLogin,
    device_tags: [],
    vendor: g.vendor,
    phone_verified_at: isoMicros(g.phoneVerifiedAt),
    whatsapp_verified_at: isoMicros(g.whatsappVerifiedAt),
    email_verified_at: isoMicros(g.emailVerifiedAt),
    smart_login: g.smartLogin,
    image_url: avatarUrl(config, g.imagePath),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

export const BeaconSchema = Obj(
  {
    mac_address: Str(),
    location_id: Nullable(Id()),
    building_id: Nullable(Id()),
    floor_id: Nullable(Id()),
    zone_id: Nullable(Id()),
    zone: Nullable(Str()),
    x: Nullable(Float()),
    y: Nullable(Float()),
    last_seen: IsoMicros(),
  },
  'Beacon',
);

export const GuestListItemSchema = Obj(
  {
    id: Id(),
    username: Str(),
    name: Str(),
    email: Nullable(Str()),
    birth_date: Nullable(DateOnly()),
    gender: Nullable(StrEnum(['male', 'female'])),
    phone: Nullable(Str()),
    passport_no: Nullable(Str()),
    nationality: Nullable(Str()),
    nationality_code: Nullable(Str()),
    residency: Nullable(Str()),
    residency_code: Nullable(Str()),
    room_number: Nullable(Str()),
    reservation_no: Nullable(Str()),
    hotel_status: Nullable(Int()),
    social_id: Nullable(Str()),
    partner_id: Nullable(Str()),
    custom_field_1: Nullable(Str()),
    custom_field_2: Nullable(Str()),
    custom_field_3: Nullable(Str()),
    online: Bool(),
    location_id: Id(),
    location_name: Str(),
    last_visit_date: Nullable(IsoMicros()),
    last_attempt_time: Nullable(IsoMicros()),
    visit_count: Int(),
    receive_marketing: IntEnum([0, 1]),
    last_login_type: Nullable(Str()),
    connection_status: Int(),
    last_connection_time: Nullable(IsoMicros()),
    last_ssid_name: Nullable(Str()),
    created_at: IsoMicros(),
    updated_at: IsoMicros(),
    tags: Type.Array(Str()),
    type: IntEnum([1, 2], '1 guest, 2 employee'),
    checkin_date: Nullable(IsoMicros()),
    checkout_date: Nullable(IsoMicros()),
    beacon: Type.Optional(Nullable(BeaconSchema)),
  },
  'GuestListItem',
);

export const GuestDetailSchema = Obj(
  {
    id: Id(),
    username: Str(),
    name: Str(),
    first_name: Nullable(Str()),
    last_name: Nullable(Str()),
    email: Nullable(Str()),
    birth_date: Nullable(DateOnly()),
    gender: IntEnum([0, 1, 2], '0 unknown, 1 male, 2 female'),
    gender_name: StrEnum([...GENDER_NAMES]),
    phone: Nullable(Str()),
    passport_no: Nullable(Str()),
    nationality: Nullable(Str()),
    nationality_code: Nullable(Str()),
    residency: Nullable(Str()),
    residency_code: Nullable(Str()),
    room_no: Nullable(Str()),
    reservation_no: Nullable(Str()),
    hotel_status: Nullable(Int()),
    social_id: Nullable(Str()),
    partner_id: Nullable(Str()),
    custom_field_1: Nullable(Str()),
    custom_field_2: Nullable(Str()),
    custom_field_3: Nullable(Str()),
    online: Bool(),
    location_id: Id(),
    location_name: Str(),
    last_visit_date: Nullable(IsoMicros()),
    last_attempt_time: Nullable(IsoMicros()),
    visit_count: Int(),
    receive_marketing: IntEnum([0, 1]),
    connection_status: Int(),
    last_connection_time: Nullable(IsoMicros()),
    last_ssid_name: Nullable(Str()),
    created_at: IsoMicros(),
    updated_at: IsoMicros(),
    tags: Type.Array(Str()),
    type: IntEnum([1, 2], '1 guest, 2 employee'),
    checkin_date: Nullable(IsoMicros()),
    checkout_date: Nullable(IsoMicros()),
    connection_method: Nullable(Str()),
    total_downloaded_data: Int('Bytes.'),
    total_uploaded_data: Int('Bytes.'),
    direct_login: IntEnum([0, 1]),
    device_tags: Type.Array(Str(), { maxItems: 0 }),
    vendor: Nullable(Str()),
    phone_verified_at: Nullable(IsoMicros()),
    whatsapp_verified_at: Nullable(IsoMicros()),
    email_verified_at: Nullable(IsoMicros()),
    smart_login: Str(),
    image_url: Nullable(Type.String({ format: 'uri' })),
  },
  'GuestDetail',
);

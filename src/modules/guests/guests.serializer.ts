// The exact shapes of spec 2.3, keys in the spec's order: the list item and the detail.
import type { Config } from '../../config.js';
import { phpFloat } from '../../rest/php-json.js';
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

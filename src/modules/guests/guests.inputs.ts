// The rules of spec 4.2, shared by REST and GraphQL.

import type { Scope } from '../../auth/principal.js';
import type { Prisma } from '../../db/database.js';
import { CASE_INSENSITIVE_UNIQUE, takenIgnoringCase, textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { field, filterOf } from '../../operations/operation.js';
import { dayStart, writableDate } from '../../shared/dates.js';
import { imageTypeOf } from '../../shared/image-type.js';
import { GENDER_WORDS, genderOfWord } from '../../shared/labels.js';
import { parseYmd, utcDate } from '../../validation/rules/dates.js';
import {
  array,
  between,
  countryCode,
  dateFormat,
  elementErrors,
  email,
  exists,
  inList,
  integer,
  json,
  type Keep,
  max,
  min,
  nullable,
  queryBoolean,
  type Rule,
  required,
  size,
  string,
  textFilter,
  unique,
} from '../../validation/validator.js';

// ---------------------------------------------------------------------------------------------
// Filters

const DAY_MS = 86_400_000;
/** One calendar month after `epoch` (a day at 00:00 UTC), clamped to the month's last day: Jan 31 → Feb 28/29. */
export function oneMonthAfter(epoch: number): number {
  const d = new Date(epoch);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const lastDay = utcDate(y, m + 2, 0).getUTCDate();
  return utcDate(y, m + 1, Math.min(d.getUTCDate(), lastDay)).getTime();
}

export const LAST_VISIT_MESSAGES = {
  format: 'The :attribute field must match the format Y-m-d or Y-m-d,Y-m-d.',
  order: 'The :attribute field must end on or after its start.',
  month: 'The :attribute field must not span more than one month.',
} as const;

/** The half-open interval `[from, to)` a `last_visit_date` filter stands for. */
export interface VisitWindow {
  from: Date;
  to: Date;
}

/**
 * `YYYY-MM-DD`: that day 00:00 UTC up to (not including) seven days later.
 * `YYYY-MM-DD,YYYY-MM-DD`: from the first day 00:00 UTC to the end of the second day, inclusive, and
 * the second day at most one calendar month after the first.
 */
export function visitWindow(text: string): VisitWindow | keyof typeof LAST_VISIT_MESSAGES {
  const parts = text.split(',');
  if (parts.length === 1) {
    const start = parseYmd(parts[0] ?? '');
    if (start === null) return 'format';
    return { from: new Date(start), to: writableDate(start + 7 * DAY_MS) };
  }
  if (parts.length !== 2) return 'format';
  const start = parseYmd(parts[0] ?? '');
  const end = parseYmd(parts[1] ?? '');
  if (start === null || end === null) return 'format';
  if (end < start) return 'order';
  if (end > oneMonthAfter(start)) return 'month';
  return { from: new Date(start), to: writableDate(end + DAY_MS) };
}

const LAST_VISIT_DATE =
  '`YYYY-MM-DD` (that day and the six after) or `YYYY-MM-DD,YYYY-MM-DD` (both days included, at most one month).';

const lastVisitDate: Rule<VisitWindow> = {
  name: 'lastVisitDate',
  doc: { description: LAST_VISIT_DATE },
  check: (value, ctx) => {
    const result = typeof value === 'string' ? visitWindow(value) : 'format';
    return typeof result === 'string'
      ? LAST_VISIT_MESSAGES[result].replace(':attribute', ctx.attribute)
      : null;
  },
  coerce: (value) => visitWindow(String(value)),
};

const day = () => dateFormat('Y-m-d');

const guestFilter = filterOf<PrismaNS.GuestWhereInput>();
const SUBSTRING = 'Case-insensitive substring';
const EXACT = 'Exact';

/**
 * The filters of the guest list and count, on both transports: each one's rules (REST name), its
 * GraphQL argument's description, and the condition it adds. A new filter is one entry here.
 */
export const guestFilters = {
  username: guestFilter(textFilter(), {
    description: SUBSTRING,
    where: (v) => ({ username: textSearch(v) }),
  }),
  partner_id: guestFilter(textFilter(), { description: EXACT, where: (v) => ({ partnerId: v }) }),
  name: guestFilter(textFilter(), {
    description: 'Case-insensitive substring of the full name',
    where: (v) => ({ name: textSearch(v) }),
  }),
  email: guestFilter(textFilter(), { description: SUBSTRING, where: (v) => ({ email: textSearch(v) }) }),
  birth_date: guestFilter([nullable(), day()], {
    description: '`yyyy-mm-dd`',
    where: (v) => ({ birthDate: dayStart(v) }),
  }),
  location_id: guestFilter(textFilter(), { where: (v) => ({ locationId: v }) }),
  gender: guestFilter([nullable(), string(), inList(GENDER_WORDS)], {
    description: '`male` or `female`',
    where: (v) => ({ gender: genderOfWord(v) }),
  }),
  phone: guestFilter(textFilter(), { description: SUBSTRING, where: (v) => ({ phone: textSearch(v) }) }),
  passport_no: guestFilter(textFilter(), { description: EXACT, where: (v) => ({ passportNo: v }) }),
  nationality: guestFilter(textFilter(), {
    description: 'ISO 3166-1 alpha-2',
    where: (v) => ({ nationalityCode: v.toUpperCase() }),
  }),
  room_no: guestFilter(textFilter(), { description: EXACT, where: (v) => ({ roomNo: v }) }),
  reservation_no: guestFilter(textFilter(), { description: EXACT, where: (v) => ({ reservationNo: v }) }),
  custom_field_1: guestFilter(textFilter(), { description: EXACT, where: (v) => ({ customField1: v }) }),
  custom_field_2: guestFilter(textFilter(), { description: EXACT, where: (v) => ({ customField2: v }) }),
  custom_field_3: guestFilter(textFilter(), { description: EXACT, where: (v) => ({ customField3: v }) }),
  online: guestFilter([nullable(), queryBoolean()], { where: (v) => ({ online: v }) }),
  last_visit_date: guestFilter([nullable(), lastVisitDate], {
    description: LAST_VISIT_DATE,
    where: (v) => ({ lastVisitDate: { gte: v.from, lt: v.to } }),
  }),
  receive_marketing: guestFilter([nullable(), integer(), inList([0, 1])], {
    description: '0 opted-out, 1 opted-in',
    where: (v) => ({ receiveMarketing: v }),
  }),
  created_at: guestFilter([nullable(), day()], {
    description: 'Created on or after this day, `yyyy-mm-dd`',
    where: (v) => ({ createdAt: { gte: dayStart(v) } }),
  }),
  updated_at: guestFilter([nullable(), day()], {
    description: 'Updated on or after this day, `yyyy-mm-dd`',
    where: (v) => ({ updatedAt: { gte: dayStart(v) } }),
  }),
  last_guest_first: guestFilter([nullable(), queryBoolean()], { description: 'Newest first' }),
  type: guestFilter([nullable(), integer(), inList([1, 2])], {
    description: '1 guest, 2 employee; null or omitted: all',
    where: (v) => ({ type: v }),
  }),
  tag: guestFilter(textFilter(), {
    description: 'A tag name, exact: the guests carrying that tag',
    where: (v) => ({ tags: { some: { tag: { name: v } } } }),
  }),
};

/** The REST list also takes `withBeacon` (the count and GraphQL, which has `Guest.beacon`, do not). */
export const guestListFilters = {
  ...guestFilters,
  withBeacon: guestFilter([nullable(), queryBoolean()]),
};

// ---------------------------------------------------------------------------------------------
// Create and update

export const AVATAR_MAX_KB = 2048;
export const AVATAR_MESSAGES = {
  image: 'The :attribute field must be an image.',
  size: `The :attribute field must not be greater than ${AVATAR_MAX_KB} kilobytes.`,
} as const;

const DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]*={0,2})$/;

export interface Avatar {
  bytes: Buffer;
  ext: 'png' | 'jpg' | 'gif' | 'webp';
}

/** Any base64 data URL (a file part arrives as one), whatever its type: its bytes' length. */
const ANY_DATA_URL = /^data:[^;,]*;base64,([A-Za-z0-9+/]*={0,2})$/;

/** A `data:image/(png|jpeg|gif|webp);base64,…` string → its bytes (their size is avatarSize's), or `image`. */
export function parseAvatar(value: unknown): Avatar | 'image' {
  const m = typeof value === 'string' ? DATA_URL.exec(value) : null;
  if (!m || (m[2] ?? '').length % 4 !== 0) return 'image';
  const type = m[1] ?? '';
  const bytes = Buffer.from(m[2] ?? '', 'base64');
  // The bytes must really be the declared format (src/shared/image-type.ts).
  if (bytes.length === 0 || imageTypeOf(bytes) !== type) return 'image';
  return { bytes, ext: type === 'jpeg' ? 'jpg' : (type as Avatar['ext']) };
}

/**
 * Laravel's `image|max:2048`, two rules as there, each with its message: a file that is neither an
 * image nor small enough is told both (probe X). After `avatar`: the image it made, else the text.
 */
const avatarSize: Rule<Keep> = {
  name: 'avatarSize',
  doc: { description: `At most ${AVATAR_MAX_KB} KB decoded.` },
  check: (value, ctx) => {
    let length = 0;
    if (typeof value === 'string') length = Buffer.byteLength(ANY_DATA_URL.exec(value)?.[1] ?? '', 'base64');
    else if (value !== null && typeof value === 'object' && 'bytes' in value)
      length = (value as Avatar).bytes.length;
    return length > AVATAR_MAX_KB * 1024 ? AVATAR_MESSAGES.size.replace(':attribute', ctx.attribute) : null;
  },
};

const avatar: Rule<Avatar> = {
  name: 'avatar',
  doc: {
    // Its size is avatarSize's to describe.
    description: 'A `data:image/(png|jpeg|gif|webp);base64,…` string.',
  },
  check: (value, ctx) =>
    parseAvatar(value) === 'image' ? AVATAR_MESSAGES.image.replace(':attribute', ctx.attribute) : null,
  // The image, its size judged by avatarSize next.
  coerce: (value) => parseAvatar(value),
};

/** A list of tag names (a JSON object is refused too: names are attached by value). */
const tagNames: Rule<string[]> = {
  name: 'tagNames',
  doc: { description: 'A list of tag names (non-empty strings of at most 255 characters).' },
  check: (value, ctx) => {
    if (!Array.isArray(value)) return `The ${ctx.attribute} field must be an array.`;
    // `tags.*` => `string`, `max:255`: each failing element keyed as Laravel keys it (`tags.1`; in an
    // import `rows.3.tags.1`).
    return elementErrors(value, (name, i) => {
      if (typeof name !== 'string' || name.trim() === '')
        return [`The ${ctx.attribute}.${i} field must be a string.`];
      if ([...name].length > 255)
        return [`The ${ctx.attribute}.${i} field must not be greater than 255 characters.`];
      return [];
    });
  },
  coerce: (value) => [...new Set((value as string[]).map((s) => s.trim()))],
};

const text = (n = 255) => [nullable(), string(), max(n)] as const;

/**
 * The two look-ups of the write rules. Without them each is one query; an import (guests.import.ts)
 * answers them from what it loaded for all its rows at once.
 */
export interface GuestLookups {
  /** Whether `id` is a location the guest may be placed at (`exists`). */
  locationExists(id: string): Promise<boolean>;
  /** Whether another guest of the tenant holds `email`, regardless of case (`unique`). */
  emailTaken(email: string): Promise<boolean>;
}

export interface GuestWriteOptions {
  prisma: Prisma;
  scope: Scope;
  /** The guest being updated: its own email is not "taken". */
  exceptId?: string;
  mode: 'create' | 'update';
  lookups?: GuestLookups;
}

/** The body of `POST /guests` and `PUT /guests/:id` (GraphQL GuestCreateInput, GuestUpdateInput). */
/**
 * A guest's name on update: a string of 5 to 255 characters. A name rebuilt from `first_name` and
 * `last_name` sent without it meets the same rule (guests.service.ts).
 */
export const UPDATED_NAME = [string(), min(5), max(255)];

export function guestWriteFields(o: GuestWriteOptions) {
  const update = o.mode === 'update';
  return {
    location_id: field(
      [
        required(),
        string(),
        // The whole tenant: whether the caller may place the guest there is a permission, not a rule.
        exists(async (value) => {
          if (o.lookups) return o.lookups.locationExists(String(value));
          const found = await o.prisma.location.findFirst({
            where: { tenantId: o.scope.tenantId, id: String(value) },
            select: { id: true },
          });
          return found !== null;
        }),
      ],
      'Required; a location of the tenant',
    ),
    // On update a sent name is a string of at least 5 characters (null is a 422: the name is never
    // cleared); on create it may be null or left out and stays empty.
    name: field(update ? UPDATED_NAME : text(), 'Full name'),
    first_name: field(text()),
    last_name: field(text()),
    email: field(
      [
        nullable(),
        string(),
        email(),
        max(255),
        // Case-insensitive, in the whole tenant.
        unique((value) =>
          o.lookups
            ? o.lookups.emailTaken(String(value))
            : takenIgnoringCase(o.prisma, CASE_INSENSITIVE_UNIQUE.guestEmail, String(value), {
                tenantId: o.scope.tenantId,
                exceptId: o.exceptId,
              }),
        ),
      ],
      'Unique within the tenant',
    ),
    birth_date: field([nullable(), day()], '`yyyy-mm-dd`'),
    birthday: field([nullable(), day()], 'Alias of birthDate'),
    gender: update
      ? field([integer(), inList([0, 1, 2])], '0 Unknown, 1 Male, 2 Female')
      : field([nullable(), string(), inList(GENDER_WORDS)], '`male` or `female`'),
    phone: field(text()),
    passport_no: field(text()),
    nationality: field([nullable(), string(), size(2), countryCode()], 'ISO 3166-1 alpha-2'),
    residency: field([nullable(), string(), size(2), countryCode()], 'ISO 3166-1 alpha-2'),
    room_no: update ? field([nullable(), integer(), between(1, 9999)], '1 to 9999') : field(text()),
    reservation_no: field(text()),
    partner_id: field(text()),
    hotel_status: field([nullable(), integer(), inList([0, 1])], 'null N/A, 0 Check-out, 1 Check-in'),
    custom_data: field([nullable(), json()], 'JSON text'),
    custom_field_1: field(text()),
    custom_field_2: field(text()),
    custom_field_3: field(text()),
    direct_login: field([integer(), inList([0, 1])], '0 disabled, 1 enabled'),
    tags: field(
      [nullable(), array(), tagNames],
      update
        ? 'Tag names (replace the current ones); missing tags are created'
        : 'Tag names; missing tags are created',
    ),
    tag_type: field([nullable(), integer(), min(0), max(32767)], 'Type of the tags created'),
    marketing_consent: field([integer(), inList([0, 1])], '0 opted-out, 1 opted-in'),
    avatar: field(
      [nullable(), avatar, avatarSize],
      '`data:image/(png|jpeg|gif|webp);base64,…`, at most 2048 KB (the 1 MiB GraphQL body limit applies)',
    ),
  };
}

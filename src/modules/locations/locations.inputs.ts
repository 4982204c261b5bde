// The rules of spec 4.1, shared by REST and GraphQL.

import type { Scope } from '../../auth/principal.js';
import type { Prisma } from '../../db/database.js';
import { CASE_INSENSITIVE_UNIQUE, takenIgnoringCase } from '../../db/text-search.js';
import {
  between,
  countryCode,
  custom,
  inList,
  integer,
  max,
  min,
  nullable,
  numeric,
  type Rules,
  required,
  requiredIf,
  size,
  string,
  textFilter,
  unique,
} from '../../validation/validator.js';

export const locationFilterRules: Rules = {
  name: textFilter(),
  status: [nullable(), integer(), inList([0, 1])],
};

export const hierarchyFilterRules: Rules = {
  location_id: textFilter(),
  name: textFilter(),
  with_coordinates: [nullable(), integer(), inList([0, 1])],
  scale_floor_dimensions: [nullable(), integer(), inList([0, 1])],
};

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Create and update share every rule; on update the location's own name is not "taken". */
export function locationWriteRules(prisma: Prisma, scope: Scope, exceptId?: string): Rules {
  return {
    name: [
      required(),
      string(),
      max(50),
      // Case-insensitive, as the upstream MySQL collation compared names.
      unique((value) =>
        takenIgnoringCase(prisma, CASE_INSENSITIVE_UNIQUE.locationName, String(value), {
          tenantId: scope.tenantId,
          exceptId,
        }),
      ),
    ],
    country_code: [nullable(), string(), size(2), countryCode()],
    city: [nullable(), string(), max(255)],
    address: [nullable(), string(), max(255)],
    post_code: [nullable(), string(), max(255)],
    description: [nullable(), string()],
    state: [nullable(), string(), max(255)],
    lat: [nullable(), numeric(), between(-90, 90)],
    lng: [nullable(), numeric(), between(-180, 180)],
    // Not nullable: the venue always has a time zone (null is a 422, as Laravel's `string|timezone`).
    timezone: [
      string(),
      custom(
        (v) =>
          typeof v === 'string' && isTimeZone(v) ? null : 'The timezone field must be a valid timezone.',
        {
          description: 'An IANA time zone name (`Europe/Lisbon`); new locations default to UTC.',
        },
      ),
    ],
    smart_login: [nullable(), integer(), inList([0, 1])],
    smart_login_frequency: [requiredIf('smart_login', 1), nullable(), integer(), min(1)],
    smart_login_frequency_type: [requiredIf('smart_login', 1), nullable(), integer(), inList([2, 3])],
  };
}

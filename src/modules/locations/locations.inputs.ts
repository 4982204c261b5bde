// The rules of spec 4.1, shared by REST and GraphQL: each filter and body field declared once.

import { CASE_INSENSITIVE_UNIQUE, takenIgnoringCase, textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { field, filterOf, type InputEnv } from '../../operations/operation.js';
import { TIME_ZONES } from '../../validation/time-zones.js';
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
  required,
  requiredIf,
  size,
  string,
  textFilter,
  unique,
} from '../../validation/validator.js';

// ---------------------------------------------------------------------------------------------
// Filters

const locationFilter = filterOf<PrismaNS.LocationWhereInput>();

const byName = (v: string): PrismaNS.LocationWhereInput => ({ name: textSearch(v) });

/**
 * The filters of `GET /locations`, `GET /locations/count` and GraphQL `locations`: each one's rules,
 * its GraphQL argument's description and the condition it adds. Without `status` the list holds the
 * active locations (see locationsQuery).
 */
export const locationFilters = {
  name: locationFilter(textFilter(), {
    description: 'Case-insensitive substring of the name',
    where: byName,
  }),
  status: locationFilter([nullable(), integer(), inList([0, 1])], {
    description: '0 (default) active, 1 trashed',
    where: (v) => ({ isTrashed: v === 1 }),
  }),
};

/**
 * The filters of `GET /locations/hierarchy` (REST only, so no GraphQL argument to describe): a
 * location id and the name narrow the list; the two options shape the answer and are no condition.
 */
export const hierarchyFilters = {
  location_id: locationFilter(textFilter(), { where: (v) => ({ id: v }) }),
  name: locationFilter(textFilter(), { where: byName }),
  with_coordinates: locationFilter([nullable(), integer(), inList([0, 1])]),
  scale_floor_dimensions: locationFilter([nullable(), integer(), inList([0, 1])]),
};

// ---------------------------------------------------------------------------------------------
// Create and update

const text = () => [nullable(), string(), max(255)] as const;

/**
 * The body of `POST /locations` and `PUT /locations/:id` (GraphQL LocationInput): create and update
 * share every rule; on update (`env.id`) the location's own name is not "taken".
 */
export function locationWriteFields(env: InputEnv) {
  return {
    name: field([
      required(),
      string(),
      max(50),
      // Case-insensitive, as the upstream MySQL collation compared names.
      unique((value) =>
        takenIgnoringCase(env.prisma, CASE_INSENSITIVE_UNIQUE.locationName, String(value), {
          tenantId: env.scope.tenantId,
          exceptId: env.id,
        }),
      ),
    ]),
    country_code: field([nullable(), string(), size(2), countryCode()]),
    city: field(text()),
    address: field(text()),
    post_code: field(text()),
    description: field([nullable(), string()]),
    state: field(text()),
    lat: field([nullable(), numeric(), between(-90, 90)]),
    lng: field([nullable(), numeric(), between(-180, 180)]),
    // Not nullable: the venue always has a time zone (null is a 422, as Laravel's `string|timezone`).
    timezone: field(
      [
        string(),
        custom(
          (v) =>
            typeof v === 'string' && TIME_ZONES.has(v)
              ? null
              : 'The timezone field must be a valid timezone.',
          {
            description:
              'An IANA time zone name as PHP lists them (`Europe/Lisbon`, `UTC`; exactly, case included: not `europe/lisbon`, `US/Eastern` nor `GMT`); new locations default to UTC.',
          },
        ),
      ],
      'IANA time zone of the venue, default UTC',
    ),
    smart_login: field([nullable(), integer(), inList([0, 1])], 'null inherit, 0 disabled, 1 enabled'),
    smart_login_frequency: field(
      // At most what its column (a PostgreSQL integer) holds.
      [requiredIf('smart_login', 1), nullable(), integer(), min(1), max(2_147_483_647)],
      'How many hours or days (smart_login_frequency_type) between logins: 1 to 2147483647',
    ),
    smart_login_frequency_type: field(
      [requiredIf('smart_login', 1), nullable(), integer(), inList([2, 3])],
      '2 hours, 3 days',
    ),
  };
}

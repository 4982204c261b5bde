// The rules of spec 4.6, shared by REST and GraphQL.
import { sameText, textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { field, filterOf } from '../../operations/operation.js';
import {
  countryCode,
  inList,
  integer,
  max,
  min,
  nullable,
  required,
  size,
  string,
  textFilter,
} from '../../validation/validator.js';

const tenantFilter = filterOf<PrismaNS.TenantWhereInput>();

/**
 * The filters of the tenant list and count, on both transports: each one's rules (REST name), its
 * GraphQL argument's description, and the condition it adds.
 */
export const tenantFilters = {
  name: tenantFilter(textFilter(), {
    description: 'The full name, case-insensitive',
    where: (v) => ({ name: sameText(v) }),
  }),
  description: tenantFilter(textFilter(), {
    description: 'Case-insensitive substring of the description',
    where: (v) => ({ description: textSearch(v) }),
  }),
};

/** The body of `POST /tenants` and `PUT /tenants/:id` (GraphQL TenantInput): `name` stays required on update. */
export const tenantWriteFields = {
  name: field([required(), string(), min(5), max(255)]),
  country_code: field([nullable(), string(), size(2), countryCode()], 'ISO 3166-1 alpha-2, upper case'),
  city: field([nullable(), string(), max(255)]),
  address: field([nullable(), string(), max(255)]),
  post_code: field([nullable(), string(), max(255)]),
  description: field([nullable(), string()]),
};

/** Body of deactivate and activate: optional, 0 Passive, 1 Active, 2 Banned. */
export const tenantStatusFields = {
  user_status: field([integer(), inList([0, 1, 2])], '0 Passive, 1 Active, 2 Banned'),
};

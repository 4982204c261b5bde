// The rules of spec 4.6, shared by REST and GraphQL.
import {
  countryCode,
  inList,
  integer,
  max,
  min,
  nullable,
  type Rules,
  required,
  size,
  string,
  textFilter,
} from '../../validation/validator.js';

export const tenantFilterRules: Rules = {
  name: textFilter(),
  description: textFilter(),
};

/** Create and update share every rule (`name` stays required on update). */
export const tenantWriteRules: Rules = {
  name: [required(), string(), min(5), max(255)],
  country_code: [nullable(), string(), size(2), countryCode()],
  city: [nullable(), string(), max(255)],
  address: [nullable(), string(), max(255)],
  post_code: [nullable(), string(), max(255)],
  description: [nullable(), string()],
};

/** Body of deactivate and activate: optional, 0 Passive, 1 Active, 2 Banned. */
export const tenantStatusRules: Rules = {
  user_status: [integer(), inList([0, 1, 2])],
};

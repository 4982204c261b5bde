// Filters of `GET /service-profiles` (beyond the spec), shared by REST and GraphQL: each one's rules,
// its GraphQL argument's description and the condition it adds, declared once.
import { textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { filterOf } from '../../operations/operation.js';
import { nullable, queryBoolean, textFilter } from '../../validation/validator.js';

const serviceProfileFilter = filterOf<PrismaNS.ServiceProfileWhereInput>();

export const serviceProfileFilters = {
  name: serviceProfileFilter(textFilter(), {
    description: 'Case-insensitive substring of the name',
    where: (v) => ({ name: textSearch(v) }),
  }),
  is_default: serviceProfileFilter([nullable(), queryBoolean()], { where: (v) => ({ isDefault: v }) }),
};

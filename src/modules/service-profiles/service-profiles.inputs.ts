// Filters of `GET /service-profiles` (beyond the spec), shared by REST and GraphQL.
import { boolean, nullable, type Rules, textFilter } from '../../validation/validator.js';

export const serviceProfileFilterRules: Rules = {
  name: textFilter(),
  is_default: [nullable(), boolean()],
};

// Filters of `GET /service-profiles` (beyond the spec), shared by REST and GraphQL.
import { boolean, nullable, type Rules, string } from '../../validation/validator.js';

export const serviceProfileFilterRules: Rules = {
  name: [nullable(), string()],
  is_default: [nullable(), boolean()],
};

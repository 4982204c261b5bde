// Filters of `GET /service-profiles` (beyond the spec), shared by REST and GraphQL.
import { boolean, type Rules, string } from '../../validation/validator.js';

export const serviceProfileFilterRules: Rules = {
  name: [string()],
  is_default: [boolean()],
};

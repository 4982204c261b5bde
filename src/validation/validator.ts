// One rule engine for both transports: REST renders ValidationError as Laravel's 422 body
// ({ message, errors }), GraphQL as field errors. Messages are Laravel 10+'s default English lines.
//
// The public entry point: code outside src/validation imports from here. Where things live:
// engine.ts (Rule, Infer, validate, ValidationError), laravel-input.ts (TrimStrings and
// ConvertEmptyStringsToNull), php-values.ts (PHP's emptiness, numeric strings, casts), messages.ts
// (display names, placeholders, shared lines) and rules/ (the rule constructors, by kind).
export {
  type ElementErrors,
  elementErrors,
  type FieldErrors,
  type FieldOutput,
  type Infer,
  type InferFilters,
  type Keep,
  type NullableRule,
  type RequiredRule,
  type Rule,
  type RuleContext,
  type RuleDoc,
  type Rules,
  rules,
  summarize,
  type ValidateOptions,
  ValidationError,
  type ValueType,
  validate,
  validateFilters,
} from './engine.js';
export { laravelInput } from './laravel-input.js';
export { DUPLICATE_VALUE, elementAttribute } from './messages.js';
export { confirmed } from './rules/confirmed.js';
export { custom } from './rules/custom.js';
export { exists, takenMessage, unique } from './rules/database.js';
export { afterNow, afterOrEqual, date, dateFormat } from './rules/dates.js';
export { countryCode, email, inList, ip, json, regex, url } from './rules/formats.js';
export { duplicatedIndexes, duplicateMessage } from './rules/lists.js';
export {
  nullable,
  type RequiredIfOptions,
  required,
  requiredIf,
  requiredWhenPresent,
  requiredWith,
  requiredWithoutAll,
} from './rules/presence.js';
export { between, FILTER_MAX_LENGTH, gteField, max, min, size, textFilter } from './rules/sizes.js';
export { array, boolean, integer, list, numeric, queryBoolean, string } from './rules/types.js';

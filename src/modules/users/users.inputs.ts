// The rules of spec 4.7, shared by REST and GraphQL.
import type { Scope } from '../../auth/principal.js';
import { scoped } from '../../db/scope.js';
import { CASE_INSENSITIVE_UNIQUE, takenIgnoringCase, textSearch } from '../../db/text-search.js';
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { field, filterOf, type InputEnv } from '../../operations/operation.js';
import {
  confirmed,
  custom,
  email,
  exists,
  inList,
  integer,
  type Keep,
  max,
  min,
  type NullableRule,
  nullable,
  type RequiredRule,
  type Rule,
  required,
  requiredIf,
  string,
  textFilter,
  unique,
} from '../../validation/validator.js';
import { pinnedRoles } from './users.roles.js';

const userFilter = filterOf<PrismaNS.UserWhereInput>();

/**
 * The filters of the user list and count, on both transports: each one's rules (REST name), its
 * GraphQL argument's description, and the condition it adds.
 */
export const userFilters = {
  name: userFilter(textFilter(), {
    description: 'Case-insensitive substring of the name',
    where: (v) => ({ name: textSearch(v) }),
  }),
  email: userFilter(textFilter(), {
    description: 'Case-insensitive substring of the email',
    where: (v) => ({ email: textSearch(v) }),
  }),
};

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 30;

/**
 * One check of Laravel's `Password` rule. Like that rule, the complexity checks only run once the
 * length passed (a too-short password answers only the length message).
 */
function passwordCheck(pattern: RegExp, message: string): Rule<Keep> {
  return custom(
    (value) => {
      // Laravel's Password rule checks `string` and the length first and stops there.
      if (typeof value !== 'string') return null;
      const text = value;
      const length = [...text].length;
      if (length < PASSWORD_MIN || length > PASSWORD_MAX) return null;
      return pattern.test(text) ? null : message;
    },
    { description: message.replace('The :attribute field must contain', 'Contains') },
  );
}

/**
 * Laravel's `Password::min(8)->max(30)->mixedCase()->symbols()->numbers()` after `confirmed`, behind
 * `required()` (create) or `nullable()` (update: an empty password field keeps the current password).
 */
function passwordRules<const P extends RequiredRule | NullableRule>(presence: P) {
  return [
    presence,
    string(),
    confirmed(),
    min(PASSWORD_MIN),
    max(PASSWORD_MAX),
    passwordCheck(
      /(\p{Ll}+.*\p{Lu})|(\p{Lu}+.*\p{Ll})/u,
      'The :attribute field must contain at least one uppercase and one lowercase letter.',
    ),
    passwordCheck(/\p{Z}|\p{S}|\p{P}/u, 'The :attribute field must contain at least one symbol.'),
    passwordCheck(/\p{N}/u, 'The :attribute field must contain at least one number.'),
  ] as const;
}

/**
 * Roles a caller may give: one pinned to a location (a venue admin) only the roles of its location's
 * staff. (Of the roles that may write users, only the venue admin is pinned; documents build the
 * rules with an unpinned scope, so they list a tenant admin's choice.)
 */
function assignableRoles(scope: Scope): readonly string[] {
  return scope.locationId ? pinnedRoles : ['tenant', ...pinnedRoles];
}

/**
 * The body of `POST /users` and `PUT /users/:id` (GraphQL UserInput, with `passwordConfirmation`
 * beside). On update (`env.id`) the user's own email is not "taken". A venue admin may only give the
 * venue and front-desk roles and only its own location.
 */
function userWriteFields<const P extends readonly Rule[]>(env: InputEnv, password: P) {
  return {
    name: field([required(), string(), min(5), max(255)]),
    email: field([
      required(),
      string(),
      email(),
      max(255),
      // Emails are unique across the service (they are the login), compared case-insensitively.
      unique((value) =>
        takenIgnoringCase(env.prisma, CASE_INSENSITIVE_UNIQUE.userEmail, String(value), {
          exceptId: env.id,
        }),
      ),
    ]),
    role: field([required(), string(), inList(assignableRoles(env.scope))]),
    password: field(password),
    status: field([required(), integer(), inList([0, 1, 2])]),
    location_id: field([
      requiredIf('role', ['venue', 'front-desk']),
      nullable(),
      string(),
      exists(async (value) => {
        const found = await env.prisma.location.findFirst({
          where: { ...scoped(env.scope, 'id'), AND: [{ id: String(value) }] },
          select: { id: true },
        });
        return found !== null;
      }),
    ]),
  };
}

/** `POST /users`: the password is required. */
export const userCreateFields = (env: InputEnv) => userWriteFields(env, passwordRules(required()));

/** `PUT /users/:id`: the password is optional. */
export const userUpdateFields = (env: InputEnv) => userWriteFields(env, passwordRules(nullable()));

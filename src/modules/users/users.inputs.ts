// The rules of spec 4.7, shared by REST and GraphQL.
import type { Scope } from '../../auth/principal.js';
import type { Prisma } from '../../db/database.js';
import { scoped } from '../../db/scope.js';
import { CASE_INSENSITIVE_UNIQUE, takenIgnoringCase } from '../../db/text-search.js';
import {
  confirmed,
  custom,
  email,
  exists,
  inList,
  integer,
  max,
  min,
  nullable,
  type Rule,
  type Rules,
  required,
  requiredIf,
  string,
  textFilter,
  unique,
} from '../../validation/validator.js';

export const userFilterRules: Rules = {
  name: textFilter(),
  email: textFilter(),
};

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 30;

/**
 * One check of Laravel's `Password` rule. Like that rule, the complexity checks only run once the
 * length passed (a too-short password answers only the length message).
 */
function passwordCheck(pattern: RegExp, message: string): Rule {
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
 * Laravel's `Password::min(8)->max(30)->mixedCase()->symbols()->numbers()` after `confirmed`. When not
 * required (update) it is `nullable`: an empty password field keeps the current password.
 */
function passwordRules(isRequired: boolean): Rule[] {
  return [
    isRequired ? required() : nullable(),
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
  ];
}

/**
 * Create (`exceptId` absent: password required) and update (`exceptId`: the user's own email is not
 * "taken", password optional). A venue admin may only give the venue and front-desk roles and only
 * its own location.
 */
export function userWriteRules(
  prisma: Prisma,
  scope: Scope,
  opts: { exceptId?: string; assignableRoles: readonly string[] },
): Rules {
  return {
    name: [required(), string(), min(5), max(255)],
    email: [
      required(),
      string(),
      email(),
      max(255),
      // Emails are unique across the service (they are the login), compared case-insensitively.
      unique((value) =>
        takenIgnoringCase(prisma, CASE_INSENSITIVE_UNIQUE.userEmail, String(value), {
          exceptId: opts.exceptId,
        }),
      ),
    ],
    role: [required(), string(), inList(opts.assignableRoles)],
    password: passwordRules(opts.exceptId === undefined),
    status: [required(), integer(), inList([0, 1, 2])],
    location_id: [
      requiredIf('role', ['venue', 'front-desk']),
      nullable(),
      string(),
      exists(async (value) => {
        const found = await prisma.location.findFirst({
          where: { ...scoped(scope, 'id'), AND: [{ id: String(value) }] },
          select: { id: true },
        });
        return found !== null;
      }),
    ],
  };
}

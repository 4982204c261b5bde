// An API token's scopes as every surface shows them (REST, GraphQL, the CLI): as stored, except that a
// token stored without scopes (the CLI's `bootstrap`, `token issue` without `--scope`) has the user's
// full rights and shows `["full"]`.
import type { TokenScope } from '../../auth/permissions.js';

export function shownScopes(stored: readonly string[]): string[] {
  return stored.length > 0 ? [...stored] : ['full' satisfies TokenScope];
}

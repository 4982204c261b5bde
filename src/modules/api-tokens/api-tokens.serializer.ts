// The REST shape of an API token (beyond the spec, in its dialect): never the secret nor its hash.
import { Type } from '@sinclair/typebox';
import { tokenScopeNames } from '../../auth/permissions.js';
import { Id, IsoMicros, Nullable, Obj, Str } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { shownScopes } from './api-tokens.labels.js';
import type { ApiTokenItemRow } from './api-tokens.service.js';

export function apiTokenItem(t: ApiTokenItemRow) {
  return {
    id: t.id,
    name: t.name,
    user: { id: t.user.id, name: t.user.name, email: t.user.email },
    scopes: shownScopes(t.scopes),
    created_at: isoMicros(t.createdAt),
    last_used_at: isoMicros(t.lastUsedAt),
    expires_at: isoMicros(t.expiresAt),
    revoked_at: isoMicros(t.revokedAt),
  };
}

/** The answer of `POST /api-tokens`: the item and, this once, the secret. */
export function createdApiToken(t: ApiTokenItemRow, token: string) {
  return { ...apiTokenItem(t), token };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

const apiTokenProperties = {
  id: Id(),
  name: Nullable(Str('null for tokens the CLI issued without a name.')),
  user: Obj({ id: Id(), name: Str(), email: Str() }, 'ApiTokenUser'),
  scopes: Type.Array(Type.String({ enum: [...tokenScopeNames] }), {
    minItems: 1,
    description: 'As created; a token the CLI issued without scopes shows `["full"]`.',
  }),
  created_at: IsoMicros(),
  last_used_at: Type.Union([IsoMicros(), Type.Null()], {
    description:
      'The last request with the token, written in batches: up to TOKEN_LAST_USED_FLUSH_SECONDS (60 s) behind.',
  }),
  expires_at: Nullable(IsoMicros()),
  revoked_at: Nullable(IsoMicros()),
};

export const ApiTokenItemSchema = Obj(apiTokenProperties, 'ApiToken');
export const CreatedApiTokenSchema = Obj(
  {
    ...apiTokenProperties,
    token: Str('The secret, shown this once: send it as `Authorization: Bearer <token>`.'),
  },
  'CreatedApiToken',
);

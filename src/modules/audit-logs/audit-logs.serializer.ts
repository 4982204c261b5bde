// The REST shape of an audit entry (beyond the spec, in its dialect).
import { Type } from '@sinclair/typebox';
import { Id, IsoMicros, Nullable, Obj, Str, StrEnum } from '../../rest/schemas.js';
import { isoMicros } from '../../shared/format.js';
import { AUDIT_RESOURCE_TYPES } from './audit-logs.inputs.js';
import type { AuditLogItemRow } from './audit-logs.service.js';

export function auditLogItem(e: AuditLogItemRow) {
  return {
    id: e.id,
    user_id: e.actorUserId,
    token_id: e.actorTokenId,
    request_id: e.requestId,
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    changes: e.changes,
    created_at: isoMicros(e.createdAt),
  };
}

// ---------------------------------------------------------------------------------------------
// Output schemas (the OpenAPI document and the contract test read them), keys in the order above.

const ChangeSchema = Obj(
  {
    old: Type.Unknown({ description: 'The value before (REST’s shape of it); null when there was none.' }),
    new: Type.Unknown({ description: 'The value after; null when removed.' }),
  },
  'AuditChange',
);

export const AuditLogItemSchema = Obj(
  {
    id: Id(),
    user_id: Nullable(Id('The user who wrote (null: the service itself).')),
    token_id: Nullable(Id('The API token the write came with.')),
    request_id: Nullable(Str('The request’s `X-Request-Id`.')),
    action: Str(
      'The write: the operation’s permission action (`guests.update`), or `users.deactivate`, `tenants.deactivate`, `retention.anonymize`.',
    ),
    resource_type: StrEnum(AUDIT_RESOURCE_TYPES),
    resource_id: Id(),
    changes: Type.Record(Type.String(), ChangeSchema, {
      description:
        'The fields the write changed, by REST name: `{field: {old, new}}`. A password is shown as "[redacted]"; after a guest’s erasure its values read "[erased]".',
    }),
    created_at: IsoMicros(),
  },
  'AuditLog',
);

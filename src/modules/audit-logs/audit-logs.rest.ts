// REST endpoints of the audit log (beyond the spec): read only, with REST's paging and serializer.
import { countEndpointOf, listEndpointOf } from '../../rest/operation-endpoint.js';
import { AuditLogItemSchema, auditLogItem } from './audit-logs.serializer.js';
import { auditLogItemSelect, auditLogsQuery, countAuditLogs, listAuditLogs } from './audit-logs.service.js';

export const list = listEndpointOf(auditLogsQuery, {
  summary:
    'List the audit log of the current tenant, newest first (user_id, resource_type, resource_id, action, from, to)',
  item: AuditLogItemSchema,
  read: (ctx, q, page) => listAuditLogs(ctx, q, { ...page, select: auditLogItemSelect }),
  serialize: auditLogItem,
});

export const count = countEndpointOf(auditLogsQuery, {
  summary: 'Count the audit log entries (the list filters)',
  count: countAuditLogs,
});

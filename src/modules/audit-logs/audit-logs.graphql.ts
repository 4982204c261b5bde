import { builder } from '../../graphql/builder.js';
import { argsOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import { auditLogsQuery, countAuditLogs, listAuditLogs } from './audit-logs.service.js';

const MAX_PAGE_SIZE = 100;

interface Change {
  field: string;
  old: unknown;
  new: unknown;
}

/** The stored `{field: {old, new}}` as a list, in the order written. */
function changesOf(stored: unknown): Change[] {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return [];
  return Object.entries(stored as Record<string, { old?: unknown; new?: unknown }>).map(([field, c]) => ({
    field,
    old: c?.old ?? null,
    new: c?.new ?? null,
  }));
}

/** A value as JSON text (null stays null), so any REST value fits one GraphQL type. */
const jsonText = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

const AuditChange = builder.objectRef<Change>('AuditChange').implement({
  description: 'One field a write changed (REST `changes`)',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The REST name of the field' }),
    old: t.string({
      nullable: true,
      description: 'The value before, as JSON text (`"Ann"`, `12`, `["vip"]`); null when there was none',
      resolve: (c) => jsonText(c.old),
    }),
    new: t.string({
      nullable: true,
      description: 'The value after, as JSON text; null when removed',
      resolve: (c) => jsonText(c.new),
    }),
  }),
});

builder.prismaObject('AuditLog', {
  description:
    'Who changed what (REST `GET /audit-logs`): written by the write itself, in its transaction; nothing can change it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    userId: t.exposeString('actorUserId', { nullable: true, description: 'The user who wrote' }),
    tokenId: t.exposeString('actorTokenId', {
      nullable: true,
      description: 'The API token the write came with',
    }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'The request’s `X-Request-Id`' }),
    action: t.exposeString('action', { description: '`guests.update`, `users.deactivate`, …' }),
    resourceType: t.exposeString('resourceType', { description: '`guest`, `location`, `access_code`, …' }),
    resourceId: t.exposeString('resourceId'),
    changes: t.field({
      type: [AuditChange],
      description: 'The fields changed; a password reads "[redacted]", an erased guest’s values "[erased]"',
      select: { changes: true },
      resolve: (entry) => changesOf(entry.changes),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  auditLogs: t.prismaConnection({
    ...listConnection(auditLogsQuery, MAX_PAGE_SIZE),
    type: 'AuditLog',
    description: 'The audit log of the current tenant, newest first (REST `GET /audit-logs`).',
    args: argsOf(auditLogsQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await listQueryOf(auditLogsQuery, ctx, args);
      return listAuditLogs(ctx, q, query);
    },
    totalCount: async (_root, args, ctx) => {
      return countAuditLogs(ctx, await listQueryOf(auditLogsQuery, ctx, args));
    },
  }),
}));

// What an audit entry says changed: `{field: {old, new}}` under REST's field names, computed from the
// resource's "audit view" (its REST shape plus the written fields that shape leaves out) before and
// after the write. Secrets never enter a view: a password is shown as "[redacted]" on both sides
// when it changed; token secrets and hashes, and avatar bytes, are in no view (the avatar is its URL).
import { type Action, permissionTable } from '../auth/permissions.js';
import type { EventType, ResourceType } from './event-types.js';
import type { Changes, NewEvent } from './outbox.js';

/** The audit entry's action of an anonymisation by the retention settings (the service acts). */
export const ANONYMIZE_ACTION = 'retention.anonymize';

/**
 * The writes whose audit entries name an action of their own beside the one the permission table
 * checks (`tenants.activate` and `users.activate` cover both ways).
 */
const OWN_ACTIONS = ['tenants.deactivate', 'users.deactivate', ANONYMIZE_ACTION] as const;

/** What an audit entry's `action` names: an operation's action (the permission table), or one above. */
export type AuditAction = Action | (typeof OWN_ACTIONS)[number];

/** Every action an audit entry can name: the values the `action` filter takes. */
export const AUDIT_ACTIONS: readonly AuditAction[] = [
  ...(Object.keys(permissionTable) as Action[]),
  ...OWN_ACTIONS,
];

/** What stands for a secret that changed. */
export const REDACTED = '[redacted]';

/**
 * Fields an entry leaves out: the id is the entry's `resource_id`, and the resource's own times say
 * nothing the entry's `created_at` does not.
 */
const NOISE = new Set(['id', 'created_at', 'updated_at']);

/** A view's value as JSON stores it (PhpFloat → number, Date → ISO text, bigint → number). */
function plain(value: unknown): unknown {
  // Most values are already what JSON stores (a bulk import compares ~50 fields a row).
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0)) return value;
  return value === undefined
    ? null
    : JSON.parse(
        JSON.stringify(value, (_k, v: unknown) =>
          typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v,
        ) ?? 'null',
      );
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The fields whose value differs between two views of a resource (null `before`: a creation, every
 * field with a value; null `after`: a removal), in the view's key order.
 */
export function changesOf(
  before: Readonly<Record<string, unknown>> | null,
  after: Readonly<Record<string, unknown>> | null,
): Changes {
  const out: Changes = {};
  const keys = [...new Set([...Object.keys(after ?? {}), ...Object.keys(before ?? {})])];
  for (const key of keys) {
    if (NOISE.has(key)) continue;
    const old = plain(before?.[key]);
    const now = plain(after?.[key]);
    if (before === null && now === null) continue;
    if (after === null && old === null) continue;
    if (!same(old, now)) out[key] = { old, new: now };
  }
  return out;
}

/** Whether anything changed (an update that changed nothing records nothing). */
export const changed = (changes: Changes): boolean => Object.keys(changes).length > 0;

/** A write of one resource: its event, and its audit entry from the views before and after. */
export interface Change {
  readonly type: EventType;
  readonly resourceType: ResourceType;
  readonly resourceId: string;
  /** The operation's action (`guests.update`): the audit entry's `action`. */
  readonly action: AuditAction;
  /** The resource after the write in its REST shape (the event's payload). */
  readonly payload: unknown;
  /** The audit views (REST field names) before and after; null before a creation. */
  readonly before: Readonly<Record<string, unknown>> | null;
  readonly after: Readonly<Record<string, unknown>> | null;
  /** Secret fields the write set (a password): named in the entry, their values "[redacted]". */
  readonly secrets?: readonly string[];
  /**
   * Fields whose secret part alone changed, which the views (redacted) cannot tell apart: named in
   * the entry with the values given (a webhook URL's credentials: both sides redacted).
   */
  readonly redactedChanges?: Changes;
}

/** The event of a write with its audit entry; null for an update that changed nothing. */
export function changeEvent(c: Change): NewEvent | null {
  const diffed = changesOf(c.before, c.after);
  for (const name of c.secrets ?? [])
    diffed[name] = { old: c.before === null ? null : REDACTED, new: REDACTED };
  // The redacted changes take their place in the resource's key order, as the diffed ones have it.
  const redacted = c.redactedChanges ?? {};
  const changes: Changes = {};
  for (const key of new Set([...Object.keys(c.after ?? c.before ?? {}), ...Object.keys(diffed)])) {
    const change = redacted[key] ?? diffed[key];
    if (change) changes[key] = change;
  }
  for (const [key, change] of Object.entries(redacted)) changes[key] ??= change;
  if (c.before !== null && c.after !== null && !changed(changes)) return null;
  return {
    type: c.type,
    resourceType: c.resourceType,
    resourceId: c.resourceId,
    payload: c.payload,
    audit: { action: c.action, changes },
  };
}

// Operator actions behind the admin CLI (and the test fixtures): a tenant with everything it needs
// to be used at once, and tokens for existing users.
import { randomBytes } from 'node:crypto';
import type { Role } from '../../auth/principal.js';
import { newToken } from '../../auth/tokens.js';
import type { Prisma } from '../../db/database.js';
import { retryingUniqueViolation } from '../../db/unique-violation.js';
import {
  announceEvents,
  type EventLog,
  type RecordedEvent,
  recordEvents,
  systemActor,
  type Tx,
  transactionLog,
  writeWithEvents,
} from '../../events/outbox.js';
import { insertToken } from '../api-tokens/api-tokens.service.js';
import { locationChange } from '../locations/locations.service.js';
import { userChange, userInclude } from '../users/users.service.js';
import { tenantChange } from './tenants.service.js';

export interface BootstrapResult {
  token: string;
  tenant_id: string;
  user_id: string;
  location_id: string;
  service_profile_id: string;
  group_id: string;
}

export interface BootstrapOptions {
  tenant: string;
  group?: string;
  /** The API user's role (bootstrap makes a `tenant` user; fixtures vary it). */
  role?: Role;
  email?: string;
  permissions?: string[];
  /**
   * Records what it creates in the tenant's log and audit log, as the API's writes by the service
   * itself (actor `system`): the CLI's `bootstrap`. Test fixtures leave it out, so that a fresh
   * tenant's log holds only what a test writes.
   */
  events?: boolean;
}

/**
 * A connection is waited for as long as a statement waits for one (5 s), not Prisma's 2 s: on a busy
 * pool the shorter wait refused bootstraps (test fixtures hit it under load).
 */
const BOOTSTRAP_TRANSACTION = { maxWait: 5_000, timeout: 15_000 };

/** The name of the tokens bootstrap issues: it marks the API user a bootstrap run again reuses. */
const BOOTSTRAP_TOKEN = 'bootstrap';

/** Bootstrap for an existing tenant that is deactivated: it issues nothing. */
export class TenantDeactivatedError extends Error {
  constructor(tenant: { id: string; name: string }) {
    // An id starting with "-" goes after "--", as the CLI's operands do.
    const operand = tenant.id.startsWith('-') ? `-- ${tenant.id}` : tenant.id;
    super(
      `Tenant "${tenant.name}" (${tenant.id}) is deactivated: its users' tokens answer 401. ` +
        `Reactivate it first: admin tenant activate ${operand}`,
    );
  }
}

/**
 * Creates (or reuses) the group, the tenant with its default location and service profile, and its
 * API user (reused when the tenant existed); issues a new token for that user. An existing tenant
 * that is deactivated is refused (TenantDeactivatedError), nothing written.
 */
export async function bootstrapTenant(prisma: Prisma, opts: BootstrapOptions): Promise<BootstrapResult> {
  const groupName = opts.group ?? opts.tenant;
  const token = newToken();
  let recorded: RecordedEvent[] = [];
  // Bootstraps run at once into a new group both create it; the loser's unique violation is run
  // again, and finds the group (and the tenant, if it was the same) then (probe L: `unexpected
  // failure: Unique constraint failed`).
  const result = await retryingUniqueViolation(() =>
    prisma.$transaction(async (tx) => {
      recorded = [];
      const { log, write } = transactionLog();
      const group = await tx.tenantGroup.upsert({
        where: { name: groupName },
        create: { name: groupName },
        update: {},
      });
      const existing = await tx.tenant.findFirst({
        where: { groupId: group.id, name: opts.tenant },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      // Its users' tokens answer 401 while it is deactivated: a new one would not work either.
      if (existing?.isTrashed) throw new TenantDeactivatedError(existing);
      let tenant = existing;
      if (!tenant) {
        tenant = await tx.tenant.create({ data: { name: opts.tenant, groupId: group.id } });
        tenantChange(log, 'tenants.create', null, tenant);
      }
      const tenantId = tenant.id;
      let location = await tx.location.findFirst({ where: { tenantId, name: opts.tenant.slice(0, 50) } });
      if (!location) {
        location = await tx.location.create({ data: { tenantId, name: opts.tenant.slice(0, 50) } });
        locationChange(log, 'locations.create', null, location);
      }
      const profile =
        (await tx.serviceProfile.findFirst({ where: { tenantId, isDefault: true } })) ??
        (await tx.serviceProfile.create({ data: { tenantId, name: 'Default', isDefault: true } }));
      const role = opts.role ?? 'tenant';
      // Run again for the tenant: its API user (the active one holding a bootstrap token) gets another
      // token, rather than a user more each time.
      const reused = existing
        ? await tx.user.findFirst({
            where: {
              tenantId,
              role,
              status: 1,
              isTrashed: false,
              apiTokens: { some: { name: BOOTSTRAP_TOKEN } },
            },
            orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
            select: { id: true },
          })
        : null;
      const user =
        reused ?? (await createApiUser(tx, log, { ...opts, tenantId, role, locationId: location.id }));
      await insertToken(tx, log, 'apiTokens.create', {
        userId: user.id,
        token,
        scopes: [],
        name: BOOTSTRAP_TOKEN,
      });
      if (opts.events) recorded = await recordEvents(tx, tenantId, systemActor, await write());
      return {
        token,
        tenant_id: tenantId,
        user_id: user.id,
        location_id: location.id,
        service_profile_id: profile.id,
        group_id: group.id,
      };
    }, BOOTSTRAP_TRANSACTION),
  );
  announceEvents(recorded);
  return result;
}

/** Bootstrap's API user: `api-<random>` with an address that cannot receive mail. */
async function createApiUser(
  tx: Tx,
  log: EventLog,
  opts: Pick<BootstrapOptions, 'email' | 'permissions'> & {
    tenantId: string;
    role: Role;
    locationId: string;
  },
): Promise<{ id: string }> {
  const { tenantId, role } = opts;
  const suffix = randomBytes(4).toString('hex');
  // Tenant ids may hold `_` and `-`, which a domain label may not start or end with.
  const email = opts.email ?? `api-${suffix}@t${tenantId.toLowerCase().replace(/[^a-z0-9]/g, 'x')}.invalid`;
  const user = await tx.user.create({
    data: {
      tenantId,
      name: `API user ${suffix}`,
      // A user's username is its email, as the API sets it (README, "Tenants and users").
      username: email,
      email,
      role,
      status: 1,
      locationId: role === 'venue' || role === 'front-desk' ? opts.locationId : null,
      permissions: opts.permissions ?? (role === 'tenant' ? ['guests.manage-global'] : []),
    },
    include: userInclude,
  });
  userChange(log, 'users.create', null, user);
  return user;
}

export class UnknownUserError extends Error {}

/**
 * Issues another token for a user given by id, integer user id or email. The token is in the
 * tenant's log and audit log as one the API creates (`api_token.created`, action
 * `apiTokens.create`), by the service itself (actor `system`).
 */
export async function issueToken(
  prisma: Prisma,
  userRef: string,
  scopes: string[] = [],
): Promise<{ token: string }> {
  // An integer user id fits PostgreSQL's integer; longer digits name no user.
  const userId = /^\d{1,10}$/.test(userRef) && Number(userRef) <= 2_147_483_647 ? Number(userRef) : null;
  // E-mails are unique regardless of case (the API's rule): compared as the unique index on
  // lower("email") reads them, so `Ann@Example.com` names ann@example.com's user.
  const [user] = await prisma.$queryRaw<{ id: string; tenantId: string }[]>`
    SELECT "id", "tenantId" FROM "User"
    WHERE "id" = ${userRef} OR lower("email") = lower(${userRef}::text) OR "userId" = ${userId}::int
    LIMIT 1`;
  if (!user) throw new UnknownUserError(`No user with id or email "${userRef}".`);
  const token = newToken();
  await writeWithEvents({ prisma, tenantId: user.tenantId, actor: systemActor }, (tx, log) =>
    insertToken(tx, log, 'apiTokens.create', { userId: user.id, token, scopes }),
  );
  return { token };
}

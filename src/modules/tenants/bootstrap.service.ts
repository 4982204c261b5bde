// Operator actions behind the admin CLI (and the test fixtures): a tenant with everything it needs
// to be used at once, and tokens for existing users.
import { randomBytes } from 'node:crypto';
import type { Role } from '../../auth/principal.js';
import { hashToken, newToken } from '../../auth/tokens.js';
import type { Prisma } from '../../db/database.js';
import { systemActor, writeWithEvents } from '../../events/outbox.js';
import { insertToken } from '../api-tokens/api-tokens.service.js';

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
}

/**
 * A connection is waited for as long as a statement waits for one (5 s), not Prisma's 2 s: on a busy
 * pool the shorter wait refused bootstraps (test fixtures hit it under load).
 */
const BOOTSTRAP_TRANSACTION = { maxWait: 5_000, timeout: 15_000 };

/** Creates (or reuses) the group, the tenant with its default location and service profile, and an API user with a token. */
export async function bootstrapTenant(prisma: Prisma, opts: BootstrapOptions): Promise<BootstrapResult> {
  const groupName = opts.group ?? opts.tenant;
  const token = newToken();
  return prisma.$transaction(async (tx) => {
    const group = await tx.tenantGroup.upsert({
      where: { name: groupName },
      create: { name: groupName },
      update: {},
    });
    const existing = await tx.tenant.findFirst({
      where: { groupId: group.id, name: opts.tenant },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    const tenant = existing ?? (await tx.tenant.create({ data: { name: opts.tenant, groupId: group.id } }));
    const location =
      (await tx.location.findFirst({ where: { tenantId: tenant.id, name: opts.tenant.slice(0, 50) } })) ??
      (await tx.location.create({ data: { tenantId: tenant.id, name: opts.tenant.slice(0, 50) } }));
    const profile =
      (await tx.serviceProfile.findFirst({ where: { tenantId: tenant.id, isDefault: true } })) ??
      (await tx.serviceProfile.create({ data: { tenantId: tenant.id, name: 'Default', isDefault: true } }));
    const role = opts.role ?? 'tenant';
    const suffix = randomBytes(4).toString('hex');
    const user = await tx.user.create({
      data: {
        tenantId: tenant.id,
        name: `API user ${suffix}`,
        username: `api-${suffix}`,
        // Tenant ids may hold `_` and `-`, which a domain label may not start or end with.
        email: opts.email ?? `api-${suffix}@t${tenant.id.toLowerCase().replace(/[^a-z0-9]/g, 'x')}.invalid`,
        role,
        status: 1,
        locationId: role === 'venue' || role === 'front-desk' ? location.id : null,
        permissions: opts.permissions ?? (role === 'tenant' ? ['guests.manage-global'] : []),
      },
    });
    await tx.apiToken.create({ data: { userId: user.id, tokenHash: hashToken(token), name: 'bootstrap' } });
    return {
      token,
      tenant_id: tenant.id,
      user_id: user.id,
      location_id: location.id,
      service_profile_id: profile.id,
      group_id: group.id,
    };
  }, BOOTSTRAP_TRANSACTION);
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
  const user = await prisma.user.findFirst({
    where: {
      OR: [
        { id: userRef },
        { email: userRef },
        // An integer user id fits PostgreSQL's integer; longer digits name no user.
        ...(/^\d{1,10}$/.test(userRef) && Number(userRef) <= 2_147_483_647
          ? [{ userId: Number(userRef) }]
          : []),
      ],
    },
    select: { id: true, tenantId: true },
  });
  if (!user) throw new UnknownUserError(`No user with id or email "${userRef}".`);
  const token = newToken();
  await writeWithEvents({ prisma, tenantId: user.tenantId, actor: systemActor }, (tx, log) =>
    insertToken(tx, log, 'apiTokens.create', { userId: user.id, token, scopes }),
  );
  return { token };
}

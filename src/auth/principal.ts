// Token → principal: who is calling, in which tenant, pinned to which location.
import type { Prisma } from '../db/database.js';
import { rawFindMany } from '../db/raw-rows.js';
import { AppError } from '../errors.js';
import type { Prisma as PrismaNS } from '../generated/prisma/client.js';
import { hashToken } from './tokens.js';

export const roles = ['tenant', 'venue', 'front-desk', 'support'] as const;
export type Role = (typeof roles)[number];

export interface Principal {
  tokenId: string;
  /** When the token expires (null: never): no token it creates may outlive it. */
  tokenExpiresAt: Date | null;
  userId: string;
  userIntId: number;
  role: Role;
  /** The user's current tenant. */
  tenantId: string;
  groupId: string;
  /** The location a venue or front-desk user is pinned to. */
  locationId: string | null;
  permissions: readonly string[];
  /** Token scopes (`read`, `ingest`, `full`; see permissions.ts); empty means the user's full rights. */
  scopes: readonly string[];
}

/** The rows a service may touch: one tenant, and for pinned roles one location. */
export interface Scope {
  tenantId: string;
  locationId: string | null;
}

const ACTIVE = 1;

export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/** What authentication reads of a token: its user and the user's tenant. */
export const tokenSelect = {
  id: true,
  revokedAt: true,
  expiresAt: true,
  scopes: true,
  user: {
    select: {
      id: true,
      userId: true,
      role: true,
      status: true,
      isTrashed: true,
      locationId: true,
      permissions: true,
      tenant: { select: { id: true, groupId: true, isTrashed: true } },
    },
  },
} as const satisfies PrismaNS.ApiTokenSelect;

type TokenRow = PrismaNS.ApiTokenGetPayload<{ select: typeof tokenSelect }>;

/**
 * Missing, unknown, revoked or expired token (`expiresAt` now or past), a Passive or Banned user, or
 * a trashed tenant: 401. Nothing is written here: the request gate notes the token's use in memory
 * (src/auth/token-usage.ts).
 */
export async function authenticate(prisma: Prisma, token: string | null): Promise<Principal> {
  if (!token) throw new AppError('UNAUTHENTICATED');
  // Every request makes this read: one raw statement, exactly as Prisma's findUnique would return it.
  const [row] = await rawFindMany<TokenRow>(prisma, 'ApiToken', {
    where: { tokenHash: hashToken(token) },
    select: tokenSelect,
  });
  const user = row?.user;
  const expired = row?.expiresAt != null && row.expiresAt.getTime() <= Date.now();
  if (!row || row.revokedAt || expired || !user || user.status !== ACTIVE || user.isTrashed) {
    throw new AppError('UNAUTHENTICATED');
  }
  const role = user.role as Role;
  if (user.tenant.isTrashed && role !== 'support') throw new AppError('UNAUTHENTICATED');
  return {
    tokenId: row.id,
    tokenExpiresAt: row.expiresAt,
    userId: user.id,
    userIntId: user.userId,
    role,
    tenantId: user.tenant.id,
    groupId: user.tenant.groupId,
    locationId: user.locationId,
    permissions: user.permissions,
    scopes: row.scopes,
  };
}

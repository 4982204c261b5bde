// Demo dashboard users for `admin seed`: for each active location of the tenant (up to four), a venue
// admin and a front-desk user pinned to it. Deterministic and idempotent: emails are derived from the
// tenant and location, so seeding again reuses them (and counts only the users it added). Seeded
// users have no password.
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import type { Random } from '../locations/locations.seed.js';

const FIRST = ['Amal', 'Omar', 'Sara', 'Yusuf', 'Lina', 'Karim', 'Maya', 'Hadi'];
const LAST = ['Haddad', 'Nasser', 'Khoury', 'Saleh', 'Farah', 'Aziz'];

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, 'x');

export async function seedUsers(
  prisma: PrismaNS.TransactionClient,
  tenantId: string,
  rand: Random,
): Promise<Record<string, number>> {
  const locations = await prisma.location.findMany({
    where: { tenantId, isTrashed: false },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: 4,
    select: { id: true },
  });
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  let users = 0;
  for (const location of locations) {
    for (const role of ['venue', 'front-desk'] as const) {
      const name = `${pick(FIRST)} ${pick(LAST)}`;
      const email = `${role}.${slug(location.id)}@t${slug(tenantId)}.seed.invalid`;
      // Emails are unique regardless of case (User_lower_email_key): one since changed to upper
      // case is still this user's.
      const exists = await prisma.$queryRaw<unknown[]>`
        SELECT 1 FROM "User" WHERE lower("email") = lower(${email}::text) LIMIT 1`;
      if (exists.length > 0) continue;
      await prisma.user.create({
        data: { tenantId, name, username: email, email, role, status: 1, locationId: location.id },
      });
      users++;
    }
  }
  return { users };
}

// Demo guests for `admin seed`: guests and employees with tags, spread over the tenant's locations
// and the last four months, some online. The same random source gives the same guests.
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import type { Random } from '../locations/locations.seed.js';

const FIRST = [
  'Aisha',
  'Omar',
  'Lena',
  'James',
  'Mei',
  'Carlos',
  'Priya',
  'Yusuf',
  'Sofia',
  'Liam',
  'Noor',
  'Hana',
];
const LAST = ['Haddad', 'Smith', 'Tanaka', 'García', 'Okafor', 'Müller', 'Khan', 'Rossi', 'Novak', 'Lee'];
const COUNTRIES = ['AE', 'GB', 'US', 'SG', 'IN', 'DE', 'FR', 'JP', 'SA', 'EG'];
const TAGS = ['VIP', 'Returning', 'Business', 'Family', 'Loyalty Gold', 'Conference'];
const LOGIN_TYPES = ['Email', 'SMS', 'Facebook', 'Access Code', 'Click Through'];
const DAY = 86_400_000;
const BATCH = 500;
/** Seeded guests are recognised by this email domain, so a second run continues the numbering. */
export const SEED_EMAIL_DOMAIN = 'guests.seed.invalid';

/**
 * The number after which this run's guests are numbered (`guest<n>@…`): past the highest number a
 * guest's email holds, whatever its case (the emails are unique regardless of case, so no new one
 * can take it), and past every number given before as far as the tenant can tell: the seeded emails
 * plus the erased guests, whose email is gone (any erased guest counts, seeded or not: a gap in the
 * numbering at worst). So neither an erasure nor an edited email makes a run reuse a number or
 * collide with one. Numbers of more than 15 digits are not the seed's own and never collide with its
 * next ones.
 */
async function lastSeedNumber(prisma: PrismaNS.TransactionClient, tenantId: string): Promise<number> {
  const pattern = `^guest([1-9][0-9]{0,14})@${SEED_EMAIL_DOMAIN.replaceAll('.', '\\.')}$`;
  const [row] = await prisma.$queryRaw<{ highest: bigint | null; seeded: bigint; erased: bigint }[]>`
    SELECT max((substring(lower("email") from ${pattern}))::bigint) AS highest,
      count(*) FILTER (WHERE lower("email") ~ ${pattern}) AS seeded,
      count(*) FILTER (WHERE "erasedAt" IS NOT NULL) AS erased
    FROM "Guest" WHERE "tenantId" = ${tenantId}`;
  return Math.max(Number(row?.highest ?? 0), Number(row?.seeded ?? 0) + Number(row?.erased ?? 0));
}

export async function seedGuests(
  prisma: PrismaNS.TransactionClient,
  opts: { tenantId: string; rand: Random; guests: number; progress(message: string): void },
): Promise<{ counts: { guests: number; guest_tags: number }; guestIds: string[] }> {
  const { tenantId, rand } = opts;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const locations = await prisma.location.findMany({
    where: { tenantId, isTrashed: false },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  if (locations.length === 0 || opts.guests <= 0)
    return { counts: { guests: 0, guest_tags: 0 }, guestIds: [] };

  await prisma.tag.createMany({
    data: TAGS.map((name) => ({ tenantId, name, type: 1 })),
    skipDuplicates: true,
  });
  const tags = await prisma.tag.findMany({
    where: { tenantId, name: { in: TAGS } },
    orderBy: { name: 'asc' },
    select: { id: true },
  });
  const offset = await lastSeedNumber(prisma, tenantId);
  // Whole days, so two runs on the same day with the same seed write the same dates.
  const today = Math.floor(Date.now() / DAY) * DAY;

  const guestIds: string[] = [];
  let tagged = 0;
  for (let start = 0; start < opts.guests; start += BATCH) {
    const rows = [];
    const tagPicks: number[][] = [];
    for (let i = start; i < Math.min(opts.guests, start + BATCH); i++) {
      const n = offset + i + 1;
      const first = pick(FIRST);
      const last = pick(LAST);
      const createdAt = new Date(today - Math.floor(rand() * 120 * DAY) - Math.floor(rand() * DAY));
      const visited = rand() < 0.85;
      // Within the days before today (never after midnight, so never after now: probe G found
      // visits up to an hour ahead), the same for every run of the day.
      const lastVisit = visited
        ? new Date(
            Math.min(
              today - 1,
              createdAt.getTime() + Math.floor(rand() * 60 * DAY) + Math.floor(rand() * DAY),
            ),
          )
        : null;
      const online = visited && rand() < 0.15;
      const email = `guest${n}@${SEED_EMAIL_DOMAIN}`;
      rows.push({
        tenantId,
        locationId: pick(locations).id,
        type: rand() < 0.9 ? 1 : 2,
        username: email,
        name: `${first} ${last}`,
        firstName: first,
        lastName: last,
        email,
        birthDate: new Date(
          Date.UTC(1950 + Math.floor(rand() * 55), Math.floor(rand() * 12), 1 + Math.floor(rand() * 28)),
        ),
        gender: Math.floor(rand() * 3),
        phone: `+971 5${String(Math.floor(rand() * 1e8)).padStart(8, '0')}`,
        nationalityCode: pick(COUNTRIES),
        residencyCode: pick(COUNTRIES),
        roomNo: rand() < 0.5 ? String(100 + Math.floor(rand() * 900)) : null,
        reservationNo: rand() < 0.4 ? `RES-${10000 + n}` : null,
        hotelStatus: rand() < 0.5 ? Math.floor(rand() * 2) : null,
        partnerId: `P-${n}`,
        online,
        connectionStatus: online ? 1 : 0,
        lastVisitDate: lastVisit,
        lastAttemptTime: lastVisit,
        lastConnectionTime: lastVisit,
        visitCount: visited ? 1 + Math.floor(rand() * 30) : 0,
        receiveMarketing: rand() < 0.6 ? 1 : 0,
        lastLoginType: visited ? pick(LOGIN_TYPES) : null,
        lastSsidName: visited ? 'Guest WiFi' : null,
        totalDownloadedData: BigInt(Math.floor(rand() * 5e9)),
        totalUploadedData: BigInt(Math.floor(rand() * 5e8)),
        createdAt,
        updatedAt: lastVisit ?? createdAt,
      });
      tagPicks.push([
        ...new Set(Array.from({ length: Math.floor(rand() * 3) }, () => Math.floor(rand() * tags.length))),
      ]);
    }
    const guests = await prisma.guest.createManyAndReturn({ data: rows, select: { id: true } });
    const links = guests.flatMap((g, i) =>
      (tagPicks[i] ?? []).map((t) => ({ tenantId, guestId: g.id, tagId: tags[t]?.id ?? '' })),
    );
    if (links.length > 0) await prisma.guestTag.createMany({ data: links });
    tagged += links.length;
    guestIds.push(...guests.map((g) => g.id));
    opts.progress(`guests: ${guestIds.length}/${opts.guests}`);
  }
  return { counts: { guests: guestIds.length, guest_tags: tagged }, guestIds };
}

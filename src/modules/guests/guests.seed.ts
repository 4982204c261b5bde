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

export async function seedGuests(
  prisma: PrismaNS.TransactionClient,
  opts: { tenantId: string; rand: Random; guests: number; progress(message: string): void },
): Promise<{ guests: number; guest_tags: number }> {
  const { tenantId, rand } = opts;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  const locations = await prisma.location.findMany({
    where: { tenantId, isTrashed: false },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  if (locations.length === 0 || opts.guests <= 0) return { guests: 0, guest_tags: 0 };

  await prisma.tag.createMany({
    data: TAGS.map((name) => ({ tenantId, name, type: 1 })),
    skipDuplicates: true,
  });
  const tags = await prisma.tag.findMany({
    where: { tenantId, name: { in: TAGS } },
    orderBy: { name: 'asc' },
    select: { id: true },
  });
  const offset = await prisma.guest.count({
    where: { tenantId, email: { endsWith: `@${SEED_EMAIL_DOMAIN}` } },
  });
  // Whole days, so two runs on the same day with the same seed write the same dates.
  const today = Math.floor(Date.now() / DAY) * DAY;

  let created = 0;
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
      const lastVisit = visited
        ? new Date(
            Math.min(today, createdAt.getTime() + Math.floor(rand() * 60 * DAY)) + Math.floor(rand() * DAY),
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
    created += guests.length;
    opts.progress(`guests: ${created}/${opts.guests}`);
  }
  return { guests: created, guest_tags: tagged };
}

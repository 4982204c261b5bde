// Demo advertisements (with grouped tags) and access codes for `admin seed`. Deterministic for the
// same random source; a second run adds no advertisement title twice and no codes to a location
// that has some.
import type { Prisma as PrismaNS } from '../../generated/prisma/client.js';
import { CODE_ALPHABET, CODE_LENGTH } from '../access-codes/access-codes.service.js';
import type { Random } from '../locations/locations.seed.js';

const TAGS = [
  { name: 'Summer', groupName: 'Campaigns' },
  { name: 'Loyalty', groupName: 'Campaigns' },
  { name: 'Families', groupName: 'Audiences' },
  { name: 'Business travellers', groupName: 'Audiences' },
  { name: 'Food & drink', groupName: 'Categories' },
  { name: 'Retail', groupName: 'Categories' },
];

const TITLES = [
  'Summer brunch offer',
  'Spa weekend -20%',
  'Kids eat free',
  'Rooftop happy hour',
  'Late checkout for members',
  'Airport shuttle',
  'New store opening',
  'Match day menu',
  'Loyalty double points',
  'Meeting rooms by the hour',
  'Gift cards',
  'Lounge day pass',
];

const DAY_MS = 86_400_000;
const pick = (rand: Random, n: number): number => Math.floor(rand() * n);

export async function seedAdvertisementsAndAccessCodes(
  prisma: PrismaNS.TransactionClient,
  tenantId: string,
  rand: Random,
): Promise<{ advertisements: number; access_codes: number }> {
  const counts = { advertisements: 0, access_codes: 0 };
  const tags = [];
  for (const tag of TAGS) {
    tags.push(
      await prisma.tag.upsert({
        where: { tenantId_name: { tenantId, name: tag.name } },
        create: { tenantId, ...tag },
        update: {},
      }),
    );
  }
  const start = Date.UTC(2026, 0, 5);
  for (const [i, title] of TITLES.entries()) {
    const exists = await prisma.advertisement.findFirst({ where: { tenantId, title }, select: { id: true } });
    if (exists) continue;
    const impressions = 100 + pick(rand, 5000);
    const chosen = new Set<string>();
    const tagCount = 1 + pick(rand, 3);
    while (chosen.size < tagCount) chosen.add(tags[pick(rand, tags.length)]?.id ?? '');
    const startDate = new Date(start + i * 14 * DAY_MS);
    await prisma.advertisement.create({
      data: {
        tenantId,
        title,
        url: `https://example.com/offers/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
        type: i % 2,
        method: pick(rand, 3),
        conditionValue: pick(rand, 10),
        impressionCount: impressions,
        clickCount: pick(rand, Math.floor(impressions / 10)),
        status: rand() < 0.7 ? 1 : 0,
        startDate,
        endDate: new Date(startDate.getTime() + (14 + pick(rand, 60)) * DAY_MS),
        tags: { create: [...chosen].map((tagId) => ({ tenantId, tagId })) },
      },
    });
    counts.advertisements++;
  }

  const profile =
    (await prisma.serviceProfile.findFirst({ where: { tenantId, isDefault: true } })) ??
    (await prisma.serviceProfile.create({ data: { tenantId, name: 'Default', isDefault: true } }));
  const locations = await prisma.location.findMany({
    where: { tenantId, isTrashed: false },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const code = () =>
    Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[pick(rand, CODE_ALPHABET.length)]).join('');
  for (const location of locations) {
    const seeded = await prisma.accessCode.findFirst({
      where: { tenantId, locationId: location.id },
      select: { id: true },
    });
    if (seeded) continue;
    const prefix =
      location.name
        .toUpperCase()
        .replace(/[^A-Z0-9]/g, '')
        .slice(0, 12) || 'VENUE';
    const base = { tenantId, locationId: location.id, serviceProfileId: profile.id };
    const created = await prisma.accessCode.createMany({
      skipDuplicates: true,
      data: [
        { ...base, type: 1, code: `${prefix}-GUEST`, description: 'Shared guest code' },
        {
          ...base,
          type: 1,
          code: `${prefix}-EVENT`,
          description: 'Shared event code',
          expiryDate: new Date(start + 90 * DAY_MS),
        },
        ...Array.from({ length: 5 }, () => ({
          ...base,
          type: 2,
          code: code(),
          description: 'Front-desk batch',
          maxUses: 1,
          startDate: new Date(start),
          expiryDate: new Date(start + 30 * DAY_MS),
        })),
      ],
    });
    counts.access_codes += created.count;
  }
  return counts;
}

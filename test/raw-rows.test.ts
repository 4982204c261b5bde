// The raw reader (src/db/raw-rows.ts) returns exactly Prisma's findMany rows: same keys, same JS
// types, the same tenant-scoped relations, for every column of the model, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenSelect } from '../src/auth/principal.js';
import { hashToken } from '../src/auth/tokens.js';
import { openDatabase } from '../src/db/database.js';
import {
  findManyRows,
  type RawFindManyArgs,
  rawFindMany,
  scalarFields,
  UnsupportedArgs,
} from '../src/db/raw-rows.js';
import { likeLiteral } from '../src/db/text-search.js';
import { toAppError } from '../src/errors.js';
import { Prisma as PrismaNS } from '../src/generated/prisma/client.js';
import { getDatamodel } from '../src/generated/prisma/pothos-types.js';
import { sessionItemSelect, sessionOrder } from '../src/modules/guest-sessions/guest-sessions.service.js';
import { guestInclude, guestOrder } from '../src/modules/guests/guests.service.js';
import { openTestDatabase, recordStatements } from './helpers/app.js';
import { addDevice, addGuest, addSession, newTenant } from './helpers/fixtures.js';

type Db = Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let tenantId: string;
let otherTenantId: string;
let ids: string[];
const tz = process.env.TZ;

/** A value for every scalar of Guest by its Prisma type: the reader must cover each one. */
function everyColumn(extreme: 'max' | 'min'): Record<string, unknown> {
  const fields = getDatamodel().datamodel.models.Guest?.fields ?? [];
  const data: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.kind === 'object' || ['id', 'tenantId', 'locationId'].includes(f.name)) continue;
    if (f.type === 'String') data[f.name] = `It's "${f.name}" \\ ✓ 中文 😀 '${extreme}'`;
    else if (f.type === 'Int') data[f.name] = extreme === 'max' ? 32767 : -32768;
    else if (f.type === 'BigInt')
      data[f.name] = extreme === 'max' ? 9223372036854775807n : -9223372036854775808n;
    else if (f.type === 'Boolean') data[f.name] = extreme === 'max';
    else if (f.type === 'DateTime') data[f.name] = new Date(Date.UTC(2026, 1, 28, 23, 59, 59, 987));
    else throw new Error(`No test value for Guest.${f.name} (${f.type}).`);
  }
  // Column types narrower than their Prisma type.
  data.birthDate = new Date(Date.UTC(1990, 11, 31));
  data.nationalityCode = 'é😀';
  data.residencyCode = 'x'; // char(2): read back padded, by both readers
  return data;
}

const args = (order: boolean) => ({
  where: { tenantId, id: { in: ids } },
  orderBy: guestOrder(order),
  include: guestInclude(tenantId),
});

beforeAll(async () => {
  // A time zone with a half-hour offset: a date read in local time would show as another day.
  process.env.TZ = 'America/St_Johns';
  db = await openTestDatabase();
  const a = await newTenant(db.prisma);
  const b = await newTenant(db.prisma);
  tenantId = a.tenant_id;
  otherTenantId = b.tenant_id;
  const full = await addGuest(db.prisma, tenantId, a.location_id, {
    ...everyColumn('max'),
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 1)),
  });
  const low = await addGuest(db.prisma, tenantId, a.location_id, {
    ...everyColumn('min'),
    createdAt: new Date(Date.UTC(2026, 0, 2)),
  });
  // Every optional column null.
  const nulls = await addGuest(db.prisma, tenantId, a.location_id, {
    email: null,
    createdAt: new Date(Date.UTC(2026, 0, 3)),
  });
  const other = await addGuest(db.prisma, otherTenantId, b.location_id);
  ids = [full.id, low.id, nulls.id, other.id];
  for (const name of ['zeta', 'Ähm "q"', 'alpha 😀']) {
    const tag = await db.prisma.tag.create({ data: { tenantId, name } });
    await db.prisma.guestTag.create({ data: { tenantId, guestId: full.id, tagId: tag.id } });
  }
  const oneTag = await db.prisma.tag.create({ data: { tenantId, name: 'only' } });
  await db.prisma.guestTag.create({ data: { tenantId, guestId: low.id, tagId: oneTag.id } });
  // Another tenant's tag on this tenant's guest: neither reader may show it.
  const foreign = await db.prisma.tag.create({ data: { tenantId: otherTenantId, name: 'foreign' } });
  await db.prisma.guestTag.create({ data: { tenantId: otherTenantId, guestId: full.id, tagId: foreign.id } });
});

afterAll(async () => {
  await db.close();
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

describe('raw rows', () => {
  it('equal Prisma findMany with the guest include, in both orders', async () => {
    for (const order of [false, true]) {
      const prisma = await db.prisma.guest.findMany(args(order));
      const raw = await rawFindMany(db.prisma, 'Guest', args(order));
      expect(raw).toStrictEqual(prisma);
      expect(raw.map((g) => (g as { id: string }).id)).toEqual(
        order ? ids.slice(0, 3).reverse() : ids.slice(0, 3),
      );
    }
  });

  it('equal Prisma with whole related rows (dates, floats and nulls inside the json)', async () => {
    const wide = {
      where: { tenantId, id: { in: ids } },
      orderBy: guestOrder(false),
      include: {
        location: true,
        tags: { where: { tenantId }, orderBy: { tag: { name: 'asc' } }, include: { tag: true } },
      },
    } as const;
    await db.prisma.location.updateMany({ where: { tenantId }, data: { lat: -33.865143, lng: 151.2099 } });
    const prisma = await db.prisma.guest.findMany(wide);
    expect(await rawFindMany(db.prisma, 'Guest', wide)).toStrictEqual(prisma);
    expect(prisma[0]?.tags[0]?.tag.createdAt).toBeInstanceOf(Date);
  });

  it('cut a related row’s microseconds to the millisecond, as Prisma’s top-level read does', async () => {
    // Written by the database (an import's now() + n µs): probe T saw .864 at the top, .865 nested.
    const [guestId] = ids as [string];
    const location = await db.prisma.guest.findUniqueOrThrow({
      where: { id: guestId },
      select: { locationId: true },
    });
    await db.prisma
      .$executeRaw`UPDATE "Location" SET "updatedAt" = '2026-11-28 19:30:47.864903+00' WHERE "id" = ${location.locationId}`;
    const wide = { where: { tenantId, id: guestId }, include: { location: true } } as const;
    const prisma = await db.prisma.guest.findMany(wide);
    expect(prisma[0]?.location.updatedAt.toISOString()).toBe('2026-11-28T19:30:47.864Z');
    expect(await rawFindMany(db.prisma, 'Guest', wide)).toStrictEqual(prisma);
  });

  it("equal Prisma with the session list's to-one relations, present and absent", async () => {
    const [guestId, otherGuestId] = [ids[0] as string, ids[3] as string];
    const guest = await db.prisma.guest.findUniqueOrThrow({ where: { id: guestId } });
    const device = await addDevice(db.prisma, tenantId, guestId, { description: 'Ünïcode "phone"' });
    const profile = await db.prisma.serviceProfile.findFirstOrThrow({ where: { tenantId } });
    const code = await db.prisma.accessCode.create({
      data: {
        tenantId,
        locationId: guest.locationId,
        serviceProfileId: profile.id,
        code: `raw-${tenantId}`,
        type: 1,
      },
    });
    const at = { guestId, deviceId: device.id, locationId: guest.locationId };
    const full = await addSession(db.prisma, tenantId, at, {
      accessCodeId: code.id,
      serviceProfileId: profile.id,
      downloadedData: 9007199254740993n,
      endTime: null,
    });
    const bare = await addSession(db.prisma, tenantId, at, {
      startTime: new Date(Date.UTC(2026, 0, 11, 0, 0, 0, 5)),
    });
    const otherTenant = await db.prisma.guest.findUniqueOrThrow({ where: { id: otherGuestId } });
    const otherDevice = await addDevice(db.prisma, otherTenantId, otherGuestId);
    const foreign = await addSession(db.prisma, otherTenantId, {
      guestId: otherGuestId,
      deviceId: otherDevice.id,
      locationId: otherTenant.locationId,
    });
    for (const newestFirst of [false, true]) {
      const list = {
        where: { tenantId, id: { in: [full.id, bare.id, foreign.id] } },
        orderBy: sessionOrder(newestFirst),
        select: sessionItemSelect,
      };
      const prisma = await db.prisma.guestSession.findMany(list);
      expect(prisma).toHaveLength(2);
      expect(await rawFindMany(db.prisma, 'GuestSession', list)).toStrictEqual(prisma);
    }
  });

  it("equal Prisma for authentication's read of a token, its user and tenant (lists, nulls, an unknown hash)", async () => {
    const t = await newTenant(db.prisma);
    const user = await db.prisma.user.findFirstOrThrow({ where: { tenantId: t.tenant_id } });
    for (const hash of [hashToken(t.token), hashToken('no such token')]) {
      const args = { where: { tokenHash: hash }, select: tokenSelect };
      const prisma = await db.prisma.apiToken.findMany(args);
      expect(await rawFindMany(db.prisma, 'ApiToken', args)).toStrictEqual(prisma);
    }
    const [row] = await db.prisma.apiToken.findMany({
      where: { tokenHash: hashToken(t.token) },
      select: tokenSelect,
    });
    expect(row?.user.permissions).toEqual(user.permissions);
    expect(row?.user.permissions.length).toBeGreaterThan(0);
  });

  it('keeps the values and types a serializer relies on', async () => {
    const [full, low, nulls] = (await rawFindMany<Record<string, unknown>>(
      db.prisma,
      'Guest',
      args(false),
    )) as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    expect(full.totalDownloadedData).toBe(9223372036854775807n);
    expect(low.totalUploadedData).toBe(-9223372036854775808n);
    expect(full.birthDate).toEqual(new Date('1990-12-31T00:00:00.000Z'));
    expect(full.lastVisitDate).toEqual(new Date('2026-02-28T23:59:59.987Z'));
    expect(full.createdAt).toEqual(new Date('2026-01-01T00:00:00.001Z'));
    expect(full.name).toBe(`It's "name" \\ ✓ 中文 😀 'max'`);
    expect(full.residencyCode).toBe('x ');
    expect(full.online).toBe(true);
    expect(low.gender).toBe(-32768);
    expect(nulls.birthDate).toBeNull();
    expect(nulls.totalDownloadedData).toBe(0n);
    // Their order is the database's collation, compared with Prisma's in the first test.
    const names = (full.tags as { tag: { name: string } }[]).map((t) => t.tag.name);
    expect(names.sort()).toEqual(['alpha 😀', 'zeta', 'Ähm "q"'].sort());
    expect(JSON.stringify(full.tags)).not.toContain('foreign');
    expect(nulls.tags).toEqual([]);
    expect(full.location).toEqual({ name: expect.any(String) });
  });

  it('reads every scalar column of the model, derived from it', async () => {
    expect(scalarFields('Guest')).toEqual(Object.keys(PrismaNS.GuestScalarFieldEnum));
    const [full] = await rawFindMany<Record<string, unknown>>(db.prisma, 'Guest', args(false));
    expect(Object.keys(full ?? {})).toEqual([
      ...Object.keys(PrismaNS.GuestScalarFieldEnum),
      'location',
      'tags',
    ]);
    // The full guest has no null column: each one was written and read back.
    expect(Object.entries(full ?? {}).filter(([, v]) => v === null)).toEqual([]);
  });

  it('is one statement, seen by the statement listeners', async () => {
    const { sql } = await recordStatements(db, () => rawFindMany(db.prisma, 'Guest', args(false)));
    expect(sql).toHaveLength(1);
  });

  it('planner settings hold for that statement only, in a transaction of its own; a bad name is refused', async () => {
    // SET LOCAL outside a transaction changes nothing: reading `off` shows the transaction.
    const read = `SELECT current_setting('enable_seqscan') AS seq, current_setting('enable_bitmapscan') AS bitmap`;
    const off = { enable_seqscan: 'off', enable_bitmapscan: 'off' } as const;
    expect(await db.rows(read, [], undefined, off)).toEqual([{ seq: 'off', bitmap: 'off' }]);
    // The connection goes back to the pool as it was.
    for (let i = 0; i < 3; i++) {
      expect(await db.rows<{ seq: string }>(read, [])).toEqual([{ seq: 'on', bitmap: 'on' }]);
    }
    // A failing statement rolls its transaction back and gives its connection back too.
    await expect(db.rows('SELECT 1/0', [], undefined, off)).rejects.toThrow(/division by zero/);
    expect(await db.rows<{ seq: string }>(read, [])).toEqual([{ seq: 'on', bitmap: 'on' }]);
    await expect(
      db.rows(read, [], undefined, { 'enable_seqscan = off; DROP TABLE "Guest"; --': 'off' } as never),
    ).rejects.toThrow('Not a planner setting');
  });

  it("answers another tenant's values with another tenant's rows (a statement is reused, not its values)", async () => {
    const mine = await rawFindMany<{ id: string }>(db.prisma, 'Guest', args(false));
    expect(mine.map((g) => g.id)).toEqual(ids.slice(0, 3));
    const theirs = await rawFindMany<{ id: string; tags: unknown[] }>(db.prisma, 'Guest', {
      where: { tenantId: otherTenantId, id: { in: ids } },
      orderBy: guestOrder(false),
      include: guestInclude(otherTenantId),
    });
    expect(theirs.map((g) => g.id)).toEqual([ids[3]]);
    expect(theirs[0]?.tags).toEqual([]);
  });

  it('equal Prisma for the filters the services write (text, ranges, negations, AND/OR/NOT)', async () => {
    const wheres: Record<string, unknown>[] = [
      { tenantId, name: { contains: likeLiteral('NAME'), mode: 'insensitive' } },
      { tenantId, name: { contains: likeLiteral('%'), mode: 'insensitive' } },
      { tenantId, name: { contains: likeLiteral("'max_"), mode: 'insensitive' } },
      { tenantId, username: { startsWith: 'It' }, email: { endsWith: "'min'" } },
      { tenantId, email: { equals: likeLiteral('IT\'S "EMAIL"'), mode: 'insensitive' } },
      {
        tenantId,
        createdAt: { gte: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 1)), lt: new Date(Date.UTC(2026, 0, 3)) },
      },
      { tenantId, birthDate: new Date(Date.UTC(1990, 11, 31)) },
      { tenantId, email: { not: null } },
      { tenantId, gender: { not: 0 } },
      { tenantId, gender: { not: { in: [0, 32767] } } },
      { tenantId, id: { notIn: [ids[0]] } },
      { tenantId, OR: [{ gender: 32767 }, { gender: -32768 }] },
      { tenantId, OR: [] },
      { tenantId, NOT: { email: null } },
      { tenantId, AND: [{ online: true }, { AND: [{ visitCount: { gt: 0 } }] }] },
      { tenantId, AND: [], name: undefined },
    ];
    for (const where of wheres) {
      const a = { where, orderBy: guestOrder(false), select: { id: true, name: true } };
      expect(await rawFindMany(db.prisma, 'Guest', a), JSON.stringify(where)).toStrictEqual(
        await db.prisma.guest.findMany(a as Parameters<typeof db.prisma.guest.findMany>[0]),
      );
    }
  });

  it('equal Prisma for pages: take, skip and cursors, at the top and inside relations', async () => {
    const [first, second, third] = ids as [string, string, string];
    for (let i = 0; i < 3; i++) await addDevice(db.prisma, tenantId, first);
    const pages: Record<string, unknown>[] = [
      { take: 2 },
      { take: 2, skip: 1 },
      { take: 0 },
      { skip: 5 },
      { cursor: { id: second }, take: 5 },
      { cursor: { id: second }, skip: 1, take: 5 },
      { cursor: { id: third }, skip: 1, take: 5 },
      { cursor: { id: first }, take: 1 },
      { cursor: { id: 'no-such-guest' }, take: 5 },
      // Backward pages (a connection's last/before): read in the reversed order, then put back.
      { take: -2 },
      { take: -2, skip: 1 },
      { cursor: { id: second }, take: -5 },
      { cursor: { id: third }, skip: 1, take: -5 },
      { cursor: { id: 'no-such-guest' }, skip: 1, take: -5 },
    ];
    for (const page of pages) {
      for (const newestFirst of [false, true]) {
        const a = {
          where: { tenantId },
          orderBy: guestOrder(newestFirst),
          ...page,
          select: {
            id: true,
            devices: { where: { tenantId }, orderBy: { id: 'asc' }, take: 2, skip: 1, select: { id: true } },
            _count: { select: { tags: true, devices: true } },
          },
        };
        expect(await rawFindMany(db.prisma, 'Guest', a), JSON.stringify(page)).toStrictEqual(
          await db.prisma.guest.findMany(a as Parameters<typeof db.prisma.guest.findMany>[0]),
        );
      }
    }
    // A cursor inside a relation, and counts filtered by tenant.
    const deviceIds = (
      await db.prisma.guestDevice.findMany({ where: { guestId: first }, orderBy: { id: 'asc' } })
    ).map((d) => d.id);
    const nested = {
      where: { tenantId, id: first },
      select: {
        id: true,
        devices: {
          where: { tenantId },
          orderBy: { id: 'asc' },
          cursor: { id: deviceIds[1] as string },
          skip: 1,
          take: 5,
          select: { id: true },
        },
        _count: { select: { tags: { where: { tenantId } }, devices: true } },
      },
    };
    const prisma = await db.prisma.guest.findMany(
      nested as unknown as Parameters<typeof db.prisma.guest.findMany>[0],
    );
    expect(await rawFindMany(db.prisma, 'Guest', nested)).toStrictEqual(prisma);
    // The foreign tenant's tag on this guest is not counted.
    expect(prisma[0]).toMatchObject({
      _count: { tags: 3 },
      devices: deviceIds.slice(2, 7).map((id) => ({ id })),
    });
    // Backward pages inside a relation (a nested connection's last/before), as Prisma reads them.
    for (const page of [
      { take: -2 },
      { cursor: { id: deviceIds[2] as string }, skip: 1, take: -5 },
      { cursor: { id: deviceIds[2] as string }, take: -1 },
    ]) {
      for (const dir of ['asc', 'desc'] as const) {
        const back = {
          where: { tenantId, id: first },
          select: {
            id: true,
            devices: { where: { tenantId }, orderBy: { id: dir }, ...page, select: { id: true } },
          },
        };
        expect(await rawFindMany(db.prisma, 'Guest', back), JSON.stringify(back)).toStrictEqual(
          await db.prisma.guest.findMany(back as unknown as Parameters<typeof db.prisma.guest.findMany>[0]),
        );
      }
    }
  });

  it('refuses arguments it cannot read as Prisma would; findManyRows then asks Prisma', async () => {
    const refused: RawFindManyArgs[] = [
      { where: { tenantId, tags: { some: { tenantId } } } },
      { where: { tenantId }, orderBy: { name: { sort: 'asc', nulls: 'first' } } },
      // A backward page whose order cannot be reversed here (nulls placed).
      { where: { tenantId }, orderBy: { name: { sort: 'asc', nulls: 'first' } }, take: -1 },
      { where: { tenantId }, orderBy: { email: 'asc' }, cursor: { id: ids[0] as string } },
      { where: { tenantId, name: { search: 'x' } } },
    ];
    for (const a of refused) {
      await expect(rawFindMany(db.prisma, 'Guest', a), JSON.stringify(a)).rejects.toThrow(UnsupportedArgs);
      const viaPrisma = await db.prisma.guest
        .findMany(a as Parameters<typeof db.prisma.guest.findMany>[0])
        .catch(() => 'refused');
      const rows = await findManyRows(db.prisma, 'Guest', a).catch(() => 'refused');
      expect(rows).toStrictEqual(viaPrisma);
    }
  });

  it('maps a database error of a raw read as it maps Prisma errors', async () => {
    const err = await db.rows('SELECT $1::text AS t', ['a\0b']).catch((e: unknown) => e);
    expect(toAppError(err)?.code).toBe('NUL_CHARACTER');
  });

  it.runIf(process.env.TEST_DATABASE_URL)('maps a raw statement past statement_timeout to 503', async () => {
    const slow = await openDatabase({
      url: process.env.TEST_DATABASE_URL as string,
      migrate: false,
      poolSize: 1,
      statementTimeoutMs: 50,
    });
    try {
      const err = await slow.rows('SELECT pg_sleep(1)', []).catch((e: unknown) => e);
      expect(toAppError(err)?.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await slow.close();
    }
  });
});

// Access codes in the graph: the `accessCodes` connection (REST `GET /access-codes`) and the
// `generateAccessCodes` mutation (REST `POST /access-codes`), through the same service functions.
import { requires } from '../../auth/permissions.js';
import { assertPageSize, toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { GuestType } from '../guests/guests.graphql.js';
import { guestVisible } from '../guests/guests.service.js';
import { statusName, typeName } from './access-codes.labels.js';
import {
  accessCodeOrder,
  countAccessCodes,
  generateAccessCodes,
  queryAccessCodes,
} from './access-codes.service.js';

const MAX_PAGE_SIZE = 100;

builder.prismaObject('AccessCode', {
  fields: (t) => ({
    id: t.exposeID('id'),
    code: t.exposeString('code'),
    type: t.exposeInt('type', { description: '1 Shared, 2 Access Code' }),
    typeName: t.string({ resolve: (c) => typeName(c.type) }),
    description: t.exposeString('description', { nullable: true }),
    locationId: t.exposeString('locationId'),
    locationName: t.string({
      select: { location: { select: { name: true } } },
      resolve: (c) => c.location.name,
    }),
    serviceProfileId: t.exposeString('serviceProfileId'),
    serviceProfileName: t.string({
      select: { serviceProfile: { select: { name: true } } },
      resolve: (c) => c.serviceProfile.name,
    }),
    serviceProfile: t.relation('serviceProfile'),
    location: t.relation('location'),
    // A code at the caller's location may name a guest of another one: a pinned caller gets null.
    guest: t.field({
      type: GuestType,
      nullable: true,
      description: "Null without a guest, or when the guest is outside the caller's location",
      select: (_args, _ctx, nested) => ({
        guest: nested({ select: { id: true, tenantId: true, locationId: true } }),
      }),
      resolve: (c, _args, ctx) => (c.guest && guestVisible(ctx, c.guest) ? c.guest : null),
    }),
    startDate: t.expose('startDate', { type: 'DateTime', nullable: true }),
    expiryDate: t.expose('expiryDate', { type: 'DateTime', nullable: true }),
    status: t.exposeInt('status', { description: '1 Available' }),
    statusName: t.string({ resolve: (c) => statusName(c.status) }),
    useCount: t.exposeInt('useCount'),
    usedAt: t.expose('usedAt', { type: 'DateTime', nullable: true }),
    guestId: t.exposeString('guestId', { nullable: true }),
    guestName: t.string({
      description: "Empty without a guest, or when the guest is outside the caller's location",
      select: { guest: { select: { name: true, tenantId: true, locationId: true } } },
      resolve: (c, _args, ctx) => (c.guest && guestVisible(ctx, c.guest) ? c.guest.name : ''),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const GeneratedAccessCodes = builder.objectRef<{ ids: string[] }>('GeneratedAccessCodes').implement({
  description: 'Every code one `generateAccessCodes` call created, in creation order',
  fields: (t) => ({
    count: t.int({ resolve: (p) => p.ids.length }),
    accessCodes: t.prismaField({
      type: ['AccessCode'],
      resolve: async (query, p, _args, ctx) => {
        const rows = await ctx.prisma.accessCode.findMany({
          ...query,
          where: { tenantId: ctx.principal.tenantId, id: { in: p.ids } },
          orderBy: accessCodeOrder,
        });
        const position = new Map(p.ids.map((id, i) => [id, i]));
        return rows.sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
      },
    }),
  }),
});

const GenerateAccessCodesInput = builder.inputType('GenerateAccessCodesInput', {
  description: 'Checked by the same rules as REST `POST /access-codes`.',
  fields: (t) => ({
    locationId: t.string(),
    serviceProfileId: t.string(),
    guestId: t.string(),
    type: t.int({ description: '1 Shared (needs `code`), 2 Access Code (generates `quantity`)' }),
    code: t.string({ description: 'The shared code (type 1)' }),
    quantity: t.int({ description: 'Type 2: 1 to 1000, default 1' }),
    startDate: t.string({ description: '`YYYY-MM-DD`' }),
    expiryDate: t.string({ description: '`YYYY-MM-DD`, not before startDate' }),
    description: t.string(),
  }),
});

builder.queryFields((t) => ({
  accessCodes: t.prismaConnection({
    ...requires('accessCodes.list'),
    type: 'AccessCode',
    cursor: 'id',
    maxSize: MAX_PAGE_SIZE,
    defaultSize: 10,
    description: 'Access codes of the current tenant, newest first (REST `GET /access-codes`).',
    args: {
      locationId: t.arg.string(),
      type: t.arg.int({ description: '1 Shared, 2 Access Code' }),
      status: t.arg.int(),
      code: t.arg.string({ description: 'Case-insensitive substring of the code' }),
      guestId: t.arg.string(),
    },
    resolve: (query, _root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return queryAccessCodes(ctx, filters(args), query);
    },
    totalCount: (_root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return countAccessCodes(ctx, filters(args));
    },
  }),
}));

function filters(args: {
  locationId?: string | null;
  type?: number | null;
  status?: number | null;
  code?: string | null;
  guestId?: string | null;
}) {
  const { locationId, type, status, code, guestId } = args;
  return toRestInput({ locationId, type, status, code, guestId });
}

builder.mutationFields((t) => ({
  generateAccessCodes: t.field({
    ...requires('accessCodes.create'),
    type: GeneratedAccessCodes,
    description: 'One shared code (type 1) or `quantity` generated codes (type 2), all or none.',
    args: { input: t.arg({ type: GenerateAccessCodesInput, required: true }) },
    resolve: async (_root, args, ctx, info) => {
      await ctx.fieldGuard?.check('generateAccessCodes', ctx.principal.tokenId, info);
      const rows = await generateAccessCodes(ctx, toRestInput(args.input));
      return { ids: rows.map((r) => r.id) };
    },
  }),
}));

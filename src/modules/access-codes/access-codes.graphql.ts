// Access codes in the graph: the `accessCodes` connection (REST `GET /access-codes`), the
// `generateAccessCodes` mutation (REST `POST /access-codes`) and the vouchers' `redeemAccessCode`,
// `revokeAccessCode` and `revokeAccessCodes` (REST `/access-codes/redeem`, `…/revoke`), through the
// same service functions.
import { requires } from '../../auth/permissions.js';
import { toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import {
  argsOf,
  inputTypeOf,
  listConnection,
  listQueryOf,
  restInputOf,
} from '../../graphql/operation-fields.js';
import { planAnswerFirst } from '../../graphql/plan-answer-first.js';
import { docsOnly, execute, fieldsOf } from '../../operations/operation.js';
import { GuestType } from '../guests/guests.graphql.js';
import { guestVisibleSelect } from '../guests/guests.service.js';
import { shownStatus, statusName, typeName } from './access-codes.labels.js';
import { type Limits, redeemAccessCode } from './access-codes.redeem.js';
import { revokeAccessCode, revokeAccessCodes } from './access-codes.revoke.js';
import {
  accessCodeOrder,
  accessCodesQuery,
  codeGuestShown,
  countAccessCodes,
  generateAccessCodes,
  listAccessCodes,
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
    // A code at the caller's location may name a guest of another one: a pinned caller gets null (so
    // does a token that may not read guests).
    guest: t.field({
      type: GuestType,
      nullable: true,
      description: "Null without a guest, or when the guest is outside the caller's location",
      select: (_args, _ctx, nested) => ({
        guest: nested({ select: { id: true, ...guestVisibleSelect } }),
      }),
      resolve: (c, _args, ctx) => (c.guest && codeGuestShown(ctx, c.guest) ? c.guest : null),
    }),
    startDate: t.expose('startDate', { type: 'DateTime', nullable: true }),
    expiryDate: t.expose('expiryDate', { type: 'DateTime', nullable: true }),
    status: t.int({
      description: '1 Available, 2 Used, 3 Expired (read from expiryDate when asked), 4 Revoked',
      resolve: (c) => shownStatus(c),
    }),
    statusName: t.string({ resolve: (c) => statusName(shownStatus(c)) }),
    useCount: t.exposeInt('useCount'),
    usedAt: t.expose('usedAt', { type: 'DateTime', nullable: true }),
    guestId: t.exposeString('guestId', { nullable: true }),
    guestName: t.string({
      description: "Empty without a guest, or when the guest is outside the caller's location",
      select: { guest: { select: { name: true, ...guestVisibleSelect } } },
      resolve: (c, _args, ctx) => (c.guest && codeGuestShown(ctx, c.guest) ? c.guest.name : ''),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    maxUses: t.exposeInt('maxUses', { nullable: true, description: 'Redemptions allowed; null: unlimited' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
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

const GenerateAccessCodesInput = inputTypeOf(
  'GenerateAccessCodesInput',
  'Checked by the same rules as REST `POST /access-codes`.',
  fieldsOf(generateAccessCodes, docsOnly),
);

const AccessCodeLimits = builder.objectRef<Limits>('AccessCodeLimits').implement({
  description: "A redeemed code's service profile limits, for the controller to apply",
  fields: (t) => ({
    sessionDuration: t.exposeInt('sessionDuration', { description: 'Minutes, 0 unlimited' }),
    dataQuota: t.float({
      nullable: true,
      description: 'Bytes, null unlimited',
      resolve: (l) => (l.dataQuota === null ? null : Number(l.dataQuota)),
    }),
    bandwidthUp: t.exposeInt('bandwidthUp', { description: 'kbit/s, 0 unlimited' }),
    bandwidthDown: t.exposeInt('bandwidthDown', { description: 'kbit/s, 0 unlimited' }),
  }),
});

/** What `redeemAccessCode` resolves to: the code is read again with the selection's query. */
interface RedeemedRef {
  id: string;
  limits: Limits;
  sessionId: string | null;
  deviceId: string;
}

const RedeemedAccessCode = builder.objectRef<RedeemedRef>('RedeemedAccessCode').implement({
  description: 'One use of a code counted (REST `POST /access-codes/redeem`)',
  fields: (t) => ({
    accessCode: t.prismaField({
      type: 'AccessCode',
      description: 'The code after this use',
      resolve: (query, p, _args, ctx) =>
        ctx.prisma.accessCode.findUniqueOrThrow({ ...query, where: { id: p.id } }),
    }),
    limits: t.field({ type: AccessCodeLimits, resolve: (p) => p.limits }),
    deviceId: t.id({ description: 'The device now linked to the guest', resolve: (p) => p.deviceId }),
    sessionId: t.id({
      nullable: true,
      description: 'The guest session opened (`startSession`), else null',
      resolve: (p) => p.sessionId,
    }),
  }),
});

const RevokedAccessCodes = builder.objectRef<{ count: number }>('RevokedAccessCodes').implement({
  description: 'How many codes one `revokeAccessCodes` call revoked (those already revoked are not counted)',
  fields: (t) => ({ count: t.exposeInt('count') }),
});

const RedeemAccessCodeInput = inputTypeOf(
  'RedeemAccessCodeInput',
  'Checked by the same rules as REST `POST /access-codes/redeem`.',
  fieldsOf(redeemAccessCode, docsOnly),
);

const revokeBatchFields = fieldsOf(revokeAccessCodes, docsOnly);

builder.queryFields((t) => ({
  accessCodes: t.prismaConnection({
    ...listConnection(accessCodesQuery, MAX_PAGE_SIZE),
    type: 'AccessCode',
    description: 'Access codes of the current tenant, newest first (REST `GET /access-codes`).',
    args: argsOf(accessCodesQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await listQueryOf(accessCodesQuery, ctx, args);
      return listAccessCodes(ctx, q, query);
    },
    totalCount: async (_root, args, ctx) => {
      return countAccessCodes(ctx, await listQueryOf(accessCodesQuery, ctx, args));
    },
  }),
}));

builder.mutationFields((t) => ({
  generateAccessCodes: t.field({
    ...requires(generateAccessCodes.action),
    type: GeneratedAccessCodes,
    description: 'One shared code (type 1) or `quantity` generated codes (type 2), all or none.',
    args: { input: t.arg({ type: GenerateAccessCodesInput, required: true }) },
    resolve: async (_root, args, ctx, info) => {
      await ctx.fieldGuard?.check('generateAccessCodes', ctx.principal.tokenId, info);
      await planAnswerFirst(ctx, info, 'accessCodes', 'AccessCode');
      const rows = await execute(generateAccessCodes, ctx, toRestInput(args.input));
      return { ids: rows.map((r) => r.id) };
    },
  }),
  redeemAccessCode: t.field({
    ...requires(redeemAccessCode.action),
    type: RedeemedAccessCode,
    description:
      'Counts one use of a code for a device at a location, exactly once, or answers why not (field `code`).',
    args: { input: t.arg({ type: RedeemAccessCodeInput, required: true }) },
    resolve: async (_root, args, ctx, info) => {
      await planAnswerFirst(ctx, info, 'accessCode', 'AccessCode');
      const r = await execute(redeemAccessCode, ctx, toRestInput(args.input));
      return { id: r.code.id, limits: r.limits, sessionId: r.sessionId, deviceId: r.deviceId };
    },
  }),
  revokeAccessCode: t.prismaField({
    ...requires(revokeAccessCode.action),
    type: 'AccessCode',
    description: 'Status 4 Revoked from now on; a revoked code is answered unchanged.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const row = await execute(revokeAccessCode, ctx, {}, String(args.id));
      return ctx.prisma.accessCode.findUniqueOrThrow({ ...query, where: { id: row.id } });
    },
  }),
  revokeAccessCodes: t.field({
    ...requires(revokeAccessCodes.action),
    type: RevokedAccessCodes,
    description:
      'Revokes the codes named by `ids` (up to 1000), or else those the list filters find (at least one).',
    args: argsOf(revokeBatchFields),
    resolve: async (_root, args, ctx) => ({
      count: await execute(revokeAccessCodes, ctx, restInputOf(revokeBatchFields, args)),
    }),
  }),
}));

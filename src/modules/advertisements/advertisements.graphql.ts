import { builder } from '../../graphql/builder.js';
import { argsOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import {
  advertisementsQuery,
  advertisementTagsInclude,
  countAdvertisements,
  queryAdvertisements,
} from './advertisements.service.js';

/** As REST's `per_page`. */
const MAX_PAGE_SIZE = 100;

interface AdvertisementTagShape {
  id: string;
  name: string;
  groupName: string | null;
}

const AdvertisementTag = builder.objectRef<AdvertisementTagShape>('AdvertisementTag').implement({
  description: 'A tag of an advertisement',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    groupName: t.exposeString('groupName', { nullable: true }),
  }),
});

builder.prismaObject('Advertisement', {
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    url: t.exposeString('url', { nullable: true }),
    type: t.exposeInt('type', { description: '0 Text, 1 Image' }),
    method: t.exposeInt('method'),
    conditionValue: t.exposeInt('conditionValue'),
    impressionCount: t.exposeInt('impressionCount'),
    clickCount: t.exposeInt('clickCount'),
    status: t.exposeInt('status', { description: '0 Draft, 1 Published' }),
    startDate: t.expose('startDate', { type: 'DateTime', nullable: true }),
    endDate: t.expose('endDate', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    tags: t.field({
      type: [AdvertisementTag],
      description: 'By name',
      select: (_args, ctx) => ({ tags: advertisementTagsInclude(ctx.principal.tenantId) }),
      resolve: (a) => a.tags.map(({ tag }) => tag),
    }),
  }),
});

builder.queryFields((t) => ({
  advertisements: t.prismaConnection({
    ...listConnection(advertisementsQuery, MAX_PAGE_SIZE, { defaultSize: 25 }),
    type: 'Advertisement',
    description:
      'Advertisements of the current tenant (REST `GET /advertisements`): oldest first, or by `orderBy`, ' +
      'always with the id as tie-breaker.',
    args: argsOf(advertisementsQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await listQueryOf(advertisementsQuery, ctx, args);
      return queryAdvertisements(ctx, q, query);
    },
    totalCount: async (_root, args, ctx) => {
      const q = await listQueryOf(advertisementsQuery, ctx, args);
      return countAdvertisements(ctx, q);
    },
  }),
}));

// Advertisements in the graph: the `advertisements` connection with the REST filters and ordering
// and a total count. Resolvers call the same service functions as REST.
import { requires } from '../../auth/permissions.js';
import { assertPageSize, toRestInput } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import {
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
    ...requires('advertisements.list'),
    type: 'Advertisement',
    cursor: 'id',
    maxSize: MAX_PAGE_SIZE,
    defaultSize: 25,
    description:
      'Advertisements of the current tenant (REST `GET /advertisements`): oldest first, or by `orderBy`, ' +
      'always with the id as tie-breaker.',
    args: {
      title: t.arg.string({ description: 'Case-insensitive substring of the title' }),
      url: t.arg.string({ description: 'Case-insensitive substring of the URL' }),
      type: t.arg.int({ description: '0 Text, 1 Image' }),
      status: t.arg.int({ description: '0 Draft, 1 Published' }),
      tagId: t.arg.string({ description: 'Advertisements with a tag whose id contains this text' }),
      startDate: t.arg.string({ description: '`yyyy-mm-dd`: started on or after that day (UTC)' }),
      endDate: t.arg.string({ description: '`yyyy-mm-dd`: ended on or before that day (UTC)' }),
      orderBy: t.arg.string({ description: '`title`, `type`, `method` or `status`' }),
      orderDirection: t.arg.string({ description: '`asc` (default) or `desc`' }),
    },
    resolve: (query, _root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return queryAdvertisements(ctx, filters(args), query);
    },
    totalCount: (_root, args, ctx) => {
      assertPageSize(args, MAX_PAGE_SIZE);
      return countAdvertisements(ctx, filters(args));
    },
  }),
}));

function filters(args: {
  title?: string | null;
  url?: string | null;
  type?: number | null;
  status?: number | null;
  tagId?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  orderBy?: string | null;
  orderDirection?: string | null;
}) {
  const { title, url, type, status, tagId, startDate, endDate, orderBy, orderDirection } = args;
  return toRestInput({ title, url, type, status, tagId, startDate, endDate, orderBy, orderDirection });
}

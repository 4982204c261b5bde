import { builder } from '../../graphql/builder.js';
import { argsOf, listConnection, listQueryOf } from '../../graphql/operation-fields.js';
import {
  countServiceProfiles,
  listServiceProfiles,
  serviceProfilesQuery,
} from './service-profiles.service.js';

const MAX_PAGE_SIZE = 100;

builder.prismaObject('ServiceProfile', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    bandwidthUp: t.exposeInt('bandwidthUp', { description: 'kbit/s, 0 unlimited' }),
    bandwidthDown: t.exposeInt('bandwidthDown', { description: 'kbit/s, 0 unlimited' }),
    sessionDuration: t.exposeInt('sessionDuration', { description: 'minutes, 0 unlimited' }),
    dataQuota: t.float({
      nullable: true,
      description: 'bytes, null unlimited',
      resolve: (p) => (p.dataQuota === null ? null : Number(p.dataQuota)),
    }),
    isDefault: t.exposeBoolean('isDefault'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  serviceProfiles: t.prismaConnection({
    ...listConnection(serviceProfilesQuery, MAX_PAGE_SIZE),
    type: 'ServiceProfile',
    description:
      'Service profiles of the current tenant, the default first, then by name (REST `GET /service-profiles`).',
    args: argsOf(serviceProfilesQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await listQueryOf(serviceProfilesQuery, ctx, args);
      return listServiceProfiles(ctx, q, query);
    },
    totalCount: async (_root, args, ctx) => {
      const q = await listQueryOf(serviceProfilesQuery, ctx, args);
      return countServiceProfiles(ctx, q);
    },
  }),
}));

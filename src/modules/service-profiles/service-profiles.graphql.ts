// Service profiles in the graph: the `serviceProfiles` connection (REST `GET /service-profiles`).
import { requires } from '../../auth/permissions.js';
import { connectionPage } from '../../graphql/args.js';
import { builder } from '../../graphql/builder.js';
import { argsOf, restInputOf } from '../../graphql/operation-fields.js';
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
    ...connectionPage(MAX_PAGE_SIZE, requires(serviceProfilesQuery.action)),
    type: 'ServiceProfile',
    description:
      'Service profiles of the current tenant, the default first, then by name (REST `GET /service-profiles`).',
    args: argsOf(serviceProfilesQuery.filters),
    resolve: async (query, _root, args, ctx) => {
      const q = await serviceProfilesQuery.query(ctx, restInputOf(serviceProfilesQuery.filters, args));
      return listServiceProfiles(ctx, q, query);
    },
    totalCount: async (_root, args, ctx) => {
      const q = await serviceProfilesQuery.query(ctx, restInputOf(serviceProfilesQuery.filters, args));
      return countServiceProfiles(ctx, q);
    },
  }),
}));

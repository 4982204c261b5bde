// Guests in the graph. (Skeleton: the guests work fills in fields, queries and mutations.)
import { builder } from '../../graphql/builder.js';

export const GuestType = builder.prismaObject('Guest', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
  }),
});

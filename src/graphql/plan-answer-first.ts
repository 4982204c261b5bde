// A mutation whose answer holds records read after its write (a payload's `accessCode`, `webhook`,
// `apiToken`) plans that read first. Planning raises what the selection gets wrong (a nested field
// the caller may not read, such as an `ingest` token's `location { buildings }`): raised before the
// write, the request is refused whole; raised after, the write had committed and its answer was
// `data: null` (a code's use counted, a secret shown once lost).
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import type { AppContext } from '../context.js';

/** Plans the query of the payload field `field` (of the model type `typeName`), if selected. */
export async function planAnswerFirst(
  ctx: AppContext,
  info: GraphQLResolveInfo,
  field: string,
  typeName: string,
): Promise<void> {
  await queryFromInfo({ context: ctx, info, typeName, path: [field], awaitSelections: true });
}

// The indexes Prisma's schema cannot declare (on expressions, or partial), written by hand in the
// migrations: test/migrations.test.ts requires the database to hold exactly these.
import { CASE_INSENSITIVE_UNIQUE } from './text-search.js';

/** Finished deliveries by age, for pruning the history (partial: `status <> 'pending'`). */
export const WEBHOOK_HISTORY_INDEX = 'WebhookDelivery_updatedAt_finished_idx';

export const HAND_WRITTEN_INDEXES: readonly string[] = [
  ...Object.values(CASE_INSENSITIVE_UNIQUE).map((u) => u.index),
  WEBHOOK_HISTORY_INDEX,
];

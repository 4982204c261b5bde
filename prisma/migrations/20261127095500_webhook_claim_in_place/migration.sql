-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN "claimedUntil" TIMESTAMPTZ(3);

-- DropIndex
DROP INDEX "WebhookDelivery_updatedAt_idx";

-- Hand-written (src/db/hand-written-indexes.ts): the history's pruning reads finished rows only, so
-- pending rows (every delivery's insert and claim) write no entry here.
CREATE INDEX "WebhookDelivery_updatedAt_finished_idx" ON "WebhookDelivery"("updatedAt") WHERE "status" <> 'pending';

-- Room on each page for a claim's new version of its rows (HOT: no index entries written).
ALTER TABLE "WebhookDelivery" SET (fillfactor = 50);

-- The history is pruned endpoint by endpoint through ("webhookId", "createdAt", "id"): an index on
-- "createdAt" alone cost every logged attempt an entry for an hourly delete.
-- DropIndex
DROP INDEX "WebhookAttempt_createdAt_idx";

-- DropIndex
DROP INDEX "WebhookDelivery_status_nextAttemptAt_idx";

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_webhookId_nextAttemptAt_idx" ON "WebhookDelivery"("status", "webhookId", "nextAttemptAt");

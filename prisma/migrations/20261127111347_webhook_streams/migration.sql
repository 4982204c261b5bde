-- CreateTable
CREATE TABLE "WebhookStream" (
    "webhookId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "lastEventId" BIGINT NOT NULL,
    "leasedUntil" TIMESTAMPTZ(3),
    "lease" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookStream_pkey" PRIMARY KEY ("webhookId")
);

-- CreateIndex
CREATE INDEX "WebhookStream_tenantId_idx" ON "WebhookStream"("tenantId");

-- AddForeignKey
ALTER TABLE "WebhookStream" ADD CONSTRAINT "WebhookStream_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Each endpoint goes on from where its tenant's dispatch stood (the events after it were not queued
-- yet), or from its own start if later.
INSERT INTO "WebhookStream" ("webhookId", "tenantId", "lastEventId")
SELECT w."id", w."tenantId", greatest(w."startAfterEventId", coalesce(c."lastEventId", 0))
FROM "Webhook" w LEFT JOIN "WebhookCursor" c ON c."tenantId" = w."tenantId";

-- DropTable
DROP TABLE "WebhookCursor";

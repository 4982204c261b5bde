-- An endpoint's start is its stream's first place (WebhookStream.lastEventId): nothing reads this since.
-- AlterTable
ALTER TABLE "Webhook" DROP COLUMN "startAfterEventId";

-- An open location session names its latest zone visit: two visits of one session may start at the
-- same instant (a device seen in two zones within a second), which the time alone cannot order.
-- AlterTable
ALTER TABLE "LocationSession" ADD COLUMN     "lastLogId" TEXT;

-- The open sessions' latest log, as the ingest read it before (the latest by time, then id): closed
-- sessions need none.
UPDATE "LocationSession" s SET "lastLogId" = (
  SELECT l."id" FROM "LocationLog" l
  WHERE l."tenantId" = s."tenantId" AND l."sessionId" = s."id"
  ORDER BY l."timestamp" DESC, l."id" DESC LIMIT 1)
WHERE s."endedAt" IS NULL;

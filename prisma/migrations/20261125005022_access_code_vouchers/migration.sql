-- AlterTable
ALTER TABLE "AccessCode" ADD COLUMN     "maxUses" INTEGER,
ADD COLUMN     "revokedAt" TIMESTAMPTZ(6);

-- A generated code (type 2) is one guest's: single-use, as new ones are by default. Shared codes
-- (type 1) stay unlimited (null).
UPDATE "AccessCode" SET "maxUses" = 1 WHERE "type" = 2;

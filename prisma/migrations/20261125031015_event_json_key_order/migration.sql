-- AlterTable
ALTER TABLE "AuditLog" ALTER COLUMN "changes" SET DATA TYPE JSON;

-- AlterTable
ALTER TABLE "Event" ALTER COLUMN "payload" SET DATA TYPE JSON;

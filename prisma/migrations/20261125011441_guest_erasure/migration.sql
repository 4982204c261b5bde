-- AlterTable
ALTER TABLE "Guest" ADD COLUMN     "erasedAt" TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "previousSecret" TEXT,
ADD COLUMN     "previousSecretExpiresAt" TIMESTAMPTZ(6),
ADD COLUMN     "secretRotatedAt" TIMESTAMPTZ(6);

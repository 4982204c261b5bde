-- CreateTable
CREATE TABLE "RetentionSettings" (
    "tenantId" TEXT NOT NULL,
    "anonymizeInactiveGuestsAfterMonths" INTEGER,
    "deletePresenceRecordsAfterDays" INTEGER,
    "deleteLocationLogsAfterDays" INTEGER,
    "deleteGuestSessionsAfterDays" INTEGER,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "RetentionSettings_pkey" PRIMARY KEY ("tenantId")
);

-- AddForeignKey
ALTER TABLE "RetentionSettings" ADD CONSTRAINT "RetentionSettings_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "CurrentPresence" (
    "tenantId" TEXT NOT NULL,
    "mac" VARCHAR(17) NOT NULL,
    "recordId" TEXT NOT NULL,
    "deviceId" TEXT,
    "guestId" TEXT,
    "dataType" SMALLINT NOT NULL,
    "x" DOUBLE PRECISION,
    "y" DOUBLE PRECISION,
    "locationId" TEXT,
    "buildingId" TEXT,
    "floorId" TEXT,
    "zoneId" TEXT,
    "connected" BOOLEAN NOT NULL DEFAULT false,
    "seenAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "CurrentPresence_pkey" PRIMARY KEY ("tenantId","mac")
);

-- CreateTable
CREATE TABLE "IngestEvent" (
    "tenantId" TEXT NOT NULL,
    "eventId" VARCHAR(100) NOT NULL,
    "kind" VARCHAR(10) NOT NULL,
    "digest" CHAR(64) NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IngestEvent_pkey" PRIMARY KEY ("tenantId","eventId")
);

-- CreateIndex
CREATE INDEX "CurrentPresence_tenantId_seenAt_idx" ON "CurrentPresence"("tenantId", "seenAt");

-- CreateIndex
CREATE INDEX "CurrentPresence_tenantId_locationId_seenAt_idx" ON "CurrentPresence"("tenantId", "locationId", "seenAt");

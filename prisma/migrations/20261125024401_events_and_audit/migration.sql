-- CreateTable
CREATE TABLE "Event" (
    "tenantId" TEXT NOT NULL,
    "id" BIGINT NOT NULL,
    "type" VARCHAR(64) NOT NULL,
    "occurredAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorType" VARCHAR(10) NOT NULL,
    "actorUserId" TEXT,
    "actorTokenId" TEXT,
    "requestId" VARCHAR(200),
    "resourceType" VARCHAR(64) NOT NULL,
    "resourceId" TEXT NOT NULL,
    "payload" JSONB NOT NULL,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("tenantId","id")
);

-- CreateTable
CREATE TABLE "EventSequence" (
    "tenantId" TEXT NOT NULL,
    "lastId" BIGINT NOT NULL,

    CONSTRAINT "EventSequence_pkey" PRIMARY KEY ("tenantId")
);

-- CreateTable
CREATE TABLE "AuditLog" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "actorUserId" TEXT,
    "actorTokenId" TEXT,
    "requestId" VARCHAR(200),
    "action" VARCHAR(64) NOT NULL,
    "resourceType" VARCHAR(64) NOT NULL,
    "resourceId" TEXT NOT NULL,
    "changes" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Event_tenantId_type_id_idx" ON "Event"("tenantId", "type", "id");

-- CreateIndex
CREATE INDEX "AuditLog_tenantId_createdAt_id_idx" ON "AuditLog"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditLog_tenantId_actorUserId_createdAt_idx" ON "AuditLog"("tenantId", "actorUserId", "createdAt");

-- CreateIndex
CREATE INDEX "AuditLog_tenantId_resourceType_resourceId_createdAt_idx" ON "AuditLog"("tenantId", "resourceType", "resourceId", "createdAt");

-- CreateIndex
CREATE INDEX "AuditLog_tenantId_action_createdAt_idx" ON "AuditLog"("tenantId", "action", "createdAt");

-- CreateTable
CREATE TABLE "TenantGroup" (
    "id" TEXT NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "TenantGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Tenant" (
    "id" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "description" TEXT,
    "address" TEXT,
    "city" TEXT,
    "postCode" TEXT,
    "countryCode" CHAR(2),
    "isTrashed" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "Tenant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "userId" SERIAL NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "username" VARCHAR(255) NOT NULL,
    "email" VARCHAR(255) NOT NULL,
    "passwordHash" TEXT,
    "role" VARCHAR(20) NOT NULL,
    "status" SMALLINT NOT NULL DEFAULT 1,
    "locationId" TEXT,
    "locale" VARCHAR(10) NOT NULL DEFAULT 'en',
    "isTrashed" BOOLEAN NOT NULL DEFAULT false,
    "permissions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "tokenHash" CHAR(64) NOT NULL,
    "name" TEXT,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "revokedAt" TIMESTAMPTZ(6),
    "lastUsedAt" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Location" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" VARCHAR(50) NOT NULL,
    "description" TEXT,
    "address" VARCHAR(255),
    "postCode" TEXT,
    "city" TEXT,
    "state" TEXT,
    "countryCode" CHAR(2),
    "lat" DOUBLE PRECISION,
    "lng" DOUBLE PRECISION,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "smartLogin" SMALLINT,
    "smartLoginFrequency" INTEGER,
    "smartLoginFrequencyType" SMALLINT,
    "loginPageId" TEXT,
    "loginPageName" TEXT,
    "postLoginPageId" TEXT,
    "postLoginPageName" TEXT,
    "isTrashed" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "Location_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Building" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "locationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "lat" DOUBLE PRECISION,
    "lng" DOUBLE PRECISION,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Building_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Floor" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "buildingId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "level" INTEGER NOT NULL DEFAULT 0,
    "imageUrl" TEXT,
    "imageWidth" INTEGER,
    "imageHeight" INTEGER,
    "width" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "length" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Floor_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Zone" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "floorId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "coordinates" JSONB,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Zone_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Guest" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "locationId" TEXT NOT NULL,
    "type" SMALLINT NOT NULL DEFAULT 1,
    "username" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "firstName" TEXT,
    "lastName" TEXT,
    "email" TEXT,
    "birthDate" DATE,
    "gender" SMALLINT NOT NULL DEFAULT 0,
    "phone" TEXT,
    "passportNo" TEXT,
    "nationalityCode" CHAR(2),
    "residencyCode" CHAR(2),
    "roomNo" TEXT,
    "reservationNo" TEXT,
    "hotelStatus" SMALLINT,
    "socialId" TEXT,
    "partnerId" TEXT,
    "customField1" TEXT,
    "customField2" TEXT,
    "customField3" TEXT,
    "customData" TEXT,
    "online" BOOLEAN NOT NULL DEFAULT false,
    "lastVisitDate" TIMESTAMPTZ(6),
    "lastAttemptTime" TIMESTAMPTZ(6),
    "visitCount" INTEGER NOT NULL DEFAULT 0,
    "receiveMarketing" SMALLINT NOT NULL DEFAULT 0,
    "lastLoginType" TEXT,
    "connectionStatus" SMALLINT NOT NULL DEFAULT 0,
    "lastConnectionTime" TIMESTAMPTZ(6),
    "lastSsidName" TEXT,
    "connectionMethod" TEXT,
    "totalDownloadedData" BIGINT NOT NULL DEFAULT 0,
    "totalUploadedData" BIGINT NOT NULL DEFAULT 0,
    "directLogin" SMALLINT NOT NULL DEFAULT 0,
    "vendor" TEXT,
    "phoneVerifiedAt" TIMESTAMPTZ(6),
    "whatsappVerifiedAt" TIMESTAMPTZ(6),
    "emailVerifiedAt" TIMESTAMPTZ(6),
    "smartLogin" TEXT NOT NULL DEFAULT 'Inactive',
    "imagePath" TEXT,
    "checkinDate" TIMESTAMPTZ(6),
    "checkoutDate" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "Guest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Tag" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" SMALLINT,
    "groupName" TEXT,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Tag_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GuestTag" (
    "tenantId" TEXT NOT NULL,
    "guestId" TEXT NOT NULL,
    "tagId" TEXT NOT NULL,

    CONSTRAINT "GuestTag_pkey" PRIMARY KEY ("guestId","tagId")
);

-- CreateTable
CREATE TABLE "GuestDevice" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "guestId" TEXT NOT NULL,
    "partnerId" TEXT,
    "typeName" TEXT NOT NULL DEFAULT 'Unknown',
    "mac" VARCHAR(17) NOT NULL,
    "ip" TEXT,
    "userAgent" TEXT,
    "description" TEXT NOT NULL DEFAULT '',
    "platform" TEXT NOT NULL DEFAULT '',
    "browser" TEXT NOT NULL DEFAULT '',
    "online" BOOLEAN NOT NULL DEFAULT false,
    "connectionStatus" SMALLINT NOT NULL DEFAULT 0,
    "totalDownloadedData" BIGINT NOT NULL DEFAULT 0,
    "totalUploadedData" BIGINT NOT NULL DEFAULT 0,
    "lastSeenTime" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "GuestDevice_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GuestSession" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "locationId" TEXT NOT NULL,
    "guestId" TEXT NOT NULL,
    "deviceId" TEXT NOT NULL,
    "ipAddress" VARCHAR(45) NOT NULL,
    "accessCodeId" TEXT,
    "loginType" TEXT NOT NULL DEFAULT '',
    "serviceProfileId" TEXT,
    "downloadedData" BIGINT NOT NULL DEFAULT 0,
    "uploadedData" BIGINT NOT NULL DEFAULT 0,
    "startTime" TIMESTAMPTZ(6) NOT NULL,
    "endTime" TIMESTAMPTZ(6),
    "online" BOOLEAN NOT NULL DEFAULT false,
    "connectionStatus" SMALLINT NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "GuestSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LocationSession" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "locationId" TEXT NOT NULL,
    "guestId" TEXT,
    "deviceId" TEXT,
    "mac" VARCHAR(17) NOT NULL,
    "startedAt" TIMESTAMPTZ(6) NOT NULL,
    "endedAt" TIMESTAMPTZ(6),
    "duration" INTEGER NOT NULL DEFAULT 0,
    "visitType" SMALLINT NOT NULL DEFAULT 1,

    CONSTRAINT "LocationSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LocationLog" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "locationId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "guestId" TEXT,
    "guestMac" VARCHAR(17) NOT NULL,
    "zoneId" TEXT,
    "timestamp" TIMESTAMPTZ(6) NOT NULL,
    "duration" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "LocationLog_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PresenceRecord" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "mac" VARCHAR(17) NOT NULL,
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

    CONSTRAINT "PresenceRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ServiceProfile" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bandwidthUp" INTEGER NOT NULL DEFAULT 0,
    "bandwidthDown" INTEGER NOT NULL DEFAULT 0,
    "sessionDuration" INTEGER NOT NULL DEFAULT 0,
    "dataQuota" BIGINT,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ServiceProfile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AccessCode" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "locationId" TEXT NOT NULL,
    "serviceProfileId" TEXT NOT NULL,
    "guestId" TEXT,
    "code" VARCHAR(64) NOT NULL,
    "type" SMALLINT NOT NULL,
    "description" TEXT,
    "startDate" TIMESTAMPTZ(6),
    "expiryDate" TIMESTAMPTZ(6),
    "status" SMALLINT NOT NULL DEFAULT 1,
    "useCount" INTEGER NOT NULL DEFAULT 0,
    "usedAt" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AccessCode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Advertisement" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "url" TEXT,
    "type" SMALLINT NOT NULL DEFAULT 0,
    "method" SMALLINT NOT NULL DEFAULT 0,
    "conditionValue" INTEGER NOT NULL DEFAULT 0,
    "impressionCount" INTEGER NOT NULL DEFAULT 0,
    "clickCount" INTEGER NOT NULL DEFAULT 0,
    "status" SMALLINT NOT NULL DEFAULT 0,
    "startDate" TIMESTAMPTZ(6),
    "endDate" TIMESTAMPTZ(6),
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "Advertisement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AdvertisementTag" (
    "tenantId" TEXT NOT NULL,
    "advertisementId" TEXT NOT NULL,
    "tagId" TEXT NOT NULL,

    CONSTRAINT "AdvertisementTag_pkey" PRIMARY KEY ("advertisementId","tagId")
);

-- CreateIndex
CREATE UNIQUE INDEX "TenantGroup_name_key" ON "TenantGroup"("name");

-- CreateIndex
CREATE INDEX "Tenant_groupId_createdAt_id_idx" ON "Tenant"("groupId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Tenant_groupId_name_idx" ON "Tenant"("groupId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "User_userId_key" ON "User"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "User_tenantId_createdAt_id_idx" ON "User"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE INDEX "ApiToken_userId_idx" ON "ApiToken"("userId");

-- CreateIndex
CREATE INDEX "Location_tenantId_isTrashed_createdAt_id_idx" ON "Location"("tenantId", "isTrashed", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Location_tenantId_name_key" ON "Location"("tenantId", "name");

-- CreateIndex
CREATE INDEX "Building_tenantId_locationId_createdAt_id_idx" ON "Building"("tenantId", "locationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Floor_tenantId_buildingId_level_id_idx" ON "Floor"("tenantId", "buildingId", "level", "id");

-- CreateIndex
CREATE INDEX "Zone_tenantId_floorId_createdAt_id_idx" ON "Zone"("tenantId", "floorId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Guest_tenantId_createdAt_id_idx" ON "Guest"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Guest_tenantId_locationId_createdAt_id_idx" ON "Guest"("tenantId", "locationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Guest_tenantId_updatedAt_idx" ON "Guest"("tenantId", "updatedAt");

-- CreateIndex
CREATE INDEX "Guest_tenantId_lastVisitDate_idx" ON "Guest"("tenantId", "lastVisitDate");

-- CreateIndex
CREATE INDEX "Guest_tenantId_username_idx" ON "Guest"("tenantId", "username");

-- CreateIndex
CREATE INDEX "Guest_tenantId_partnerId_idx" ON "Guest"("tenantId", "partnerId");

-- CreateIndex
CREATE INDEX "Guest_tenantId_name_idx" ON "Guest"("tenantId", "name");

-- CreateIndex
CREATE INDEX "Guest_tenantId_phone_idx" ON "Guest"("tenantId", "phone");

-- CreateIndex
CREATE INDEX "Guest_tenantId_online_idx" ON "Guest"("tenantId", "online");

-- CreateIndex
CREATE UNIQUE INDEX "Guest_tenantId_email_key" ON "Guest"("tenantId", "email");

-- CreateIndex
CREATE UNIQUE INDEX "Tag_tenantId_name_key" ON "Tag"("tenantId", "name");

-- CreateIndex
CREATE INDEX "GuestTag_tenantId_tagId_idx" ON "GuestTag"("tenantId", "tagId");

-- CreateIndex
CREATE INDEX "GuestDevice_tenantId_guestId_createdAt_id_idx" ON "GuestDevice"("tenantId", "guestId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "GuestDevice_tenantId_createdAt_id_idx" ON "GuestDevice"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "GuestDevice_tenantId_updatedAt_idx" ON "GuestDevice"("tenantId", "updatedAt");

-- CreateIndex
CREATE INDEX "GuestDevice_tenantId_partnerId_idx" ON "GuestDevice"("tenantId", "partnerId");

-- CreateIndex
CREATE UNIQUE INDEX "GuestDevice_tenantId_mac_key" ON "GuestDevice"("tenantId", "mac");

-- CreateIndex
CREATE INDEX "GuestSession_tenantId_startTime_id_idx" ON "GuestSession"("tenantId", "startTime", "id");

-- CreateIndex
CREATE INDEX "GuestSession_tenantId_locationId_startTime_id_idx" ON "GuestSession"("tenantId", "locationId", "startTime", "id");

-- CreateIndex
CREATE INDEX "GuestSession_tenantId_guestId_startTime_id_idx" ON "GuestSession"("tenantId", "guestId", "startTime", "id");

-- CreateIndex
CREATE INDEX "GuestSession_tenantId_deviceId_startTime_id_idx" ON "GuestSession"("tenantId", "deviceId", "startTime", "id");

-- CreateIndex
CREATE INDEX "GuestSession_tenantId_ipAddress_startTime_idx" ON "GuestSession"("tenantId", "ipAddress", "startTime");

-- CreateIndex
CREATE INDEX "GuestSession_tenantId_endTime_idx" ON "GuestSession"("tenantId", "endTime");

-- CreateIndex
CREATE INDEX "LocationSession_tenantId_startedAt_id_idx" ON "LocationSession"("tenantId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "LocationSession_tenantId_locationId_startedAt_idx" ON "LocationSession"("tenantId", "locationId", "startedAt");

-- CreateIndex
CREATE INDEX "LocationSession_tenantId_guestId_idx" ON "LocationSession"("tenantId", "guestId");

-- CreateIndex
CREATE INDEX "LocationSession_tenantId_mac_idx" ON "LocationSession"("tenantId", "mac");

-- CreateIndex
CREATE INDEX "LocationLog_tenantId_timestamp_id_idx" ON "LocationLog"("tenantId", "timestamp", "id");

-- CreateIndex
CREATE INDEX "LocationLog_tenantId_sessionId_idx" ON "LocationLog"("tenantId", "sessionId");

-- CreateIndex
CREATE INDEX "LocationLog_tenantId_guestId_idx" ON "LocationLog"("tenantId", "guestId");

-- CreateIndex
CREATE INDEX "LocationLog_tenantId_zoneId_idx" ON "LocationLog"("tenantId", "zoneId");

-- CreateIndex
CREATE INDEX "LocationLog_tenantId_guestMac_idx" ON "LocationLog"("tenantId", "guestMac");

-- CreateIndex
CREATE INDEX "PresenceRecord_tenantId_mac_seenAt_idx" ON "PresenceRecord"("tenantId", "mac", "seenAt" DESC);

-- CreateIndex
CREATE INDEX "PresenceRecord_tenantId_seenAt_idx" ON "PresenceRecord"("tenantId", "seenAt");

-- CreateIndex
CREATE INDEX "PresenceRecord_tenantId_locationId_seenAt_idx" ON "PresenceRecord"("tenantId", "locationId", "seenAt");

-- CreateIndex
CREATE INDEX "PresenceRecord_tenantId_guestId_dataType_seenAt_idx" ON "PresenceRecord"("tenantId", "guestId", "dataType", "seenAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "ServiceProfile_tenantId_name_key" ON "ServiceProfile"("tenantId", "name");

-- CreateIndex
CREATE INDEX "AccessCode_tenantId_createdAt_id_idx" ON "AccessCode"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AccessCode_tenantId_locationId_createdAt_id_idx" ON "AccessCode"("tenantId", "locationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AccessCode_tenantId_guestId_idx" ON "AccessCode"("tenantId", "guestId");

-- CreateIndex
CREATE UNIQUE INDEX "AccessCode_tenantId_code_key" ON "AccessCode"("tenantId", "code");

-- CreateIndex
CREATE INDEX "Advertisement_tenantId_createdAt_id_idx" ON "Advertisement"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Advertisement_tenantId_title_idx" ON "Advertisement"("tenantId", "title");

-- CreateIndex
CREATE INDEX "Advertisement_tenantId_type_idx" ON "Advertisement"("tenantId", "type");

-- CreateIndex
CREATE INDEX "Advertisement_tenantId_method_idx" ON "Advertisement"("tenantId", "method");

-- CreateIndex
CREATE INDEX "Advertisement_tenantId_status_idx" ON "Advertisement"("tenantId", "status");

-- CreateIndex
CREATE INDEX "Advertisement_tenantId_startDate_idx" ON "Advertisement"("tenantId", "startDate");

-- CreateIndex
CREATE INDEX "Advertisement_tenantId_endDate_idx" ON "Advertisement"("tenantId", "endDate");

-- CreateIndex
CREATE INDEX "AdvertisementTag_tenantId_tagId_idx" ON "AdvertisementTag"("tenantId", "tagId");

-- AddForeignKey
ALTER TABLE "Tenant" ADD CONSTRAINT "Tenant_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "TenantGroup"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "User" ADD CONSTRAINT "User_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "User" ADD CONSTRAINT "User_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Location" ADD CONSTRAINT "Location_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Building" ADD CONSTRAINT "Building_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Building" ADD CONSTRAINT "Building_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Floor" ADD CONSTRAINT "Floor_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Floor" ADD CONSTRAINT "Floor_buildingId_fkey" FOREIGN KEY ("buildingId") REFERENCES "Building"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Zone" ADD CONSTRAINT "Zone_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Zone" ADD CONSTRAINT "Zone_floorId_fkey" FOREIGN KEY ("floorId") REFERENCES "Floor"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Guest" ADD CONSTRAINT "Guest_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Guest" ADD CONSTRAINT "Guest_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Tag" ADD CONSTRAINT "Tag_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestTag" ADD CONSTRAINT "GuestTag_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestTag" ADD CONSTRAINT "GuestTag_guestId_fkey" FOREIGN KEY ("guestId") REFERENCES "Guest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestTag" ADD CONSTRAINT "GuestTag_tagId_fkey" FOREIGN KEY ("tagId") REFERENCES "Tag"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestDevice" ADD CONSTRAINT "GuestDevice_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestDevice" ADD CONSTRAINT "GuestDevice_guestId_fkey" FOREIGN KEY ("guestId") REFERENCES "Guest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestSession" ADD CONSTRAINT "GuestSession_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestSession" ADD CONSTRAINT "GuestSession_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestSession" ADD CONSTRAINT "GuestSession_guestId_fkey" FOREIGN KEY ("guestId") REFERENCES "Guest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestSession" ADD CONSTRAINT "GuestSession_deviceId_fkey" FOREIGN KEY ("deviceId") REFERENCES "GuestDevice"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestSession" ADD CONSTRAINT "GuestSession_accessCodeId_fkey" FOREIGN KEY ("accessCodeId") REFERENCES "AccessCode"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GuestSession" ADD CONSTRAINT "GuestSession_serviceProfileId_fkey" FOREIGN KEY ("serviceProfileId") REFERENCES "ServiceProfile"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationSession" ADD CONSTRAINT "LocationSession_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationSession" ADD CONSTRAINT "LocationSession_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationSession" ADD CONSTRAINT "LocationSession_guestId_fkey" FOREIGN KEY ("guestId") REFERENCES "Guest"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationSession" ADD CONSTRAINT "LocationSession_deviceId_fkey" FOREIGN KEY ("deviceId") REFERENCES "GuestDevice"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationLog" ADD CONSTRAINT "LocationLog_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationLog" ADD CONSTRAINT "LocationLog_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationLog" ADD CONSTRAINT "LocationLog_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "LocationSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationLog" ADD CONSTRAINT "LocationLog_guestId_fkey" FOREIGN KEY ("guestId") REFERENCES "Guest"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LocationLog" ADD CONSTRAINT "LocationLog_zoneId_fkey" FOREIGN KEY ("zoneId") REFERENCES "Zone"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PresenceRecord" ADD CONSTRAINT "PresenceRecord_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PresenceRecord" ADD CONSTRAINT "PresenceRecord_deviceId_fkey" FOREIGN KEY ("deviceId") REFERENCES "GuestDevice"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PresenceRecord" ADD CONSTRAINT "PresenceRecord_guestId_fkey" FOREIGN KEY ("guestId") REFERENCES "Guest"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PresenceRecord" ADD CONSTRAINT "PresenceRecord_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PresenceRecord" ADD CONSTRAINT "PresenceRecord_buildingId_fkey" FOREIGN KEY ("buildingId") REFERENCES "Building"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PresenceRecord" ADD CONSTRAINT "PresenceRecord_floorId_fkey" FOREIGN KEY ("floorId") REFERENCES "Floor"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PresenceRecord" ADD CONSTRAINT "PresenceRecord_zoneId_fkey" FOREIGN KEY ("zoneId") REFERENCES "Zone"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ServiceProfile" ADD CONSTRAINT "ServiceProfile_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AccessCode" ADD CONSTRAINT "AccessCode_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AccessCode" ADD CONSTRAINT "AccessCode_locationId_fkey" FOREIGN KEY ("locationId") REFERENCES "Location"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AccessCode" ADD CONSTRAINT "AccessCode_serviceProfileId_fkey" FOREIGN KEY ("serviceProfileId") REFERENCES "ServiceProfile"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AccessCode" ADD CONSTRAINT "AccessCode_guestId_fkey" FOREIGN KEY ("guestId") REFERENCES "Guest"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Advertisement" ADD CONSTRAINT "Advertisement_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AdvertisementTag" ADD CONSTRAINT "AdvertisementTag_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AdvertisementTag" ADD CONSTRAINT "AdvertisementTag_advertisementId_fkey" FOREIGN KEY ("advertisementId") REFERENCES "Advertisement"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AdvertisementTag" ADD CONSTRAINT "AdvertisementTag_tagId_fkey" FOREIGN KEY ("tagId") REFERENCES "Tag"("id") ON DELETE CASCADE ON UPDATE CASCADE;

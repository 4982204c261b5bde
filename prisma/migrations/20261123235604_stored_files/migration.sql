-- CreateTable
CREATE TABLE "StoredFile" (
    "key" VARCHAR(255) NOT NULL,
    "contentType" VARCHAR(100) NOT NULL,
    "bytes" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StoredFile_pkey" PRIMARY KEY ("key")
);

-- Images arrive compressed (PNG, JPEG, GIF, WebP): stored out of line without another compression
-- pass, which would cost CPU on every write for nothing. Not part of the Prisma schema (it has no
-- such setting), so its diff ignores it.
ALTER TABLE "StoredFile" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;

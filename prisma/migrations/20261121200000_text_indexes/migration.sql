-- Indexes for the two kinds of text matching the service does. Written by hand: Prisma's schema
-- cannot declare the case-insensitive unique indexes (expressions) and its diff does not see them,
-- so src/db/text-search.ts lists their names and test/migrations.test.ts checks exactly those exist.
-- Every index is IF NOT EXISTS so that an operator may build them beforehand on a large database
-- with CREATE [UNIQUE] INDEX CONCURRENTLY and these exact names (README, Configuration, PostgreSQL).

-- Trigram matching for the substring filters. A trusted extension since PostgreSQL 13: the
-- database owner may create it without superuser rights.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Case-insensitive uniqueness: the database decides between two concurrent writes, and the checks
-- of the rules (`lower(col) = lower($1)`) read these indexes.
CREATE UNIQUE INDEX IF NOT EXISTS "Guest_tenantId_lower_email_key" ON "Guest"("tenantId", lower("email")) WHERE "email" IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS "Location_tenantId_lower_name_key" ON "Location"("tenantId", lower("name"));
CREATE UNIQUE INDEX IF NOT EXISTS "User_lower_email_key" ON "User"(lower("email"));

-- DropIndex: the case-sensitive ones the indexes above make redundant (User keeps its own: the
-- seeders upsert by the exact email).
DROP INDEX IF EXISTS "Guest_tenantId_email_key";
DROP INDEX IF EXISTS "Location_tenantId_name_key";

-- CreateIndex (declared in schema.prisma)
CREATE INDEX IF NOT EXISTS "AccessCode_code_trgm_idx" ON "AccessCode" USING GIN ("code" gin_trgm_ops);
CREATE INDEX IF NOT EXISTS "Guest_name_trgm_idx" ON "Guest" USING GIN ("name" gin_trgm_ops);
CREATE INDEX IF NOT EXISTS "Guest_username_trgm_idx" ON "Guest" USING GIN ("username" gin_trgm_ops);
CREATE INDEX IF NOT EXISTS "Guest_email_trgm_idx" ON "Guest" USING GIN ("email" gin_trgm_ops);
CREATE INDEX IF NOT EXISTS "Guest_phone_trgm_idx" ON "Guest" USING GIN ("phone" gin_trgm_ops);

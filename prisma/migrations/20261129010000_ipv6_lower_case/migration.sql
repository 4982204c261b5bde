-- IPv6 text in lower case, as every writer now stores it and `GET /sessions/:ip_address` looks it
-- up (src/shared/ip-address.ts): rows the ingest and redeem wrote as received stay findable.
UPDATE "GuestSession" SET "ipAddress" = lower("ipAddress") WHERE "ipAddress" LIKE '%:%' AND "ipAddress" <> lower("ipAddress");
UPDATE "GuestDevice" SET "ip" = lower("ip") WHERE "ip" LIKE '%:%' AND "ip" <> lower("ip");

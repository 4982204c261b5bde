-- A webhook URL's user information (`user:pass@`, the receiver's Basic credentials) no longer enters
-- events and audit entries (shown as "[redacted]@", src/modules/webhooks/webhooks.serializer.ts):
-- those already logged are rewritten the same way. The JSON is edited as text, keeping its key order.
UPDATE "Event"
SET "payload" = regexp_replace("payload"::text, '"([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#"\\]*@', '"\1[redacted]@', 'g')::json
WHERE "resourceType" = 'webhook'
  AND "payload"::text ~ '"[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#"\\]*@';

UPDATE "AuditLog"
SET "changes" = regexp_replace("changes"::text, '"([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#"\\]*@', '"\1[redacted]@', 'g')::json
WHERE "resourceType" = 'webhook'
  AND "changes"::text ~ '"[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#"\\]*@';

-- A tenant's retention settings delete rows the event log copies (guest sessions, location logs):
-- the pass deletes those copies with the rows, found by the row's id.
-- CreateIndex
CREATE INDEX "Event_tenantId_resourceId_idx" ON "Event"("tenantId", "resourceId");

-- A detection that arrives already quiet (older than ACTIVE_WINDOW_SECONDS) fell outside every pass of
-- the event sweeper, which looks at what became quiet since its last pass: its visit stayed open.
-- The batch now leaves the oldest such time here for the sweeper's next pass.
-- CreateTable
CREATE TABLE "SweepBacklog" (
    "tenantId" TEXT NOT NULL,
    "since" TIMESTAMPTZ(6) NOT NULL,
    "mark" TEXT NOT NULL,

    CONSTRAINT "SweepBacklog_pkey" PRIMARY KEY ("tenantId")
);

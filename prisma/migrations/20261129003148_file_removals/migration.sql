-- CreateTable
CREATE TABLE "FileRemoval" (
    "key" VARCHAR(255) NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FileRemoval_pkey" PRIMARY KEY ("key")
);

-- The checkpointed rollup check (GET /v1/admin/ledger/check without full): a digest of each UTC
-- day's contributor_usage_daily rows, stored once that day's rows were verified against its
-- priced usage events. A check re-verifies only the days whose rows no longer hash to the stored
-- digest (days written since, or rows changed behind the writers' back), so its cost follows what
-- is new rather than the month's event count. ?full=true still compares every day.
CREATE TABLE "rollup_verified_days" (
    "day" DATE NOT NULL,
    "rollup_rows" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "verified_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "rollup_verified_days_pkey" PRIMARY KEY ("day")
);

-- Re-verifying a day reads only that day's events. Events arrive roughly in occurred_at order,
-- so a BRIN index (a few pages per partition, no per-row entry to maintain on insert) bounds the
-- scan to the day's block ranges; unsummarized ranges are always read, which keeps it exact, and
-- autosummarize has autovacuum summarize each range once it is full.
CREATE INDEX "usage_events_occurred_at_brin" ON "usage_events" USING brin ("occurred_at") WITH (autosummarize = on);

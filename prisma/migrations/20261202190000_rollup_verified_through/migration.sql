-- The checkpointed rollup check re-verifies a changed day from what it last proved of it, not from
-- all the day's events (issue 25: today's millions of events were re-read after every 1,000 new
-- ones). A verified day now also records:
-- - through_event_id: the usage_events frontier of that verification (every id at or below it was
--   committed before its snapshot, see docs/history.md), and rollup_verified_sums, the day's
--   priced events with id <= through_event_id summed per contributor and model. A later check
--   then reads only the day's events above it: rollups = verified sums + those events.
-- - events_above: the day's priced events with id above through_event_id that its snapshot saw
--   (in its rollup rows, not in the sums). A later count that differs while the rollup rows did
--   not change is an event written without its rollup: the day is compared again.
-- - unpriced_through: the day's unpriced events with id <= through_event_id. Pricing one later
--   (reprice) changes what the verified sums cover, so a different count sends the day back to
--   the comparison with all its events.
-- - archived_digest: md5 of the day's usage_archived_rollups rows. Archiving drops the day's
--   events and writes these rows instead, changing nothing in contributor_usage_daily: a
--   different digest also sends the day back to the full comparison.
ALTER TABLE "rollup_verified_days"
    ADD COLUMN "through_event_id" BIGINT,
    ADD COLUMN "events_above" BIGINT,
    ADD COLUMN "unpriced_through" BIGINT,
    ADD COLUMN "archived_digest" TEXT;

CREATE TABLE "rollup_verified_sums" (
    "day" DATE NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "events" BIGINT NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "official_atto" DECIMAL(38,0) NOT NULL,
    "earned_atto" DECIMAL(38,0) NOT NULL,
    "charge_atto" DECIMAL(38,0) NOT NULL,
    "margin_atto" DECIMAL(38,0) NOT NULL,
    "cached_tokens" BIGINT NOT NULL,
    "cache_write_tokens" BIGINT NOT NULL,
    "audio_tokens" BIGINT NOT NULL,
    CONSTRAINT "rollup_verified_sums_pkey" PRIMARY KEY ("day", "contributor_id", "model"),
    CONSTRAINT "rollup_verified_sums_day_fkey" FOREIGN KEY ("day") REFERENCES "rollup_verified_days" ("day") ON DELETE CASCADE
);

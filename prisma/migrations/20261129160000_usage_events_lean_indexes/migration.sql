-- Fewer index writes per usage event (the ingestion path is bound by rows and index entries
-- written per event). Earnings read the daily rollup, never usage_events by contributor, and only
-- unpriced events are listed by status, so a partial index over them is enough.
DROP INDEX IF EXISTS "usage_events_contributor_id_occurred_at_idx";
DROP INDEX IF EXISTS "usage_events_status_id_idx";
CREATE INDEX "usage_events_unpriced_id_idx" ON "usage_events"("id") WHERE "status" = 'unpriced';

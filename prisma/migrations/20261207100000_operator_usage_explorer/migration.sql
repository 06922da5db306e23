-- The admin usage explorer (GET /v1/admin/usage-events with filters, newest first; api.md "Usage
-- events"): who spent what, on which key and model, when. Measured plans and timings:
-- docs/usage-explorer.md.
--
-- key_id: the end user's key at the gateway (api.md "Spend controls"), nullable, filled by
-- ingestion where the gateway sends it. IF NOT EXISTS: the budgets branch adds the same column.
ALTER TABLE "usage_events" ADD COLUMN IF NOT EXISTS "key_id" TEXT;

-- One btree per filter, ending in id so that "filter = x ORDER BY id DESC LIMIT n" reads n index
-- entries per partition (a Merge Append across the monthly partitions) instead of scanning the
-- table: a rare user or key is as fast as a busy one. Built per partition from the parent
-- definition; new partitions (usage_events_ensure_partition) get them when attached. These are the
-- only secondary btrees on usage_events besides the unpriced partial index: each costs ingestion one
-- index entry per event (key_id only for events that carry one).
CREATE INDEX IF NOT EXISTS "usage_events_user_id_id_idx" ON "usage_events" ("user_id", "id");
CREATE INDEX IF NOT EXISTS "usage_events_contributor_id_id_idx" ON "usage_events" ("contributor_id", "id");
CREATE INDEX IF NOT EXISTS "usage_events_model_id_idx" ON "usage_events" ("model", "id");
CREATE INDEX IF NOT EXISTS "usage_events_key_id_id_idx" ON "usage_events" ("key_id", "id") WHERE "key_id" IS NOT NULL;

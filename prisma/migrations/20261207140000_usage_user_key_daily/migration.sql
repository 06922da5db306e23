-- A summary by user or key over all traffic read every event of the window (issue 36: 9.8 s for
-- a week at 10M events). usage_user_key_daily holds the priced events' sums per UTC day of
-- occurred_at, user, key and model, maintained by the worker (usage-user-rollup job), never by
-- ingestion: the write path gains nothing (no trigger on INSERT, no new index on usage_events).
--
-- What it covers: every priced event with id <= usage_user_key_rollup_state.through_event_id (a
-- frontier: taken under LOCK TABLE usage_events IN SHARE MODE, so every smaller id is committed,
-- as the ledger check's, docs/history.md), at the state of each day when it was last computed.
-- Ingestion only inserts, above the frontier: a summary adds the events above it (a range of each
-- partition's primary key). Updates and deletes (a reprice, a key_id set later, a delete) log the
-- event's UTC day in usage_user_key_changes (the change-log trigger of usage_event_changes writes
-- both); a summary reads a day with a change row from its events, and the worker recomputes such
-- days from their events and deletes the rows it applied. Archived months (npm run archive:
-- partition detached, a usage_archives row) are read from the events that remain (late events in
-- the default partition). Refunds touch neither events nor this rollup.
CREATE TABLE "usage_user_key_daily" (
    "day" DATE NOT NULL,
    "user_id" TEXT NOT NULL,
    -- '' when the events had no key_id (read back as null).
    "key_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "events" BIGINT NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "official_atto" DECIMAL(38,0) NOT NULL,
    "charge_atto" DECIMAL(38,0) NOT NULL,
    "payout_atto" DECIMAL(38,0) NOT NULL,
    "margin_atto" DECIMAL(38,0) NOT NULL,
    CONSTRAINT "usage_user_key_daily_pkey" PRIMARY KEY ("day", "user_id", "key_id", "model")
);

-- One row: how far the rollup has read usage_events.
CREATE TABLE "usage_user_key_rollup_state" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "through_event_id" BIGINT NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_user_key_rollup_state_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "usage_user_key_rollup_state_one_row" CHECK ("id")
);
INSERT INTO "usage_user_key_rollup_state" (id, through_event_id) VALUES (true, 0);

-- The days whose events were updated or deleted since the worker last recomputed them; its own
-- log, since the ledger check deletes the usage_event_changes rows it has proven.
CREATE TABLE "usage_user_key_changes" (
    "id" BIGSERIAL NOT NULL,
    "day" DATE NOT NULL,
    "xact" BIGINT NOT NULL,
    CONSTRAINT "usage_user_key_changes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "usage_user_key_changes_day_xact_key" ON "usage_user_key_changes" ("day", "xact");

-- The change-log trigger (migration 20261207100000) now writes both logs; INSERT still fires nothing.
CREATE OR REPLACE FUNCTION usage_event_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx BIGINT := pg_current_xact_id()::text::bigint;
  old_day DATE := (OLD.occurred_at AT TIME ZONE 'UTC')::date;
BEGIN
  INSERT INTO usage_event_changes (day, xact) VALUES (old_day, tx) ON CONFLICT (day, xact) DO NOTHING;
  INSERT INTO usage_user_key_changes (day, xact) VALUES (old_day, tx) ON CONFLICT (day, xact) DO NOTHING;
  -- An update that moves an event to another day changes that day too.
  IF TG_OP = 'UPDATE' AND (NEW.occurred_at AT TIME ZONE 'UTC')::date <> old_day THEN
    INSERT INTO usage_event_changes (day, xact)
    VALUES ((NEW.occurred_at AT TIME ZONE 'UTC')::date, tx) ON CONFLICT (day, xact) DO NOTHING;
    INSERT INTO usage_user_key_changes (day, xact)
    VALUES ((NEW.occurred_at AT TIME ZONE 'UTC')::date, tx) ON CONFLICT (day, xact) DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;

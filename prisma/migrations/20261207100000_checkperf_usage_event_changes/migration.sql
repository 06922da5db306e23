-- The checkpointed rollup check (GET /v1/admin/ledger/check) must cost what is new, not what the
-- current day holds (issue 35). Until now each glance counted every unpriced event of the window at
-- or below each day's frontier, to notice one priced later (by the reprice, or behind the writers'
-- back): 500,000 unpriced events today cost ~4 s per check with nothing new. Only an UPDATE or a
-- DELETE can change an event at or below a frontier (ingestion only inserts, above it), so these
-- statements now leave a mark instead, and the check reads the marks written since it last looked.
--
-- usage_event_changes: one row per UTC day and transaction that updated or deleted usage events of
-- that day (its id from a sequence). A row trigger, so that it is cloned to every partition (also
-- those created later) and fires for statements naming a partition; it costs nothing on ingestion
-- (INSERT), one index probe per changed row (ON CONFLICT DO NOTHING after the first) on a reprice.
-- The check keeps, per verified day, the largest change id its proof covers (changes_through, taken
-- under the same SHARE lock as the event frontier, so every smaller id is committed): a day with a
-- change above it is compared with all its events again. Not seen (only by ?full=true): an update
-- moving an event to another month's partition (a delete there, logged, and an insert here, not:
-- inserts are ingestion's and stay free), a TRUNCATE, or anything with triggers disabled.
CREATE TABLE "usage_event_changes" (
    "id" BIGSERIAL NOT NULL,
    "day" DATE NOT NULL,
    "xact" BIGINT NOT NULL,
    CONSTRAINT "usage_event_changes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "usage_event_changes_day_xact_key" ON "usage_event_changes" ("day", "xact");

ALTER TABLE "rollup_verified_days" ADD COLUMN "changes_through" BIGINT;

CREATE FUNCTION usage_event_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_event_changes (day, xact)
  VALUES ((OLD.occurred_at AT TIME ZONE 'UTC')::date, pg_current_xact_id()::text::bigint)
  ON CONFLICT (day, xact) DO NOTHING;
  -- An update that moves an event to another day changes that day too.
  IF TG_OP = 'UPDATE' AND (NEW.occurred_at AT TIME ZONE 'UTC')::date <> (OLD.occurred_at AT TIME ZONE 'UTC')::date THEN
    INSERT INTO usage_event_changes (day, xact)
    VALUES ((NEW.occurred_at AT TIME ZONE 'UTC')::date, pg_current_xact_id()::text::bigint)
    ON CONFLICT (day, xact) DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER usage_events_changed AFTER UPDATE OR DELETE ON "usage_events"
    FOR EACH ROW EXECUTE FUNCTION usage_event_changed();

-- usage_events_ensure_partition, safe under full write load (issue 24 item 1, docs/reliability.md).
--
-- The function of 20261201190000_usage_events_partitioned copied a month's rows out of the default
-- partition, deleted them in a second statement, then attached the new table, under an advisory
-- lock writers never take. Rows committed between the copy and the delete were deleted without a
-- copy (events charged, their key kept, their row gone); a row that arrived after the delete made
-- ATTACH's validation of the default partition fail (23514), so under load the month never got
-- its partition; and a writer that had routed its row before the attach committed got a 23514
-- (500) when it inserted into the default partition afterwards.
--
-- Now, for the short time a partition is made:
-- * `LOCK TABLE usage_events IN EXCLUSIVE MODE`: every writer holds ROW EXCLUSIVE on usage_events
--   (and its partitions) until it commits, and EXCLUSIVE conflicts with it, while readers' ACCESS
--   SHARE goes on. The lock waits for the writes in flight to commit and holds new ones until this
--   transaction commits; a writer that waited then routes with the new partition in place (taking
--   the lock makes it read the committed catalog).
-- * the month's rows move in ONE statement (DELETE ... RETURNING feeding the INSERT): what is
--   deleted is exactly what is copied, whatever else happens;
-- * the new table carries its range as a CHECK while it is attached, so ATTACH does not scan it;
--   its scan of the default partition finds none of the month's rows (moved under the lock).
-- The callers bound the wait (lock_timeout in UsagePartitionsRepository): writers queue behind a
-- waiting lock request too, so each attempt holds them at most that long; a creation that cannot
-- get its locks gives up without having changed anything and is tried again.
--
-- Months that were archived keep no partition (npm run archive dropped it and recorded the month
-- in usage_archives): a late event of such a month stays in the default partition, where it is
-- stored, readable and refundable like any other; re-creating the partition would put rows under a
-- name the archive has already used. The function therefore returns false for an archived month.

CREATE OR REPLACE FUNCTION "usage_events_ensure_partition"("month" timestamptz) RETURNS boolean
    LANGUAGE plpgsql AS $$
DECLARE
    lo timestamptz := date_trunc('month', "month" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    hi timestamptz := (date_trunc('month', "month" AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    part text := 'usage_events_' || to_char("month" AT TIME ZONE 'UTC', 'YYYY_MM');
BEGIN
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN
        RETURN false;
    END IF;
    IF EXISTS (SELECT 1 FROM "usage_archives" WHERE "usage_archives"."month" = (lo AT TIME ZONE 'UTC')::date) THEN
        RETURN false;
    END IF;
    -- The same month never gets two partitions, even from concurrent callers.
    PERFORM pg_advisory_xact_lock(hashtext('usage_events_ensure_partition'));
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN
        RETURN false;
    END IF;
    -- Writers wait from here until this transaction commits (see the header).
    LOCK TABLE "usage_events" IN EXCLUSIVE MODE;
    -- What ATTACH will need on the default partition (readers of it finish first), taken now so
    -- that a wait past lock_timeout gives up before any row has moved.
    LOCK TABLE "usage_events_default" IN ACCESS EXCLUSIVE MODE;
    EXECUTE format('CREATE TABLE %I (LIKE "usage_events" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', part);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK ("occurred_at" >= %L AND "occurred_at" < %L)', part, part || '_range', lo, hi);
    EXECUTE format('WITH moved AS (DELETE FROM "usage_events_default" WHERE "occurred_at" >= $1 AND "occurred_at" < $2 RETURNING *)
                    INSERT INTO %I SELECT * FROM moved', part) USING lo, hi;
    EXECUTE format('ALTER TABLE "usage_events" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    -- The partition constraint now says the same.
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', part, part || '_range');
    RETURN true;
END $$;

-- Months whose rows wait in the default partition (none had a partition when they were written),
-- archived months excepted: the usage-partitions job gives each its partition.
CREATE OR REPLACE FUNCTION "usage_events_default_months"() RETURNS SETOF timestamptz
    LANGUAGE sql STABLE AS $$
    SELECT DISTINCT date_trunc('month', d."occurred_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    FROM "usage_events_default" d
    WHERE NOT EXISTS (SELECT 1 FROM "usage_archives" a WHERE a."month" = (date_trunc('month', d."occurred_at" AT TIME ZONE 'UTC'))::date)
$$;

-- usage_events_ensure_partition, as in 20261202100000, with its re-check after the advisory lock
-- moved after the table lock. Two creators of one month: the second waited on the advisory lock
-- while the first committed, then its re-check (to_regclass) still answered from its catalog
-- cache, which an advisory lock does not refresh, and CREATE TABLE failed with 42P07 "relation
-- ... already exists" (seen once in CI, test/history/partition-race.e2e-spec.ts). Nothing was lost
-- (the failed attempt changed nothing), but a creation must not fail. Taking LOCK TABLE first
-- processes the pending catalog invalidations, so the re-check sees the committed partition.

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
    -- Writers wait from here until this transaction commits (see 20261202100000). Taken before the
    -- re-check: taking a table lock reads the catalog changes committed meanwhile, an advisory lock
    -- does not, so a creation of the same month that committed while this one waited is seen.
    LOCK TABLE "usage_events" IN EXCLUSIVE MODE;
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN
        RETURN false;
    END IF;
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

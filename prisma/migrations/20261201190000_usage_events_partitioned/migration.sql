-- usage_events range-partitioned by UTC month of occurred_at (docs/history.md), with permanent
-- idempotency in a narrow unpartitioned table.
--
-- A unique index on a partitioned table must include the partition key, so event_id can no longer
-- be unique in usage_events itself. usage_event_keys (event_id PRIMARY KEY, request_hash, id,
-- occurred_at) is that unique index, kept forever: the writer inserts the key and the event in one
-- statement (the event row only for keys it actually inserted), a replay finds the key (same
-- hash: the original answer; different hash: 409) whether the event's month is still stored or
-- has been archived, and (id, occurred_at) finds the live row in its partition.
--
-- Conversion of an existing database: no row is lost or re-keyed. The old table is renamed, a
-- partitioned table with every column it has at this point (LIKE ... INCLUDING DEFAULTS
-- CONSTRAINTS, so columns added by earlier migrations come along) takes its name, one partition is
-- created per month that holds rows plus the current month and the next three, the rows are copied
-- with their ids, the id sequence moves to the new table, and the old table is dropped. The copy
-- takes an exclusive lock for its duration (about 10-20 s per million rows on a small machine).

ALTER TABLE "usage_events" RENAME TO "usage_events_unpartitioned";
ALTER INDEX "usage_events_pkey" RENAME TO "usage_events_unpartitioned_pkey";

CREATE TABLE "usage_events" (LIKE "usage_events_unpartitioned" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMMENTS)
    PARTITION BY RANGE ("occurred_at");
ALTER SEQUENCE "usage_events_id_seq" OWNED BY "usage_events"."id";

-- Events outside every monthly partition (a backdated event older than the oldest partition, or
-- beyond the months created ahead) land here; creating that month's partition moves them out.
CREATE TABLE "usage_events_default" PARTITION OF "usage_events" DEFAULT;

-- The partition of the UTC month holding `month` (any timestamp in it): usage_events_YYYY_MM.
-- Creates it if missing (moving that month's rows out of the default partition first) and returns
-- whether it did. Called at migrate time, by the worker's usage-partitions job and by seeders.
CREATE FUNCTION "usage_events_ensure_partition"("month" timestamptz) RETURNS boolean
    LANGUAGE plpgsql AS $$
DECLARE
    lo timestamptz := date_trunc('month', "month" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    hi timestamptz := (date_trunc('month', "month" AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    part text := 'usage_events_' || to_char("month" AT TIME ZONE 'UTC', 'YYYY_MM');
BEGIN
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN
        RETURN false;
    END IF;
    -- The same month never gets two partitions, even from concurrent callers.
    PERFORM pg_advisory_xact_lock(hashtext('usage_events_ensure_partition'));
    IF to_regclass(quote_ident(part)) IS NOT NULL THEN
        RETURN false;
    END IF;
    IF EXISTS (SELECT 1 FROM "usage_events_default" WHERE "occurred_at" >= lo AND "occurred_at" < hi) THEN
        EXECUTE format('CREATE TABLE %I (LIKE "usage_events" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', part);
        EXECUTE format('INSERT INTO %I SELECT * FROM "usage_events_default" WHERE "occurred_at" >= $1 AND "occurred_at" < $2', part) USING lo, hi;
        DELETE FROM "usage_events_default" WHERE "occurred_at" >= lo AND "occurred_at" < hi;
        EXECUTE format('ALTER TABLE "usage_events" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    ELSE
        EXECUTE format('CREATE TABLE %I PARTITION OF "usage_events" FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
    END IF;
    RETURN true;
END $$;

-- Partitions for every month that holds rows, and the current month and the next three.
SELECT "usage_events_ensure_partition"(m)
FROM (SELECT DISTINCT date_trunc('month', "occurred_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS m FROM "usage_events_unpartitioned"
      UNION
      SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => i)) AT TIME ZONE 'UTC' FROM generate_series(0, 3) AS i) AS months
ORDER BY m;

-- Every row, with its id (SELECT *: the column order is the old table's, LIKE kept it).
INSERT INTO "usage_events" SELECT * FROM "usage_events_unpartitioned";

CREATE TABLE "usage_event_keys" (
    "event_id" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    -- usage_events.id and occurred_at: the live row's key in its partition.
    "id" BIGINT NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    CONSTRAINT "usage_event_keys_pkey" PRIMARY KEY ("event_id")
);
INSERT INTO "usage_event_keys" ("event_id", "request_hash", "id", "occurred_at")
SELECT "event_id", "request_hash", "id", "occurred_at" FROM "usage_events_unpartitioned" ORDER BY "event_id";

DROP TABLE "usage_events_unpartitioned";

-- Built after the copy (faster than maintaining them row by row). The primary key must hold the
-- partition key; the partial index lists unpriced events (repricing, the console).
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_pkey" PRIMARY KEY ("id", "occurred_at");
CREATE INDEX "usage_events_unpriced_id_idx" ON "usage_events" ("id") WHERE "status" = 'unpriced';

ANALYZE "usage_events";
ANALYZE "usage_event_keys";

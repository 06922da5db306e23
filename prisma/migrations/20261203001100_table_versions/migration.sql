-- A version row per hot-path snapshot table (prices, contributor_tiers). Every usage group commit
-- asks whether the price catalog or the tier history changed (VersionedSnapshot.getFresh), and the
-- answer was `count(*), max(id)` of each table: a scan of every row, which grows with each price
-- version ever stored (409 prices + 100 tiers in the bench: 11 shared buffers and ~0.1-0.25 ms of
-- Postgres per group). Now a statement-level trigger writes a new value from a sequence into the
-- table's row in the same transaction as the change, so the fingerprint is one row of a one-page
-- table (2 buffers for both, ~0.03 ms), and exact:
--   * the row changes in the transaction that changes the table, so a snapshot sees a new value
--     exactly when it sees the change (same commit); a rolled-back change leaves the row as it was;
--   * two writers of one table queue on the row's lock, so the value a reader sees belongs to the
--     last commit, and values never repeat (one sequence, never reset: TRUNCATE ... RESTART
--     IDENTITY of these tables does not own it);
--   * every INSERT, UPDATE or DELETE that changed rows, and every TRUNCATE, fires it (an UPDATE to
--     the same values is a spurious reload, never a stale one); replicas replay the row with the
--     table.
-- If the row is missing (a hand-cleared table_versions), readers fall back to count:max
-- (src/database/table-fingerprints.ts, tableFingerprintSql), so the fingerprint stays exact.
CREATE SEQUENCE "table_version_seq";

CREATE TABLE "table_versions" (
    "name" TEXT NOT NULL,
    "version" BIGINT NOT NULL,
    CONSTRAINT "table_versions_pkey" PRIMARY KEY ("name")
);

-- Only statements that changed rows bump it (the transition table of the statement is not empty;
-- TRUNCATE always): a replayed request whose INSERT ... ON CONFLICT DO NOTHING wrote nothing leaves
-- the version, and with it the state, as it was. A trigger with transition tables takes one event,
-- hence one trigger per event.
CREATE FUNCTION "table_versions_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'TRUNCATE' THEN
    IF NOT EXISTS (SELECT 1 FROM "changed_rows") THEN
      RETURN NULL;
    END IF;
  END IF;
  INSERT INTO "table_versions" ("name", "version") VALUES (TG_TABLE_NAME, nextval('table_version_seq'))
  ON CONFLICT ("name") DO UPDATE SET "version" = excluded."version";
  RETURN NULL;
END
$$;

-- Four triggers per table (INSERT, UPDATE, DELETE with their transition table; TRUNCATE without):
-- "<table>_version_<event>".
DO $$
DECLARE
  t TEXT;
BEGIN
  FOREACH t IN ARRAY ARRAY['prices', 'contributor_tiers'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS "changed_rows" FOR EACH STATEMENT EXECUTE FUNCTION "table_versions_bump"()', t || '_version_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS "changed_rows" FOR EACH STATEMENT EXECUTE FUNCTION "table_versions_bump"()', t || '_version_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS "changed_rows" FOR EACH STATEMENT EXECUTE FUNCTION "table_versions_bump"()', t || '_version_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION "table_versions_bump"()', t || '_version_truncate', t);
  END LOOP;
END
$$;

INSERT INTO "table_versions" ("name", "version") VALUES ('prices', nextval('table_version_seq')), ('contributor_tiers', nextval('table_version_seq'));

-- Platform accounts exist from the start. They are untracked: no stored balance is updated on
-- the ingestion path (no hot row); their balance is the sum of their postings.
INSERT INTO "accounts" ("code", "kind", "owner_id", "tracked") VALUES
    ('platform:revenue', 'platform', NULL, false),
    ('platform:adjustments', 'platform', NULL, false),
    ('external:funding', 'external', NULL, false)
ON CONFLICT ("code") DO NOTHING;

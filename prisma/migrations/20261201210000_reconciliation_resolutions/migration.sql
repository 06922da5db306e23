-- An operator's resolution of a failed reconciliation (POST /v1/admin/settlements/:id/reconciliation/resolve).
-- The stored reconciliation is never changed (history is not rewritten): a resolution names the
-- failure it accepts by a fingerprint of its findings (the reconciliation without `checked_at`,
-- md5 of its canonical jsonb text), so the same findings found again stay resolved and any new
-- difference fails the ledger check again. Append-only, like the journal.
CREATE TABLE "reconciliation_resolutions" (
    "id" BIGSERIAL NOT NULL,
    "settlement_id" UUID NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "reconciliation" JSONB NOT NULL,
    "reason" TEXT NOT NULL,
    "resolved_by" TEXT,
    "resolved_by_role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "reconciliation_resolutions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "reconciliation_resolutions_settlement_fkey" FOREIGN KEY ("settlement_id") REFERENCES "settlements"("id"),
    CONSTRAINT "reconciliation_resolutions_reason" CHECK (length(btrim("reason")) > 0),
    CONSTRAINT "reconciliation_resolutions_failed" CHECK ("reconciliation"->>'ok' = 'false')
);
CREATE UNIQUE INDEX "reconciliation_resolutions_settlement_fingerprint_key" ON "reconciliation_resolutions"("settlement_id", "fingerprint");

-- One function for any append-only table (it names the table it refuses a change to).
CREATE FUNCTION "refuse_append_only_change"() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER "reconciliation_resolutions_append_only" BEFORE UPDATE OR DELETE ON "reconciliation_resolutions"
    FOR EACH ROW EXECUTE FUNCTION "refuse_append_only_change"();
CREATE TRIGGER "reconciliation_resolutions_no_truncate" BEFORE TRUNCATE ON "reconciliation_resolutions"
    FOR EACH STATEMENT EXECUTE FUNCTION "refuse_append_only_change"();

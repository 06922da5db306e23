-- Refunds of priced usage events (api.md "Refunds and clawbacks"). One row per refund part; the
-- ledger side is one journal entry (kind 'refund', ref = 'refund:' || refund_id) that credits
-- the user, claws back the contributor's share and reverses the margin. Rows are never edited.
-- clawback_total_atto = floor(refunded_total_atto x payout / charge) after this part, so the
-- parts of a full refund claw back exactly the payout.
CREATE TABLE "refunds" (
    "refund_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "requested_amount_atto" DECIMAL(38,0),
    "amount_atto" DECIMAL(38,0) NOT NULL,
    "clawback_atto" DECIMAL(38,0) NOT NULL,
    "clawback_pending_atto" DECIMAL(38,0) NOT NULL DEFAULT 0,
    "margin_reversed_atto" DECIMAL(38,0) NOT NULL,
    "refunded_total_atto" DECIMAL(38,0) NOT NULL,
    "clawback_total_atto" DECIMAL(38,0) NOT NULL,
    "reason" TEXT NOT NULL,
    "journal_entry_id" BIGINT NOT NULL,
    "actor_id" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "id" BIGSERIAL NOT NULL,
    CONSTRAINT "refunds_pkey" PRIMARY KEY ("refund_id"),
    CONSTRAINT "refunds_id_key" UNIQUE ("id"),
    CONSTRAINT "refunds_amount_positive" CHECK ("amount_atto" > 0),
    CONSTRAINT "refunds_split_exact" CHECK ("amount_atto" = "clawback_atto" + "margin_reversed_atto"),
    CONSTRAINT "refunds_clawback_non_negative" CHECK ("clawback_atto" >= 0 AND "margin_reversed_atto" >= 0
        AND "clawback_pending_atto" >= 0 AND "clawback_pending_atto" <= "clawback_atto"),
    CONSTRAINT "refunds_reason_present" CHECK (length("reason") > 0)
);
CREATE INDEX "refunds_event_id_idx" ON "refunds"("event_id", "id");
CREATE INDEX "refunds_contributor_id_idx" ON "refunds"("contributor_id", "id");
CREATE INDEX "refunds_user_id_idx" ON "refunds"("user_id", "id");
CREATE FUNCTION "refunds_append_only"() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'refunds is append-only (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER "refunds_no_update_delete" BEFORE UPDATE OR DELETE ON "refunds"
    FOR EACH ROW EXECUTE FUNCTION "refunds_append_only"();

-- Refunds per contributor, UTC day of the refund (not of the event: history is never rewritten)
-- and model, written in the refund's transaction; earnings and CSV read it beside the usage rollup.
CREATE TABLE "contributor_refunds_daily" (
    "contributor_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "model" TEXT NOT NULL,
    "refunds" BIGINT NOT NULL,
    "refunded_atto" DECIMAL(38,0) NOT NULL,
    "clawed_back_atto" DECIMAL(38,0) NOT NULL,
    "margin_reversed_atto" DECIMAL(38,0) NOT NULL,
    CONSTRAINT "contributor_refunds_daily_pkey" PRIMARY KEY ("contributor_id", "day", "model")
);

-- Admin adjustments of a contributor's payable balance (corrections, bonuses, clawbacks).
-- The reference is the idempotency key: a replay with the same payload returns the stored result,
-- a different payload is a 409. The ledger side is the journal entry (kind 'adjustment', ref = reference).
CREATE TABLE "contributor_adjustments" (
    "reference" TEXT NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "amount_atto" DECIMAL(38,0) NOT NULL,
    "reason" TEXT NOT NULL,
    "payable_after_atto" DECIMAL(38,0) NOT NULL,
    "actor_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "contributor_adjustments_pkey" PRIMARY KEY ("reference"),
    CONSTRAINT "contributor_adjustments_amount_non_zero" CHECK ("amount_atto" <> 0),
    CONSTRAINT "contributor_adjustments_reason_present" CHECK (length("reason") > 0)
);
CREATE INDEX "contributor_adjustments_contributor_id_created_at_idx"
    ON "contributor_adjustments"("contributor_id", "created_at");

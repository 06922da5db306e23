-- Contributor trust (api.md "Contributor trust"): proof of payout-address ownership, the cool-down
-- after an address change, and the usage audit of reported completion tokens. Additive only.

-- When the current payout address was proven by a signature (null: unproven); when it last
-- *changed* (null: never changed since it was first set, so no cool-down applies).
ALTER TABLE "contributors" ADD COLUMN "payout_address_proven_at" TIMESTAMPTZ(6);
ALTER TABLE "contributors" ADD COLUMN "payout_address_changed_at" TIMESTAMPTZ(6);
-- The usage audit's hold: set while a flag is open and not reviewed (USAGE_AUDIT_HOLD), cleared by a review.
ALTER TABLE "contributors" ADD COLUMN "under_review_since" TIMESTAMPTZ(6);

-- Single-use challenges of GET /v1/contributors/:id/payout-address/challenge. A nonce is used up
-- (used_at) by the proof that names it, in the proof's transaction; expired rows are pruned.
CREATE TABLE "payout_address_challenges" (
    "nonce" TEXT NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "chain_id" INTEGER NOT NULL,
    "message" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "used_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "payout_address_challenges_pkey" PRIMARY KEY ("nonce"),
    CONSTRAINT "payout_address_challenges_contributor_fkey" FOREIGN KEY ("contributor_id") REFERENCES "contributors"("id")
);
CREATE INDEX "payout_address_challenges_expires_at_idx" ON "payout_address_challenges"("expires_at");

-- One row per audited stream: provider-reported vs counted completion tokens. No content is kept.
CREATE TABLE "usage_audit_samples" (
    "event_id" TEXT NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "reported_tokens" INTEGER NOT NULL,
    "counted_tokens" INTEGER NOT NULL,
    "counter" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "audited_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_audit_samples_pkey" PRIMARY KEY ("event_id"),
    CONSTRAINT "usage_audit_samples_tokens" CHECK ("reported_tokens" >= 0 AND "counted_tokens" > 0)
);
CREATE INDEX "usage_audit_samples_model_contributor_idx" ON "usage_audit_samples"("model", "contributor_id", "audited_at");

-- The audit's verdict per contributor and model, rewritten by each audit run.
CREATE TABLE "usage_audit_stats" (
    "contributor_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "events" INTEGER NOT NULL,
    "median_ratio" NUMERIC(20,6) NOT NULL,
    "model_median_ratio" NUMERIC(20,6),
    "flagged" BOOLEAN NOT NULL DEFAULT false,
    "flagged_since" TIMESTAMPTZ(6),
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_audit_stats_pkey" PRIMARY KEY ("contributor_id", "model")
);

-- Reviews of flagged contributors (POST /v1/admin/contributors/:id/review). A "clear" covers the
-- audited events before it: only later ones count (and may flag again). Append-only.
CREATE TABLE "usage_audit_reviews" (
    "id" BIGSERIAL NOT NULL,
    "contributor_id" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "reviewed_by" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_audit_reviews_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "usage_audit_reviews_decision" CHECK ("decision" IN ('clear', 'suspend')),
    CONSTRAINT "usage_audit_reviews_reason" CHECK (length(btrim("reason")) > 0)
);
CREATE INDEX "usage_audit_reviews_contributor_idx" ON "usage_audit_reviews"("contributor_id", "created_at");

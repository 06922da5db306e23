-- When the refunded event occurred: with PAYOUT_MATURITY_DAYS, a refund of an event whose day has
-- not matured yet takes its clawback out of the pending account first (clawback_pending_atto), and
-- the maturity job subtracts those clawbacks from what is still maturing.
ALTER TABLE "refunds" ADD COLUMN "event_occurred_at" TIMESTAMPTZ(6);
CREATE INDEX "refunds_contributor_event_occurred_idx" ON "refunds"("contributor_id", "event_occurred_at") WHERE "clawback_pending_atto" > 0;

-- Payout sender states (src/modules/settlement/settlement.types.ts). A settlement_txs row is
-- written (signed bytes, nonce, hash) BEFORE broadcast; these constraints keep the states honest.

-- signed: persisted, maybe broadcast; broadcast: accepted by the node; confirmed: mined and paid;
-- reverted: mined, paid nobody; dropped: never mined and its nonce was taken by another
-- transaction; replaced: another attempt of the same batch (same nonce, higher fees) was mined.
ALTER TABLE "settlement_txs" ADD CONSTRAINT "settlement_txs_status_check"
    CHECK ("status" IN ('signed', 'broadcast', 'confirmed', 'reverted', 'dropped', 'replaced'));

-- Attempts of one batch (fee bumps, re-signs after a proven drop) are numbered once each.
CREATE UNIQUE INDEX "settlement_txs_batch_id_attempt_key" ON "settlement_txs"("batch_id", "attempt");

-- A queued line is in no transaction; a submitted or paid line is in exactly one.
ALTER TABLE "settlement_lines" ADD CONSTRAINT "settlement_lines_tx_check"
    CHECK (("status" <> 'queued' OR "tx_id" IS NULL) AND ("status" NOT IN ('submitted', 'paid') OR "tx_id" IS NOT NULL));
CREATE INDEX "settlement_lines_tx_id_idx" ON "settlement_lines"("tx_id");

-- Settlements listed newest first with a (created_at, id) cursor.
CREATE INDEX "settlements_created_at_id_idx" ON "settlements"("created_at" DESC, "id" DESC);

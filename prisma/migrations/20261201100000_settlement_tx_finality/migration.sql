-- Finality of mined payout transactions (src/modules/settlement/payout-finality.service.ts).
-- A mined row (confirmed or reverted) is booked after SETTLEMENT_CONFIRMATIONS blocks but stays
-- watched until its block is SETTLEMENT_FINALITY_BLOCKS deep: a reorganisation can still remove it
-- or move it to another block until then.

-- The block the booked receipt came from: a different hash later means the chain reorganised.
ALTER TABLE "settlement_txs" ADD COLUMN "block_hash" TEXT;
-- Set once the block is deep enough; rows without it are re-verified.
ALTER TABLE "settlement_txs" ADD COLUMN "final_at" TIMESTAMPTZ(6);
-- Times a reorganisation removed this transaction from its block or moved it.
ALTER TABLE "settlement_txs" ADD COLUMN "reorg_count" INTEGER NOT NULL DEFAULT 0;
-- After a reorganisation the chain paid more than the ledger booked (nothing the sender may undo
-- on its own): the ledger check fails until an operator looks.
ALTER TABLE "settlement_txs" ADD COLUMN "reorg_conflict" TEXT;

-- Rows mined before this migration have no block hash to compare with: they are taken as final.
UPDATE "settlement_txs" SET "final_at" = "updated_at" WHERE "status" IN ('confirmed', 'reverted');

CREATE INDEX "settlement_txs_unfinal_idx" ON "settlement_txs"("nonce")
    WHERE "status" IN ('confirmed', 'reverted') AND "final_at" IS NULL;

import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../../database/database.service.js';
import { toBigInt } from '../../../database/sql.js';
import { toTx, type TxRow } from './payout-tx-rows.js';
import type { PayoutTxRecord, PayoutTxStatus } from './payout.types.js';

const TX_COLUMNS = `id, settlement_id, batch_id, attempt, from_address, nonce, signed_raw, tx_hash, max_fee_per_gas_wei,
  max_priority_fee_per_gas_wei, gas_limit, status, gas_used, block_number, block_hash, final_at, reorg_count, reorg_conflict,
  line_count, error, created_at`;
const LIVE = `('signed', 'broadcast')`;
/** Mined and booked, but a reorganisation may still undo it: watched until final. */
const UNFINAL = `status IN ('confirmed', 'reverted') AND final_at IS NULL`;

export interface NewPayoutTx {
  id: string;
  settlementId: string;
  batchId: string;
  attempt: number;
  fromAddress: string;
  nonce: number;
  signedRaw: string;
  txHash: string;
  maxFeePerGasWei: bigint;
  maxPriorityFeePerGasWei: bigint;
  gasLimit: bigint;
  lineCount: number;
}

/** Signed payout transactions: the row exists before the bytes are broadcast. */
@Injectable()
export class PayoutTxRepository {
  constructor(private readonly db: DatabaseService) {}

  async insertSigned(client: SqlClient, tx: NewPayoutTx): Promise<void> {
    await client.query(
      `INSERT INTO settlement_txs (id, settlement_id, batch_id, attempt, from_address, nonce, signed_raw, tx_hash,
         max_fee_per_gas_wei, max_priority_fee_per_gas_wei, gas_limit, status, line_count)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'signed', $12)`,
      [tx.id, tx.settlementId, tx.batchId, tx.attempt, tx.fromAddress, tx.nonce, tx.signedRaw, tx.txHash,
        tx.maxFeePerGasWei.toString(), tx.maxPriorityFeePerGasWei.toString(), tx.gasLimit.toString(), tx.lineCount],
    );
  }

  async markBroadcast(id: string): Promise<void> {
    await this.db.pool.query(`UPDATE settlement_txs SET status = 'broadcast', updated_at = now() WHERE id = $1 AND status = 'signed'`, [id]);
  }

  /** Live transactions of one wallet (optionally one settlement), oldest nonce first. */
  async listLive(fromAddress: string, settlementId?: string): Promise<PayoutTxRecord[]> {
    const result = await this.db.pool.query<TxRow>(
      `SELECT ${TX_COLUMNS} FROM settlement_txs WHERE lower(from_address) = lower($1) AND status IN ${LIVE}
         AND ($2::uuid IS NULL OR settlement_id = $2)
       ORDER BY nonce, attempt`,
      [fromAddress, settlementId ?? null],
    );
    return result.rows.map(toTx);
  }

  async listBySettlement(settlementId: string): Promise<PayoutTxRecord[]> {
    const result = await this.db.pool.query<TxRow>(`SELECT ${TX_COLUMNS} FROM settlement_txs WHERE settlement_id = $1 ORDER BY nonce, attempt`, [settlementId]);
    return result.rows.map(toTx);
  }

  async nextAttempt(batchId: string): Promise<number> {
    const result = await this.db.pool.query<{ n: number }>(`SELECT coalesce(max(attempt), 0)::int + 1 AS n FROM settlement_txs WHERE batch_id = $1`, [batchId]);
    return result.rows[0]!.n;
  }

  /**
   * Highest nonce a transaction of ours may still take: live ones, and mined ones not final yet (a
   * reorganisation frees their nonce on chain, but only their own bytes may take it again).
   */
  async maxNonceInUse(fromAddress: string): Promise<number | null> {
    const result = await this.db.pool.query<{ n: number | null }>(
      `SELECT max(nonce) AS n FROM settlement_txs WHERE lower(from_address) = lower($1) AND (status IN ${LIVE} OR (${UNFINAL}))`,
      [fromAddress],
    );
    return result.rows[0]?.n ?? null;
  }

  /**
   * Every attempt (mined, or replaced by the mined one) of the wallet's nonces that hold a mined,
   * not yet final transaction; the oldest `noncesMax` nonces, attempts in order.
   */
  async listUnfinalAttempts(fromAddress: string, noncesMax: number): Promise<PayoutTxRecord[]> {
    const result = await this.db.pool.query<TxRow>(
      `SELECT ${TX_COLUMNS} FROM settlement_txs
       WHERE lower(from_address) = lower($1) AND status IN ('confirmed', 'reverted', 'replaced')
         AND nonce IN (SELECT nonce FROM settlement_txs WHERE lower(from_address) = lower($1) AND ${UNFINAL} ORDER BY nonce LIMIT $2)
       ORDER BY nonce, attempt`,
      [fromAddress, noncesMax],
    );
    return result.rows.map(toTx);
  }

  /** Transactions a reorganisation made pay more than the ledger booked (see PayoutFinalityService). */
  async countReorgConflicts(fromAddress: string): Promise<number> {
    const result = await this.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM settlement_txs WHERE lower(from_address) = lower($1) AND reorg_conflict IS NOT NULL`,
      [fromAddress],
    );
    return result.rows[0]!.n;
  }

  async markFinal(id: string): Promise<void> {
    await this.db.pool.query(`UPDATE settlement_txs SET final_at = now(), updated_at = now() WHERE id = $1 AND ${UNFINAL}`, [id]);
  }

  /** Reorganised out: no block until it is mined again. 0 rows means it was already known. */
  async markReorgedOut(id: string, note: string): Promise<number> {
    const result = await this.db.pool.query(
      `UPDATE settlement_txs SET block_number = NULL, block_hash = NULL, reorg_count = reorg_count + 1, error = $2, updated_at = now()
       WHERE id = $1 AND ${UNFINAL} AND block_hash IS NOT NULL`,
      [id, note],
    );
    return result.rowCount ?? 0;
  }

  /**
   * The mined attempt of a nonce after a reorganisation: `toId` becomes the booked row (in its new
   * block, with the outcome the chain gives now) and `fromId`, when another attempt, is replaced.
   */
  async rebook(client: SqlClient, input: { fromId: string; toId: string; status: 'confirmed' | 'reverted'; gasUsed: bigint; blockNumber: bigint; blockHash: string; reorgCountDelta: number; reorgConflict: string | null }): Promise<number> {
    if (input.fromId !== input.toId) {
      const replaced = await client.query(
        `UPDATE settlement_txs SET status = 'replaced', final_at = NULL, updated_at = now(), error = 'another attempt was mined after a reorganisation'
         WHERE id = $1 AND ${UNFINAL}`,
        [input.fromId],
      );
      if (replaced.rowCount === 0) return 0;
    }
    const result = await client.query(
      `UPDATE settlement_txs SET status = $2, gas_used = $3, block_number = $4, block_hash = $5, reorg_count = reorg_count + $6,
         reorg_conflict = coalesce($7, reorg_conflict), error = CASE WHEN $2 = 'reverted' THEN 'transaction reverted' END, updated_at = now()
       WHERE id = $1 AND status IN ('confirmed', 'reverted', 'replaced') AND final_at IS NULL`,
      [input.toId, input.status, input.gasUsed.toString(), input.blockNumber.toString(), input.blockHash, input.reorgCountDelta, input.reorgConflict],
    );
    return result.rowCount ?? 0;
  }

  /** Reorganised out and its nonce taken by another transaction: it will never be mined. */
  async markLost(client: SqlClient, id: string): Promise<number> {
    const result = await client.query(
      `UPDATE settlement_txs SET status = 'dropped', block_number = NULL, block_hash = NULL, reorg_count = reorg_count + 1, updated_at = now(),
         error = 'reorganised out and its nonce was used by another transaction'
       WHERE id = $1 AND ${UNFINAL}`,
      [id],
    );
    return result.rowCount ?? 0;
  }

  async countWithStatus(settlementId: string, status: PayoutTxStatus): Promise<number> {
    const result = await this.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM settlement_txs WHERE settlement_id = $1 AND status = $2`, [settlementId, status]);
    return result.rows[0]!.n;
  }

  /** live -> confirmed; 0 rows means another run already settled it. `final`: already deep enough. */
  async markMined(client: SqlClient, id: string, input: { status: 'confirmed' | 'reverted'; gasUsed: bigint; blockNumber: bigint; blockHash: string; final: boolean; error?: string }): Promise<number> {
    const result = await client.query(
      `UPDATE settlement_txs SET status = $2, gas_used = $3, block_number = $4, block_hash = $5, final_at = CASE WHEN $6 THEN now() END,
         error = $7, updated_at = now()
       WHERE id = $1 AND status IN ${LIVE}`,
      [id, input.status, input.gasUsed.toString(), input.blockNumber.toString(), input.blockHash, input.final, input.error ?? null],
    );
    return result.rowCount ?? 0;
  }

  async markDead(client: SqlClient, ids: string[], status: 'dropped' | 'replaced', error: string): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await client.query(
      `UPDATE settlement_txs SET status = $2, error = $3, updated_at = now() WHERE id = ANY($1::uuid[]) AND status IN ${LIVE}`,
      [ids, status, error],
    );
    return result.rowCount ?? 0;
  }

  /**
   * The settlement's booked (confirmed) payouts, for reconciliation: their hashes, the blocks they
   * are booked in, and `outOfBlock`, those reorganised out and sent again, not yet seen in a block.
   */
  async minedBlocks(settlementId: string): Promise<{ txHashes: string[]; fromBlock: bigint | null; toBlock: bigint | null; outOfBlock: number; bookedBlockHashes: Map<string, string> }> {
    const result = await this.db.pool.query<{ tx_hash: string; block_number: string | null; block_hash: string | null }>(
      `SELECT tx_hash, block_number, block_hash FROM settlement_txs WHERE settlement_id = $1 AND status = 'confirmed'`,
      [settlementId],
    );
    const blocks = result.rows.filter((r) => r.block_number !== null).map((r) => toBigInt(r.block_number!));
    return {
      txHashes: result.rows.map((r) => r.tx_hash),
      fromBlock: blocks.length === 0 ? null : blocks.reduce((a, b) => (b < a ? b : a)),
      toBlock: blocks.length === 0 ? null : blocks.reduce((a, b) => (b > a ? b : a)),
      outOfBlock: result.rows.filter((r) => r.block_number === null).length,
      bookedBlockHashes: new Map(result.rows.filter((r) => r.block_hash !== null).map((r) => [r.tx_hash, r.block_hash!])),
    };
  }
}

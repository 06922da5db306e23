import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service.js';
import { toBigInt } from '../../../database/sql.js';

export interface SettlementCheckTotals {
  paidLinesMicroUsdc: bigint;
  openLinesMicroUsdc: bigint;
  reconciliationFailures: number;
  unreconciled: number;
  /** Transactions a reorganisation made pay more than was booked (see payout-finality.service.ts). */
  reorgConflicts: number;
  /** Mined payout transactions still watched for reorganisations. */
  unfinalTxs: number;
}

/**
 * Read-only totals of lines, settlements and payout transactions for the ledger check (the ledger
 * side, journal and balances, comes from LedgerService).
 */
@Injectable()
export class SettlementCheckRepository {
  constructor(private readonly db: DatabaseService) {}

  async totals(): Promise<SettlementCheckTotals> {
    const result = await this.db.pool.query<{
      paid_lines: string; open_lines: string; failures: number; unreconciled: number; reorg_conflicts: number; unfinal_txs: number;
    }>(
      `SELECT
         (SELECT coalesce(sum(amount_micro_usdc), 0) FROM settlement_lines WHERE status = 'paid') AS paid_lines,
         (SELECT coalesce(sum(amount_micro_usdc), 0) FROM settlement_lines WHERE status IN ('queued', 'submitted')) AS open_lines,
         (SELECT count(*)::int FROM settlements WHERE reconciliation->>'ok' = 'false') AS failures,
         (SELECT count(*)::int FROM settlements s WHERE s.reconciliation IS NULL AND s.status IN ('confirmed', 'partially_failed')) AS unreconciled,
         (SELECT count(*)::int FROM settlement_txs WHERE reorg_conflict IS NOT NULL) AS reorg_conflicts,
         (SELECT count(*)::int FROM settlement_txs WHERE status IN ('confirmed', 'reverted') AND final_at IS NULL) AS unfinal_txs`,
    );
    const row = result.rows[0]!;
    return {
      paidLinesMicroUsdc: toBigInt(row.paid_lines),
      openLinesMicroUsdc: toBigInt(row.open_lines),
      reconciliationFailures: row.failures,
      unreconciled: row.unreconciled,
      reorgConflicts: row.reorg_conflicts,
      unfinalTxs: row.unfinal_txs,
    };
  }
}

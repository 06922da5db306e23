import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service.js';
import { toBigInt } from '../../../database/sql.js';
import { JOURNAL_SETTLEMENT_PAID, JOURNAL_SETTLEMENT_REORGED } from '../statement/settlement.types.js';

export interface SettlementCheckTotals {
  paidLinesMicroUsdc: bigint;
  paidJournalAtto: bigint;
  openLinesMicroUsdc: bigint;
  inSettlementBalanceAtto: bigint;
  reconciliationFailures: number;
  unreconciled: number;
  /** Transactions a reorganisation made pay more than was booked (see payout-finality.service.ts). */
  reorgConflicts: number;
  /** Mined payout transactions still watched for reorganisations. */
  unfinalTxs: number;
}

/**
 * Read-only totals for the ledger check. Reads journal postings and account balances directly
 * (one aggregate query each; the ledger service exposes per-account sums only).
 */
@Injectable()
export class SettlementCheckRepository {
  constructor(private readonly db: DatabaseService) {}

  async totals(): Promise<SettlementCheckTotals> {
    const result = await this.db.pool.query<{
      paid_lines: string; paid_journal: string; open_lines: string; in_settlement: string; failures: number; unreconciled: number;
      reorg_conflicts: number; unfinal_txs: number;
    }>(
      // Paid journal: what settlement_paid moved into paid accounts minus what settlement_reorged moved out.
      `SELECT
         (SELECT coalesce(sum(amount_micro_usdc), 0) FROM settlement_lines WHERE status = 'paid') AS paid_lines,
         (SELECT coalesce(sum(amount_atto), 0) FROM ledger_postings WHERE (kind = $1 AND amount_atto > 0) OR (kind = $2 AND amount_atto < 0)) AS paid_journal,
         (SELECT coalesce(sum(amount_micro_usdc), 0) FROM settlement_lines WHERE status IN ('queued', 'submitted')) AS open_lines,
         (SELECT coalesce(sum(balance_atto), 0) FROM accounts WHERE kind = 'contributor_in_settlement') AS in_settlement,
         (SELECT count(*)::int FROM settlements WHERE reconciliation->>'ok' = 'false') AS failures,
         (SELECT count(*)::int FROM settlements s WHERE s.reconciliation IS NULL AND s.status IN ('confirmed', 'partially_failed')) AS unreconciled,
         (SELECT count(*)::int FROM settlement_txs WHERE reorg_conflict IS NOT NULL) AS reorg_conflicts,
         (SELECT count(*)::int FROM settlement_txs WHERE status IN ('confirmed', 'reverted') AND final_at IS NULL) AS unfinal_txs`,
      [JOURNAL_SETTLEMENT_PAID, JOURNAL_SETTLEMENT_REORGED],
    );
    const row = result.rows[0]!;
    return {
      paidLinesMicroUsdc: toBigInt(row.paid_lines),
      paidJournalAtto: toBigInt(row.paid_journal),
      openLinesMicroUsdc: toBigInt(row.open_lines),
      inSettlementBalanceAtto: toBigInt(row.in_settlement),
      reconciliationFailures: row.failures,
      unreconciled: row.unreconciled,
      reorgConflicts: row.reorg_conflicts,
      unfinalTxs: row.unfinal_txs,
    };
  }
}

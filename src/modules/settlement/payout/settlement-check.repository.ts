import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlRunner } from '../../../database/database.service.js';
import { toBigInt } from '../../../database/sql.js';
import { RECONCILIATION_FINGERPRINT_SQL } from './reconciliation-resolution.repository.js';

export interface SettlementCheckTotals {
  paidLinesMicroUsdc: bigint;
  openLinesMicroUsdc: bigint;
  /** Failed reconciliations no operator resolution covers. */
  reconciliationFailures: number;
  /** Failed reconciliations an operator resolved (audited; the findings are kept as they were). */
  reconciliationFailuresResolved: number;
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

  async totals(runner: SqlRunner = this.db.pool): Promise<SettlementCheckTotals> {
    const result = await runner.query<{
      paid_lines: string; open_lines: string; failures: number; resolved: number; unreconciled: number; reorg_conflicts: number; unfinal_txs: number;
    }>(
      `WITH failed AS (
         SELECT EXISTS (
           SELECT 1 FROM reconciliation_resolutions r
           WHERE r.settlement_id = s.id AND r.fingerprint = ${RECONCILIATION_FINGERPRINT_SQL('s.reconciliation')}
         ) AS resolved
         FROM settlements s WHERE s.reconciliation->>'ok' = 'false'
       )
       SELECT
         (SELECT coalesce(sum(amount_micro_usdc), 0) FROM settlement_lines WHERE status = 'paid') AS paid_lines,
         (SELECT coalesce(sum(amount_micro_usdc), 0) FROM settlement_lines WHERE status IN ('queued', 'submitted')) AS open_lines,
         (SELECT count(*) FILTER (WHERE NOT resolved)::int FROM failed) AS failures,
         (SELECT count(*) FILTER (WHERE resolved)::int FROM failed) AS resolved,
         (SELECT count(*)::int FROM settlements s WHERE s.reconciliation IS NULL AND s.status IN ('confirmed', 'partially_failed')) AS unreconciled,
         (SELECT count(*)::int FROM settlement_txs WHERE reorg_conflict IS NOT NULL) AS reorg_conflicts,
         (SELECT count(*)::int FROM settlement_txs WHERE status IN ('confirmed', 'reverted') AND final_at IS NULL) AS unfinal_txs`,
    );
    const row = result.rows[0]!;
    return {
      paidLinesMicroUsdc: toBigInt(row.paid_lines),
      openLinesMicroUsdc: toBigInt(row.open_lines),
      reconciliationFailures: row.failures,
      reconciliationFailuresResolved: row.resolved,
      unreconciled: row.unreconciled,
      reorgConflicts: row.reorg_conflicts,
      unfinalTxs: row.unfinal_txs,
    };
  }
}

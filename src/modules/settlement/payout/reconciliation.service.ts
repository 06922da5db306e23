import { Inject, Injectable } from '@nestjs/common';
import type { Hex } from 'viem';
import { DomainError, notFound } from '../../../common/errors/index.js';
import { formatAttoAsUsd, formatMicroUsdc, microUsdcToAtto } from '../../../common/money/index.js';
import { DatabaseService } from '../../../database/database.service.js';
import { AuditService } from '../../audit/audit.service.js';
import { LedgerService } from '../../ledger/ledger.service.js';
import type { Principal } from '../../../common/auth/auth.types.js';
import { TRANSFER_LOG_BLOCK_RANGE_MAX, type PayoutChainClient } from '../../chain/payout-chain.client.js';
import type { TransferLog } from '../../chain/payout-chain.types.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../../chain/payout-chain.provider.js';
import { PayoutTxRepository } from './payout-tx.repository.js';
import { ReconciliationResolutionRepository, type ReconciliationResolutionRecord } from './reconciliation-resolution.repository.js';
import { reconcile, type Reconciliation } from './reconciliation.js';
import { SettlementCheckRepository } from './settlement-check.repository.js';
import { SettlementRepository } from '../creation/settlement.repository.js';
import { JOURNAL_SETTLEMENT_PAID, JOURNAL_SETTLEMENT_REORGED } from '../creation/settlement.types.js';

/** Log queries per reconciliation: bounds a settlement whose transactions span a huge block range. */
const LOG_QUERIES_MAX = 100;

const NOT_STORED_OUT_OF_BLOCK = 'a payout is reorganised out of its block and not yet mined again; the finality watch reconciles again once it is';
const NOT_STORED_CHAIN_MOVED = 'a payout is no longer in the block it is booked in (a reorganisation the finality watch has not booked yet); it reconciles again once it has';
const NOT_STORED_NEWER_RUN = 'a reconciliation that began later is already stored';

/** One run: the findings, and whether they became the settlement's stored reconciliation. */
export type ReconciliationRun = Reconciliation & { stored: boolean; not_stored_because?: string };

/** On-chain Transfer events vs paid lines, stored on the settlement; plus the ledger-check totals. */
@Injectable()
export class ReconciliationService {
  constructor(
    @Inject(PAYOUT_CHAIN) private readonly chain: PayoutChainHandle,
    private readonly db: DatabaseService,
    private readonly audit: AuditService,
    private readonly ledger: LedgerService,
    private readonly settlements: SettlementRepository,
    private readonly txs: PayoutTxRepository,
    private readonly checks: SettlementCheckRepository,
    private readonly resolutions: ReconciliationResolutionRepository,
  ) {}

  /**
   * Reconciles now and stores the result, unless the chain has moved under the ledger's bookings:
   * then `stored` is false with the reason, and the finality watch reconciles again once it has
   * booked where the payouts are now.
   */
  async reconcileSettlement(settlementId: string, actor?: Principal): Promise<ReconciliationRun> {
    const client = this.chain.require();
    const settlement = await this.settlements.findById(settlementId);
    if (!settlement) throw notFound('settlement');
    // Taken before the chain is read: a run that began later (after a reorganisation moved a
    // payout) is never overwritten by this one's older view.
    const checkedAt = await this.settlements.databaseNow();
    const mined = await this.txs.minedBlocks(settlementId);
    const transfers: TransferLog[] = [];
    if (mined.fromBlock !== null && mined.toBlock !== null) {
      let queries = 0;
      for (let from = mined.fromBlock; from <= mined.toBlock; from += TRANSFER_LOG_BLOCK_RANGE_MAX) {
        if (++queries > LOG_QUERIES_MAX) throw new Error(`settlement ${settlementId} spans too many blocks to reconcile`);
        const to = from + TRANSFER_LOG_BLOCK_RANGE_MAX - 1n < mined.toBlock ? from + TRANSFER_LOG_BLOCK_RANGE_MAX - 1n : mined.toBlock;
        transfers.push(...(await client.getTransferLogs({ fromBlock: from, toBlock: to })));
      }
    }
    const paid = (await this.settlements.listLines(settlementId)).filter((l) => l.status === 'paid');
    const result = reconcile({
      paidLines: paid.map((l) => ({ lineId: l.id, txHash: l.txHash as Hex, recipient: l.payoutAddress, amountMicroUsdc: l.amountMicroUsdc })),
      transfers,
      txHashes: mined.txHashes,
      now: checkedAt,
    });
    // A payout reorganised out and not yet seen mined again would read as missing on chain: no
    // verdict is stored meanwhile; the finality watch reconciles again once it sees it mined.
    if (mined.outOfBlock > 0) return { ...result, stored: false, not_stored_because: NOT_STORED_OUT_OF_BLOCK };
    // A reorganisation the finality watch has not seen yet reads the same way (seed 890868151,
    // step 1639): a failure is stored only if every payout is still in the block it is booked in.
    if (!result.ok && !(await this.bookingsStillOnChain(client, mined.bookedBlockHashes))) {
      return { ...result, stored: false, not_stored_because: NOT_STORED_CHAIN_MOVED };
    }
    const stored = await this.db.transaction(async (sql) => {
      const written = await this.settlements.setReconciliation(sql, settlementId, result);
      if (actor) await this.audit.recordWithSql(sql, actor, { action: 'settlement.reconcile', target: settlementId, after: { ok: result.ok, stored: written } });
      return written;
    });
    return stored ? { ...result, stored } : { ...result, stored, not_stored_because: NOT_STORED_NEWER_RUN };
  }

  /** Every booked payout's receipt is in the block the ledger booked it in. */
  private async bookingsStillOnChain(client: PayoutChainClient, bookedBlockHashes: ReadonlyMap<string, string>): Promise<boolean> {
    for (const [txHash, blockHash] of bookedBlockHashes) {
      const receipt = await client.getReceipt(txHash as Hex);
      if (!receipt || receipt.blockHash.toLowerCase() !== blockHash.toLowerCase()) return false;
    }
    return true;
  }

  /**
   * An operator accepts a failed reconciliation after looking into it (for example a payout the
   * chain made to the hot wallet before payout addresses were screened): one append-only
   * resolution row with the reason and a copy of the findings, and an audit entry, in one
   * transaction. The stored reconciliation is left as it is; the ledger check counts the failure
   * as resolved while a later reconciliation finds exactly the same, and fails again on anything new.
   * Replaying it for the same findings returns the first resolution (`created: false`).
   */
  async resolveFailure(settlementId: string, reason: string, actor: Principal): Promise<{ resolution: ReconciliationResolutionRecord; created: boolean }> {
    return this.db.transaction(async (sql) => {
      const settlement = await this.settlements.lockById(sql, settlementId);
      if (!settlement) throw notFound('settlement');
      const current = settlement.reconciliation as { ok?: unknown } | null;
      if (current === null) throw new DomainError('conflict', 'settlement has not been reconciled yet: POST /v1/admin/settlements/:id/reconcile first');
      if (current.ok !== false) throw new DomainError('conflict', 'the settlement\'s reconciliation is ok: there is nothing to resolve');
      const inserted = await this.resolutions.insertForCurrent(sql, { settlementId, reason, resolvedBy: actor.keyId, resolvedByRole: actor.role });
      if (!inserted) return { resolution: (await this.resolutions.findForCurrent(sql, settlementId))!, created: false };
      await this.audit.recordWithSql(sql, actor, {
        action: 'settlement.reconciliation_resolve',
        target: settlementId,
        before: { reconciliation: current },
        after: { resolution_id: inserted.id, reason, fingerprint: inserted.fingerprint },
      });
      return { resolution: inserted, created: true };
    });
  }

  /** The `settlement` section of GET /v1/admin/ledger/check. */
  async ledgerCheck(): Promise<{ ok: boolean } & Record<string, unknown>> {
    // One snapshot for the three reads: read apart, a payout booked between them (its lines paid
    // and its settlement_paid entry, one commit) made one side count it and not the other, and the
    // check reported a mismatch that was never there (the soak, seed 392116518, step 2359).
    const [t, paidJournalAtto, byKind] = await this.db.transaction(async (client) => [
      await this.checks.totals(client),
      // What settlement_paid moved into paid accounts minus what settlement_reorged moved out.
      await this.ledger.netMoved({ intoKind: JOURNAL_SETTLEMENT_PAID, outOfKind: JOURNAL_SETTLEMENT_REORGED }, client),
      await this.ledger.totalsByAccountKind(client),
    ] as const, 'repeatable read');
    const inSettlementBalanceAtto = byKind.get('contributor_in_settlement')?.balanceAtto ?? 0n;
    const paidMatches = microUsdcToAtto(t.paidLinesMicroUsdc) === paidJournalAtto;
    const inSettlementMatches = microUsdcToAtto(t.openLinesMicroUsdc) === inSettlementBalanceAtto;
    return {
      ok: paidMatches && inSettlementMatches && t.reconciliationFailures === 0 && t.reorgConflicts === 0,
      paid_lines_usdc: formatMicroUsdc(t.paidLinesMicroUsdc),
      settlement_paid_journal_usd: formatAttoAsUsd(paidJournalAtto),
      open_lines_usdc: formatMicroUsdc(t.openLinesMicroUsdc),
      in_settlement_balance_usd: formatAttoAsUsd(inSettlementBalanceAtto),
      reconciliation_failures: t.reconciliationFailures,
      reconciliation_failures_resolved: t.reconciliationFailuresResolved,
      unreconciled_settlements: t.unreconciled,
      reorg_conflicts: t.reorgConflicts,
      unfinal_payout_txs: t.unfinalTxs,
    };
  }
}

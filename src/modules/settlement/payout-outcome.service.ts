import { Injectable } from '@nestjs/common';
import { isAddressEqual } from 'viem';
import { assert } from '../../common/errors/index.js';
import { microUsdcToAtto } from '../../common/money/index.js';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { contributorInSettlement, contributorPaid, contributorPayable } from '../ledger/account-codes.js';
import type { JournalDraft } from '../ledger/journal-draft.js';
import { LedgerService } from '../ledger/ledger.service.js';
import type { BatchReceiptOutcome } from '../payouts/chain/batch-receipt.js';
import { PayoutTxRepository, type NewPayoutTx } from './payout-tx.repository.js';
import { SettlementLinesRepository } from './settlement-lines.repository.js';
import { SettlementRepository } from './settlement.repository.js';
import {
  FLAG_USDC_TRANSFER_REFUSED,
  JOURNAL_SETTLEMENT_FAILED,
  JOURNAL_SETTLEMENT_PAID,
  type LineFailureReason,
  type PayoutTxRecord,
  type SettlementLineRecord,
  type SettlementStatus,
} from './settlement.types.js';

export function paidDraft(line: SettlementLineRecord): JournalDraft {
  const amountAtto = microUsdcToAtto(line.amountMicroUsdc);
  return {
    kind: JOURNAL_SETTLEMENT_PAID,
    ref: line.id,
    postings: [
      { accountCode: contributorInSettlement(line.contributorId), amountAtto: -amountAtto },
      { accountCode: contributorPaid(line.contributorId), amountAtto },
    ],
  };
}

export function failedDraft(line: SettlementLineRecord): JournalDraft {
  const amountAtto = microUsdcToAtto(line.amountMicroUsdc);
  return {
    kind: JOURNAL_SETTLEMENT_FAILED,
    ref: line.id,
    postings: [
      { accountCode: contributorInSettlement(line.contributorId), amountAtto: -amountAtto },
      { accountCode: contributorPayable(line.contributorId), amountAtto },
    ],
  };
}

/** Every change the sender makes to lines, transactions and the ledger, each in one DB transaction. */
@Injectable()
export class PayoutOutcomeService {
  constructor(
    private readonly db: DatabaseService,
    private readonly ledger: LedgerService,
    private readonly lines: SettlementLinesRepository,
    private readonly txs: PayoutTxRepository,
    private readonly settlements: SettlementRepository,
  ) {}

  /** The intent, committed before broadcast: the signed row and its lines move to `submitted` together. */
  async persistSigned(tx: NewPayoutTx, lineIds: string[]): Promise<void> {
    await this.db.transaction(async (client) => {
      await this.txs.insertSigned(client, tx);
      const moved = await this.lines.markSubmitted(client, lineIds, tx.id);
      // Fewer rows means another sender took some lines: roll back, broadcast nothing.
      assert(moved === lineIds.length, `persist ${tx.txHash}: ${moved} of ${lineIds.length} lines were still queued`);
    });
  }

  /** A fee bump: same nonce and lines, persisted before broadcast; the lines follow the newest attempt. */
  async persistReplacement(tx: NewPayoutTx, previousTxIds: string[]): Promise<void> {
    await this.db.transaction(async (client) => {
      await this.txs.insertSigned(client, tx);
      const moved = await this.lines.moveToTx(client, previousTxIds, tx.id);
      assert(moved === tx.lineCount, `replacement ${tx.txHash}: ${moved} of ${tx.lineCount} lines moved`);
    });
  }

  /** Mined with enough confirmations: pay or fail each line by the receipt, or requeue all if reverted. */
  async applyMined(input: { winner: PayoutTxRecord; others: PayoutTxRecord[]; lines: SettlementLineRecord[]; outcome: BatchReceiptOutcome; gasUsed: bigint }): Promise<void> {
    const { winner, others, lines, outcome, gasUsed } = input;
    const otherIds = others.map((o) => o.id);
    await this.db.transaction(async (client) => {
      if (!outcome.executed) {
        const marked = await this.txs.markMined(client, winner.id, { status: 'reverted', gasUsed, blockNumber: outcome.blockNumber, error: 'transaction reverted' });
        if (marked === 0) return; // applied by an earlier run
        await this.txs.markDead(client, otherIds, 'replaced', `attempt ${winner.txHash} was mined`);
        // A reverted batch paid nobody and consumed its nonce: the lines may be signed again.
        await this.lines.requeueOfTxs(client, [winner.id, ...otherIds]);
        await this.settlements.setLastError(winner.settlementId, `payout transaction ${winner.txHash} reverted`, client);
        return;
      }
      assert(outcome.batchId.toLowerCase() === winner.batchId.toLowerCase(), `receipt batch ${outcome.batchId} is not ${winner.batchId}`);
      assert(outcome.lineCount === lines.length, `receipt has ${outcome.lineCount} lines, the batch ${lines.length}`);
      const skipped = new Set<number>();
      for (const s of outcome.skipped) {
        const line = lines[s.index];
        assert(line && isAddressEqual(line.payoutAddress, s.recipient) && line.amountMicroUsdc === s.amountMicroUsdc, `skipped line ${s.index} does not match`);
        skipped.add(s.index);
      }
      const marked = await this.txs.markMined(client, winner.id, { status: 'confirmed', gasUsed, blockNumber: outcome.blockNumber });
      if (marked === 0) return;
      await this.txs.markDead(client, otherIds, 'replaced', `attempt ${winner.txHash} was mined`);
      const paid = lines.filter((_, i) => !skipped.has(i));
      const refused = lines.filter((_, i) => skipped.has(i));
      assert((await this.lines.markPaid(client, paid.map((l) => l.id), winner.id)) === paid.length, 'paid lines were not all submitted');
      const written = await this.ledger.post(client, paid.map(paidDraft));
      assert(written.size === paid.length, 'a settlement_paid entry already existed');
      await this.failWithin(client, refused, 'usdc_transfer_refused', winner.id);
    });
  }

  /** Never mined and the nonce is taken: the chain proves these attempts can no longer pay. */
  async markDropped(rows: PayoutTxRecord[]): Promise<void> {
    const ids = rows.map((r) => r.id);
    await this.db.transaction(async (client) => {
      const marked = await this.txs.markDead(client, ids, 'dropped', 'not mined and its nonce was used by another transaction');
      if (marked > 0) await this.lines.requeueOfTxs(client, ids);
    });
  }

  /** Lines that will not be paid this time return to payable (one settlement_failed entry each). */
  async failLines(lines: SettlementLineRecord[], reason: LineFailureReason): Promise<void> {
    if (lines.length === 0) return;
    await this.db.transaction((client) => this.failWithin(client, lines, reason, null));
  }

  private async failWithin(client: SqlClient, lines: SettlementLineRecord[], reason: LineFailureReason, txId: string | null): Promise<void> {
    if (lines.length === 0) return;
    assert((await this.lines.markFailed(client, lines.map((l) => l.id), reason, txId)) === lines.length, 'failed lines were not all open');
    const written = await this.ledger.post(client, lines.map(failedDraft));
    assert(written.size === lines.length, 'a settlement_failed entry already existed');
    if (reason !== 'tx_reverted') await this.lines.flagContributors(client, lines.map((l) => l.contributorId), FLAG_USDC_TRANSFER_REFUSED);
  }

  /** Every line paid or failed: the settlement's final status. */
  async finish(settlementId: string): Promise<SettlementStatus> {
    return this.db.transaction(async (client) => {
      const counts = await this.settlements.countLinesByStatus(settlementId, client);
      assert(counts.queued === 0 && counts.submitted === 0, `settlement ${settlementId} still has open lines`);
      const status: SettlementStatus = counts.failed === 0 ? 'confirmed' : counts.paid === 0 ? 'failed' : 'partially_failed';
      await this.settlements.finishSend(client, settlementId, status);
      const current = await this.settlements.findById(settlementId, client);
      return current!.status;
    });
  }
}

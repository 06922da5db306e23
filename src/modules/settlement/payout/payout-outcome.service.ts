import { Injectable } from '@nestjs/common';
import { isAddressEqual } from 'viem';
import { assert } from '../../../common/errors/index.js';
import { microUsdcToAtto } from '../../../common/money/index.js';
import { DatabaseService, type SqlClient } from '../../../database/database.service.js';
import { settlementLineDraft, type JournalDraft, type SettlementLineKind } from '../../ledger/journal-kinds.js';
import { LedgerService } from '../../ledger/ledger.service.js';
import { WebhookOutbox } from '../../webhooks/webhook-outbox.service.js';
import { finishedEventType, payoutEvents, settlementEvents } from '../creation/settlement-webhooks.js';
import type { BatchReceiptOutcome } from '../../chain/batch-receipt.js';
import { PayeeScreenService, type LineRefusal } from './payee-screen.js';
import { PayoutTxRepository, type NewPayoutTx } from './payout-tx.repository.js';
import type { PayoutTxRecord } from './payout.types.js';
import { SettlementLinesRepository } from './settlement-lines.repository.js';
import { SettlementRepository } from '../creation/settlement.repository.js';
import {
  FLAG_OF_FAILURE,
  JOURNAL_SETTLEMENT_FAILED,
  JOURNAL_SETTLEMENT_PAID,
  JOURNAL_SETTLEMENT_REORGED,
  LINE_FAILURE_REORGED_OUT,
  type LineFailureReason,
  type LineStatus,
  type SettlementLineRecord,
  type SettlementStatus,
} from '../creation/settlement.types.js';

/** One line's amount moved between two of its contributor's accounts (journal-kinds.ts); ref = line id. */
const lineDraft = (kind: SettlementLineKind, line: SettlementLineRecord): JournalDraft =>
  settlementLineDraft(kind, { lineId: line.id, contributorId: line.contributorId, amountAtto: microUsdcToAtto(line.amountMicroUsdc) });

/** in_settlement -> paid. */
export const paidDraft = (line: SettlementLineRecord): JournalDraft => lineDraft(JOURNAL_SETTLEMENT_PAID, line);

/** in_settlement -> payable. */
export const failedDraft = (line: SettlementLineRecord): JournalDraft => lineDraft(JOURNAL_SETTLEMENT_FAILED, line);

/** A paid line whose payment a reorganisation removed for good: back to payable, paid again later. */
export const reorgedDraft = (line: SettlementLineRecord): JournalDraft => lineDraft(JOURNAL_SETTLEMENT_REORGED, line);

/** Every line paid or failed: what the settlement ended as. */
export function finishedStatus(counts: Record<LineStatus, number>): SettlementStatus {
  assert(counts.queued === 0 && counts.submitted === 0, 'a finished settlement has no open lines');
  return counts.failed === 0 ? 'confirmed' : counts.paid === 0 ? 'failed' : 'partially_failed';
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
    private readonly webhooks: WebhookOutbox,
    private readonly payees: PayeeScreenService,
  ) {}

  /**
   * The intent, committed before broadcast: the signed row and its lines move to `submitted`
   * together, in the transaction that screens each payee again (status, current address, deny
   * list, infrastructure) with its contributor row share-locked until the commit. When a payee is
   * refused, its line fails back to payable in this transaction and nothing is persisted: the
   * signed bytes are discarded unbroadcast and the caller signs the remaining lines again.
   */
  async persistSigned(tx: NewPayoutTx, lines: SettlementLineRecord[]): Promise<LineRefusal[]> {
    return this.db.transaction(async (client) => {
      const refusals = await this.payees.refusals(client, lines);
      if (refusals.length > 0) {
        await this.failRefusalsWithin(client, refusals);
        return refusals;
      }
      await this.txs.insertSigned(client, tx);
      const moved = await this.lines.markSubmitted(client, lines.map((l) => l.id), tx.id);
      // Fewer rows means another sender took some lines: roll back, broadcast nothing.
      assert(moved === lines.length, `persist ${tx.txHash}: ${moved} of ${lines.length} lines were still queued`);
      return [];
    });
  }

  /** Before the chain is asked anything: lines whose payee is refused now fail back to payable. */
  async failRefusedPayees(lines: SettlementLineRecord[]): Promise<LineRefusal[]> {
    if (lines.length === 0) return [];
    return this.db.transaction(async (client) => {
      const refusals = await this.payees.refusals(client, lines);
      await this.failRefusalsWithin(client, refusals);
      return refusals;
    });
  }

  private async failRefusalsWithin(client: SqlClient, refusals: LineRefusal[]): Promise<void> {
    const byReason = new Map<LineFailureReason, SettlementLineRecord[]>();
    for (const r of refusals) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.line]);
    for (const [reason, lines] of byReason) await this.failWithin(client, lines, reason, null);
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
  async applyMined(input: { winner: PayoutTxRecord; others: PayoutTxRecord[]; lines: SettlementLineRecord[]; outcome: BatchReceiptOutcome; gasUsed: bigint; blockHash: string; final: boolean }): Promise<void> {
    const { winner, others, lines, outcome, gasUsed } = input;
    const otherIds = others.map((o) => o.id);
    await this.db.transaction(async (client) => {
      const mined = { gasUsed, blockNumber: outcome.blockNumber, blockHash: input.blockHash, final: input.final };
      if (!outcome.executed) {
        const marked = await this.txs.markMined(client, winner.id, { ...mined, status: 'reverted', error: 'transaction reverted' });
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
      const marked = await this.txs.markMined(client, winner.id, { ...mined, status: 'confirmed' });
      if (marked === 0) return;
      await this.txs.markDead(client, otherIds, 'replaced', `attempt ${winner.txHash} was mined`);
      const paid = lines.filter((_, i) => !skipped.has(i));
      const refused = lines.filter((_, i) => skipped.has(i));
      assert((await this.lines.markPaid(client, paid.map((l) => l.id), winner.id)) === paid.length, 'paid lines were not all submitted');
      const written = await this.ledger.post(client, paid.map(paidDraft));
      assert(written.size === paid.length, 'a settlement_paid entry already existed');
      await this.webhooks.emit(client, payoutEvents('payout.paid', paid.map((l) => ({ ...l, status: 'paid' as const, txHash: winner.txHash })), new Date(), null));
      await this.failWithin(client, refused, 'usdc_transfer_refused', winner.id);
    });
  }

  /**
   * After a reorganisation an attempt of a booked nonce is mined in another block (the same bytes
   * re-included, or a fee-bump sibling won). It becomes the booked row; lines it no longer pays
   * are reversed to payable; a payment it makes that was not booked is recorded as a conflict.
   */
  async applyReorgMoved(input: { booked: PayoutTxRecord; mined: PayoutTxRecord; status: 'confirmed' | 'reverted'; gasUsed: bigint; blockNumber: bigint; blockHash: string; unpaid: SettlementLineRecord[]; conflict: string | null }): Promise<boolean> {
    const { booked, mined } = input;
    return this.db.transaction(async (client) => {
      const rebooked = await this.txs.rebook(client, {
        fromId: booked.id, toId: mined.id, status: input.status, gasUsed: input.gasUsed, blockNumber: input.blockNumber, blockHash: input.blockHash,
        // Already counted when it was seen reorganised out (its block hash was cleared then).
        reorgCountDelta: mined.id === booked.id && booked.blockHash === null ? 0 : 1,
        reorgConflict: input.conflict,
      });
      if (rebooked === 0) return false; // applied by an earlier pass
      if (mined.id !== booked.id) await this.lines.moveBooked(client, booked.id, mined.id);
      await this.reverseWithin(client, booked.settlementId, input.unpaid);
      return true;
    });
  }

  /** Reorganised out and its nonce used by another transaction: nothing of it is paid any more. */
  async applyReorgLost(booked: PayoutTxRecord, paidLines: SettlementLineRecord[]): Promise<boolean> {
    return this.db.transaction(async (client) => {
      if ((await this.txs.markLost(client, booked.id)) === 0) return false;
      await this.reverseWithin(client, booked.settlementId, paidLines);
      return true;
    });
  }

  /** Paid lines back to payable (failed, reorged_out) and a finished settlement's status after them. */
  private async reverseWithin(client: SqlClient, settlementId: string, lines: SettlementLineRecord[]): Promise<void> {
    if (lines.length === 0) return;
    assert((await this.lines.markReorgedOut(client, lines.map((l) => l.id))) === lines.length, 'reversed lines were not all paid');
    const written = await this.ledger.post(client, lines.map(reorgedDraft));
    assert(written.size === lines.length, 'a settlement_reorged entry already existed');
    await this.webhooks.emit(client, payoutEvents('payout.reorged', lines.map((l) => ({ ...l, status: 'failed' as const })), new Date(), LINE_FAILURE_REORGED_OUT));
    const counts = await this.settlements.countLinesByStatus(settlementId, client);
    // An open settlement gets its status when it finishes; a finished one follows its lines now.
    if (counts.queued === 0 && counts.submitted === 0) {
      await this.settlements.refreshFinishedStatus(client, settlementId, finishedStatus(counts));
      await this.announceFinished(client, settlementId);
    }
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
    await this.webhooks.emit(client, payoutEvents('payout.failed', lines.map((l) => ({ ...l, status: 'failed' as const })), new Date(), reason));
    const flag = FLAG_OF_FAILURE[reason];
    if (flag) await this.lines.flagContributors(client, lines, flag);
  }

  /** Every line paid or failed: the settlement's final status. */
  async finish(settlementId: string): Promise<SettlementStatus> {
    return this.db.transaction(async (client) => {
      const counts = await this.settlements.countLinesByStatus(settlementId, client);
      assert(counts.queued === 0 && counts.submitted === 0, `settlement ${settlementId} still has open lines`);
      if (await this.settlements.finishSend(client, settlementId, finishedStatus(counts))) await this.announceFinished(client, settlementId);
      const current = await this.settlements.findById(settlementId, client);
      return current!.status;
    });
  }

  /** settlement.confirmed | partially_failed | failed, once per settlement and status. */
  private async announceFinished(client: SqlClient, settlementId: string): Promise<void> {
    const settlement = (await this.settlements.findById(settlementId, client))!;
    const type = finishedEventType(settlement.status);
    if (type === null) return;
    const lines = await this.settlements.listLines(settlementId, client);
    await this.webhooks.emit(client, settlementEvents(type, settlement, lines, new Date()));
  }
}

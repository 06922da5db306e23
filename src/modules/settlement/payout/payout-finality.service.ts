import { Inject, Injectable, Logger } from '@nestjs/common';
import { assert } from '../../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../../config/index.js';
import { SettlementQueueProducer } from '../creation/settlement-queue.producer.js';
import { SettlementRepository } from '../creation/settlement.repository.js';
import { groupAttemptsByNonce, observeAttempts } from './chain-outcome.js';
import { HotWalletService } from './hot-wallet.service.js';
import { bookingDifferences, finalBlockNumber, finalityDepthBlocks, finalityVerdict, type FinalityVerdict } from './payout-finality.js';
import { PayoutOutcomeService } from './payout-outcome.service.js';
import { PayoutTxRepository } from './payout-tx.repository.js';
import type { PayoutTxRecord } from './payout.types.js';

/** Nonces re-verified per pass (oldest first): bounds one pass's RPC calls; the rest wait for the next. */
export const FINALITY_NONCES_PER_PASS_MAX = 200;

export type FinalityPass = Record<FinalityVerdict['kind'], number>;
/** Read once per pass, before any receipt. */
type ChainView = { finalityBlocks: number; latestNonce: number; finalNonce: number };

/**
 * Keeps "ledger paid == on-chain paid" true through chain reorganisations. A payout is booked
 * (lines paid) after SETTLEMENT_CONFIRMATIONS, and booked it stays: its transaction is then
 * re-verified until its block is SETTLEMENT_FINALITY_BLOCKS deep. Reorganised out with the nonce
 * still free, the SAME signed bytes are sent again: that nonce and batch id can only ever pay those
 * lines once, so the booking comes true again. Re-included elsewhere, the new receipt is compared
 * with the booking. Only when the chain proves the booking can no longer come true (the nonce
 * taken by a transaction that is none of ours, or a different outcome) are the lines it no longer
 * pays reversed to payable, to be paid by a later settlement. Booking on one confirmation and
 * watching, rather than booking only at finality, keeps payouts visible as soon as they are paid.
 */
@Injectable()
export class PayoutFinalityService {
  private readonly logger = new Logger('PayoutFinality');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly wallet: HotWalletService,
    private readonly txs: PayoutTxRepository,
    private readonly settlements: SettlementRepository,
    private readonly outcomes: PayoutOutcomeService,
    private readonly producer: SettlementQueueProducer,
  ) {}

  /** The repeatable job. A send in progress holds the wallet and re-verifies on its own. */
  async runScheduled(): Promise<FinalityPass | { skipped: string }> {
    if (!this.wallet.client) return { skipped: 'settlement disabled' };
    const run = await this.wallet.exclusive(async (chain) => {
      // Receipts of another chain would all look reorganised out.
      await chain.verifyChain();
      return this.recheckWallet();
    });
    return run.busy ? { skipped: 'wallet busy' } : run.value;
  }

  /** One pass over the wallet's mined, not yet final transactions; the caller holds the wallet. */
  async recheckWallet(): Promise<FinalityPass> {
    const chain = this.wallet.heldChain();
    const pass: FinalityPass = { final: 0, unchanged: 0, moved: 0, waiting: 0, rebroadcast: 0, lost: 0 };
    const rows = await this.txs.listUnfinalAttempts(chain.hotWalletAddress, FINALITY_NONCES_PER_PASS_MAX);
    if (rows.length === 0) return pass;
    const finalityBlocks = finalityDepthBlocks(this.config);
    // Nonces first, hashes second: a transaction mined after these reads is still found mined.
    const headBlock = await chain.getBlockNumber();
    const view: ChainView = {
      finalityBlocks,
      latestNonce: await chain.getLatestNonce(),
      finalNonce: await chain.getNonceAtBlock(finalBlockNumber(headBlock, finalityBlocks)),
    };
    for (const attempts of groupAttemptsByNonce(rows)) pass[await this.recheckNonce(attempts, view)] += 1;
    return pass;
  }

  private async recheckNonce(attempts: PayoutTxRecord[], view: ChainView): Promise<FinalityVerdict['kind']> {
    const bookedIndex = attempts.findIndex((a) => a.status === 'confirmed' || a.status === 'reverted');
    assert(bookedIndex >= 0 && attempts.filter((a) => a.status !== 'replaced').length === 1, `nonce ${attempts[0]!.nonce} has no single mined row`);
    const booked = attempts[bookedIndex]!;
    const seen = await observeAttempts(this.wallet.heldChain(), attempts, view.latestNonce);
    const verdict = finalityVerdict({ seen, bookedIndex, bookedBlockHash: booked.blockHash, nonce: booked.nonce, finalNonce: view.finalNonce, finalityBlocks: view.finalityBlocks });
    if (verdict.kind === 'final') await this.txs.markFinal(booked.id);
    if (verdict.kind === 'rebroadcast') await this.rebroadcast(booked);
    if (verdict.kind === 'moved') await this.applyMoved(booked, attempts[verdict.attemptIndex]!);
    if (verdict.kind === 'lost') return this.applyLost(booked);
    return verdict.kind;
  }

  /** The booked bytes again: same nonce, same batch id, so they can pay these lines at most once. */
  private async rebroadcast(booked: PayoutTxRecord): Promise<void> {
    if ((await this.txs.markReorgedOut(booked.id, 'reorganised out of its block; the same signed bytes were sent again')) > 0) {
      this.logger.warn(`payout ${booked.txHash} (nonce ${booked.nonce}) was reorganised out of block ${booked.blockNumber}: sending the same bytes again`);
    }
    // Refused (the nonce was just taken, RPC down): the next pass sees what happened.
    await this.wallet.heldChain().broadcastRaw(booked.signedRaw).catch((error: Error) =>
      this.logger.warn(`rebroadcast of ${booked.txHash} refused: ${error.message.split('\n')[0]}`),
    );
  }

  private async applyMoved(booked: PayoutTxRecord, mined: PayoutTxRecord): Promise<void> {
    const chain = this.wallet.heldChain();
    const receipt = await chain.getReceipt(mined.txHash);
    if (!receipt) return; // reorganised again since the status was read: the next pass decides
    const outcome = chain.parseBatchReceipt(receipt);
    // A reverted booking released its lines (tx_id cleared): it has none booked paid.
    const lines = booked.status === 'confirmed' ? await this.settlements.listLinesOfTxs([booked.id]) : [];
    if (outcome.executed && lines.length > 0) {
      assert(outcome.batchId.toLowerCase() === booked.batchId.toLowerCase() && outcome.lineCount === lines.length, `receipt ${mined.txHash} is not batch ${booked.batchId}`);
    }
    const diff = bookingDifferences({ bookedPaid: lines.map((l) => l.status === 'paid'), chainPaidIndexes: outcome.executed ? outcome.paidIndexes : [] });
    const conflict = diff.unbookedIndexes.length === 0 ? null : `after a reorganisation ${mined.txHash} paid ${diff.unbookedIndexes.length} line(s) the ledger did not book as paid`;
    await this.wallet.assertHeld();
    const applied = await this.outcomes.applyReorgMoved({
      booked, mined, status: outcome.executed ? 'confirmed' : 'reverted', gasUsed: receipt.gasUsed, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash,
      unpaid: diff.unpaidIndexes.map((i) => lines[i]!), conflict,
    });
    if (!applied) return;
    const booking = diff.unpaidIndexes.length === 0 ? 'booking unchanged' : `${diff.unpaidIndexes.length} line(s) no longer paid, back to payable`;
    this.logger.warn(`payout nonce ${booked.nonce}: ${mined.txHash} now in block ${receipt.blockNumber} after a reorganisation; ${booking}`);
    if (conflict) this.logger.error(`settlement ${booked.settlementId}: ${conflict}`);
    await this.producer.enqueueReconcile(booked.settlementId);
  }

  private async applyLost(booked: PayoutTxRecord): Promise<'lost' | 'waiting'> {
    const chain = this.wallet.heldChain();
    // The contract's own record, as a second witness: a node that answers "no receipt" while the
    // batch did execute (a lagging or inconsistent RPC) must never make a paid line payable again.
    if (await chain.isBatchExecuted(booked.batchId)) {
      this.logger.warn(`payout ${booked.txHash}: no receipt, but batch ${booked.batchId} is executed on chain; waiting`);
      return 'waiting';
    }
    const paid = booked.status === 'confirmed' ? (await this.settlements.listLinesOfTxs([booked.id])).filter((l) => l.status === 'paid') : [];
    await this.wallet.assertHeld();
    if (!(await this.outcomes.applyReorgLost(booked, paid))) return 'lost';
    this.logger.error(`payout ${booked.txHash}: reorganised out and nonce ${booked.nonce} used by another transaction; ${paid.length} line(s) back to payable`);
    await this.producer.enqueueReconcile(booked.settlementId);
    return 'lost';
  }
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { assert } from '../../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../../config/index.js';
import { PayoutChainError } from '../../chain/payout-chain.errors.js';
import { SettlementRepository } from '../creation/settlement.repository.js';
import { groupAttemptsByNonce, observeAttempts, type MinedStatus } from './chain-outcome.js';
import { crashAfterBroadcastIfAsked } from './crash-hook.js';
import { finalityDepthBlocks } from './payout-finality.js';
import { PayoutFinalityService } from './payout-finality.service.js';
import { HotWalletService } from './hot-wallet.service.js';
import { PayoutOutcomeService } from './payout-outcome.service.js';
import { BATCH_ATTEMPTS_MAX, bumpFees, PAYOUT_SENDER_OPTIONS, type PayoutSenderOptions } from './payout-sender.options.js';
import { PayoutTxRepository } from './payout-tx.repository.js';
import type { PayoutTxRecord } from './payout.types.js';

type Resolution = 'resolved' | 'pending';

/**
 * Follows persisted transactions to an outcome. Rules (crash safety): a mined attempt decides its
 * lines; an unknown one whose nonce is still free is rebroadcast with the SAME bytes; lines are
 * released for re-signing only when the chain proves no attempt can be mined any more.
 */
@Injectable()
export class PayoutTrackerService {
  private readonly logger = new Logger('PayoutTracker');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PAYOUT_SENDER_OPTIONS) private readonly options: PayoutSenderOptions,
    private readonly wallet: HotWalletService,
    private readonly txs: PayoutTxRepository,
    private readonly settlements: SettlementRepository,
    private readonly outcomes: PayoutOutcomeService,
    private readonly finality: PayoutFinalityService,
  ) {}

  /**
   * Before signing anything: mined transactions a reorganisation undid are sent again (their nonces
   * come first), then one pass over every live transaction of the wallet (after a crash).
   */
  async resumeWallet(): Promise<void> {
    await this.finality.recheckWallet();
    const live = await this.txs.listLive(this.wallet.heldChain().hotWalletAddress);
    for (const attempts of groupAttemptsByNonce(live)) await this.resolveNonce(attempts);
  }

  /**
   * Polls until no transaction of the settlement is live, or the wait budget is spent. Mined ones
   * are re-verified meanwhile: a later nonce cannot be mined while an earlier one is reorganised out.
   */
  async waitForSettlement(settlementId: string): Promise<'settled' | 'timeout'> {
    const wallet = this.wallet.heldChain().hotWalletAddress;
    const deadlineMs = Date.now() + this.options.confirmationWaitMs;
    let finalityDueMs = Date.now() + this.options.finalityCheckIntervalMs;
    for (;;) {
      const live = await this.txs.listLive(wallet, settlementId);
      if (live.length === 0) return 'settled';
      let pending = false;
      for (const attempts of groupAttemptsByNonce(live)) {
        if ((await this.resolveNonce(attempts)) === 'pending') pending = true;
      }
      if (!pending) continue;
      if (Date.now() > deadlineMs) return 'timeout';
      if (Date.now() >= finalityDueMs) {
        await this.finality.recheckWallet();
        finalityDueMs = Date.now() + this.options.finalityCheckIntervalMs;
      }
      await new Promise((resolve) => setTimeout(resolve, this.options.pollIntervalMs));
    }
  }

  /** Sends signed bytes; a nonce already taken is left for resolveNonce to prove and release. */
  async broadcast(row: { id: string; signedRaw: string }): Promise<void> {
    try {
      await this.wallet.heldChain().broadcastRaw(row.signedRaw as Hex);
    } catch (error) {
      if (error instanceof PayoutChainError && error.code === 'nonce-consumed') return;
      throw error;
    }
    crashAfterBroadcastIfAsked(this.config);
    await this.txs.markBroadcast(row.id);
  }

  /** The live attempts of one nonce (one batch and its fee bumps), by what the chain did to them. */
  private async resolveNonce(rows: PayoutTxRecord[]): Promise<Resolution> {
    assert(rows.every((r) => r.batchId === rows[0]!.batchId), `live attempts of nonce ${rows[0]!.nonce} belong to different batches`);
    const seen = await observeAttempts(this.wallet.heldChain(), rows);
    switch (seen.kind) {
      case 'mined':
        if (seen.status.confirmations < this.config.SETTLEMENT_CONFIRMATIONS) return 'pending';
        await this.applyMined(rows, seen.attemptIndex, seen.status);
        return 'resolved';
      case 'pending':
        await this.maybeReplace(rows);
        return 'pending';
      case 'nonce_taken':
        this.logger.warn(`payout batch ${rows[0]!.batchId}: nonce ${rows[0]!.nonce} used by another transaction, lines released`);
        await this.outcomes.markDropped(rows);
        return 'resolved';
      case 'nonce_free':
        // Never seen, or dropped from the pool: the same signed bytes again (the newest attempt). A
        // refusal (another transaction holds the nonce in the pool, RPC down) is not final: keep polling.
        await this.broadcast(rows[rows.length - 1]!).catch((error: Error) =>
          this.logger.warn(`rebroadcast of ${rows[rows.length - 1]!.txHash} refused: ${error.message.split('\n')[0]}`),
        );
        return 'pending';
    }
  }

  private async applyMined(rows: PayoutTxRecord[], winnerIndex: number, status: MinedStatus): Promise<void> {
    const chain = this.wallet.heldChain();
    const winner = rows[winnerIndex]!;
    const receipt = await chain.getReceipt(winner.txHash);
    assert(receipt, `receipt of ${winner.txHash} vanished`);
    const outcome = chain.parseBatchReceipt(receipt);
    const lines = (await this.settlements.listLinesOfTxs(rows.map((r) => r.id))).filter((l) => l.status === 'submitted');
    const others = rows.filter((_, i) => i !== winnerIndex);
    // Final at once only when already deep enough (and still in the block that was counted).
    const final = status.confirmations >= finalityDepthBlocks(this.config) && receipt.blockHash === status.blockHash;
    await this.outcomes.applyMined({ winner, others, lines, outcome, gasUsed: receipt.gasUsed, blockHash: receipt.blockHash, final });
  }

  /** Fee bump of a stuck transaction: same nonce, same lines, persisted before it is sent. */
  private async maybeReplace(rows: PayoutTxRecord[]): Promise<void> {
    const newest = rows[rows.length - 1]!;
    if (Date.now() - newest.createdAt.getTime() < this.options.replaceAfterMs || newest.attempt >= BATCH_ATTEMPTS_MAX) return;
    const fees = bumpFees({ maxFeePerGasWei: newest.maxFeePerGasWei, maxPriorityFeePerGasWei: newest.maxPriorityFeePerGasWei, capWei: this.options.maxFeePerGasCapWei });
    if (!fees) return;
    await this.wallet.assertHeld();
    const chain = this.wallet.heldChain();
    const lines = (await this.settlements.listLinesOfTxs(rows.map((r) => r.id))).filter((l) => l.status === 'submitted');
    const signed = await chain.prepareSignedBatch({
      batchId: newest.batchId,
      lines: lines.map((l) => ({ recipient: l.payoutAddress, amountMicroUsdc: l.amountMicroUsdc })),
      nonce: newest.nonce,
      gas: newest.gasLimit,
      ...fees,
    });
    const id = randomUUID();
    await this.outcomes.persistReplacement(
      { id, settlementId: newest.settlementId, batchId: newest.batchId, attempt: newest.attempt + 1, fromAddress: chain.hotWalletAddress,
        nonce: newest.nonce, signedRaw: signed.serializedTx, txHash: signed.txHash, maxFeePerGasWei: signed.maxFeePerGas,
        maxPriorityFeePerGasWei: signed.maxPriorityFeePerGas, gasLimit: signed.gasLimit, lineCount: lines.length },
      rows.map((r) => r.id),
    );
    this.logger.warn(`payout batch ${newest.batchId}: fee bump to ${fees.maxFeePerGas} wei (attempt ${newest.attempt + 1})`);
    await this.broadcast({ id, signedRaw: signed.serializedTx }).catch((error: Error) =>
      // The node may refuse the bump (underpriced); the earlier attempt is still pending and tracked.
      this.logger.warn(`replacement ${signed.txHash} not accepted yet: ${error.message}`),
    );
  }
}

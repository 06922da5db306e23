import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { getAddress, keccak256, stringToHex, type Address, type Hex } from 'viem';
import { assert, notFound } from '../../../common/errors/index.js';
import { formatMicroUsdc } from '../../../common/money/index.js';
import { APP_CONFIG, type AppConfig } from '../../../config/index.js';
import type { PayoutChainClient } from '../../chain/payout-chain.client.js';
import { PayoutChainError } from '../../chain/payout-chain.errors.js';
import { PAYOUT_LINES_PER_BATCH_MAX } from '../../chain/payout-lines.js';
import { HotWalletService } from './hot-wallet.service.js';
import type { LineRefusal } from './payee-screen.js';
import { PayoutOutcomeService } from './payout-outcome.service.js';
import { busyRetryDelayMs, PAYOUT_SENDER_OPTIONS, REVERTED_TXS_PER_SETTLEMENT_MAX, SEND_ROUNDS_MAX, type PayoutSenderOptions } from './payout-sender.options.js';
import { PayoutTrackerService } from './payout-tracker.service.js';
import { PayoutTxRepository, type NewPayoutTx } from './payout-tx.repository.js';
import { SettlementQueueProducer } from '../creation/settlement-queue.producer.js';
import { SettlementRepository } from '../creation/settlement.repository.js';
import { OPEN_SETTLEMENT_STATUSES, type SettlementLineRecord, type SettlementStatus } from '../creation/settlement.types.js';
import { withSpan } from '../../../common/tracing/tracing.js';

export type SendOutcome =
  | { kind: 'finished'; status: SettlementStatus }
  /** Nothing is wrong with the lines; the chain or the wallet is not ready (paused, low funds). */
  | { kind: 'hold'; reason: string; retryAfterMs: number }
  /** Another process is sending from this wallet. */
  | { kind: 'busy'; retryAfterMs: number }
  | { kind: 'skipped'; reason: string };

interface PreflightSummary {
  paused: boolean;
  senderBlacklisted: boolean;
  blacklisted: Set<string>;
  usdcMicroUsdc: bigint;
  allowanceMicroUsdc: bigint;
  nativeWei: bigint;
}

/** bytes32 batch id from the settlement and the exact line set: re-signing the same lines reuses it. */
export function batchIdFor(settlementId: string, lineIds: readonly string[]): Hex {
  return keccak256(stringToHex(`${settlementId}:${lineIds.join(',')}`));
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** Sends one settlement: pre-flight, sign, persist, broadcast, confirm. Single sender per wallet. */
@Injectable()
export class PayoutSenderService {
  private readonly logger = new Logger('PayoutSender');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PAYOUT_SENDER_OPTIONS) private readonly options: PayoutSenderOptions,
    private readonly wallet: HotWalletService,
    private readonly settlements: SettlementRepository,
    private readonly txs: PayoutTxRepository,
    private readonly outcomes: PayoutOutcomeService,
    private readonly tracker: PayoutTrackerService,
    private readonly producer: SettlementQueueProducer,
  ) {}

  sendSettlement(settlementId: string): Promise<SendOutcome> {
    return withSpan('settlement.send', { attributes: { 'settlement.id': settlementId } }, async (span) => {
      const run = await this.wallet.exclusive((chain) => this.sendLocked(chain, settlementId), { waitMs: this.options.walletWaitMs });
      const outcome: SendOutcome = run.busy ? { kind: 'busy', retryAfterMs: busyRetryDelayMs(this.options.busyRetryMs, Math.random()) } : run.value;
      span?.setAttribute('settlement.send.outcome', outcome.kind);
      return outcome;
    });
  }

  private async sendLocked(chain: PayoutChainClient, settlementId: string): Promise<SendOutcome> {
    await chain.verifyChain();
    // Whatever an earlier (crashed) run left in flight is settled before anything new is signed.
    await this.tracker.resumeWallet();
    const settlement = await this.settlements.findById(settlementId);
    if (!settlement) throw notFound('settlement');
    if (settlement.status === 'pending_approval') return { kind: 'skipped', reason: 'waiting for approval' };
    if (!OPEN_SETTLEMENT_STATUSES.includes(settlement.status)) return { kind: 'skipped', reason: `already ${settlement.status}` };
    // Lines the ledger no longer books as paid may have been paid on chain after all: sending
    // anything more could pay them twice, so payouts stop until an operator has looked.
    if ((await this.txs.countReorgConflicts(chain.hotWalletAddress)) > 0) {
      return this.hold(settlementId, 'a chain reorganisation left a payout the ledger does not match (settlement_txs.reorg_conflict): resolve it first');
    }
    await this.settlements.markSubmitting(settlementId);
    for (let round = 1; ; round += 1) {
      if (round > SEND_ROUNDS_MAX) return this.hold(settlementId, `still open after ${SEND_ROUNDS_MAX} send rounds`);
      const held = await this.submitQueuedLines(chain, settlementId);
      if (held) return held;
      if ((await this.tracker.waitForSettlement(settlementId)) === 'timeout') {
        return this.hold(settlementId, 'payout transactions not confirmed yet');
      }
      const counts = await this.settlements.countLinesByStatus(settlementId);
      if (counts.queued === 0 && counts.submitted === 0) break;
    }
    const status = await this.outcomes.finish(settlementId);
    this.logger.log(`settlement ${settlementId} ${status}`);
    await this.producer.enqueueReconcile(settlementId);
    return { kind: 'finished', status };
  }

  /** Signs and broadcasts every queued line; returns a hold when the chain or wallet is not ready. */
  private async submitQueuedLines(chain: PayoutChainClient, settlementId: string): Promise<SendOutcome | null> {
    let lines = await this.settlements.listLinesWithStatus(settlementId, 'queued');
    if (lines.length === 0) return null;
    if ((await this.txs.countWithStatus(settlementId, 'reverted')) >= REVERTED_TXS_PER_SETTLEMENT_MAX) {
      await this.outcomes.failLines(lines, 'tx_reverted');
      return null;
    }
    // Each payee as it is now (status, current address, deny list, infrastructure): a refused line
    // fails back to payable before anything is signed; persistSigned checks again, locked.
    this.logRefusals(settlementId, await this.outcomes.failRefusedPayees(lines));
    lines = await this.settlements.listLinesWithStatus(settlementId, 'queued');
    if (lines.length === 0) return null;
    const pre = await this.preflight(chain, lines);
    if (pre.paused) return this.hold(settlementId, 'USDC is paused');
    if (pre.senderBlacklisted) return this.hold(settlementId, 'USDC refuses the hot wallet or the batch contract (blacklisted)');
    // Recipients USDC refuses fail now and go back to payable; the others are still paid.
    const refused = lines.filter((l) => pre.blacklisted.has(getAddress(l.payoutAddress)));
    await this.outcomes.failLines(refused, 'recipient_blacklisted');
    lines = lines.filter((l) => !pre.blacklisted.has(getAddress(l.payoutAddress)));
    const totalMicroUsdc = lines.reduce((sum, l) => sum + l.amountMicroUsdc, 0n);
    if (pre.usdcMicroUsdc < totalMicroUsdc) {
      return this.hold(settlementId, `hot wallet holds ${formatMicroUsdc(pre.usdcMicroUsdc)} USDC, needs ${formatMicroUsdc(totalMicroUsdc)}`);
    }
    if (pre.allowanceMicroUsdc < totalMicroUsdc) return this.hold(settlementId, 'USDC allowance of the batch contract is too low');
    let nativeLeftWei = pre.nativeWei;
    for (let batch of chunk(lines, Math.min(this.config.SETTLEMENT_RECIPIENTS_PER_TX, PAYOUT_LINES_PER_BATCH_MAX))) {
      while (batch.length > 0) {
        await this.wallet.assertHeld();
        const signed = await this.sign(chain, settlementId, batch);
        if ('hold' in signed) return this.hold(settlementId, signed.hold);
        const costWei = signed.tx.gasLimit * signed.tx.maxFeePerGasWei;
        if (costWei > nativeLeftWei) return this.hold(settlementId, 'hot wallet native balance too low for gas');
        // A payee changed between the screen above and this commit: its line failed there, these
        // bytes are never broadcast, and the rest of the batch is signed again without it.
        const refusals = await this.outcomes.persistSigned(signed.tx, batch);
        if (refusals.length > 0) {
          this.logRefusals(settlementId, refusals);
          const refusedIds = new Set(refusals.map((r) => r.line.id));
          batch = batch.filter((l) => !refusedIds.has(l.id));
          continue;
        }
        nativeLeftWei -= costWei;
        await this.tracker.broadcast(signed.tx);
        break;
      }
    }
    return null;
  }

  private logRefusals(settlementId: string, refusals: readonly LineRefusal[]): void {
    for (const r of refusals) this.logger.warn(`settlement ${settlementId} line ${r.line.id} (${r.line.contributorId}) not sent: ${r.reason}: ${r.detail}`);
  }

  private async sign(chain: PayoutChainClient, settlementId: string, batch: SettlementLineRecord[]): Promise<{ tx: NewPayoutTx } | { hold: string }> {
    const batchId = batchIdFor(settlementId, batch.map((l) => l.id));
    const inUseNonceMax = await this.txs.maxNonceInUse(chain.hotWalletAddress);
    const nonce = Math.max(await chain.getPendingNonce(), inUseNonceMax === null ? 0 : inUseNonceMax + 1);
    try {
      const signed = await chain.prepareSignedBatch({
        batchId,
        nonce,
        lines: batch.map((l) => ({ recipient: l.payoutAddress, amountMicroUsdc: l.amountMicroUsdc })),
      });
      assert(signed.totalMicroUsdc === batch.reduce((sum, l) => sum + l.amountMicroUsdc, 0n), 'signed total differs from the lines');
      const tx: NewPayoutTx = {
        id: randomUUID(), settlementId, batchId, attempt: await this.txs.nextAttempt(batchId), fromAddress: chain.hotWalletAddress,
        nonce, signedRaw: signed.serializedTx, txHash: signed.txHash, maxFeePerGasWei: signed.maxFeePerGas,
        maxPriorityFeePerGasWei: signed.maxPriorityFeePerGas, gasLimit: signed.gasLimit, lineCount: batch.length,
      };
      return { tx };
    } catch (error) {
      // The batch would revert now (for example paused between pre-flight and estimate): wait.
      if (error instanceof PayoutChainError && error.code === 'simulation-failed') return { hold: error.message };
      throw error;
    }
  }

  private async preflight(chain: PayoutChainClient, lines: SettlementLineRecord[]): Promise<PreflightSummary> {
    const summary: PreflightSummary = { paused: false, senderBlacklisted: false, blacklisted: new Set(), usdcMicroUsdc: 0n, allowanceMicroUsdc: 0n, nativeWei: 0n };
    for (const part of chunk(lines, PAYOUT_LINES_PER_BATCH_MAX)) {
      const recipients: Address[] = part.map((l) => l.payoutAddress);
      const result = await chain.preflight({ recipients, totalMicroUsdc: part.reduce((sum, l) => sum + l.amountMicroUsdc, 0n) });
      summary.paused ||= result.paused;
      summary.senderBlacklisted ||= result.senderBlacklisted;
      for (const address of result.blacklisted) summary.blacklisted.add(getAddress(address));
      summary.usdcMicroUsdc = result.hotWalletUsdcMicroUsdc;
      summary.allowanceMicroUsdc = result.allowanceMicroUsdc;
      summary.nativeWei = result.hotWalletNativeWei;
    }
    return summary;
  }

  private async hold(settlementId: string, reason: string): Promise<SendOutcome> {
    this.logger.warn(`settlement ${settlementId} held: ${reason}`);
    await this.settlements.setLastError(settlementId, reason);
    return { kind: 'hold', reason, retryAfterMs: this.options.holdRetryMs };
  }
}

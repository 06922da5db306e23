// Timing and limits of the payout sender, injectable so tests can shorten the waits.
import { SETTLEMENT_FINALITY_EVERY_MS } from '../../../queue/jobs.js';

export const PAYOUT_SENDER_OPTIONS = Symbol('PAYOUT_SENDER_OPTIONS');

export interface PayoutSenderOptions {
  /** How often a pending transaction is looked up. */
  pollIntervalMs: number;
  /** How long one job waits for confirmations before it is put back (delayed) and resumed later. */
  confirmationWaitMs: number;
  /** A transaction pending this long gets a fee-bumped replacement (same nonce, same lines). */
  replaceAfterMs: number;
  /** Delay before a held settlement (paused token, low balance) is tried again. */
  holdRetryMs: number;
  /**
   * How long a send waits for the wallet's sender lock while another pass holds it (the finality
   * watch's pass holds it for a moment every SETTLEMENT_FINALITY_EVERY_MS).
   */
  walletWaitMs: number;
  /** Past that wait (another send holds the wallet), the job is tried again after about this long, jittered. */
  busyRetryMs: number;
  /** Replacement fees never go above this. */
  maxFeePerGasCapWei: bigint;
  /** While a send waits, how often its mined transactions are re-verified against reorganisations. */
  finalityCheckIntervalMs: number;
}

export const DEFAULT_PAYOUT_SENDER_OPTIONS: PayoutSenderOptions = {
  pollIntervalMs: 500,
  confirmationWaitMs: 5 * 60_000,
  replaceAfterMs: 3 * 60_000,
  holdRetryMs: 60_000,
  walletWaitMs: 5_000,
  busyRetryMs: 30_000,
  maxFeePerGasCapWei: 500n * 10n ** 9n,
  finalityCheckIntervalMs: SETTLEMENT_FINALITY_EVERY_MS,
};

/** Reverted payout transactions per settlement before its remaining lines go back to payable. */
export const REVERTED_TXS_PER_SETTLEMENT_MAX = 3;
/** Send rounds (submit, then wait) in one job; drops and reverts each cost one. */
export const SEND_ROUNDS_MAX = 10;
/** Attempts of one batch (the original plus fee bumps). */
export const BATCH_ATTEMPTS_MAX = 5;
/** Replacement fees: at least +12.5% on both fields (what nodes require to replace). */
export const FEE_BUMP_NUMERATOR = 1125n;
export const FEE_BUMP_DENOMINATOR = 1000n;

/**
 * A busy wallet's retry delay, uniform in [0.5, 1.5) x base: a fixed delay that is a multiple of
 * the finality watch's period met its pass at the same phase on every retry, and the send was
 * never taken (the soak, seed 2780419718). `random` is in [0, 1).
 */
export function busyRetryDelayMs(baseMs: number, random: number): number {
  // random * baseMs rounds up to baseMs for a random just below 1 (1 - 2^-53): keep the bound open.
  return Math.min(Math.floor(baseMs / 2 + random * baseMs), Math.ceil(baseMs * 1.5) - 1);
}

/** Both fee fields bumped by at least 12.5% (rounded up, and by at least 1 wei); null past the cap. */
export function bumpFees(input: { maxFeePerGasWei: bigint; maxPriorityFeePerGasWei: bigint; capWei: bigint }): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | null {
  const bump = (wei: bigint) => {
    const raised = (wei * FEE_BUMP_NUMERATOR + FEE_BUMP_DENOMINATOR - 1n) / FEE_BUMP_DENOMINATOR;
    return raised > wei ? raised : wei + 1n;
  };
  const maxFeePerGas = bump(input.maxFeePerGasWei);
  const maxPriorityFeePerGas = bump(input.maxPriorityFeePerGasWei);
  if (maxFeePerGas > input.capWei) return null;
  return { maxFeePerGas, maxPriorityFeePerGas: maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : maxPriorityFeePerGas };
}

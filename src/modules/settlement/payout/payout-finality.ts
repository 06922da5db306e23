// What a reorganisation did to a booked payout transaction, and what that means for its lines:
// pure, no I/O (the finality service reads the chain and applies the verdict).
import type { AttemptsOnChain } from './chain-outcome.js';

export type FinalityVerdict =
  /** The booked attempt is still in its block and that block is deep enough: stop watching. */
  | { kind: 'final' }
  /** Still in its block, not deep enough yet. */
  | { kind: 'unchanged' }
  /** An attempt of this nonce is mined in another block (re-included, or another attempt won). */
  | { kind: 'moved'; attemptIndex: number }
  /** An attempt waits in the pool, or another transaction took the nonce in a block not final yet. */
  | { kind: 'waiting' }
  /** Reorganised out, nothing in the pool, the nonce is free: send the booked bytes again. */
  | { kind: 'rebroadcast' }
  /** Reorganised out and the nonce used, in a final block, by a transaction that is none of ours. */
  | { kind: 'lost' };

/**
 * `seen` is what the chain did to the attempts of the booked nonce (the booked one and its
 * fee-bump siblings; see chain-outcome.ts). `finalNonce` is the wallet's nonce as of the block
 * `finalityBlocks` below the head: a nonce taken by another transaction counts as lost only once
 * that transaction is final too (until then a reorganisation may still free the nonce for our
 * bytes), so a booking is never reversed early.
 */
export function finalityVerdict(input: {
  seen: AttemptsOnChain;
  bookedIndex: number;
  bookedBlockHash: string | null;
  nonce: number;
  finalNonce: number;
  finalityBlocks: number;
}): FinalityVerdict {
  const { seen } = input;
  switch (seen.kind) {
    case 'mined': {
      const sameBlock = seen.attemptIndex === input.bookedIndex && input.bookedBlockHash !== null && seen.status.blockHash.toLowerCase() === input.bookedBlockHash.toLowerCase();
      if (!sameBlock) return { kind: 'moved', attemptIndex: seen.attemptIndex };
      return seen.status.confirmations >= input.finalityBlocks ? { kind: 'final' } : { kind: 'unchanged' };
    }
    case 'pending':
      return { kind: 'waiting' };
    case 'nonce_free':
      return { kind: 'rebroadcast' };
    case 'nonce_taken':
      return input.finalNonce > input.nonce ? { kind: 'lost' } : { kind: 'waiting' };
  }
}

export interface BookingDifferences {
  /** Booked as paid, not paid by the canonical chain: the booking must be reversed. */
  unpaidIndexes: number[];
  /** Paid by the canonical chain, not booked as paid: the sender cannot undo a payment. */
  unbookedIndexes: number[];
}

/**
 * Lines of the batch in encoding order, each booked paid or not, against what the canonical chain
 * paid now (`chainPaidIndexes`: none when the transaction reverted or is gone for good).
 */
export function bookingDifferences(input: { bookedPaid: readonly boolean[]; chainPaidIndexes: readonly number[] }): BookingDifferences {
  const chainPaid = new Set(input.chainPaidIndexes);
  const unpaidIndexes = input.bookedPaid.flatMap((paid, i) => (paid && !chainPaid.has(i) ? [i] : []));
  const unbookedIndexes = [...chainPaid].filter((i) => input.bookedPaid[i] !== true).sort((a, b) => a - b);
  return { unpaidIndexes, unbookedIndexes };
}

/** Never less than the confirmations that book a payout: below them nothing is booked yet. */
export function finalityDepthBlocks(config: { SETTLEMENT_CONFIRMATIONS: number; SETTLEMENT_FINALITY_BLOCKS: number }): number {
  return Math.max(config.SETTLEMENT_CONFIRMATIONS, config.SETTLEMENT_FINALITY_BLOCKS);
}

/** The newest block whose transactions have `finalityBlocks` confirmations (the head counts as 1). */
export function finalBlockNumber(headBlock: bigint, finalityBlocks: number): bigint {
  const block = headBlock + 1n - BigInt(finalityBlocks);
  return block > 0n ? block : 0n;
}

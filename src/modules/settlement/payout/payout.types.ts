// The payout sender's transactions: one row per signed attempt, persisted before it is broadcast.
import type { Address, Hex } from 'viem';

/** See prisma/migrations/20261129140000_settlement_payout_states for what each state proves. */
export type PayoutTxStatus = 'signed' | 'broadcast' | 'confirmed' | 'reverted' | 'dropped' | 'replaced';

export interface PayoutTxRecord {
  id: string;
  settlementId: string;
  /** bytes32 hex: the contract executes each batch id at most once. */
  batchId: Hex;
  attempt: number;
  fromAddress: Address;
  nonce: number;
  signedRaw: Hex;
  txHash: Hex;
  maxFeePerGasWei: bigint;
  maxPriorityFeePerGasWei: bigint;
  gasLimit: bigint;
  status: PayoutTxStatus;
  gasUsed: bigint | null;
  blockNumber: bigint | null;
  /** Block of the booked receipt; null while reorganised out (or never mined). */
  blockHash: Hex | null;
  /** Set once the block is SETTLEMENT_FINALITY_BLOCKS deep; a mined row without it is re-verified. */
  finalAt: Date | null;
  reorgCount: number;
  /** The chain paid more than the ledger booked after a reorganisation: an operator must look. */
  reorgConflict: string | null;
  lineCount: number;
  error: string | null;
  createdAt: Date;
}

// Settlement domain types: statuses from api.md plus the payout sender's transaction states.
import type { Address, Hex } from 'viem';

export const SETTLEMENT_STATUSES = ['pending_approval', 'queued', 'submitting', 'confirmed', 'partially_failed', 'failed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];
/** Statuses the partial unique index `settlements_one_open` allows only once at a time. */
export const OPEN_SETTLEMENT_STATUSES: readonly SettlementStatus[] = ['pending_approval', 'queued', 'submitting'];

export type LineStatus = 'queued' | 'submitted' | 'paid' | 'failed';
/** See prisma/migrations/20261129140000_settlement_payout_states for what each state proves. */
export type PayoutTxStatus = 'signed' | 'broadcast' | 'confirmed' | 'reverted' | 'dropped' | 'replaced';
/** Transactions that may still be mined: the sender must resolve them before signing anew. */
export const LIVE_TX_STATUSES: readonly PayoutTxStatus[] = ['signed', 'broadcast'];

export type SettlementTrigger = 'schedule' | 'admin';

/** Journal kinds, each with ref = settlement line id (one fact per line, idempotent). */
export const JOURNAL_SETTLEMENT_RESERVE = 'settlement_reserve';
export const JOURNAL_SETTLEMENT_PAID = 'settlement_paid';
export const JOURNAL_SETTLEMENT_FAILED = 'settlement_failed';
/** A paid line whose payment a reorganisation removed for good: paid back to payable. */
export const JOURNAL_SETTLEMENT_REORGED = 'settlement_reorged';

/** Why a line failed; the last two also flag the contributor until an admin clears it. */
export type LineFailureReason = 'tx_reverted' | 'recipient_blacklisted' | 'usdc_transfer_refused';
/** A paid line whose payment a reorganisation removed for good (its own transition: paid -> failed). */
export const LINE_FAILURE_REORGED_OUT = 'reorged_out';
export const FLAG_USDC_TRANSFER_REFUSED = 'usdc_transfer_refused';

export interface SettlementRecord {
  id: string;
  status: SettlementStatus;
  trigger: SettlementTrigger;
  payoutCount: number;
  totalMicroUsdc: bigint;
  requiresApproval: boolean;
  approvedBy: string | null;
  approvedAt: Date | null;
  reconciliation: unknown;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

export interface SettlementLineRecord {
  id: string;
  settlementId: string;
  lineIndex: number;
  contributorId: string;
  payoutAddress: Address;
  amountMicroUsdc: bigint;
  status: LineStatus;
  txId: string | null;
  txHash: Hex | null;
  failureReason: string | null;
  confirmedAt: Date | null;
  createdAt: Date;
}

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

/** A contributor that may be paid, with its payable balance read (or locked) from the ledger. */
export interface SettlementCandidate {
  contributorId: string;
  payoutAddress: Address;
  payableAtto: bigint;
}

export interface PlannedLine {
  contributorId: string;
  payoutAddress: Address;
  amountMicroUsdc: bigint;
}

// Settlement types: a settlement and its lines, statuses from api.md. The payout
// sender's transaction states are in ../payout/payout.types.ts.
import type { Address, Hex } from 'viem';
import type { SettlementLineKind } from '../../ledger/journal-kinds.js';

export const SETTLEMENT_STATUSES = ['pending_approval', 'queued', 'submitting', 'confirmed', 'partially_failed', 'failed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];
/** Statuses the partial unique index `settlements_one_open` allows only once at a time. */
export const OPEN_SETTLEMENT_STATUSES: readonly SettlementStatus[] = ['pending_approval', 'queued', 'submitting'];

export type LineStatus = 'queued' | 'submitted' | 'paid' | 'failed';

export type SettlementTrigger = 'schedule' | 'admin';

/** Journal kinds (the catalogue: ledger/journal-kinds.ts), each with ref = settlement line id (one fact per line, idempotent). */
export const JOURNAL_SETTLEMENT_RESERVE = 'settlement_reserve' satisfies SettlementLineKind;
export const JOURNAL_SETTLEMENT_PAID = 'settlement_paid' satisfies SettlementLineKind;
export const JOURNAL_SETTLEMENT_FAILED = 'settlement_failed' satisfies SettlementLineKind;
/** A paid line whose payment a reorganisation removed for good: paid back to payable. */
export const JOURNAL_SETTLEMENT_REORGED = 'settlement_reorged' satisfies SettlementLineKind;

/**
 * Why a line failed. The payee checks made when the line is sent (payout/payee-screen.ts):
 * `contributor_suspended`, `payout_address_changed` (paid to the new address by a later
 * settlement), `payout_address_refused` (zero, token, batch contract, hot wallet),
 * `payout_address_denylisted` (PAYOUT_DENYLIST_FILE), `recipient_blacklisted` (USDC isBlacklisted).
 * `usdc_transfer_refused`: the batch contract skipped it on chain. See FLAG_OF_FAILURE for which
 * ones flag the contributor until an admin clears it (or its address changes).
 */
export type LineFailureReason =
  | 'tx_reverted'
  | 'recipient_blacklisted'
  | 'usdc_transfer_refused'
  | 'contributor_suspended'
  | 'payout_address_changed'
  | 'payout_address_refused'
  | 'payout_address_denylisted'
  // Contributor trust (api.md): the line stays payable; nothing is flagged on the contributor.
  | 'address_unproven'
  | 'address_cooling_down'
  | 'under_review';
/** A paid line whose payment a reorganisation removed for good (its own transition: paid -> failed). */
export const LINE_FAILURE_REORGED_OUT = 'reorged_out';
export const FLAG_USDC_TRANSFER_REFUSED = 'usdc_transfer_refused';
/** The flag a failed line leaves on its contributor (when its address is still the line's); none: not flagged. */
export const FLAG_OF_FAILURE: Partial<Record<LineFailureReason, string>> = {
  recipient_blacklisted: FLAG_USDC_TRANSFER_REFUSED,
  usdc_transfer_refused: FLAG_USDC_TRANSFER_REFUSED,
  payout_address_refused: 'payout_address_refused',
  payout_address_denylisted: 'payout_address_denylisted',
};

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

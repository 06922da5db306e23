// API bodies (snake_case, money as decimal strings, checksummed addresses).
import { formatMicroUsdc } from '../../common/money/index.js';
import type { PayoutTxRecord } from './payout/payout.types.js';
import type { PlannedLine, SettlementLineRecord, SettlementRecord } from './statement/settlement.types.js';

export function settlementBody(s: SettlementRecord) {
  return {
    settlement_id: s.id,
    status: s.status,
    trigger: s.trigger,
    payout_count: s.payoutCount,
    total_usdc: formatMicroUsdc(s.totalMicroUsdc),
    total_micro_usdc: s.totalMicroUsdc.toString(),
    requires_approval: s.requiresApproval,
    approved_by: s.approvedBy,
    approved_at: s.approvedAt?.toISOString() ?? null,
    last_error: s.lastError,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
    completed_at: s.completedAt?.toISOString() ?? null,
  };
}

export function lineBody(l: SettlementLineRecord) {
  return {
    line_id: l.id,
    contributor_id: l.contributorId,
    payout_address: l.payoutAddress,
    amount_usdc: formatMicroUsdc(l.amountMicroUsdc),
    status: l.status,
    tx_hash: l.txHash,
    failure_reason: l.failureReason,
    confirmed_at: l.confirmedAt?.toISOString() ?? null,
  };
}

export function plannedLineBody(l: PlannedLine) {
  return { contributor_id: l.contributorId, payout_address: l.payoutAddress, amount_usdc: formatMicroUsdc(l.amountMicroUsdc) };
}

export function txBody(t: PayoutTxRecord) {
  return {
    tx_hash: t.txHash,
    nonce: t.nonce,
    attempt: t.attempt,
    batch_id: t.batchId,
    status: t.status,
    gas_used: t.gasUsed?.toString() ?? null,
    block_number: t.blockNumber?.toString() ?? null,
    block_hash: t.blockHash,
    final: t.finalAt !== null,
    reorg_count: t.reorgCount,
    reorg_conflict: t.reorgConflict,
    line_count: t.lineCount,
    max_fee_per_gas_wei: t.maxFeePerGasWei.toString(),
    error: t.error,
    created_at: t.createdAt.toISOString(),
  };
}

export function payoutBody(l: SettlementLineRecord) {
  return {
    payout_id: l.id,
    settlement_id: l.settlementId,
    amount_usdc: formatMicroUsdc(l.amountMicroUsdc),
    status: l.status,
    tx_hash: l.txHash,
    confirmed_at: l.confirmedAt?.toISOString() ?? null,
    failure_reason: l.failureReason,
  };
}

// API bodies (snake_case, money as decimal strings, checksummed addresses).
import { formatMicroUsdc } from '../../common/money/index.js';
import type { PayoutTxRecord } from './payout/payout.types.js';
import type { CreateSettlementResult } from './creation/settlement.service.js';
import type { PlannedLine, SettlementLineRecord, SettlementRecord } from './creation/settlement.types.js';

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

/** api.md's fields are `hash` and `block`; `tx_hash` and `block_number` stay beside them as aliases. */
export function txBody(t: PayoutTxRecord) {
  return {
    hash: t.txHash,
    tx_hash: t.txHash,
    nonce: t.nonce,
    attempt: t.attempt,
    batch_id: t.batchId,
    status: t.status,
    gas_used: t.gasUsed?.toString() ?? null,
    block: t.blockNumber?.toString() ?? null,
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

/** POST /v1/admin/settlements: created (201), a dry run (nothing moved) or nobody to pay (200 "empty"). */
export function createdSettlementBody(result: CreateSettlementResult) {
  if (result.kind === 'empty') return { settlement_id: null, status: 'empty', payout_count: 0, total_usdc: '0' };
  if (result.kind === 'dry_run') {
    const { plan } = result;
    return {
      settlement_id: null,
      status: 'dry_run',
      payout_count: plan.lines.length,
      total_usdc: formatMicroUsdc(plan.totalMicroUsdc),
      requires_approval: plan.requiresApproval,
      lines: plan.lines.map(plannedLineBody),
    };
  }
  return { ...settlementBody(result.settlement), lines: result.lines.map(plannedLineBody) };
}

export function settlementDetailBody(input: { settlement: SettlementRecord; lines: SettlementLineRecord[]; txs: PayoutTxRecord[] }) {
  const { settlement, lines, txs } = input;
  return { ...settlementBody(settlement), lines: lines.map(lineBody), transactions: txs.map(txBody), reconciliation: settlement.reconciliation ?? null };
}

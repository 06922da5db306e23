// Row -> record conversions at the repository boundary (NUMERIC arrives as text).
import { getAddress, type Hex } from 'viem';
import { toBigInt } from '../../../database/sql.js';
import type { LineStatus, SettlementLineRecord, SettlementRecord, SettlementStatus, SettlementTrigger } from './settlement.types.js';

export const SETTLEMENT_COLUMNS = `s.id, s.status, s.trigger, s.payout_count, s.total_micro_usdc, s.requires_approval, s.approved_by,
  s.approved_at, s.reconciliation, s.last_error, s.created_at, s.updated_at, s.completed_at,
  (extract(epoch from s.created_at) * 1000000)::bigint::text AS created_us`;

export interface SettlementRow {
  id: string;
  status: string;
  trigger: string;
  payout_count: number;
  total_micro_usdc: string;
  requires_approval: boolean;
  approved_by: string | null;
  approved_at: Date | null;
  reconciliation: unknown;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  created_us: string;
}

export function toSettlement(row: SettlementRow): SettlementRecord & { createdUs: string } {
  return {
    id: row.id,
    status: row.status as SettlementStatus,
    trigger: row.trigger as SettlementTrigger,
    payoutCount: row.payout_count,
    totalMicroUsdc: toBigInt(row.total_micro_usdc),
    requiresApproval: row.requires_approval,
    approvedBy: row.approved_by,
    approvedAt: row.approved_at,
    reconciliation: row.reconciliation,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    createdUs: row.created_us,
  };
}

export const LINE_COLUMNS = `l.id, l.settlement_id, l.line_index, l.contributor_id, l.payout_address, l.amount_micro_usdc, l.status,
  l.tx_id, t.tx_hash, l.failure_reason, l.confirmed_at, l.created_at,
  (extract(epoch from l.created_at) * 1000000)::bigint::text AS created_us`;

export interface LineRow {
  id: string;
  settlement_id: string;
  line_index: number;
  contributor_id: string;
  payout_address: string;
  amount_micro_usdc: string;
  status: string;
  tx_id: string | null;
  tx_hash: string | null;
  failure_reason: string | null;
  confirmed_at: Date | null;
  created_at: Date;
  created_us: string;
}

export function toLine(row: LineRow): SettlementLineRecord & { createdUs: string } {
  return {
    id: row.id,
    settlementId: row.settlement_id,
    lineIndex: row.line_index,
    contributorId: row.contributor_id,
    payoutAddress: getAddress(row.payout_address),
    amountMicroUsdc: toBigInt(row.amount_micro_usdc),
    status: row.status as LineStatus,
    txId: row.tx_id,
    txHash: row.tx_hash as Hex | null,
    failureReason: row.failure_reason,
    confirmedAt: row.confirmed_at,
    createdAt: row.created_at,
    createdUs: row.created_us,
  };
}

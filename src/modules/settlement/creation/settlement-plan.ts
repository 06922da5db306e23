// Which contributors a settlement pays and how much: pure functions, no I/O.
import { ATTO_PER_MICRO_USDC, splitAttoToMicroUsdc } from '../../../common/money/index.js';
import type { AppConfig } from '../../../config/index.js';
import { contributorPayable } from '../../ledger/account-codes.js';
import type { PlannedLine, SettlementCandidate } from './settlement.types.js';

/** Bounds the rows locked in one creating transaction; the rest wait for the next settlement. */
export const SETTLEMENT_LINES_MAX = 10_000;

export interface SettlementLimits {
  minPayoutAtto: bigint;
  lineMaxMicroUsdc: bigint;
  totalMaxMicroUsdc: bigint;
  approvalThresholdAtto: bigint;
  linesMax: number;
}

export function settlementLimits(config: AppConfig): SettlementLimits {
  // The USD settings are parsed with at most 6 decimals, so these divisions are exact.
  return {
    minPayoutAtto: config.SETTLEMENT_MIN_PAYOUT_ATTO,
    lineMaxMicroUsdc: config.SETTLEMENT_LINE_MAX_ATTO / ATTO_PER_MICRO_USDC,
    totalMaxMicroUsdc: config.SETTLEMENT_TOTAL_MAX_ATTO / ATTO_PER_MICRO_USDC,
    approvalThresholdAtto: config.SETTLEMENT_APPROVAL_THRESHOLD_ATTO,
    linesMax: SETTLEMENT_LINES_MAX,
  };
}

export type LineDecision = { kind: 'add'; amountMicroUsdc: bigint } | { kind: 'skip' } | { kind: 'stop' };

/**
 * One contributor: pay the payable truncated to whole micro-USDC, capped per line (the rest,
 * like the sub-micro remainder, stays payable). Stop once the settlement total would pass its cap.
 */
export function decideLine(input: { payableAtto: bigint; totalSoFarMicroUsdc: bigint; linesSoFar: number; limits: SettlementLimits }): LineDecision {
  const { payableAtto, totalSoFarMicroUsdc, linesSoFar, limits } = input;
  if (linesSoFar >= limits.linesMax) return { kind: 'stop' };
  if (payableAtto < limits.minPayoutAtto || payableAtto <= 0n) return { kind: 'skip' };
  const { amountMicroUsdc: truncatedMicroUsdc } = splitAttoToMicroUsdc(payableAtto);
  const amountMicroUsdc = truncatedMicroUsdc < limits.lineMaxMicroUsdc ? truncatedMicroUsdc : limits.lineMaxMicroUsdc;
  if (amountMicroUsdc <= 0n) return { kind: 'skip' };
  if (totalSoFarMicroUsdc + amountMicroUsdc > limits.totalMaxMicroUsdc) return { kind: 'stop' };
  return { kind: 'add', amountMicroUsdc };
}

export function requiresApproval(totalMicroUsdc: bigint, limits: SettlementLimits): boolean {
  return totalMicroUsdc * ATTO_PER_MICRO_USDC > limits.approvalThresholdAtto;
}

/** Code order of the payable accounts: the order every writer locks them in (no deadlocks). */
export function byPayableAccountCode(a: { contributorId: string }, b: { contributorId: string }): number {
  const codeA = contributorPayable(a.contributorId);
  const codeB = contributorPayable(b.contributorId);
  return codeA < codeB ? -1 : codeA > codeB ? 1 : 0;
}

export interface SettlementPlan {
  lines: PlannedLine[];
  totalMicroUsdc: bigint;
  requiresApproval: boolean;
}

/** The whole plan over balances already read (dry run; the real run decides line by line under locks). */
export function planSettlement(input: { candidates: readonly SettlementCandidate[]; limits: SettlementLimits }): SettlementPlan {
  const lines: PlannedLine[] = [];
  let totalMicroUsdc = 0n;
  for (const candidate of [...input.candidates].sort(byPayableAccountCode)) {
    const decision = decideLine({ payableAtto: candidate.payableAtto, totalSoFarMicroUsdc: totalMicroUsdc, linesSoFar: lines.length, limits: input.limits });
    if (decision.kind === 'stop') break;
    if (decision.kind === 'skip') continue;
    lines.push({ contributorId: candidate.contributorId, payoutAddress: candidate.payoutAddress, amountMicroUsdc: decision.amountMicroUsdc });
    totalMicroUsdc += decision.amountMicroUsdc;
  }
  return { lines, totalMicroUsdc, requiresApproval: requiresApproval(totalMicroUsdc, input.limits) };
}

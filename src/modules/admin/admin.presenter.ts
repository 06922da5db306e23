// api.md bodies of the admin reads: money as decimal strings, counts as JSON integers.
import { getAddress } from 'viem';
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { AuditRecord } from '../audit/audit.service.js';
import { contributorBalancesOf, contributorBalancesToJson } from '../earnings/contributor-balances.js';
import { toJsonInteger } from '../earnings/earnings-report.js';
import type { ContributorBalanceRow } from '../ledger/ledger.service.js';
import type { AdminOverview, AdminService } from './admin.service.js';
import type { AdjustmentRecord } from './contributor-adjustments.repository.js';

/** Addresses are shown checksummed (EIP-55); a stored value that is not an address is shown as is. */
function checksummed(address: string): string {
  try {
    return getAddress(address);
  } catch {
    return address;
  }
}

export function contributorToJson(row: ContributorBalanceRow) {
  return {
    id: row.id,
    tier: row.tier,
    status: row.status,
    payout_address: checksummed(row.payoutAddress),
    balances: contributorBalancesToJson(contributorBalancesOf(row)),
    // A clawback after payout leaves payable below zero: the debt later earnings net first.
    debt_usd: formatAttoAsUsd(row.payableAtto < 0n ? -row.payableAtto : 0n),
  };
}

export function contributorPageBody(page: { rows: ContributorBalanceRow[]; nextCursor: string | null }) {
  return { data: page.rows.map(contributorToJson), next_cursor: page.nextCursor };
}

export function auditLogBody(page: { records: AuditRecord[]; nextCursor: string | null }) {
  return {
    data: page.records.map((r) => ({
      id: r.id.toString(),
      actor_id: r.actorId,
      actor_role: r.actorRole,
      action: r.action,
      target: r.target,
      before: r.before ?? null,
      after: r.after ?? null,
      created_at: r.createdAt.toISOString(),
    })),
    next_cursor: page.nextCursor,
  };
}

export function overviewBody(o: AdminOverview) {
  return {
    charged_usd: formatAttoAsUsd(o.chargedAtto),
    revenue_usd: formatAttoAsUsd(o.marginAtto),
    breakage_usd: formatAttoAsUsd(o.breakageAtto),
    refunded_usd: formatAttoAsUsd(o.refundedAtto),
    users_balance_usd: formatAttoAsUsd(o.usersBalanceAtto),
    granted_usd: formatAttoAsUsd(o.usersGrantedAtto),
    held_usd: formatAttoAsUsd(o.usersHeldAtto),
    contributors_pending_usd: formatAttoAsUsd(o.pendingAtto),
    contributors_payable_usd: formatAttoAsUsd(o.payableAtto),
    in_settlement_usd: formatAttoAsUsd(o.inSettlementAtto),
    paid_usd: formatAttoAsUsd(o.paidAtto),
    unpriced_events: toJsonInteger(o.unpricedEvents),
    hot_wallet: o.hotWallet,
    last_settlement: o.lastSettlement,
  };
}

export function adjustmentBody(record: AdjustmentRecord) {
  return {
    contributor_id: record.contributorId,
    reference: record.reference,
    amount_usd: formatAttoAsUsd(record.amountAtto),
    reason: record.reason,
    payable_usd: formatAttoAsUsd(record.payableAfterAtto),
    created_at: record.createdAt.toISOString(),
  };
}

export function overviewDailyBody(o: Awaited<ReturnType<AdminService['overviewDaily']>>) {
  return {
    from: o.from,
    to: o.to,
    rows: o.rows.map((r) => ({
      day: r.day,
      charged_usd: formatAttoAsUsd(r.chargedAtto),
      revenue_usd: formatAttoAsUsd(r.marginAtto),
      earned_usd: formatAttoAsUsd(r.earnedAtto),
      paid_usd: formatAttoAsUsd(r.paidAtto),
    })),
  };
}

// The webhook events of settlements and payouts (docs/webhooks.md), built from records. Pure.
// Each is announced in the transaction that makes its fact true, with a dedupe key so a repeated
// run (a retried job) announces nothing twice.
import { formatMicroUsdc } from '../../../common/money/index.js';
import type { WebhookEventInput } from '../../webhooks/webhook-outbox.service.js';
import type { LineStatus, SettlementRecord, SettlementStatus } from './settlement.types.js';

type SettlementEventType = 'settlement.created' | 'settlement.pending_approval' | 'settlement.confirmed' | 'settlement.partially_failed' | 'settlement.failed';
type PayoutEventType = 'payout.paid' | 'payout.failed' | 'payout.reorged';

export interface WebhookLine {
  id: string;
  settlementId: string;
  contributorId: string;
  payoutAddress: string;
  amountMicroUsdc: bigint;
  status: LineStatus;
  txHash: string | null;
}

const FINISHED_TYPES: Partial<Record<SettlementStatus, SettlementEventType>> = {
  confirmed: 'settlement.confirmed',
  partially_failed: 'settlement.partially_failed',
  failed: 'settlement.failed',
};

export function finishedEventType(status: SettlementStatus): SettlementEventType | null {
  return FINISHED_TYPES[status] ?? null;
}

/**
 * One event for admin endpoints (totals) and one per line for that line's contributor (its own
 * line only: other contributors' amounts are not its business).
 */
export function settlementEvents(type: SettlementEventType, settlement: SettlementRecord, lines: readonly WebhookLine[], at: Date): WebhookEventInput[] {
  const counts = { paid_count: lines.filter((l) => l.status === 'paid').length, failed_count: lines.filter((l) => l.status === 'failed').length };
  const finished = finishedEventType(settlement.status) !== null;
  const admin: WebhookEventInput = {
    type,
    data: {
      settlement_id: settlement.id,
      status: settlement.status,
      trigger: settlement.trigger,
      payout_count: settlement.payoutCount,
      total_usdc: formatMicroUsdc(settlement.totalMicroUsdc),
      ...(finished ? counts : {}),
    },
    occurredAt: at,
    dedupeKey: `${type}:${settlement.id}`,
  };
  const perContributor = lines.map(
    (line): WebhookEventInput => ({
      type,
      data: {
        settlement_id: settlement.id,
        status: settlement.status,
        line: { payout_id: line.id, contributor_id: line.contributorId, payout_address: line.payoutAddress, amount_usdc: formatMicroUsdc(line.amountMicroUsdc), status: line.status },
      },
      occurredAt: at,
      contributorId: line.contributorId,
      forAdmin: false,
      dedupeKey: `${type}:${settlement.id}:${line.id}`,
    }),
  );
  return [admin, ...perContributor];
}

/** One event per line, for admin endpoints and the line's contributor. */
export function payoutEvents(type: PayoutEventType, lines: readonly WebhookLine[], at: Date, reason: string | null): WebhookEventInput[] {
  return lines.map((line) => ({
    type,
    data: {
      payout_id: line.id,
      settlement_id: line.settlementId,
      contributor_id: line.contributorId,
      payout_address: line.payoutAddress,
      amount_usdc: formatMicroUsdc(line.amountMicroUsdc),
      tx_hash: line.txHash,
      reason,
    },
    occurredAt: at,
    contributorId: line.contributorId,
    dedupeKey: `${type}:${line.id}`,
  }));
}

// api.md bodies of refunds: money as decimal strings.
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { RefundRecord } from './refunds.repository.js';

export function refundBody(r: RefundRecord) {
  return {
    refund_id: r.refundId,
    event_id: r.eventId,
    user_id: r.userId,
    contributor_id: r.contributorId,
    model: r.model,
    amount_usd: formatAttoAsUsd(r.amountAtto),
    contributor_clawback_usd: formatAttoAsUsd(r.clawbackAtto),
    margin_reversed_usd: formatAttoAsUsd(r.marginReversedAtto),
    refunded_total_usd: formatAttoAsUsd(r.refundedTotalAtto),
    clawed_back_total_usd: formatAttoAsUsd(r.clawbackTotalAtto),
    reason: r.reason,
    journal_entry_id: r.journalEntryId.toString(),
    created_at: r.createdAt.toISOString(),
  };
}

export function refundPageBody(page: { refunds: RefundRecord[]; nextCursor: string | null }) {
  return { data: page.refunds.map(refundBody), next_cursor: page.nextCursor };
}

// Pure: how a refund part of a priced event splits between the contributor and the platform.
// api.md: after each refund, total clawback = floor(refunded_total x payout / charge) in atto-USD.
import { assert } from '../../common/errors/index.js';

export interface EventAmounts {
  chargeAtto: bigint;
  payoutAtto: bigint;
}

export interface RefundSplit {
  amountAtto: bigint;
  clawbackAtto: bigint;
  marginReversedAtto: bigint;
  refundedTotalAtto: bigint;
  clawbackTotalAtto: bigint;
}

export type RefundDecision = { ok: true; split: RefundSplit } | { ok: false; code: 'refund_exceeds_charge'; refundableAtto: bigint };

/** Cumulative clawback after refundedTotal of the charge has been refunded. */
export function clawbackTotal(event: EventAmounts, refundedTotalAtto: bigint): bigint {
  assert(event.chargeAtto > 0n, 'only a positive charge can be refunded');
  assert(refundedTotalAtto >= 0n && refundedTotalAtto <= event.chargeAtto, 'refunded total within the charge');
  return (refundedTotalAtto * event.payoutAtto) / event.chargeAtto; // bigint division floors non-negatives
}

/**
 * The next part: `requestedAtto` null means everything not refunded yet. Refuses (without
 * throwing) a part that is zero or would take the refunded total past the charge.
 */
export function planRefund(event: EventAmounts, refundedBeforeAtto: bigint, requestedAtto: bigint | null): RefundDecision {
  assert(event.payoutAtto >= 0n && event.payoutAtto <= event.chargeAtto, 'payout within the charge');
  const refundableAtto = event.chargeAtto - refundedBeforeAtto;
  const amountAtto = requestedAtto ?? refundableAtto;
  if (amountAtto <= 0n || amountAtto > refundableAtto) return { ok: false, code: 'refund_exceeds_charge', refundableAtto };
  const refundedTotalAtto = refundedBeforeAtto + amountAtto;
  const before = clawbackTotal(event, refundedBeforeAtto);
  const after = clawbackTotal(event, refundedTotalAtto);
  const clawbackAtto = after - before;
  return { ok: true, split: { amountAtto, clawbackAtto, marginReversedAtto: amountAtto - clawbackAtto, refundedTotalAtto, clawbackTotalAtto: after } };
}

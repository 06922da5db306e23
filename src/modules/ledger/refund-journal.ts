// Journal entry kinds of corrections (issue 16), for every reader of the journal (statements,
// the ledger check, the console): a refund is a new entry, never an edit of the usage entry.
//
//   kind 'refund', ref 'refund:<refund_id>' (one entry per refund part), postings:
//     user:<user>                      +amount          credit back to the user
//     contributor:<id>:pending         -from pending    only with PAYOUT_MATURITY_DAYS, when the event's
//                                                      earnings are still maturing (pending first)
//     contributor:<id>:payable         -(clawback - from pending)   the contributor gives back its share
//                                                      (may take payable below zero: a debt netted later)
//     platform:revenue                 -(amount - clawback)   the margin reversed
//
// The contributor's clawback of a part is total_after - total_before with
// total = floor(refunded_total x payout / charge) (refund-math.ts), so the parts of a full refund
// claw back exactly the event's payout and reverse exactly its margin.
// A top-up chargeback is the existing kind 'adjustment' (negative user credit, reason required).
import { assert } from '../../common/errors/index.js';
import { contributorPayable, contributorPending, PLATFORM_REVENUE, userAccount } from './account-codes.js';
import type { JournalDraft } from './journal-draft.js';

export const REFUND_JOURNAL_KIND = 'refund';

export const refundJournalRef = (refundId: string) => `refund:${refundId}`;

export interface RefundPostingInput {
  refundId: string;
  eventId: string;
  userId: string;
  contributorId: string;
  amountAtto: bigint;
  clawbackAtto: bigint;
  /** The part of the clawback taken from the pending account (0 without maturity). */
  clawbackPendingAtto?: bigint;
  reason: string;
}

export function refundJournalDraft(input: RefundPostingInput): JournalDraft {
  assert(input.amountAtto > 0n, 'a refund moves a positive amount');
  assert(input.clawbackAtto >= 0n && input.clawbackAtto <= input.amountAtto, 'a clawback is between zero and the refunded amount');
  const fromPending = input.clawbackPendingAtto ?? 0n;
  assert(fromPending >= 0n && fromPending <= input.clawbackAtto, 'the pending part is within the clawback');
  return {
    kind: REFUND_JOURNAL_KIND,
    ref: refundJournalRef(input.refundId),
    memo: `event ${input.eventId}: ${input.reason}`.slice(0, 500),
    postings: [
      { accountCode: userAccount(input.userId), amountAtto: input.amountAtto },
      ...(fromPending > 0n ? [{ accountCode: contributorPending(input.contributorId), amountAtto: -fromPending }] : []),
      { accountCode: contributorPayable(input.contributorId), amountAtto: -(input.clawbackAtto - fromPending) },
      { accountCode: PLATFORM_REVENUE, amountAtto: -(input.amountAtto - input.clawbackAtto) },
    ],
  };
}

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
// The kind, its ref format and the builder are in the journal catalogue (journal-kinds.ts).
import { refundDraft, refundRef, type JournalKind } from './journal-kinds.js';

export type { RefundPostingInput } from './journal-kinds.js';
export const REFUND_JOURNAL_KIND = 'refund' satisfies JournalKind;
export const refundJournalRef = refundRef;
export const refundJournalDraft = refundDraft;

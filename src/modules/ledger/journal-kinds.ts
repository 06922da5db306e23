// Every journal kind in one place, as src/queue/jobs.ts is for jobs: the kind, the format of its
// ref (the fact it books once: unique (kind, ref)) and the pure builder of its postings. Builders
// take ledger-owned inputs only (ids and atto amounts), never a caller's types, so every module
// may import this file and it imports nothing above the ledger. Readers of the journal
// (statements, the ledger check, the console) read kinds and ref formats from here.
//
//   kind                ref                                   postings (credit-positive)
//   usage               <event_id>                            user -charge, contributor payable|pending +payout, platform:revenue +margin
//   topup               user_credit:<reference>               user +amount, external:funding -amount
//   adjustment          user_credit:<reference>               user -amount (negative credit), platform:adjustments +amount
//                       contributor_adjustment:<reference>    contributor payable +amount (signed), platform:adjustments -amount
//   refund              refund:<refund_id>                    see refundDraft
//   earnings_matured    <contributor_id>:<YYYY-MM-DD>         contributor pending -amount, payable +amount
//   settlement_reserve  <settlement_line_id>                  payable -> in_settlement
//   settlement_paid     <settlement_line_id>                  in_settlement -> paid
//   settlement_failed   <settlement_line_id>                  in_settlement -> payable
//   settlement_reorged  <settlement_line_id>                  paid -> payable
//
// There is no CHECK constraint listing kinds in the database; the type below is the list, and a
// Record<JournalKind, ...> (e.g. the statement mapping) makes the compiler ask about a new kind.
import { assert } from '../../common/errors/index.js';
import {
  contributorInSettlement,
  contributorPaid,
  contributorPayable,
  contributorPending,
  EXTERNAL_FUNDING,
  PLATFORM_ADJUSTMENTS,
  PLATFORM_REVENUE,
  userAccount,
} from './account-codes.js';

export const JOURNAL_KINDS = [
  'usage',
  'topup',
  'adjustment',
  'refund',
  'earnings_matured',
  'settlement_reserve',
  'settlement_paid',
  'settlement_failed',
  'settlement_reorged',
] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

export const isJournalKind = (value: string): value is JournalKind => (JOURNAL_KINDS as readonly string[]).includes(value);

export interface Posting {
  accountCode: string;
  /** Signed, credit-positive. */
  amountAtto: bigint;
}

export interface JournalDraft {
  kind: JournalKind;
  /** Idempotency key of the fact (event id, top-up reference, settlement line id...). */
  ref: string;
  postings: Posting[];
  memo?: string;
}

/** Memos are stored as text of at most this many characters. */
const MEMO_CHARS_MAX = 500;

// ---- ref formats. The prefixes are exported for readers that build refs in SQL (statements).

/** Users' credits and contributors' adjustments share kind 'adjustment': their refs are namespaced. */
export const USER_CREDIT_REF_PREFIX = 'user_credit:';
export const CONTRIBUTOR_ADJUSTMENT_REF_PREFIX = 'contributor_adjustment:';
export const REFUND_REF_PREFIX = 'refund:';

export const usageRef = (eventId: string) => eventId;
export const userCreditRef = (reference: string) => `${USER_CREDIT_REF_PREFIX}${reference}`;
export const contributorAdjustmentRef = (reference: string) => `${CONTRIBUTOR_ADJUSTMENT_REF_PREFIX}${reference}`;
export const refundRef = (refundId: string) => `${REFUND_REF_PREFIX}${refundId}`;
export const earningsMaturedRef = (contributorId: string, maturedThroughDay: string) => `${contributorId}:${maturedThroughDay}`;
/** One fact per settlement line and step: the line id. */
export const settlementLineRef = (lineId: string) => lineId;

/** The kinds booked per settlement line (ref = line id). */
export const SETTLEMENT_LINE_KINDS = ['settlement_reserve', 'settlement_paid', 'settlement_failed', 'settlement_reorged'] as const satisfies readonly JournalKind[];
export type SettlementLineKind = (typeof SETTLEMENT_LINE_KINDS)[number];

// ---- builders

/** One priced usage event: the user pays the charge, split payout + margin. */
export function usageDraft(input: {
  eventId: string;
  userId: string;
  contributorId: string;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
  /** PAYOUT_MATURITY_DAYS > 0: the payout is credited to the contributor's pending account. */
  payoutMaturing?: boolean;
}): JournalDraft {
  return {
    kind: 'usage',
    ref: usageRef(input.eventId),
    postings: [
      { accountCode: userAccount(input.userId), amountAtto: -input.chargeAtto },
      { accountCode: (input.payoutMaturing ? contributorPending : contributorPayable)(input.contributorId), amountAtto: input.payoutAtto },
      { accountCode: PLATFORM_REVENUE, amountAtto: input.marginAtto },
    ],
  };
}

/** A user's credit: positive is a top-up (from external funding), negative an adjustment. */
export function userCreditDraft(input: { reference: string; userId: string; amountAtto: bigint; memo?: string }): JournalDraft {
  const topup = input.amountAtto > 0n;
  return {
    kind: topup ? 'topup' : 'adjustment',
    ref: userCreditRef(input.reference),
    ...(input.memo === undefined ? {} : { memo: input.memo }),
    postings: [
      { accountCode: userAccount(input.userId), amountAtto: input.amountAtto },
      { accountCode: topup ? EXTERNAL_FUNDING : PLATFORM_ADJUSTMENTS, amountAtto: -input.amountAtto },
    ],
  };
}

/** An admin's adjustment of a contributor's payable (signed) against platform:adjustments. */
export function contributorAdjustmentDraft(input: { reference: string; contributorId: string; amountAtto: bigint; memo: string }): JournalDraft {
  return {
    kind: 'adjustment',
    ref: contributorAdjustmentRef(input.reference),
    postings: [
      { accountCode: contributorPayable(input.contributorId), amountAtto: input.amountAtto },
      { accountCode: PLATFORM_ADJUSTMENTS, amountAtto: -input.amountAtto },
    ],
    memo: input.memo,
  };
}

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

/**
 * One refund part (refund-journal.ts explains the split):
 *   user:<user> +amount, contributor:<id>:pending -from pending (only when maturing),
 *   contributor:<id>:payable -(clawback - from pending), platform:revenue -(amount - clawback).
 */
export function refundDraft(input: RefundPostingInput): JournalDraft {
  assert(input.amountAtto > 0n, 'a refund moves a positive amount');
  assert(input.clawbackAtto >= 0n && input.clawbackAtto <= input.amountAtto, 'a clawback is between zero and the refunded amount');
  const fromPending = input.clawbackPendingAtto ?? 0n;
  assert(fromPending >= 0n && fromPending <= input.clawbackAtto, 'the pending part is within the clawback');
  return {
    kind: 'refund',
    ref: refundRef(input.refundId),
    memo: `event ${input.eventId}: ${input.reason}`.slice(0, MEMO_CHARS_MAX),
    postings: [
      { accountCode: userAccount(input.userId), amountAtto: input.amountAtto },
      ...(fromPending > 0n ? [{ accountCode: contributorPending(input.contributorId), amountAtto: -fromPending }] : []),
      { accountCode: contributorPayable(input.contributorId), amountAtto: -(input.clawbackAtto - fromPending) },
      { accountCode: PLATFORM_REVENUE, amountAtto: -(input.amountAtto - input.clawbackAtto) },
    ],
  };
}

/** What has matured moves pending -> payable, once per contributor and last matured day. */
export function earningsMaturedDraft(input: { contributorId: string; maturedThroughDay: string; amountAtto: bigint }): JournalDraft {
  assert(input.amountAtto > 0n, 'a maturity moves a positive amount');
  return {
    kind: 'earnings_matured',
    ref: earningsMaturedRef(input.contributorId, input.maturedThroughDay),
    memo: `earnings through ${input.maturedThroughDay} matured`,
    postings: [
      { accountCode: contributorPending(input.contributorId), amountAtto: -input.amountAtto },
      { accountCode: contributorPayable(input.contributorId), amountAtto: input.amountAtto },
    ],
  };
}

/** Which two of the contributor's accounts each settlement step moves a line's amount between. */
const SETTLEMENT_LINE_ACCOUNTS: Record<SettlementLineKind, { from: (contributorId: string) => string; to: (contributorId: string) => string }> = {
  settlement_reserve: { from: contributorPayable, to: contributorInSettlement },
  settlement_paid: { from: contributorInSettlement, to: contributorPaid },
  settlement_failed: { from: contributorInSettlement, to: contributorPayable },
  settlement_reorged: { from: contributorPaid, to: contributorPayable },
};

/** One settlement line's amount moved by one step (ref = line id: one fact per line and step). */
export function settlementLineDraft(kind: SettlementLineKind, input: { lineId: string; contributorId: string; amountAtto: bigint }): JournalDraft {
  const accounts = SETTLEMENT_LINE_ACCOUNTS[kind];
  return {
    kind,
    ref: settlementLineRef(input.lineId),
    postings: [
      { accountCode: accounts.from(input.contributorId), amountAtto: -input.amountAtto },
      { accountCode: accounts.to(input.contributorId), amountAtto: input.amountAtto },
    ],
  };
}

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
//   grant               user_credit:<reference>               grant:<grant_id> +amount, platform:promotions -amount
//   grant_use           <event_id>                            grant:<id> -draw (each, earliest expiry first), user +sum of draws
//   grant_breakage      <grant_id>                            grant:<id> -remainder, platform:revenue +remainder
//   grant_refund        refund:<refund_id>                    user -(grant part of a refund), grant:<id> +back (open grants), platform:revenue +rest (broken grants)
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
  grantAccount,
  PLATFORM_ADJUSTMENTS,
  PLATFORM_PROMOTIONS,
  PLATFORM_REVENUE,
  userAccount,
} from './account-codes.js';

export const JOURNAL_KINDS = [
  'usage',
  'topup',
  'adjustment',
  'refund',
  'grant',
  'grant_use',
  'grant_breakage',
  'grant_refund',
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

/** A credit grant: its own account funded by the platform (promotions); ref as the user's credits. */
export function grantDraft(input: { reference: string; grantId: string; amountAtto: bigint; memo?: string }): JournalDraft {
  assert(input.amountAtto > 0n, 'a grant is a positive amount');
  return {
    kind: 'grant',
    ref: userCreditRef(input.reference),
    ...(input.memo === undefined ? {} : { memo: input.memo }),
    postings: [
      { accountCode: grantAccount(input.grantId), amountAtto: input.amountAtto },
      { accountCode: PLATFORM_PROMOTIONS, amountAtto: -input.amountAtto },
    ],
  };
}

/**
 * What grants paid of one event's charge (the usage entry itself is unchanged: the user's
 * account pays the charge, this entry moves the draws from the grants back to it).
 */
export function grantUseDraft(input: { eventId: string; userId: string; draws: ReadonlyArray<{ grantId: string; amountAtto: bigint }> }): JournalDraft {
  let total = 0n;
  const postings: Posting[] = [];
  for (const draw of input.draws) {
    assert(draw.amountAtto > 0n, 'a grant draw is a positive amount');
    total += draw.amountAtto;
    postings.push({ accountCode: grantAccount(draw.grantId), amountAtto: -draw.amountAtto });
  }
  postings.push({ accountCode: userAccount(input.userId), amountAtto: total });
  return { kind: 'grant_use', ref: usageRef(input.eventId), postings };
}

/** What was left of an expired grant becomes the platform's revenue (breakage), once per grant. */
export function grantBreakageDraft(input: { grantId: string; amountAtto: bigint }): JournalDraft {
  assert(input.amountAtto > 0n, 'breakage moves a positive amount');
  return {
    kind: 'grant_breakage',
    ref: input.grantId,
    memo: `grant ${input.grantId} expired`.slice(0, MEMO_CHARS_MAX),
    postings: [
      { accountCode: grantAccount(input.grantId), amountAtto: -input.amountAtto },
      { accountCode: PLATFORM_REVENUE, amountAtto: input.amountAtto },
    ],
  };
}

/**
 * The part of a refund that grants had paid: taken back from the user's account (the refund
 * entry credited all of it there) to the grants still open, or to revenue for a grant already
 * broken. Promotional credit never becomes purchased credit.
 */
export function grantRefundDraft(input: { refundId: string; userId: string; parts: ReadonlyArray<{ grantId: string; amountAtto: bigint; broken: boolean }> }): JournalDraft {
  let total = 0n;
  let toRevenue = 0n;
  const postings: Posting[] = [];
  for (const part of input.parts) {
    assert(part.amountAtto > 0n, 'a grant refund part is a positive amount');
    total += part.amountAtto;
    if (part.broken) toRevenue += part.amountAtto;
    else postings.push({ accountCode: grantAccount(part.grantId), amountAtto: part.amountAtto });
  }
  if (toRevenue > 0n) postings.push({ accountCode: PLATFORM_REVENUE, amountAtto: toRevenue });
  postings.unshift({ accountCode: userAccount(input.userId), amountAtto: -total });
  return { kind: 'grant_refund', ref: refundRef(input.refundId), postings };
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

// Pure: a contributor's monthly statement from the facts the repository read in one snapshot.
// No Nest, no I/O. Money is bigint atto-USD; the presenters format it.
//
// The balance a statement follows is what the platform owes the contributor: the sum of its
// ledger accounts except `paid` (payable + in_settlement). Every journal entry that touches those
// accounts changes it by the sum of its postings there; entries that only move money between them
// (settlement_reserve, settlement_failed) change nothing and are not lines. So
//   closing = opening + earned - clawed_back + adjustments - paid
// holds by construction, and is asserted again on the figures.
import { assert } from '../../common/errors/index.js';
import { ATTO_PER_MICRO_USDC } from '../../common/money/index.js';
import { isJournalKind, SETTLEMENT_LINE_KINDS, type JournalKind, type SettlementLineKind } from '../ledger/journal-kinds.js';
import { hasMonthEnded, type StatementMonth } from './statement-month.js';

/** What a booked journal entry is to the contributor. */
export type BookedKind = 'payout' | 'payout_reversed' | 'adjustment' | 'clawback';

/**
 * What each journal kind is on a statement; null: not a line (usage is read from the rollup; the
 * others only move money within what is owed, or do not touch a contributor). A Record over every
 * kind, so a new kind in the catalogue must be placed here.
 */
export const BOOKED_KIND_BY_JOURNAL_KIND: Readonly<Record<JournalKind, BookedKind | null>> = Object.freeze({
  usage: null,
  topup: null,
  adjustment: 'adjustment',
  refund: 'clawback',
  // Grants move money between a user's accounts and the platform, never a contributor's.
  grant: null,
  grant_use: null,
  grant_breakage: null,
  grant_refund: null,
  earnings_matured: null,
  settlement_reserve: null,
  settlement_paid: 'payout',
  settlement_failed: null,
  settlement_reorged: 'payout_reversed',
});

/** The settlement line kinds a statement shows (ref = line id). */
export const STATEMENT_LINE_KINDS: readonly SettlementLineKind[] = SETTLEMENT_LINE_KINDS.filter((kind) => BOOKED_KIND_BY_JOURNAL_KIND[kind] !== null);

/** The booked kind of a journal kind read back from the database; null when it is not a statement line. */
export function bookedKindOf(journalKind: string): BookedKind | null {
  return isJournalKind(journalKind) ? BOOKED_KIND_BY_JOURNAL_KIND[journalKind] : null;
}

/** Earnings of one UTC day and model (the contributor_usage_daily rollup). */
export interface EarningRow {
  /** "YYYY-MM-DD", the UTC day the usage occurred. */
  day: string;
  model: string;
  events: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  officialAtto: bigint;
  earnedAtto: bigint;
}

export interface PayoutDetail {
  payoutId: string;
  settlementId: string;
  amountMicroUsdc: bigint;
  txHash: string | null;
  confirmedAt: Date | null;
}

/** One journal entry of the contributor other than usage, as booked. */
export interface BookedLine {
  kind: BookedKind;
  entryId: bigint;
  journalKind: string;
  ref: string;
  /** The journal entry's created_at: when the ledger booked it. */
  bookedAt: Date;
  /** Signed change of what is owed to the contributor (payable + in_settlement). */
  owedDeltaAtto: bigint;
  /** The reference the operator gave (adjustment, refund), when there is one. */
  reference: string | null;
  memo: string | null;
  payout: PayoutDetail | null;
}

export interface StatementFacts {
  contributorId: string;
  period: StatementMonth;
  /** Earnings of the days before the month (rollup). */
  earnedBeforeAtto: bigint;
  /** The owed deltas of every booked line before the month (journal). */
  bookedBeforeAtto: bigint;
  /** The month's earnings, one row per day and model. */
  earnings: EarningRow[];
  /** The month's booked lines. */
  booked: BookedLine[];
}

export interface Statement {
  contributorId: string;
  period: StatementMonth;
  monthEnded: boolean;
  openingAtto: bigint;
  earnedAtto: bigint;
  clawedBackAtto: bigint;
  adjustmentsAtto: bigint;
  paidAtto: bigint;
  closingAtto: bigint;
  events: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  officialAtto: bigint;
  /** By day, then model (bytewise). */
  earnings: EarningRow[];
  /** In booking order. */
  booked: BookedLine[];
}

function checkBookedLine(line: BookedLine): void {
  const where = `journal ${line.journalKind}/${line.ref}`;
  switch (line.kind) {
    case 'payout':
      assert(line.owedDeltaAtto < 0n, `${where}: a payout lowers what is owed`);
      assert(line.payout !== null && -line.owedDeltaAtto === line.payout.amountMicroUsdc * ATTO_PER_MICRO_USDC, `${where}: booked amount is not the line's USDC amount`);
      return;
    case 'payout_reversed':
      assert(line.owedDeltaAtto > 0n, `${where}: a reversed payout raises what is owed`);
      assert(line.payout !== null && line.owedDeltaAtto === line.payout.amountMicroUsdc * ATTO_PER_MICRO_USDC, `${where}: booked amount is not the line's USDC amount`);
      return;
    case 'clawback':
      assert(line.owedDeltaAtto <= 0n, `${where}: a clawback never raises what is owed`);
      return;
    case 'adjustment':
      assert(line.owedDeltaAtto !== 0n, `${where}: an adjustment moves a non-zero amount`);
      return;
  }
}

function byBookingOrder(a: BookedLine, b: BookedLine): number {
  const at = a.bookedAt.getTime() - b.bookedAt.getTime();
  if (at !== 0) return at;
  return a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0;
}

function byDayThenModel(a: EarningRow, b: EarningRow): number {
  if (a.day !== b.day) return a.day < b.day ? -1 : 1;
  return a.model < b.model ? -1 : a.model > b.model ? 1 : 0;
}

/** The statement of one month: figures from the lines, checked against each other. */
export function buildStatement(input: { facts: StatementFacts; now: Date }): Statement {
  const { facts } = input;
  const { from, to } = facts.period;
  const earnings = [...facts.earnings].sort(byDayThenModel);
  const booked = [...facts.booked].sort(byBookingOrder);
  let earnedAtto = 0n;
  let events = 0n;
  let promptTokens = 0n;
  let completionTokens = 0n;
  let officialAtto = 0n;
  for (const row of earnings) {
    assert(row.earnedAtto >= 0n && row.officialAtto >= 0n, `earnings of ${row.day}/${row.model} are negative`);
    assert(row.day >= from.toISOString().slice(0, 10) && row.day < to.toISOString().slice(0, 10), `earnings of ${row.day} are outside ${facts.period.month}`);
    earnedAtto += row.earnedAtto;
    events += row.events;
    promptTokens += row.promptTokens;
    completionTokens += row.completionTokens;
    officialAtto += row.officialAtto;
  }
  const sums: Record<BookedKind, bigint> = { payout: 0n, payout_reversed: 0n, adjustment: 0n, clawback: 0n };
  let bookedDeltaAtto = 0n;
  for (const line of booked) {
    checkBookedLine(line);
    assert(line.bookedAt.getTime() >= from.getTime() && line.bookedAt.getTime() < to.getTime(), `journal ${line.journalKind}/${line.ref} is outside ${facts.period.month}`);
    sums[line.kind] += line.owedDeltaAtto;
    bookedDeltaAtto += line.owedDeltaAtto;
  }
  const openingAtto = facts.earnedBeforeAtto + facts.bookedBeforeAtto;
  const clawedBackAtto = -sums.clawback;
  const adjustmentsAtto = sums.adjustment;
  const paidAtto = -(sums.payout + sums.payout_reversed);
  const closingAtto = openingAtto + earnedAtto - clawedBackAtto + adjustmentsAtto - paidAtto;
  assert(closingAtto === openingAtto + earnedAtto + bookedDeltaAtto, 'statement figures do not add up to its lines');
  return {
    contributorId: facts.contributorId,
    period: facts.period,
    monthEnded: hasMonthEnded(facts.period, input.now),
    openingAtto,
    earnedAtto,
    clawedBackAtto,
    adjustmentsAtto,
    paidAtto,
    closingAtto,
    events,
    promptTokens,
    completionTokens,
    officialAtto,
    earnings,
    booked,
  };
}

/** The payouts (and reversed payouts) of the month, in booking order. */
export function statementPayouts(statement: Statement): Array<BookedLine & { payout: PayoutDetail }> {
  return statement.booked.filter((line): line is BookedLine & { payout: PayoutDetail } => line.payout !== null);
}

// The JSON of a statement (api.md "Statements"): money as exact decimal USD strings, payouts with
// their transaction hashes; extra fields beside the contract's: the period, the month's earnings
// per day and model, and every booked line.
import { formatAttoAsUsd, formatMicroUsdc } from '../../common/money/index.js';
import { toJsonInteger } from '../earnings/earnings-report.js';
import { statementPayouts, type Statement } from './statement.js';

const instant = (at: Date) => at.toISOString().replace('.000Z', 'Z');

export function statementBody(statement: Statement) {
  return {
    contributor_id: statement.contributorId,
    month: statement.period.month,
    from: instant(statement.period.from),
    to: instant(statement.period.to),
    month_ended: statement.monthEnded,
    opening_usd: formatAttoAsUsd(statement.openingAtto),
    earned_usd: formatAttoAsUsd(statement.earnedAtto),
    clawed_back_usd: formatAttoAsUsd(statement.clawedBackAtto),
    adjustments_usd: formatAttoAsUsd(statement.adjustmentsAtto),
    paid_usd: formatAttoAsUsd(statement.paidAtto),
    closing_usd: formatAttoAsUsd(statement.closingAtto),
    events: toJsonInteger(statement.events),
    prompt_tokens: toJsonInteger(statement.promptTokens),
    completion_tokens: toJsonInteger(statement.completionTokens),
    official_usd: formatAttoAsUsd(statement.officialAtto),
    payouts: statementPayouts(statement).map((line) => ({
      payout_id: line.payout.payoutId,
      settlement_id: line.payout.settlementId,
      // A reversed payout (its payment reorganised away for good) counts against paid: negative.
      amount_usdc: formatMicroUsdc(line.kind === 'payout' ? line.payout.amountMicroUsdc : -line.payout.amountMicroUsdc),
      tx_hash: line.payout.txHash,
      confirmed_at: line.payout.confirmedAt ? instant(line.payout.confirmedAt) : null,
      booked_at: instant(line.bookedAt),
      kind: line.kind,
    })),
    earnings: statement.earnings.map((row) => ({
      day: row.day,
      model: row.model,
      events: toJsonInteger(row.events),
      prompt_tokens: toJsonInteger(row.promptTokens),
      completion_tokens: toJsonInteger(row.completionTokens),
      official_usd: formatAttoAsUsd(row.officialAtto),
      earned_usd: formatAttoAsUsd(row.earnedAtto),
    })),
    lines: statement.booked.map((line) => ({
      type: line.kind,
      booked_at: instant(line.bookedAt),
      reference: line.payout?.payoutId ?? line.reference ?? line.ref,
      amount_usd: formatAttoAsUsd(line.owedDeltaAtto),
      note: line.memo,
    })),
  };
}

// Pure: the shape of an earnings report and its JSON view. Money stays bigint atto-USD until the
// view formats it as a decimal USD string; counts become JSON integers.
import { assert } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { formatInstant, groupsByDay, groupsByModel, type GroupBy } from './earnings-range.js';
import type { RollupSums } from './rollup-sums.js';

/** The rollup's sums a report shows (not the user side: charge, margin), and the day's refunds. */
export interface EarningsSums extends Omit<RollupSums, 'chargeAtto' | 'marginAtto'> {
  /** Refund parts made on the row's day (of events of any day), what they returned to users and clawed back. */
  refunds: bigint;
  refundedAtto: bigint;
  clawedBackAtto: bigint;
}

export interface EarningsRow extends EarningsSums {
  /** "YYYY-MM-DD" (UTC) when grouped by day. */
  day: string | null;
  model: string | null;
}

export interface EarningsReport {
  contributorId: string;
  from: Date;
  to: Date;
  groupBy: GroupBy;
  totals: EarningsSums;
  rows: EarningsRow[];
}

export function emptySums(): EarningsSums {
  return { events: 0n, promptTokens: 0n, completionTokens: 0n, cachedTokens: 0n, cacheWriteTokens: 0n, audioTokens: 0n, officialAtto: 0n, earnedAtto: 0n, refunds: 0n, refundedAtto: 0n, clawedBackAtto: 0n };
}

export function sumRows(rows: readonly EarningsSums[]): EarningsSums {
  const totals = emptySums();
  for (const row of rows) {
    totals.events += row.events;
    totals.promptTokens += row.promptTokens;
    totals.completionTokens += row.completionTokens;
    totals.cachedTokens += row.cachedTokens;
    totals.cacheWriteTokens += row.cacheWriteTokens;
    totals.audioTokens += row.audioTokens;
    totals.officialAtto += row.officialAtto;
    totals.earnedAtto += row.earnedAtto;
    totals.refunds += row.refunds;
    totals.refundedAtto += row.refundedAtto;
    totals.clawedBackAtto += row.clawedBackAtto;
  }
  return totals;
}

/** Counts are JSON integers; beyond 2^53 they would silently lose digits, so that is a bug. */
export function toJsonInteger(value: bigint): number {
  assert(value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER), `count ${value} does not fit a JSON integer`);
  return Number(value);
}

export interface EarningsSumsJson {
  events: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  audio_tokens: number;
  official_usd: string;
  earned_usd: string;
  refunds: number;
  refunded_usd: string;
  clawed_back_usd: string;
  /** earned - clawed back: may be negative on a day of refunds. */
  net_earned_usd: string;
}

export function sumsToJson(sums: EarningsSums): EarningsSumsJson {
  return {
    events: toJsonInteger(sums.events),
    prompt_tokens: toJsonInteger(sums.promptTokens),
    completion_tokens: toJsonInteger(sums.completionTokens),
    cached_tokens: toJsonInteger(sums.cachedTokens),
    cache_write_tokens: toJsonInteger(sums.cacheWriteTokens),
    audio_tokens: toJsonInteger(sums.audioTokens),
    official_usd: formatAttoAsUsd(sums.officialAtto),
    earned_usd: formatAttoAsUsd(sums.earnedAtto),
    refunds: toJsonInteger(sums.refunds),
    refunded_usd: formatAttoAsUsd(sums.refundedAtto),
    clawed_back_usd: formatAttoAsUsd(sums.clawedBackAtto),
    net_earned_usd: formatAttoAsUsd(sums.earnedAtto - sums.clawedBackAtto),
  };
}

export function reportToJson(report: EarningsReport) {
  const byDay = groupsByDay(report.groupBy);
  const byModel = groupsByModel(report.groupBy);
  return {
    contributor_id: report.contributorId,
    from: formatInstant(report.from),
    to: formatInstant(report.to),
    group_by: report.groupBy,
    totals: sumsToJson(report.totals),
    rows: report.rows.map((row) => ({
      ...(byDay ? { day: row.day } : {}),
      ...(byModel ? { model: row.model } : {}),
      ...sumsToJson(row),
    })),
  };
}

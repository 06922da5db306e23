import { Injectable, type OnModuleInit } from '@nestjs/common';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { LedgerCheckRegistry, recentWindowStartDay, type LedgerCheckOptions } from '../ledger/ledger-check-extension.js';
import type { RollupSums } from './rollup-sums.js';
import { EarningsRepository, type RollupMismatch } from './earnings.repository.js';
import { RollupVerifiedDaysRepository } from './rollup-verified-days.repository.js';

const ROLLUP_MISMATCHES_REPORTED_MAX = 100;

function sumsToJson(sums: RollupSums | null) {
  if (!sums) return null;
  return {
    events: sums.events.toString(),
    prompt_tokens: sums.promptTokens.toString(),
    completion_tokens: sums.completionTokens.toString(),
    official_usd: formatAttoAsUsd(sums.officialAtto),
    earned_usd: formatAttoAsUsd(sums.earnedAtto),
    charge_usd: formatAttoAsUsd(sums.chargeAtto),
    margin_usd: formatAttoAsUsd(sums.marginAtto),
  };
}

/**
 * `rollups` in GET /v1/admin/ledger/check: every contributor_usage_daily row must equal the sums
 * of the priced usage events of that contributor, UTC day and model (and no group may be missing
 * on either side). Earnings are served from the rollup alone, so this is what makes them trustworthy.
 */
@Injectable()
export class RollupCheck implements OnModuleInit {
  constructor(
    private readonly registry: LedgerCheckRegistry,
    private readonly repository: EarningsRepository,
    private readonly verifiedDays: RollupVerifiedDaysRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register({ name: 'rollups', run: (options) => this.run(options) });
  }

  /**
   * Without full, only the days of the current and the previous UTC month (their partitions),
   * and of those only the days whose rollup rows changed since they were last verified (a stored
   * digest per day: rollup_verified_days), and of a day written since only its events above the
   * frontier it was verified at (rollup_verified_sums), so the check costs what was written since,
   * not the month's events; full compares every day with its events, archived months against what the
   * archive recorded of them (usage_archived_rollups).
   */
  async run(options: LedgerCheckOptions = { full: true }) {
    const now = new Date();
    const mismatched = (found: { mismatches: RollupMismatch[] }) =>
      found.mismatches.map((m) => ({ contributor_id: m.contributorId, day: m.day, model: m.model, rollup: sumsToJson(m.rollup), events: sumsToJson(m.events) }));
    if (options.full) {
      const found = await this.repository.findRollupMismatches(ROLLUP_MISMATCHES_REPORTED_MAX, null);
      return { ok: found.mismatches.length === 0, since_day: null, rollup_rows: found.rollupRows.toString(), mismatched: mismatched(found) };
    }
    const sinceDay = recentWindowStartDay(now);
    const found = await this.verifiedDays.findMismatchesSinceVerified(ROLLUP_MISMATCHES_REPORTED_MAX, sinceDay);
    return {
      ok: found.mismatches.length === 0,
      since_day: sinceDay,
      rollup_rows: found.rollupRows.toString(),
      // Days compared with their events in this check; the others still hash to their verified digest.
      days_verified: found.daysVerified.length,
      days_unchanged: found.daysUnchanged,
      // Of the days verified, those compared as their verified sums plus their new events only.
      days_from_sums: found.daysFromSums,
      mismatched: mismatched(found),
    };
  }
}

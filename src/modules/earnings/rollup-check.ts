import { Injectable, type OnModuleInit } from '@nestjs/common';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { LedgerCheckRegistry, type LedgerCheckOptions } from '../ledger/ledger-check-extension.js';
import type { RollupSums } from './rollup-sums.js';
import { EarningsRepository } from './earnings.repository.js';

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
  ) {}

  onModuleInit(): void {
    this.registry.register({ name: 'rollups', run: (options) => this.run(options) });
  }

  /**
   * Without full, only the days of the current and the previous UTC month (their partitions) are
   * compared, so the check does not grow with history; full compares every day, archived months
   * against what the archive recorded of them (usage_archived_rollups).
   */
  async run(options: LedgerCheckOptions = { full: true }) {
    const now = new Date();
    const sinceDay = options.full ? null : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 10);
    const found = await this.repository.findRollupMismatches(ROLLUP_MISMATCHES_REPORTED_MAX, sinceDay);
    return {
      ok: found.mismatches.length === 0,
      since_day: sinceDay,
      rollup_rows: found.rollupRows.toString(),
      mismatched: found.mismatches.map((m) => ({
        contributor_id: m.contributorId,
        day: m.day,
        model: m.model,
        rollup: sumsToJson(m.rollup),
        events: sumsToJson(m.events),
      })),
    };
  }
}

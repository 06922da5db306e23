import { Injectable, type OnModuleInit } from '@nestjs/common';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { LedgerCheckRegistry } from '../ledger/ledger-check-extension.js';
import { RefundsRepository, type RefundDaySums } from './refunds.repository.js';

const MISMATCHES_REPORTED_MAX = 100;

function sumsToJson(s: RefundDaySums | null) {
  if (!s) return null;
  return {
    refunds: s.refunds.toString(),
    refunded_usd: formatAttoAsUsd(s.refundedAtto),
    clawed_back_usd: formatAttoAsUsd(s.clawedBackAtto),
    margin_reversed_usd: formatAttoAsUsd(s.marginReversedAtto),
  };
}

/**
 * `refunds` in GET /v1/admin/ledger/check: every refund's journal entry posts exactly what its
 * row says, and every row of the refunds rollup equals the refunds it sums.
 */
@Injectable()
export class RefundChecks implements OnModuleInit {
  constructor(
    private readonly registry: LedgerCheckRegistry,
    private readonly repository: RefundsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register({ name: 'refunds', run: () => this.run() });
  }

  async run() {
    const [rollups, journal] = await Promise.all([this.repository.findRollupMismatches(MISMATCHES_REPORTED_MAX), this.repository.findJournalMismatches(MISMATCHES_REPORTED_MAX)]);
    return {
      ok: rollups.mismatches.length === 0 && journal.length === 0,
      rollup_rows: rollups.rollupRows.toString(),
      rollup_mismatches: rollups.mismatches.map((m) => ({ contributor_id: m.contributorId, day: m.day, model: m.model, rollup: sumsToJson(m.rollup), refunds: sumsToJson(m.refunds) })),
      journal_mismatches: journal,
    };
  }
}

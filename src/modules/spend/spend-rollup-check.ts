import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { LedgerCheckRegistry, recentWindowStartDay, type LedgerCheckOptions } from '../ledger/ledger-check-extension.js';
import { SpendRollupRepository } from './spend-rollup.repository.js';

const MISMATCHES_REPORTED_MAX = 100;

/**
 * `spend_rollup` in GET /v1/admin/ledger/check: every user_spend_daily row of a user with budgets
 * must equal the charges of the user's priced events of that UTC day, key and model and what was
 * refunded of them (no group missing on either side). Budgets are decided from the rollup alone.
 * Without full, the days of the current and the previous UTC month (what budgets' periods read,
 * but `total`); full, every day. The cost is the budgeted users' events of those days (their
 * user_id index), not the ledger's.
 */
@Injectable()
export class SpendRollupCheck implements OnModuleInit {
  constructor(
    private readonly registry: LedgerCheckRegistry,
    private readonly db: DatabaseService,
    private readonly repository: SpendRollupRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register({ name: 'spend_rollup', run: (options) => this.run(options) });
  }

  async run(options: LedgerCheckOptions = { full: true }) {
    const sinceDay = options.full ? null : recentWindowStartDay(new Date());
    const found = await this.repository.mismatches(this.db.pool, sinceDay, MISMATCHES_REPORTED_MAX);
    const usd = (s: { chargeAtto: bigint; refundedAtto: bigint }) => ({ charge_usd: formatAttoAsUsd(s.chargeAtto), refunded_usd: formatAttoAsUsd(s.refundedAtto) });
    return {
      ok: found.mismatched.length === 0,
      since_day: sinceDay,
      rollup_rows: found.rows.toString(),
      mismatched: found.mismatched.map((m) => ({ user_id: m.userId, day: m.day, key_id: m.keyId, model: m.model, rollup: usd(m.rollup), events: usd(m.events) })),
    };
  }
}

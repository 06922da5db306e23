import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

/** Admin read models: sums over the earnings rollup, never writes (balances come from the ledger). */
@Injectable()
export class AdminRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Charged and margin over all priced events, from the daily rollup (no scan of usage_events). */
  async usageTotals(): Promise<{ chargedAtto: bigint; marginAtto: bigint }> {
    const result = await this.db.pool.query<{ charged: string; margin: string }>(
      'SELECT coalesce(sum(charge_atto), 0) AS charged, coalesce(sum(margin_atto), 0) AS margin FROM contributor_usage_daily',
    );
    const row = result.rows[0]!;
    return { chargedAtto: toBigInt(row.charged), marginAtto: toBigInt(row.margin) };
  }
}

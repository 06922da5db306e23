import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

/** One UTC day of the usage rollup. */
export interface DailyUsageRow {
  day: string;
  chargedAtto: bigint;
  marginAtto: bigint;
  earnedAtto: bigint;
}

/** Admin read models: sums over the earnings rollup, never writes (balances come from the ledger). */
@Injectable()
export class AdminRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Charged and margin over all priced events, from the daily rollup (no scan of usage_events). */
  async usageTotals(): Promise<{ chargedAtto: bigint; marginAtto: bigint; refundedAtto: bigint; marginReversedAtto: bigint }> {
    const result = await this.db.pool.query<{ charged: string; margin: string; refunded: string; margin_reversed: string }>(
      `SELECT (SELECT coalesce(sum(charge_atto), 0) FROM contributor_usage_daily) AS charged,
              (SELECT coalesce(sum(margin_atto), 0) FROM contributor_usage_daily) AS margin,
              (SELECT coalesce(sum(refunded_atto), 0) FROM contributor_refunds_daily) AS refunded,
              (SELECT coalesce(sum(margin_reversed_atto), 0) FROM contributor_refunds_daily) AS margin_reversed`,
    );
    const row = result.rows[0]!;
    return { chargedAtto: toBigInt(row.charged), marginAtto: toBigInt(row.margin), refundedAtto: toBigInt(row.refunded), marginReversedAtto: toBigInt(row.margin_reversed) };
  }

  /** Every UTC day of [fromDay, toDay), zeros included: charged, margin and contributor earnings of the usage of that day. */
  async dailyUsage(fromDay: string, toDay: string): Promise<DailyUsageRow[]> {
    const result = await this.db.readPool.query<{ day: string; charged: string; margin: string; earned: string }>(
      `WITH days AS (SELECT generate_series($1::date, $2::date - 1, interval '1 day')::date AS day),
            usage AS (SELECT day, sum(charge_atto) AS charged, sum(margin_atto) AS margin, sum(earned_atto) AS earned
                      FROM contributor_usage_daily WHERE day >= $1::date AND day < $2::date GROUP BY day)
       SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(u.charged, 0) AS charged, coalesce(u.margin, 0) AS margin, coalesce(u.earned, 0) AS earned
       FROM days d LEFT JOIN usage u ON u.day = d.day
       ORDER BY d.day`,
      [fromDay, toDay],
    );
    return result.rows.map((r) => ({ day: r.day, chargedAtto: toBigInt(r.charged), marginAtto: toBigInt(r.margin), earnedAtto: toBigInt(r.earned) }));
  }
}

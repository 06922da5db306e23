import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

export type ContributorSort = 'id' | 'payable_desc';

export interface ContributorListRow {
  id: string;
  tier: string;
  status: string;
  payoutAddress: string;
  payableAtto: bigint;
  inSettlementAtto: bigint;
  paidAtto: bigint;
}

/** Keyset position: the sort key of the last row of the previous page. */
export type ContributorCursor = { sort: 'id'; id: string } | { sort: 'payable_desc'; payableAtto: bigint; id: string };

/** One UTC day of platform money: usage from the daily rollup, payouts by the day they were confirmed. */
export interface DailyTotalsRow {
  day: string;
  chargedAtto: bigint;
  marginAtto: bigint;
  earnedAtto: bigint;
  paidMicroUsdc: bigint;
}

export interface AccountTotals {
  usersBalanceAtto: bigint;
  usersHeldAtto: bigint;
  payableAtto: bigint;
  inSettlementAtto: bigint;
  paidAtto: bigint;
}

// Balances joined by account code; a contributor without an account yet has zero balances.
const CONTRIBUTOR_PAGE_SELECT = `
  SELECT c.id, c.tier, c.status, c.payout_address,
         coalesce(p.balance_atto, 0) AS payable_atto,
         coalesce(s.balance_atto, 0) AS in_settlement_atto,
         coalesce(d.balance_atto, 0) AS paid_atto
  FROM contributors c
  LEFT JOIN accounts p ON p.code = 'contributor:' || c.id || ':payable'
  LEFT JOIN accounts s ON s.code = 'contributor:' || c.id || ':in_settlement'
  LEFT JOIN accounts d ON d.code = 'contributor:' || c.id || ':paid'`;

/** Admin read models over several domains' tables: sums and lists only, never writes. */
@Injectable()
export class AdminRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * One page of contributors in a total order (ties broken by id, bytewise), so cursors are
   * stable. Sorting by payable orders by the balance at query time: a balance that changes
   * between pages can move a contributor across the cursor (as with any live keyset listing).
   */
  async contributorPage(input: { sort: ContributorSort; after: ContributorCursor | null; limit: number; search?: string }): Promise<ContributorListRow[]> {
    const params: unknown[] = [input.limit];
    const conditions: string[] = [];
    let order: string;
    if (input.sort === 'id') {
      order = 'c.id COLLATE "C"';
      if (input.after) {
        params.push(input.after.id);
        conditions.push(`c.id COLLATE "C" > $${params.length}`);
      }
    } else {
      order = 'coalesce(p.balance_atto, 0) DESC, c.id COLLATE "C"';
      if (input.after?.sort === 'payable_desc') {
        params.push(input.after.payableAtto.toString(), input.after.id);
        const [payable, id] = [params.length - 1, params.length];
        conditions.push(`(coalesce(p.balance_atto, 0) < $${payable}::numeric OR (coalesce(p.balance_atto, 0) = $${payable}::numeric AND c.id COLLATE "C" > $${id}))`);
      }
    }
    if (input.search !== undefined) {
      // A case-insensitive substring of the id or the payout address (strpos: no LIKE wildcards to escape).
      params.push(input.search.toLowerCase());
      conditions.push(`(strpos(lower(c.id), $${params.length}) > 0 OR strpos(lower(c.payout_address), $${params.length}) > 0)`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const result = await this.db.pool.query<{
      id: string;
      tier: string;
      status: string;
      payout_address: string;
      payable_atto: string;
      in_settlement_atto: string;
      paid_atto: string;
    }>(`${CONTRIBUTOR_PAGE_SELECT} ${where} ORDER BY ${order} LIMIT $1`, params);
    return result.rows.map((r) => ({
      id: r.id,
      tier: r.tier,
      status: r.status,
      payoutAddress: r.payout_address,
      payableAtto: toBigInt(r.payable_atto),
      inSettlementAtto: toBigInt(r.in_settlement_atto),
      paidAtto: toBigInt(r.paid_atto),
    }));
  }

  /** Charged and margin over all priced events, from the daily rollup (no scan of usage_events). */
  async usageTotals(): Promise<{ chargedAtto: bigint; marginAtto: bigint }> {
    const result = await this.db.pool.query<{ charged: string; margin: string }>(
      'SELECT coalesce(sum(charge_atto), 0) AS charged, coalesce(sum(margin_atto), 0) AS margin FROM contributor_usage_daily',
    );
    const row = result.rows[0]!;
    return { chargedAtto: toBigInt(row.charged), marginAtto: toBigInt(row.margin) };
  }

  /**
   * Every UTC day of [fromDay, toDay), zeros included: charged, margin and contributor earnings
   * from the rollup, and payout lines paid that day (by confirmation time, UTC).
   */
  async dailyTotals(fromDay: string, toDay: string): Promise<DailyTotalsRow[]> {
    const result = await this.db.pool.query<{ day: string; charged: string; margin: string; earned: string; paid: string }>(
      `WITH days AS (SELECT generate_series($1::date, $2::date - 1, interval '1 day')::date AS day),
            usage AS (SELECT day, sum(charge_atto) AS charged, sum(margin_atto) AS margin, sum(earned_atto) AS earned
                      FROM contributor_usage_daily WHERE day >= $1::date AND day < $2::date GROUP BY day),
            paid AS (SELECT (confirmed_at AT TIME ZONE 'UTC')::date AS day, sum(amount_micro_usdc) AS paid
                     FROM settlement_lines
                     WHERE status = 'paid' AND confirmed_at >= ($1::date::timestamp AT TIME ZONE 'UTC') AND confirmed_at < ($2::date::timestamp AT TIME ZONE 'UTC')
                     GROUP BY 1)
       SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(u.charged, 0) AS charged, coalesce(u.margin, 0) AS margin,
              coalesce(u.earned, 0) AS earned, coalesce(p.paid, 0) AS paid
       FROM days d LEFT JOIN usage u ON u.day = d.day LEFT JOIN paid p ON p.day = d.day
       ORDER BY d.day`,
      [fromDay, toDay],
    );
    return result.rows.map((r) => ({
      day: r.day,
      chargedAtto: toBigInt(r.charged),
      marginAtto: toBigInt(r.margin),
      earnedAtto: toBigInt(r.earned),
      paidMicroUsdc: toBigInt(r.paid),
    }));
  }

  /** Stored balances summed by account kind (tracked accounts only keep one). */
  async accountTotals(): Promise<AccountTotals> {
    const result = await this.db.pool.query<{ kind: string; balance: string; held: string }>(
      `SELECT kind, coalesce(sum(balance_atto), 0) AS balance, coalesce(sum(held_atto), 0) AS held
       FROM accounts
       WHERE kind IN ('user', 'contributor_payable', 'contributor_in_settlement', 'contributor_paid')
       GROUP BY kind`,
    );
    const byKind = new Map(result.rows.map((r) => [r.kind, { balance: toBigInt(r.balance), held: toBigInt(r.held) }]));
    return {
      usersBalanceAtto: byKind.get('user')?.balance ?? 0n,
      usersHeldAtto: byKind.get('user')?.held ?? 0n,
      payableAtto: byKind.get('contributor_payable')?.balance ?? 0n,
      inSettlementAtto: byKind.get('contributor_in_settlement')?.balance ?? 0n,
      paidAtto: byKind.get('contributor_paid')?.balance ?? 0n,
    };
  }

  /** Uses the (status, id) index: an index-only count of the unpriced range. */
  async countUnpricedEvents(): Promise<bigint> {
    const result = await this.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events WHERE status = 'unpriced'`);
    return toBigInt(result.rows[0]!.n);
  }
}

import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';
import type { BudgetPeriod } from './budget-periods.js';
import type { Budget, BudgetAction, BudgetFigures } from './budget-rules.js';

type BudgetRow = { user_id: string; budget_id: string; limit_atto: string; period: BudgetPeriod; key_id: string | null; model: string | null; action: BudgetAction; alert_at: string[] };

const BUDGET_COLUMNS = 'user_id, budget_id, limit_atto, period, key_id, model, action, alert_at';

/** What a budget measures in one period: the bounds (null = unbounded) and its scope. */
export interface FiguresQuery {
  budgetId: string;
  start: Date | null;
  end: Date | null;
  keyId: string | null;
  model: string | null;
}

/**
 * Per budget of one user: spent = the charges of its events that occurred in [start, end) minus
 * what was refunded of them, held = its active holds, both in scope. Every period starts at a UTC
 * midnight, so spent is read from the user's spend rollup (user_spend_daily: per UTC day, key and
 * model; kept exact by every write of a user with budgets, spend-rollup.repository.ts): the rows
 * of the widest period ($3, $4) are read ONCE, and each budget adds up those in its range and scope.
 */
const FIGURES_SQL = `WITH b AS (
   SELECT * FROM json_to_recordset($2::json) AS b(budget_id text, ps timestamptz, pe timestamptz, key_id text, model text)
 ), spend AS MATERIALIZED (
   SELECT s.day, nullif(s.key_id, '') AS key_id, s.model, s.charge_atto - s.refunded_atto AS net_atto
   FROM user_spend_daily s
   WHERE s.user_id = $1 AND s.day >= ($3::timestamptz AT TIME ZONE 'UTC')::date AND s.day < ($4::timestamptz AT TIME ZONE 'UTC')::date
 ), held AS MATERIALIZED (
   SELECT h.key_id, h.model, sum(h.amount_atto) AS amount_atto FROM holds h WHERE h.user_id = $1 AND h.status = 'active' GROUP BY 1, 2
 )
 SELECT b.budget_id,
   coalesce((SELECT sum(s.net_atto) FROM spend s WHERE s.day >= (b.ps AT TIME ZONE 'UTC')::date AND s.day < (b.pe AT TIME ZONE 'UTC')::date
       AND (b.key_id IS NULL OR s.key_id = b.key_id) AND (b.model IS NULL OR s.model = b.model)), 0) AS spent_atto,
   coalesce((SELECT sum(h.amount_atto) FROM held h
       WHERE (b.key_id IS NULL OR h.key_id = b.key_id) AND (b.model IS NULL OR h.model = b.model)), 0) AS held_atto
 FROM b`;

/** The widest of the periods: the span of events read once. */
function span(queries: readonly FiguresQuery[]): { start: string; end: string } {
  let start: Date | null = queries[0]!.start;
  let end: Date | null = queries[0]!.end;
  for (const q of queries) {
    start = start === null || q.start === null ? null : q.start < start ? q.start : start;
    end = end === null || q.end === null ? null : q.end > end ? q.end : end;
  }
  return { start: start?.toISOString() ?? '-infinity', end: end?.toISOString() ?? 'infinity' };
}

@Injectable()
export class BudgetsRepository {
  /** Creates or replaces a budget (the same budget again writes nothing); true when it was created. */
  async upsert(runner: SqlRunner, budget: Budget): Promise<boolean> {
    const result = await runner.query<{ created: boolean }>(
      `INSERT INTO user_budgets (${BUDGET_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (user_id, budget_id) DO UPDATE SET limit_atto = excluded.limit_atto, period = excluded.period, key_id = excluded.key_id,
         model = excluded.model, action = excluded.action, alert_at = excluded.alert_at, updated_at = now()
       WHERE (user_budgets.limit_atto, user_budgets.period, user_budgets.key_id, user_budgets.model, user_budgets.action, user_budgets.alert_at)
         IS DISTINCT FROM (excluded.limit_atto, excluded.period, excluded.key_id, excluded.model, excluded.action, excluded.alert_at)
       RETURNING (xmax = 0) AS created`,
      [budget.userId, budget.budgetId, budget.limitAtto.toString(), budget.period, budget.keyId, budget.model, budget.action, budget.alertAt],
    );
    return result.rows[0]?.created ?? false;
  }

  async delete(runner: SqlRunner, userId: string, budgetId: string): Promise<boolean> {
    const result = await runner.query('DELETE FROM user_budgets WHERE user_id = $1 AND budget_id = $2', [userId, budgetId]);
    return result.rowCount === 1;
  }

  async listForUser(runner: SqlRunner, userId: string): Promise<Budget[]> {
    const result = await runner.query<BudgetRow>(`SELECT ${BUDGET_COLUMNS} FROM user_budgets WHERE user_id = $1 ORDER BY budget_id`, [userId]);
    return result.rows.map(toBudget);
  }

  /** Users with at least one alert threshold on a budget (the sweep's work list), in id order. */
  async usersWithBudgetAlerts(runner: SqlRunner, afterUserId: string, limit: number): Promise<string[]> {
    const result = await runner.query<{ user_id: string }>(
      `SELECT DISTINCT user_id FROM user_budgets WHERE alert_at <> '{}' AND user_id > $1 ORDER BY user_id LIMIT $2`,
      [afterUserId, limit],
    );
    return result.rows.map((r) => r.user_id);
  }

  async figures(runner: SqlRunner, userId: string, queries: readonly FiguresQuery[]): Promise<Map<string, BudgetFigures>> {
    if (queries.length === 0) return new Map();
    const rows = queries.map((q) => ({ budget_id: q.budgetId, ps: q.start?.toISOString() ?? '-infinity', pe: q.end?.toISOString() ?? 'infinity', key_id: q.keyId, model: q.model }));
    const { start, end } = span(queries);
    const result = await runner.query<{ budget_id: string; spent_atto: string; held_atto: string }>(FIGURES_SQL, [userId, JSON.stringify(rows), start, end]);
    return new Map(result.rows.map((r) => [r.budget_id, { spentAtto: toBigInt(r.spent_atto), heldAtto: toBigInt(r.held_atto) }]));
  }

  /** Records a threshold announced for a budget's period; false when it already was. */
  async recordAlertIfNew(runner: SqlRunner, alert: { userId: string; budgetId: string; periodStart: Date; threshold: string }): Promise<boolean> {
    const result = await runner.query(
      `INSERT INTO user_budget_alerts (user_id, budget_id, period_start, threshold) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [alert.userId, alert.budgetId, alert.periodStart, alert.threshold],
    );
    return result.rowCount === 1;
  }
}

function toBudget(row: BudgetRow): Budget {
  return {
    userId: row.user_id,
    budgetId: row.budget_id,
    limitAtto: toBigInt(row.limit_atto),
    period: row.period,
    keyId: row.key_id,
    model: row.model,
    action: row.action,
    alertAt: row.alert_at,
  };
}

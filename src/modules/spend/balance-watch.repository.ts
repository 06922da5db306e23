import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

export interface AutoTopup {
  userId: string;
  belowAtto: bigint;
  amountAtto: bigint;
  maxPerMonthAtto: bigint;
  enabled: boolean;
  armed: boolean;
  failuresInRow: number;
  disabledReason: string | null;
}

type AutoTopupRow = { user_id: string; below_atto: string; amount_atto: string; max_per_month_atto: string; enabled: boolean; armed: boolean; failures_in_row: number; disabled_reason: string | null };
const AUTO_TOPUP_COLUMNS = 'user_id, below_atto, amount_atto, max_per_month_atto, enabled, armed, failures_in_row, disabled_reason';

export interface TopupRequest {
  requestId: string;
  userId: string;
  amountAtto: bigint;
  status: 'requested' | 'failed';
  failureReason: string | null;
  createdAt: Date;
}

/** Balance thresholds and auto top-up: the armed flags that make each crossing count once. */
@Injectable()
export class BalanceWatchRepository {
  /** Replaces the user's thresholds; new ones start armed, kept ones keep their state. */
  async replaceAlerts(runner: SqlRunner, userId: string, thresholdsAtto: readonly bigint[]): Promise<void> {
    const list = thresholdsAtto.map(String);
    await runner.query('DELETE FROM user_balance_alerts WHERE user_id = $1 AND NOT (threshold_atto = ANY($2::numeric[]))', [userId, list]);
    await runner.query(
      `INSERT INTO user_balance_alerts (user_id, threshold_atto) SELECT $1, t FROM unnest($2::numeric[]) AS t ON CONFLICT DO NOTHING`,
      [userId, list],
    );
  }

  async alerts(runner: SqlRunner, userId: string): Promise<Array<{ thresholdAtto: bigint; armed: boolean }>> {
    const result = await runner.query<{ threshold_atto: string; armed: boolean }>('SELECT threshold_atto, armed FROM user_balance_alerts WHERE user_id = $1 ORDER BY threshold_atto DESC', [userId]);
    return result.rows.map((r) => ({ thresholdAtto: toBigInt(r.threshold_atto), armed: r.armed }));
  }

  /** Disarms the armed thresholds above the available balance: the ones it just crossed below. */
  async crossAlerts(runner: SqlRunner, userId: string, availableAtto: bigint): Promise<bigint[]> {
    const result = await runner.query<{ threshold_atto: string }>(
      `UPDATE user_balance_alerts SET armed = false WHERE user_id = $1 AND armed AND threshold_atto > $2 RETURNING threshold_atto`,
      [userId, availableAtto.toString()],
    );
    return result.rows.map((r) => toBigInt(r.threshold_atto)).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  }

  /** Arms again the thresholds the available balance is back at or above. */
  async rearmAlerts(runner: SqlRunner, userId: string, availableAtto: bigint): Promise<void> {
    await runner.query('UPDATE user_balance_alerts SET armed = true WHERE user_id = $1 AND NOT armed AND threshold_atto <= $2', [userId, availableAtto.toString()]);
  }

  async putAutoTopup(runner: SqlRunner, input: { userId: string; belowAtto: bigint; amountAtto: bigint; maxPerMonthAtto: bigint; enabled: boolean }): Promise<boolean> {
    const result = await runner.query<{ created: boolean }>(
      `INSERT INTO user_auto_topups (user_id, below_atto, amount_atto, max_per_month_atto, enabled) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id) DO UPDATE SET below_atto = excluded.below_atto, amount_atto = excluded.amount_atto,
         max_per_month_atto = excluded.max_per_month_atto, enabled = excluded.enabled, armed = true,
         failures_in_row = CASE WHEN excluded.enabled THEN 0 ELSE user_auto_topups.failures_in_row END,
         disabled_reason = CASE WHEN excluded.enabled THEN NULL ELSE user_auto_topups.disabled_reason END, updated_at = now()
       -- The same settings again on an armed, enabled row with no failures write nothing.
       WHERE (user_auto_topups.below_atto, user_auto_topups.amount_atto, user_auto_topups.max_per_month_atto, user_auto_topups.enabled, user_auto_topups.armed, user_auto_topups.failures_in_row)
         IS DISTINCT FROM (excluded.below_atto, excluded.amount_atto, excluded.max_per_month_atto, excluded.enabled, true, 0)
       RETURNING (xmax = 0) AS created`,
      [input.userId, input.belowAtto.toString(), input.amountAtto.toString(), input.maxPerMonthAtto.toString(), input.enabled],
    );
    return result.rows[0]?.created ?? false;
  }

  async lockAutoTopup(runner: SqlRunner, userId: string): Promise<AutoTopup | null> {
    const result = await runner.query<AutoTopupRow>(`SELECT ${AUTO_TOPUP_COLUMNS} FROM user_auto_topups WHERE user_id = $1 FOR UPDATE`, [userId]);
    return result.rows[0] ? toAutoTopup(result.rows[0]) : null;
  }

  async findAutoTopup(runner: SqlRunner, userId: string): Promise<AutoTopup | null> {
    const result = await runner.query<AutoTopupRow>(`SELECT ${AUTO_TOPUP_COLUMNS} FROM user_auto_topups WHERE user_id = $1`, [userId]);
    return result.rows[0] ? toAutoTopup(result.rows[0]) : null;
  }

  async updateAutoTopup(runner: SqlRunner, userId: string, set: { armed?: boolean; failuresInRow?: number; enabled?: boolean; disabledReason?: string | null }): Promise<void> {
    await runner.query(
      `UPDATE user_auto_topups SET armed = coalesce($2, armed), failures_in_row = coalesce($3, failures_in_row), enabled = coalesce($4, enabled),
         disabled_reason = CASE WHEN $5::boolean THEN $6 ELSE disabled_reason END, updated_at = now() WHERE user_id = $1`,
      [userId, set.armed ?? null, set.failuresInRow ?? null, set.enabled ?? null, set.disabledReason !== undefined, set.disabledReason ?? null],
    );
  }

  /** What the month's requests ask for (failed charges do not count: no money moved). */
  async requestedInMonth(runner: SqlRunner, userId: string, month: string): Promise<bigint> {
    const result = await runner.query<{ total: string }>(
      `SELECT coalesce(sum(amount_atto), 0) AS total FROM user_topup_requests WHERE user_id = $1 AND month = $2::date AND status <> 'failed'`,
      [userId, month],
    );
    return toBigInt(result.rows[0]!.total);
  }

  async insertRequest(runner: SqlRunner, request: { requestId: string; userId: string; amountAtto: bigint; month: string }): Promise<void> {
    await runner.query('INSERT INTO user_topup_requests (request_id, user_id, amount_atto, month) VALUES ($1, $2, $3, $4::date)', [
      request.requestId,
      request.userId,
      request.amountAtto.toString(),
      request.month,
    ]);
  }

  async lockRequest(runner: SqlRunner, requestId: string): Promise<TopupRequest | null> {
    const result = await runner.query<{ request_id: string; user_id: string; amount_atto: string; status: 'requested' | 'failed'; failure_reason: string | null; created_at: Date }>(
      'SELECT request_id, user_id, amount_atto, status, failure_reason, created_at FROM user_topup_requests WHERE request_id = $1 FOR UPDATE',
      [requestId],
    );
    const r = result.rows[0];
    return r ? { requestId: r.request_id, userId: r.user_id, amountAtto: toBigInt(r.amount_atto), status: r.status, failureReason: r.failure_reason, createdAt: r.created_at } : null;
  }

  async markFailed(runner: SqlRunner, requestId: string, reason: string): Promise<void> {
    await runner.query(`UPDATE user_topup_requests SET status = 'failed', failure_reason = $2, failed_at = now() WHERE request_id = $1`, [requestId, reason]);
  }

  /** A credit posted with a request's reference: the charge went through, the failure run ends. */
  async resetFailuresFor(runner: SqlRunner, userId: string, reference: string): Promise<void> {
    await runner.query(
      `UPDATE user_auto_topups SET failures_in_row = 0 WHERE user_id = $1 AND failures_in_row > 0
         AND EXISTS (SELECT 1 FROM user_topup_requests WHERE request_id = $2 AND user_id = $1)`,
      [userId, reference],
    );
  }

  /** Users with balance thresholds or an enabled auto top-up (the sweep's work list), in id order. */
  async watchedUsers(runner: SqlRunner, afterUserId: string, limit: number): Promise<string[]> {
    const result = await runner.query<{ user_id: string }>(
      `SELECT user_id FROM (SELECT user_id FROM user_balance_alerts UNION SELECT user_id FROM user_auto_topups WHERE enabled) u
       WHERE user_id > $1 ORDER BY user_id LIMIT $2`,
      [afterUserId, limit],
    );
    return result.rows.map((r) => r.user_id);
  }
}

function toAutoTopup(r: AutoTopupRow): AutoTopup {
  return {
    userId: r.user_id,
    belowAtto: toBigInt(r.below_atto),
    amountAtto: toBigInt(r.amount_atto),
    maxPerMonthAtto: toBigInt(r.max_per_month_atto),
    enabled: r.enabled,
    armed: r.armed,
    failuresInRow: r.failures_in_row,
    disabledReason: r.disabled_reason,
  };
}

// API bodies of the spend controls (money as decimal strings).
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { AutoTopupState } from './balance-watch.service.js';
import type { BudgetView } from './budgets.service.js';

export function budgetBody(view: BudgetView) {
  return {
    budget_id: view.budgetId,
    limit_usd: formatAttoAsUsd(view.limitAtto),
    period: view.period,
    period_start: view.range.start?.toISOString() ?? null,
    period_end: view.range.end?.toISOString() ?? null,
    key_id: view.keyId,
    model: view.model,
    action: view.action,
    alert_at: view.alertAt,
    spent_usd: formatAttoAsUsd(view.spentAtto),
    held_usd: formatAttoAsUsd(view.heldAtto),
    remaining_usd: formatAttoAsUsd(view.remainingAtto),
  };
}

export function alertsBody(userId: string, alerts: ReadonlyArray<{ thresholdAtto: bigint; armed: boolean }>) {
  return { user_id: userId, balance_below_usd: alerts.map((a) => formatAttoAsUsd(a.thresholdAtto)), armed: alerts.map((a) => a.armed) };
}

export function autoTopupBody(state: AutoTopupState) {
  return {
    user_id: state.userId,
    below_usd: formatAttoAsUsd(state.belowAtto),
    amount_usd: formatAttoAsUsd(state.amountAtto),
    max_per_month_usd: formatAttoAsUsd(state.maxPerMonthAtto),
    enabled: state.enabled,
    armed: state.armed,
    failures_in_row: state.failuresInRow,
    disabled_reason: state.disabledReason,
    requested_this_month_usd: formatAttoAsUsd(state.requestedThisMonthAtto),
  };
}

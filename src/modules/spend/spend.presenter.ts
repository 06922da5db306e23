// API bodies of the spend controls (money as decimal strings).
import { formatAttoAsUsd } from '../../common/money/index.js';
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

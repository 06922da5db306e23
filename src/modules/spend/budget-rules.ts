// Which budgets a hold or event counts against, what remains, which block budget refuses a hold,
// and which alert thresholds are reached. Pure, exact (bigint atto-USD).
import type { BudgetPeriod } from './budget-periods.js';

export type BudgetAction = 'block' | 'notify';

export interface BudgetScope {
  keyId: string | null;
  model: string | null;
}

export interface Budget extends BudgetScope {
  userId: string;
  budgetId: string;
  limitAtto: bigint;
  period: BudgetPeriod;
  action: BudgetAction;
  /** Fractions of the limit as decimal text ("0.5", "0.8", "1"). */
  alertAt: string[];
}

export interface BudgetFigures {
  spentAtto: bigint;
  heldAtto: bigint;
}

/**
 * A budget scoped to a key and/or a model applies to what names them; an unscoped budget applies
 * to everything of the user. So a hold naming neither counts only against unscoped budgets.
 */
export function budgetApplies(budget: BudgetScope, item: BudgetScope): boolean {
  return (budget.keyId === null || budget.keyId === item.keyId) && (budget.model === null || budget.model === item.model);
}

export function remainingAtto(limitAtto: bigint, figures: BudgetFigures): bigint {
  const left = limitAtto - figures.spentAtto - figures.heldAtto;
  return left > 0n ? left : 0n;
}

/**
 * The block budget a hold of this amount would take past its limit (spent + held + amount >
 * limit), the one with the least remaining first; null when the hold fits every one.
 */
export function exceededBudget<B extends Budget & BudgetFigures>(budgets: readonly B[], amountAtto: bigint): B | null {
  let worst: B | null = null;
  for (const b of budgets) {
    if (b.action !== 'block' || b.spentAtto + b.heldAtto + amountAtto <= b.limitAtto) continue;
    if (worst === null || remainingAtto(b.limitAtto, b) < remainingAtto(worst.limitAtto, worst)) worst = b;
  }
  return worst;
}

/** A decimal fraction as numerator / 10^decimals, exactly. */
function fraction(text: string): { numerator: bigint; denominator: bigint } {
  const [whole, decimals = ''] = text.split('.');
  return { numerator: BigInt(`${whole}${decimals}`), denominator: 10n ** BigInt(decimals.length) };
}

/** The thresholds that spent has reached: spent >= threshold x limit, and something was spent. */
export function thresholdsReached(alertAt: readonly string[], spentAtto: bigint, limitAtto: bigint): string[] {
  if (spentAtto <= 0n) return [];
  return alertAt.filter((t) => {
    const { numerator, denominator } = fraction(t);
    return spentAtto * denominator >= numerator * limitAtto;
  });
}

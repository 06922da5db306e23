import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlRunner } from '../../database/database.service.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { userAccount } from '../ledger/account-codes.js';
import { WebhookOutbox, type WebhookEventInput } from '../webhooks/webhook-outbox.service.js';
import { periodKey, periodRange, type PeriodRange } from './budget-periods.js';
import { budgetApplies, exceededBudget, remainingAtto, thresholdsReached, type Budget, type BudgetFigures, type BudgetScope } from './budget-rules.js';
import { BudgetsRepository } from './budgets.repository.js';
import { SpendClock } from './spend-clock.js';
import { SpendRollupRepository } from './spend-rollup.repository.js';

export interface BudgetView extends Budget, BudgetFigures {
  range: PeriodRange;
  remainingAtto: bigint;
}

/** Users the alert sweep reads per page. */
const SWEEP_PAGE_USERS = 200;

/**
 * Budgets per user (optionally per key and/or model) over a UTC period. They act on holds, never
 * on usage events (the call has happened): a hold that would take a block budget past its limit is
 * refused. Spent is read when asked (at a hold, a list, the alert sweep) from the user's spend
 * rollup (spend-rollup.repository.ts), which the write path keeps for users with budgets only.
 */
@Injectable()
export class BudgetsService {
  constructor(
    private readonly db: DatabaseService,
    private readonly budgets: BudgetsRepository,
    private readonly clock: SpendClock,
    private readonly webhooks: WebhookOutbox,
    private readonly spendRollup: SpendRollupRepository,
  ) {}

  async put(budget: Budget): Promise<{ view: BudgetView; created: boolean }> {
    // Under the user's account row lock (the lock order of every write), once the spend rollup the
    // budget reads is on and complete: the first budget backfills it, reading the user's history
    // outside that lock, and is written with the backfill's last step.
    return this.spendRollup.withCompleteRollup(budget.userId, async (client) => {
      const created = await this.budgets.upsert(client, budget);
      const [view] = await this.views(client, budget.userId, [budget], this.clock.now());
      return { view: view!, created };
    });
  }

  async delete(userId: string, budgetId: string): Promise<void> {
    await this.db.transaction(async (client) => {
      // The account row lock first, as put() takes it: the last budget's deletion switches the
      // spend rollup off in the same order as every write that reads the flag.
      const locked = await client.query('SELECT 1 FROM accounts WHERE code = $1 FOR UPDATE', [userAccount(userId)]);
      if (!(await this.budgets.delete(client, userId, budgetId))) throw notFound('budget');
      if (locked.rowCount !== 0) await this.spendRollup.disableWithoutBudgets(client, userId);
    });
  }

  async list(userId: string): Promise<BudgetView[]> {
    const budgets = await this.budgets.listForUser(this.db.pool, userId);
    return this.views(this.db.pool, userId, budgets, this.clock.now());
  }

  /**
   * The user's budgets, read by the hold's transaction BEFORE it locks the user's account row, so
   * a user without budgets (most) adds nothing to the time that lock is held. A budget created
   * meanwhile is ordered after this hold, as if it had come a moment later.
   */
  budgetsOf(client: SqlRunner, userId: string): Promise<Budget[]> {
    return this.budgets.listForUser(client, userId);
  }

  /**
   * In the hold's transaction, after the user's account row is locked: that lock serializes the
   * user's holds, so the held amounts read here include every hold that committed before, and
   * racing holds can never together pass a limit. Refuses with 402 budget_exceeded; announces the
   * alert thresholds the budgets' spent has reached.
   */
  async checkHold(client: SqlRunner, budgets: readonly Budget[], hold: BudgetScope & { userId: string; amountAtto: bigint }): Promise<void> {
    if (budgets.length === 0) return;
    const now = this.clock.now();
    const views = await this.views(client, hold.userId, budgets.filter((b) => budgetApplies(b, hold)), now);
    const exceeded = exceededBudget(views, hold.amountAtto);
    if (exceeded) {
      throw new DomainError('budget_exceeded', `the hold would take budget ${exceeded.budgetId} past its limit`, {
        budget_id: exceeded.budgetId,
        remaining_usd: formatAttoAsUsd(exceeded.remainingAtto),
      });
    }
    await this.announceThresholds(client, views, now);
  }

  /** Worker: alert thresholds reached by spending since the users' last holds. */
  async sweepAlerts(): Promise<number> {
    let announced = 0;
    let after = '';
    for (;;) {
      const users = await this.budgets.usersWithBudgetAlerts(this.db.pool, after, SWEEP_PAGE_USERS);
      for (const userId of users) {
        announced += await this.db.transaction(async (client) => {
          const budgets = await this.budgets.listForUser(client, userId);
          return this.announceThresholds(client, await this.views(client, userId, budgets, this.clock.now()), this.clock.now());
        });
      }
      if (users.length < SWEEP_PAGE_USERS) return announced;
      after = users[users.length - 1]!;
    }
  }

  private async views(runner: SqlRunner, userId: string, budgets: readonly Budget[], now: Date): Promise<BudgetView[]> {
    const ranges = new Map(budgets.map((b) => [b.budgetId, periodRange(b.period, now)]));
    const figures = await this.budgets.figures(
      runner,
      userId,
      budgets.map((b) => ({ budgetId: b.budgetId, ...ranges.get(b.budgetId)!, keyId: b.keyId, model: b.model })),
    );
    return budgets.map((b) => {
      const f = figures.get(b.budgetId) ?? { spentAtto: 0n, heldAtto: 0n };
      return { ...b, ...f, range: ranges.get(b.budgetId)!, remainingAtto: remainingAtto(b.limitAtto, f) };
    });
  }

  /** user.budget_threshold_crossed once per budget, threshold and period (a row records it). */
  private async announceThresholds(runner: SqlRunner, views: readonly BudgetView[], now: Date): Promise<number> {
    const events: WebhookEventInput[] = [];
    for (const view of views) {
      for (const threshold of thresholdsReached(view.alertAt, view.spentAtto, view.limitAtto)) {
        const periodStart = periodKey(view.range);
        if (!(await this.budgets.recordAlertIfNew(runner, { userId: view.userId, budgetId: view.budgetId, periodStart, threshold }))) continue;
        events.push({
          type: 'user.budget_threshold_crossed',
          data: {
            user_id: view.userId,
            budget_id: view.budgetId,
            threshold,
            spent_usd: formatAttoAsUsd(view.spentAtto),
            limit_usd: formatAttoAsUsd(view.limitAtto),
            period_start: view.range.start?.toISOString() ?? null,
          },
          occurredAt: now,
          dedupeKey: `user.budget_threshold_crossed:${view.userId}:${view.budgetId}:${periodStart.toISOString()}:${threshold}`,
        });
      }
    }
    if (events.length > 0) await this.webhooks.emit(runner, events);
    return events.length;
  }
}

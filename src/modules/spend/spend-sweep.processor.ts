import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SCHEDULERS, WORKER_OPTIONS } from '../../queue/jobs.js';
import { OnJob } from '../../queue/on-job.js';
import { JOB_SPEND_SWEEP, QUEUE_SPEND } from '../../queue/queue-names.js';
import { ScheduledJobProcessor } from '../../queue/scheduled-job-processor.js';
import { BalanceWatchService } from './balance-watch.service.js';
import { BudgetsService } from './budgets.service.js';
import { GrantsService } from './grants.service.js';

/**
 * Spending happens on the usage write path, which does no spend-control work: this schedule looks
 * at the watched users' budgets and balances instead (alerts, auto top-up requests), and moves
 * what is left of expired credit grants to revenue (breakage, once per grant).
 */
@Processor(QUEUE_SPEND, WORKER_OPTIONS[QUEUE_SPEND])
export class SpendSweepProcessor extends ScheduledJobProcessor {
  private readonly logger = new Logger('SpendSweep');

  constructor(
    private readonly budgets: BudgetsService,
    private readonly watch: BalanceWatchService,
    private readonly grants: GrantsService,
    @InjectQueue(QUEUE_SPEND) queue: Queue,
  ) {
    super(queue, [SCHEDULERS.spendSweep]);
  }

  @OnJob(JOB_SPEND_SWEEP)
  async sweep(): Promise<{ budget_alerts: number; balance_webhooks: number; grants_broken: number }> {
    // Breakage first: the balance thresholds then see balances without the expired grants.
    const grantsBroken = await this.grants.breakDue();
    const budgetAlerts = await this.budgets.sweepAlerts();
    const balanceWebhooks = await this.watch.sweep();
    if (budgetAlerts + balanceWebhooks > 0) this.logger.log(`announced ${budgetAlerts} budget alerts, ${balanceWebhooks} balance webhooks`);
    return { budget_alerts: budgetAlerts, balance_webhooks: balanceWebhooks, grants_broken: grantsBroken };
  }
}

import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { SCHEDULERS, scheduledJob } from '../../queue/jobs.js';
import { QUEUE_SETTLEMENT } from '../../queue/queue-names.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../chain/payout-chain.provider.js';
import { isDatabaseUnavailable } from '../../common/errors/database-errors.js';
import { SettlementService } from './creation/settlement.service.js';

const { settlementRun, settlementFinality } = SCHEDULERS;
/** While Postgres is unavailable at the worker's start, the re-enqueue is tried again this often, this long. */
const REQUEUE_RETRY_MS = 1_000;
const REQUEUE_RETRY_FOR_MS = 10 * 60_000;

/**
 * Worker start: (re)declares the cron scheduler and the finality re-check, and re-enqueues sends a
 * crash or Redis loss left behind.
 */
@Injectable()
export class SettlementSchedulerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SettlementScheduler');
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PAYOUT_CHAIN) private readonly chain: PayoutChainHandle,
    @InjectQueue(QUEUE_SETTLEMENT) private readonly queue: Queue,
    private readonly settlements: SettlementService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.chain.client) {
      this.logger.warn(this.chain.disabledReason ?? 'settlement disabled');
      await this.queue.removeJobScheduler(settlementRun.id);
      await this.queue.removeJobScheduler(settlementFinality.id);
      return;
    }
    // Independent of SETTLEMENT_SCHEDULER_ENABLED: payouts sent by an admin need watching too.
    await this.queue.upsertJobScheduler(settlementFinality.id, settlementFinality.repeat, scheduledJob(settlementFinality.job));
    if (this.config.SETTLEMENT_SCHEDULER_ENABLED) {
      await this.queue.upsertJobScheduler(settlementRun.id, { pattern: this.config.SETTLEMENT_CRON, tz: 'UTC' }, scheduledJob(settlementRun.job));
      this.logger.log(`settlement scheduled on "${this.config.SETTLEMENT_CRON}" (UTC)`);
    } else {
      await this.queue.removeJobScheduler(settlementRun.id);
    }
    try {
      await this.requeue();
    } catch (error) {
      // Postgres restarting as the worker starts (seed 90210 of the soak): the worker starts all
      // the same (its other jobs wait for the database themselves) and re-enqueues once it is back.
      if (!isDatabaseUnavailable(error)) throw error;
      this.logger.warn(`database unavailable at start (${(error as Error).message}); re-enqueueing unfinished settlements once it is back`);
      void this.requeueWhenAvailable(Date.now() + REQUEUE_RETRY_FOR_MS);
    }
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }

  private async requeue(): Promise<void> {
    const requeued = await this.settlements.requeueSendable();
    if (requeued > 0) this.logger.log(`re-enqueued ${requeued} unfinished settlement(s)`);
  }

  private async requeueWhenAvailable(untilMs: number): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, REQUEUE_RETRY_MS).unref());
      if (this.stopped) return;
      try {
        return await this.requeue();
      } catch (error) {
        if (!isDatabaseUnavailable(error) || Date.now() > untilMs) return void this.logger.error(`re-enqueueing unfinished settlements failed: ${(error as Error).message}`);
      }
    }
  }
}

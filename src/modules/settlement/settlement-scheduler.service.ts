import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { SCHEDULERS, scheduledJob } from '../../queue/jobs.js';
import { QUEUE_SETTLEMENT } from '../../queue/queue-names.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../chain/payout-chain.provider.js';
import { SettlementService } from './creation/settlement.service.js';

const { settlementRun, settlementFinality } = SCHEDULERS;

/**
 * Worker start: (re)declares the cron scheduler and the finality re-check, and re-enqueues sends a
 * crash or Redis loss left behind.
 */
@Injectable()
export class SettlementSchedulerService implements OnApplicationBootstrap {
  private readonly logger = new Logger('SettlementScheduler');

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
    const requeued = await this.settlements.requeueSendable();
    if (requeued > 0) this.logger.log(`re-enqueued ${requeued} unfinished settlement(s)`);
  }
}

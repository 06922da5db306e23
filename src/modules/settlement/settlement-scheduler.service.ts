import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { JOB_SETTLEMENT_FINALITY, JOB_SETTLEMENT_RUN, QUEUE_SETTLEMENT, SETTLEMENT_FINALITY_EVERY_MS } from '../../queue/queue-names.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from './chain/payout-chain.provider.js';
import { SettlementService } from './statement/settlement.service.js';

export const SETTLEMENT_SCHEDULER_ID = 'settlement-cron';
export const SETTLEMENT_FINALITY_SCHEDULER_ID = 'settlement-finality';
const RUN_JOB_ATTEMPTS = 3;
const RUN_JOB_BACKOFF_MS = 30_000;

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
      await this.queue.removeJobScheduler(SETTLEMENT_SCHEDULER_ID);
      await this.queue.removeJobScheduler(SETTLEMENT_FINALITY_SCHEDULER_ID);
      return;
    }
    // Independent of SETTLEMENT_SCHEDULER_ENABLED: payouts sent by an admin need watching too.
    await this.queue.upsertJobScheduler(
      SETTLEMENT_FINALITY_SCHEDULER_ID,
      { every: SETTLEMENT_FINALITY_EVERY_MS },
      { name: JOB_SETTLEMENT_FINALITY, data: {}, opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
    );
    if (this.config.SETTLEMENT_SCHEDULER_ENABLED) {
      await this.queue.upsertJobScheduler(
        SETTLEMENT_SCHEDULER_ID,
        { pattern: this.config.SETTLEMENT_CRON, tz: 'UTC' },
        { name: JOB_SETTLEMENT_RUN, data: {}, opts: { attempts: RUN_JOB_ATTEMPTS, backoff: { type: 'exponential', delay: RUN_JOB_BACKOFF_MS }, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
      );
      this.logger.log(`settlement scheduled on "${this.config.SETTLEMENT_CRON}" (UTC)`);
    } else {
      await this.queue.removeJobScheduler(SETTLEMENT_SCHEDULER_ID);
    }
    const requeued = await this.settlements.requeueSendable();
    if (requeued > 0) this.logger.log(`re-enqueued ${requeued} unfinished settlement(s)`);
  }
}

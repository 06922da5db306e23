import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_SETTLEMENT } from '../../queue/queue-names.js';
import { SettlementSchedulerService } from './settlement-scheduler.service.js';
import { SettlementProcessor } from './settlement.processor.js';
import { SettlementModule } from './settlement.module.js';

/** Worker only: the `settlement` queue's processor and its cron scheduler. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUE_SETTLEMENT }), SettlementModule],
  providers: [SettlementProcessor, SettlementSchedulerService],
})
export class SettlementQueueModule {}
